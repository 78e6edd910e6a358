package repl

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// TestPosteriorInSession: the posterior calls work through the
// interpreter as compiled: PredictCov's SymDense, Sample with a
// math/rand/v2 source made in a cell, SampleWith with sgp.SampleOptions,
// PredictGrad and its error for a sum kernel, figure.Samples, and a fit
// with a fixed and a bounded hyperparameter. The values a cell prints
// (to 17 digits) match the same calls made here, compiled.
func TestPosteriorInSession(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})

	// The same model and inputs, compiled.
	train, _ := data.SnelsonLike(60, 1)
	newModel := func() *sgp.Model {
		return sgp.NewModel(train.X, train.Y, kernel.NewRBF(0.7, []float64{0.6})).WithM(6).WithSeed(1)
	}
	m := newModel()
	xs, err := kernel.NewVectors(4, 1, []float64{0.5, 0.6, 2, 4})
	if err != nil {
		t.Fatal(err)
	}
	mean, cov, err := m.PredictCov(xs)
	if err != nil {
		t.Fatal(err)
	}
	draws, err := m.Sample(xs, 3, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	noisy, err := m.SampleWith(xs, 2, rand.New(rand.NewPCG(3, 4)), sgp.SampleOptions{Noisy: true, Method: sgp.SampleFactored})
	if err != nil {
		t.Fatal(err)
	}
	dmean, dvar, err := m.PredictGrad(xs)
	if err != nil {
		t.Fatal(err)
	}

	setup := "import (\n\t\"math/rand/v2\"\n\t\"strings\"\n)\n" +
		"train, _ := data.SnelsonLike(60, 1)\n" +
		"m := sgp.NewModel(train.X, train.Y, kernel.NewRBF(0.7, []float64{0.6})).WithM(6).WithSeed(1)\n" +
		"xs, _ := kernel.NewVectors(4, 1, []float64{0.5, 0.6, 2, 4})"
	evalCells(t, s, setup)

	for i, c := range []struct {
		cell string
		text string    // a prefix of the value's text, or
		want []float64 // the numbers it prints, against the compiled ones
		png  bool
	}{
		{cell: "mean, cov, err := m.PredictCov(xs)\ncov", text: "4×4 *mat.SymDense\n"},
		{cell: "fmt.Sprintf(\"%.17g %.17g %.17g\", cov.At(0, 1), cov.At(3, 3), mean[2])",
			want: []float64{cov.At(0, 1), cov.At(3, 3), mean[2]}},
		{cell: "draws, err := m.Sample(xs, 3, rand.New(rand.NewPCG(1, 2)))\ndraws", text: "4×3 *mat.Dense\n"},
		{cell: "fmt.Sprintf(\"%.17g %.17g\", draws.At(0, 0), draws.At(2, 1))",
			want: []float64{draws.At(0, 0), draws.At(2, 1)}},
		{cell: "noisy, err := m.SampleWith(xs, 2, rand.New(rand.NewPCG(3, 4)), sgp.SampleOptions{Noisy: true, Method: sgp.SampleFactored})\n" +
			"fmt.Sprintf(\"%.17g %.17g\", noisy.At(1, 0), noisy.At(3, 1))",
			want: []float64{noisy.At(1, 0), noisy.At(3, 1)}},
		{cell: "dmean, dvar, err := m.PredictGrad(xs)\nfmt.Sprintf(\"%.17g %.17g\", dmean.At(1, 0), dvar.At(2, 0))",
			want: []float64{dmean.At(1, 0), dvar.At(2, 0)}},
		{cell: "sum := sgp.NewModel(train.X, train.Y, kernel.NewSum(kernel.NewRBF(0.7, []float64{0.6}), kernel.NewLinear([]float64{1}))).WithM(6)\n" +
			"_, _, gerr := sum.PredictGrad(xs)\ngerr != nil && strings.Contains(gerr.Error(), \"gradient\")", text: "true"},
		{cell: "figure.Samples(m, 3, 1, \"\")", text: "Figure(", png: true},
		{cell: "fm := sgp.NewModel(train.X, train.Y, kernel.NewRBF(0.7, []float64{0.6})).WithM(6).WithSeed(1).WithMaxEpochs(2).\n" +
			"\tWithFixedAt(\"noise\", 0.05).WithBounds(\"lengthscale[0]\", 0.1, 0.2)\nfr, _ := fm.Fit()\nfr",
			text: "fit "},
	} {
		res, err := s.Eval(context.Background(), c.cell)
		if err != nil || res == nil || res.Value == nil {
			t.Fatalf("cell %d %q: %v", i, c.cell, err)
		}
		v := res.Value
		if !strings.HasPrefix(v.Text, c.text) {
			t.Errorf("cell %d %q: text %q, want it to start with %q", i, c.cell, v.Text, c.text)
		}
		if c.png && !bytes.HasPrefix(v.PNG, []byte("\x89PNG")) {
			t.Errorf("cell %d %q: no PNG", i, c.cell)
		}
		if c.want == nil {
			continue
		}
		fields := strings.Fields(v.Text)
		if len(fields) != len(c.want) {
			t.Fatalf("cell %d %q: %q, want %d numbers", i, c.cell, v.Text, len(c.want))
		}
		for j, f := range fields {
			got, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("cell %d: %q: %v", i, f, err)
			}
			if w := c.want[j]; math.Abs(got-w) > 1e-12*math.Max(1, math.Abs(w)) {
				t.Errorf("cell %d %q: number %d is %.17g in the session, %.17g compiled", i, c.cell, j, got, w)
			}
		}
	}

	// The fixed and bounded fit says so in its display.
	res, err := s.Eval(context.Background(), "fr")
	if err != nil || res.Value == nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fixed            noise=0.05", "bounds           lengthscale[0] in [0.1, 0.2]"} {
		if !strings.Contains(res.Value.Text, want) {
			t.Errorf("fixed and bounded fit: %q, want %q in it", res.Value.Text, want)
		}
	}
}
