package kernel_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"
)

// FuzzParseSpec: any specification is refused with an error about the
// kernel it names, or gives a kernel of the inputs it reads; a specification
// SplitSpec accepts reads back to the same name.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"rbf", "matern52+linear", "periodic*rbf", "(rbf+linear)*const", "rq * (matern12 + const)",
		"wl:3", "histogram:2", "rbf+", "((", "matern52:1", "linear*linear*linear", "RBF + Periodic",
		"((((rbf*rbf+rbf)*const+const)*const+const)*const+const)*const+const", "(((rbf*rbf+rbf)*const+const)*const+const)*const+const",
		strings.Repeat("rbf+", kernel.MaxLeaves) + "rbf"} {
		f.Add(s)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	rows := make([][]float64, 12)
	for i := range rows {
		rows[i] = []float64{rnd.NormFloat64(), rnd.NormFloat64()}
	}
	x, err := kernel.VectorsFromRows(rows)
	if err != nil {
		f.Fatal(err)
	}
	y := make([]float64, len(rows))
	for i := range y {
		y[i] = rows[i][0] + rnd.NormFloat64()
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if len(spec) > 8000 {
			return
		}
		name, _, err := kernel.SplitSpec(spec)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "sgp: kernel") && !strings.HasPrefix(msg, "sgp: unknown kernel") {
				t.Fatalf("SplitSpec(%q): error %q does not say which kernel", spec, err)
			}
			return
		}
		if again, _, err := kernel.SplitSpec(name); err != nil || again != name {
			t.Fatalf("SplitSpec(%q) = %q, which reads back as %q, %v", spec, name, again, err)
		}
		if !kernel.NumericSpec(name) {
			return
		}
		k, err := kernel.Parse(spec, x, y)
		if err != nil {
			t.Fatalf("Parse(%q): %v after SplitSpec accepted it", spec, err)
		}
		if err := k.Accepts(x); err != nil {
			t.Fatalf("Parse(%q) = %s, which refuses the inputs: %v", spec, kernel.Text(k), err)
		}
		d, err := kernel.Describe(k)
		if err != nil {
			t.Fatalf("Parse(%q): %v", spec, err)
		}
		if _, err := kernel.FromDescription(d); err != nil {
			t.Fatalf("Parse(%q) = %s, whose description does not load: %v", spec, kernel.Text(k), err)
		}
		// The description as a model file holds it reads back.
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := kernel.ReadDescription(json.NewDecoder(bytes.NewReader(b)))
		if err != nil {
			t.Fatalf("Parse(%q): its description's JSON does not read back: %v", spec, err)
		}
		if _, err := kernel.FromDescription(rd); err != nil {
			t.Fatalf("Parse(%q): its description's JSON does not load: %v", spec, err)
		}
	})
}
