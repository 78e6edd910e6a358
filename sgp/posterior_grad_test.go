package sgp

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"
)

// gradKernels are the kernels with input gradients, on 2-D inputs.
func gradKernels() map[string]func() kernel.Kernel {
	return map[string]func() kernel.Kernel{
		"rbf":      func() kernel.Kernel { return kernel.NewRBF(1.1, []float64{0.9, 1.3}) },
		"matern32": func() kernel.Kernel { return kernel.NewMatern(1.5, 1.2, []float64{1.1, 0.8}) },
		"matern52": func() kernel.Kernel { return kernel.NewMatern(2.5, 0.9, []float64{1.0, 1.4}) },
		"rq":       func() kernel.Kernel { return kernel.NewRQ(1.0, []float64{0.8, 1.2}, 1.7) },
		"periodic": func() kernel.Kernel { return kernel.NewPeriodic(1.0, []float64{1.0, 1.5}, []float64{2.5, 3.0}) },
		"linear":   func() kernel.Kernel { return kernel.NewLinear([]float64{0.7, 1.3}) },
	}
}

// TestPredictGradFiniteDifferences checks PredictGrad of a sparse model
// and of the exact GP against central differences of Predict's mean and
// variance, for every kernel with input gradients.
func TestPredictGradFiniteDifferences(t *testing.T) {
	t.Parallel()
	const h = 1e-5
	rng := rand.New(rand.NewPCG(47, 1))
	pp := newPostProblem(rng, 40)
	test := make([][]float64, 70) // more than one block of inputGradBlock
	for i := range test {
		test[i] = []float64{4 * rng.Float64(), 4 * rng.Float64()}
	}
	xs, _ := kernel.VectorsFromRows(test)
	for name, mk := range gradKernels() {
		sp, err := NewModel(pp.x, pp.y, mk()).WithInducing(rng.Perm(40)[:10]).WithNoise(0.05).WithFixedHyperparameters(true).Predictor()
		if err != nil {
			t.Fatal(err)
		}
		ex, err := NewExact(pp.x, pp.y, mk()).WithNoise(0.05).WithFixedHyperparameters(true).Fit()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []Regressor{sp, ex.Predictor} {
			dm, dv, err := r.PredictGrad(xs)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var worst float64
			for i, row := range test {
				for d := range row {
					up := append([]float64(nil), row...)
					dn := append([]float64(nil), row...)
					up[d] += h
					dn[d] -= h
					xu, _ := kernel.VectorsFromRows([][]float64{up, dn})
					m, v, err := r.Predict(xu)
					if err != nil {
						t.Fatal(err)
					}
					fm, fv := (m[0]-m[1])/(2*h), (v[0]-v[1])/(2*h)
					em := math.Abs(dm.At(i, d)-fm) / (1 + math.Abs(fm))
					ev := math.Abs(dv.At(i, d)-fv) / (1 + math.Abs(fv))
					worst = math.Max(worst, math.Max(em, ev))
					if em > 1e-6 || ev > 1e-6 {
						t.Errorf("%s %T point %d dim %d: ∂mean %.9g (differences %.9g), ∂var %.9g (%.9g)", name, r, i, d, dm.At(i, d), fm, dv.At(i, d), fv)
					}
				}
			}
			t.Logf("%s %T: largest relative error against central differences %.2g", name, r, worst)
		}
	}
}

// TestPredictGradErrors checks the errors for a kernel without input
// gradients and for inputs that are not vectors.
func TestPredictGradErrors(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(47, 2))
	pp := newPostProblem(rng, 20)
	sum := kernel.NewSum(kernel.NewRBF(1, []float64{1, 1}), kernel.NewLinear([]float64{1, 1}))
	p, err := NewModel(pp.x, pp.y, sum).WithM(5).WithFixedHyperparameters(true).Predictor()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.PredictGrad(pp.x); err == nil || !strings.Contains(err.Error(), "no input gradients") {
		t.Errorf("sum kernel: %v", err)
	}
	words, _ := kernel.NewStrings([]string{"ab", "ba", "abc", "cab", "b", "aab"})
	ex, err := NewExact(words, []float64{1, 2, 3, 1, 2, 4}, kernel.NewConst(1)).WithNoise(0.5).WithFixedHyperparameters(true).Fit()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ex.Predictor.PredictGrad(words); err == nil || !strings.Contains(err.Error(), "vector inputs") {
		t.Errorf("strings: %v", err)
	}
}
