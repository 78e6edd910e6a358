package sgp

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/stats"
	"github.com/cholqr/sgp/sgp/kernel"
)

// rangeData returns n rows of one input, x_i = xs·u_i with u_i uniform in
// [−1, 1], and targets ys·(sin 3u_i + noise).
func rangeData(t *testing.T, n int, xs, ys float64) (*kernel.Vectors, []float64) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(3, 4))
	rows, y := make([][]float64, n), make([]float64, n)
	for i := range rows {
		u := 2*rnd.Float64() - 1
		rows[i] = []float64{xs * u}
		y[i] = ys * (math.Sin(3*u) + 0.3*rnd.NormFloat64())
	}
	x, err := kernel.VectorsFromRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	return x, y
}

// fitEvery fits k to x, y by each path (the sparse model with CholQR,
// the exact GP, continuous SGPR; the hybrid selector for an RBF) and returns their errors by name, with
// the saved and loaded model's error where the fit succeeded.
func fitEvery(t *testing.T, x *kernel.Vectors, y []float64, k kernel.Kernel, mn Mean) map[string]error {
	t.Helper()
	errs := map[string]error{}
	var buf bytes.Buffer
	md := NewModel(x, y, k).WithM(8).WithMaxEpochs(2).WithMean(mn)
	if _, err := md.Fit(); err != nil {
		errs["cholqr"] = err
	} else if err := md.Save(&buf); err != nil {
		errs["cholqr"] = err
	} else if _, err := LoadPredictor(&buf); err != nil {
		t.Errorf("cholqr saved a model that does not load: %v", err)
	}
	if _, err := NewExact(x, y, k).WithMean(mn).WithMaxEvals(5).Fit(); err != nil {
		errs["exact"] = err
	}
	if _, ok := k.(*kernel.RBF); ok {
		if _, err := NewModel(x, y, k).WithM(8).WithMaxEpochs(1).WithMean(mn).WithSelector(SelectHybrid).Fit(); err != nil {
			errs["hybrid"] = err
		}
	}
	if _, ok := k.(kernel.InputGradient); !ok {
		return errs // continuous SGPR takes no sums or products
	}
	if _, err := NewContinuous(x, y, k).WithM(8).WithMean(mn).WithMaxEvals(5).Fit(); err != nil {
		errs["continuous"] = err
	}
	return errs
}

// TestHugeFiniteData: targets or inputs too large or too small for the
// fits (targets ≈ 1e155, an input range beyond MaxFloat64, inputs ≈
// 1e-300) give every kernel from the data, and every fit an error naming
// what to scale, never a panic.
func TestHugeFiniteData(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		xs, ys float64
		want   string
	}{
		{"targets 1e155", 1, 1e155, "targets' variance"},
		{"targets 1e-140", 1, 1e-140, "targets' variance"},
		{"input range overflows", 1.7e308, 1, "scale the inputs"},
		{"inputs 1e-300", 1e-300, 1, "scale the inputs"},
	}
	for _, c := range cases {
		x, y := rangeData(t, 60, c.xs, c.ys)
		for _, spec := range []string{"rbf", "matern12", "matern32", "matern52", "rq", "periodic", "rbf+linear", "(matern52+const)*rq"} {
			k, err := kernel.Parse(spec, x, y) // panicked for rbf: NewRBF of var(y) = +Inf
			if err != nil {
				t.Fatalf("%s, %s: Parse: %v", c.name, spec, err)
			}
			for path, err := range fitEvery(t, x, y, k, MeanConstant) {
				if err == nil {
					t.Errorf("%s, %s, %s: no error", c.name, spec, path)
				} else if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "panic") {
					t.Errorf("%s, %s, %s: error %q does not say %q", c.name, spec, path, msg, c.want)
				}
			}
			if !strings.Contains(spec, "+") { // the FromData constructors themselves
				for _, mk := range []func() kernel.Kernel{
					func() kernel.Kernel { return kernel.NewRBFFromData(x, y) },
					func() kernel.Kernel { return kernel.NewMaternFromData(2.5, x, y) },
					func() kernel.Kernel { return kernel.NewRQFromData(x, y) },
					func() kernel.Kernel { return kernel.NewPeriodicFromData(x, y) },
					func() kernel.Kernel { return kernel.NewLinearFromData(x, y) },
				} {
					mk()
				}
			}
		}
	}
}

// TestFitSavesWhatLoads: whatever a fit saves loads back, or the fit (or
// the save) fails with an error: hyperparameters set beyond the file's
// range, a linear kernel of an input that is 0 (κ = 0) or whose squares
// overflow, a fixed mean far from the targets, a variance set to 1e308.
func TestFitSavesWhatLoads(t *testing.T) {
	t.Parallel()
	x, y := rangeData(t, 60, 1, 1)
	zero, err := kernel.NewVectors(60, 1, make([]float64, 60))
	if err != nil {
		t.Fatal(err)
	}
	big, _ := rangeData(t, 60, 1e200, 1)
	cases := []struct {
		name string
		x    *kernel.Vectors
		k    kernel.Kernel
		mn   Mean
		want string
	}{
		{"lengthscale 1e300", x, kernel.NewRBF(1, []float64{1e300}), MeanConstant, "lengthscale[0]"},
		{"lengthscale 1e-280", x, kernel.NewRBF(1, []float64{1e-280}), MeanConstant, "lengthscale[0]"},
		{"variance 1e308", x, kernel.NewRBF(1e308, []float64{1}), MeanConstant, "variance"},
		{"linear of zeros", zero, kernel.NewLinear([]float64{1}), MeanConstant, "0 at every training input"},
		{"linear of 1e200", big, kernel.NewLinear([]float64{1}), MeanConstant, "not finite"},
		{"mean 1e308", x, kernel.NewRBF(1, []float64{1}), MeanFixed(1e308), "prior mean"},
	}
	for _, c := range cases {
		for path, err := range fitEvery(t, c.x, y, c.k, c.mn) {
			if err == nil {
				t.Errorf("%s, %s: no error", c.name, path)
			} else if !strings.Contains(err.Error(), c.want) && !(c.want == "not finite" && strings.Contains(err.Error(), "+Inf")) {
				t.Errorf("%s, %s: error %q does not say %q", c.name, path, err, c.want)
			}
		}
	}
}

// TestSaveRefusesUnloadable: a predictor that would not load is not
// saved, with an error of sgp's (not encoding/json's "unsupported value"),
// and nothing is written.
func TestSaveRefusesUnloadable(t *testing.T) {
	t.Parallel()
	x, y := rangeData(t, 60, 1, 1)
	md := NewModel(x, y, kernel.NewRBF(1, []float64{0.5})).WithM(6).WithMaxEpochs(1)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	p, err := md.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func(q *Predictor){
		"noise NaN":       func(q *Predictor) { q.NoiseV = math.NaN() },
		"mean -Inf":       func(q *Predictor) { q.PriorMean = math.Inf(-1) },
		"lengthscale":     func(q *Predictor) { q.Kern = kernel.NewRBF(1, []float64{math.Exp(kernel.MaxLogParameter + 5)}) },
		"deep sum kernel": func(q *Predictor) { q.Kern = deepSum(kernel.MaxNesting + 1) },
	} {
		q := *p
		spoil(&q)
		var buf bytes.Buffer
		err := q.Save(&buf)
		if err == nil {
			t.Errorf("%s: saved", name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "sgp: ") || strings.Contains(err.Error(), "json: unsupported") {
			t.Errorf("%s: error %q", name, err)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: %d bytes written", name, buf.Len())
		}
	}
}

// deepSum returns a sum of one input nested depth deep.
func deepSum(depth int) kernel.Kernel {
	k := kernel.Kernel(kernel.NewRBF(1, []float64{1}))
	for range depth - 1 {
		k = kernel.NewSum(k, kernel.NewConst(0.1))
	}
	return kernel.NewSum(k, kernel.NewConst(0.1))
}

// TestNoiseFloorStart: the sparse fit starts σ² above the floor set, as
// the exact GP and continuous SGPR do, so that a fit that stops at its
// start does not end below the floor.
func TestNoiseFloorStart(t *testing.T) {
	t.Parallel()
	x, y := rangeData(t, 200, 1, 1)
	k := kernel.NewRBFFromData(x, y)
	if v := stats.Variance(y) / 4; !(v < 1) {
		t.Fatalf("var(y)/4 = %g: the test needs a start below the floor 1", v)
	}
	for _, sel := range []Selector{SelectCholQR, SelectGreedyVariance, SelectRandom, SelectTitsias(4), SelectHybrid} {
		md := NewModel(x, y, k).WithM(8).WithNoiseFloor(1).WithSelector(sel)
		if err := md.Build(t.Context()); err != nil {
			t.Fatal(err)
		}
		th := md.Params()
		if s2 := math.Exp(th[len(th)-1]); !(s2 >= 1) {
			t.Errorf("%v: σ² starts at %g, below the floor 1", sel, s2)
		}
	}
}
