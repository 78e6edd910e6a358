package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHybridNoWorseThanSgprContinuous: without a time budget, `fit
// --selector hybrid` ends no higher than `fit --selector sgpr-continuous`
// and `--selector cholqr` with the same seed and m, on raw targets around
// 10⁴ (sd about 12): the hybrid runs both fits, with the same jitter on
// K[Z,Z], and keeps the lower, so the objectives agree to rounding.
func TestHybridNoWorseThanSgprContinuous(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("about 10 s")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(32, 2))
	var b strings.Builder
	b.WriteString("a,b,c,y\n")
	for i := 0; i < 600; i++ {
		x := []float64{5 * rng.Float64(), 5 * rng.Float64(), 5 * rng.Float64()}
		y := 1e4 + 20*math.Sin(x[0])*math.Cos(x[1]) + 5*x[2] + rng.NormFloat64()
		for _, v := range append(x, y) {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
		}
		b.WriteString("\n")
	}
	data := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(data, []byte(strings.ReplaceAll(b.String(), ",\n", "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	fit := func(sel string) float64 {
		var out, errb bytes.Buffer
		if code := Main(context.Background(), []string{"fit", "--train", data, "--selector", sel, "--m", "16", "--seed", "1",
			"--max-epochs", "30", "--json", "--quiet"}, nil, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", sel, code, errb.String())
		}
		var rep struct {
			Objective float64 `json:"objective"`
		}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		return rep.Objective
	}
	hyb, cont, chol := fit("hybrid"), fit("sgpr-continuous"), fit("cholqr")
	t.Logf("F: hybrid %.10g, sgpr-continuous %.10g, cholqr %.10g", hyb, cont, chol)
	for _, p := range []struct {
		name string
		f    float64
	}{{"sgpr-continuous", cont}, {"cholqr", chol}} {
		if hyb > p.f+1e-9*math.Abs(p.f) {
			t.Errorf("hybrid F %.10g above %s's %.10g", hyb, p.name, p.f)
		}
	}
}
