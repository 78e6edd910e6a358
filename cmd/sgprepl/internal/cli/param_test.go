package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFitParamStart: fit --param sets a hyperparameter's starting value by
// its name, the others starting from the data. A periodic kernel started
// at the data's period ends there; started near half of it, it ends in
// another optimum, so the start is the one given. An unknown name is a
// usage error that lists the kernel's names.
func TestFitParamStart(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	var b strings.Builder
	b.WriteString("x,y\n")
	for i := range 60 {
		x := 30 * float64(i) / 60
		fmt.Fprintf(&b, "%g,%g\n", x, math.Sin(2*math.Pi*x/6)+0.05*rng.NormFloat64())
	}
	train := writeFile(t, t.TempDir(), "periodic.csv", b.String())
	fit := func(start string) (float64, map[string]float64) {
		t.Helper()
		code, stdout, stderr := runMain(context.Background(), "fit", "--train", train, "--kernel", "periodic",
			"--selector", "exact", "--quiet", "--json", "--param", "period[0]="+start)
		if code != 0 {
			t.Fatalf("--param period[0]=%s: exit %d: %s", start, code, stderr)
		}
		var rep struct {
			Objective       float64            `json:"objective"`
			Hyperparameters map[string]float64 `json:"hyperparameters"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		return rep.Objective, rep.Hyperparameters
	}
	fAt, hAt := fit("6")
	if p := hAt["period[0]"]; math.Abs(p-6) > 0.3 {
		t.Errorf("started at the period 6, the fit ends at period %g", p)
	}
	fHalf, hHalf := fit("2.9")
	if !(fHalf > fAt+10) {
		t.Errorf("started at period 2.9 the fit ends at F = %g (period %g), started at 6 at F = %g: the start was not used",
			fHalf, hHalf["period[0]"], fAt)
	}
	code, _, stderr := runMain(context.Background(), "fit", "--train", train, "--kernel", "periodic", "--param", "perod=3")
	if code != exitUsage || !strings.Contains(stderr, `no hyperparameter "perod"`) || !strings.Contains(stderr, "period[0]") {
		t.Errorf("--param perod=3: exit %d, %q; want exit %d naming the kernel's hyperparameters", code, stderr, exitUsage)
	}
}
