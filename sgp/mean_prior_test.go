package sgp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"
)

// twoValuedData builds the data of issue 32 §1 synthetically: five inputs
// take only the values 0 and 10⁻⁴, two are uniform on [0, 1], and the
// targets (standardised, mean 0 and variance 1) depend on the indicators
// with interactions. No training row has the first three indicators on
// together; the test rows returned all do, a combination of the tiny
// inputs the kernel has not seen. ARD lengthscales fitted to the tiny
// inputs let the kernel carry a near-constant component, which is where
// the generalised least-squares mean is weakly identified.
func twoValuedData(n, nTest int) (x *kernel.Vectors, y []float64, xt *kernel.Vectors, yt []float64) {
	rng := rand.New(rand.NewPCG(32, 1))
	const tiny = 1e-4
	w := []float64{1.0, -0.7, 0.5, 0.9, -1.2}
	f := func(r []float64) float64 {
		s := func(j int) float64 { return math.Round(r[j] / tiny) }
		v := 1.5*math.Sin(4*r[5]) + 4*(r[6]-0.5)*(r[6]-0.5)
		for j, wj := range w {
			v += wj * s(j)
		}
		return v + 0.8*s(0)*s(1) - 0.6*s(2)*s(3) + 1.5*s(0)*s(1)*s(2)
	}
	draw := func(n int, unseen bool) ([]float64, []float64) {
		data := make([]float64, 0, 7*n)
		ys := make([]float64, 0, n)
		for len(ys) < n {
			r := make([]float64, 7)
			for j := range 5 {
				r[j] = tiny * float64(rng.IntN(2))
			}
			r[5], r[6] = rng.Float64(), rng.Float64()
			if on := r[0] > 0 && r[1] > 0 && r[2] > 0; on != unseen {
				continue
			}
			data = append(data, r...)
			ys = append(ys, f(r)+0.1*rng.NormFloat64())
		}
		return data, ys
	}
	dtr, y := draw(n, false)
	dte, yt := draw(nTest, true)
	m, v := meanVar(y)
	sd := math.Sqrt(v)
	for i := range y {
		y[i] = (y[i] - m) / sd
	}
	for i := range yt {
		yt[i] = (yt[i] - m) / sd
	}
	x, err := kernel.NewVectors(n, 7, dtr)
	if err != nil {
		panic(err)
	}
	xt, err = kernel.NewVectors(nTest, 7, dte)
	if err != nil {
		panic(err)
	}
	return x, y, xt, yt
}

// TestMeanStaysWithData fits the sparse model, the exact GP and
// continuous SGPR with the default prior mean to two-valued tiny inputs
// (twoValuedData, standardised targets) and checks that the estimated μ
// stays within two standard deviations of the targets' mean, and that
// both the rows with the unseen combination and a point the kernel cannot
// reach (its continuous inputs far outside [0, 1], predicted at μ) are
// predicted within the targets' range widened by its span on each side.
// The generalised least-squares mean runs off there (μ = 722 sparse, 22.7
// exact on this data) and takes the far point's prediction with it.
func TestMeanStaysWithData(t *testing.T) {
	t.Parallel()
	x, y, xt, _ := twoValuedData(400, 40)
	lo, hi := y[0], y[0]
	for _, v := range y {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	lo, hi = lo-(hi-lo), hi+(hi-lo)
	far, err := kernel.NewVectors(1, 7, []float64{1e-4, 1e-4, 1e-4, 0, 0, 1e6, -1e6})
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, mu float64, predict func(kernel.Inputs) ([]float64, []float64, error)) {
		t.Helper()
		if math.Abs(mu) > 2 {
			t.Errorf("%s: μ = %.4g, more than 2 sd from the targets' mean 0", name, mu)
		}
		for _, xs := range []kernel.Inputs{xt, far} {
			mean, _, err := predict(xs)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range mean {
				if !(m >= lo && m <= hi) {
					t.Errorf("%s: a row predicted at %.4g, outside [%.4g, %.4g] (the targets' range widened by its span)", name, m, lo, hi)
					break
				}
			}
		}
	}
	ctx := context.Background()
	md := NewModel(x, y, kernel.NewRBFFromData(x, y)).WithM(40).WithSeed(1).WithSelector(SelectCholQR).WithMaxEpochs(30)
	res, err := md.FitContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	check("sparse", res.Mean, md.Predict)

	ex, err := NewExact(x, y, kernel.NewRBFFromData(x, y)).WithMaxEvals(200).FitContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	check("exact", ex.Mean, ex.Predictor.Predict)

	cr, err := NewContinuous(x, y, kernel.NewRBFFromData(x, y)).WithM(40).WithSeed(1).WithMaxEvals(300).FitContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	check("continuous", cr.Mean, cr.Predictor.Predict)
}
