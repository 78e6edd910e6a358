package sgp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/cholqr"
	"github.com/cholqr/sgp/sgp/internal/naive"
	"github.com/cholqr/sgp/sgp/kernel"
)

// TestFitRanksPredictor checks that the Predictor of FitRanks, on every
// rank of P = 1…4, predicts at test inputs the dense oracle's DTC/VFE
// predictive mean and latent variance for the fitted set (targets less
// the estimated μ) and a single-process Predictor built from a Factor
// factorised on the same set, within 1e-10, and that it carries the fitted
// set, μ and the inducing inputs.
func TestFitRanksPredictor(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	n, s := 1800, 25
	rows := make([][]float64, n)
	y := make([]float64, n)
	for i := range rows {
		rows[i] = []float64{4 * rng.Float64(), 4 * rng.Float64()}
		y[i] = 1.5 + math.Sin(2*rows[i][0]) + math.Cos(rows[i][1]) + 0.1*rng.NormFloat64()
	}
	test := make([][]float64, s)
	for i := range test {
		test[i] = []float64{4.4*rng.Float64() - 0.2, 4.4*rng.Float64() - 0.2}
	}
	xs, _ := kernel.NewVectors(s, 2, slices.Concat(test...))
	ls := []float64{0.7, 0.9}
	kern := kernel.NewRBF(1.3, ls)
	const noise = 0.02
	o := RanksOptions{M: 10, Objective: VAR, MaxEpochs: 2, Seed: 5, Mean: MeanGLS}
	res1 := fitOnRanks(t, 1, rows, y, kern, noise, o)[0]
	set, mu := res1.Inducing, res1.Mean

	yc := make([]float64, n)
	for i := range y {
		yc[i] = y[i] - mu
	}
	kss := make([]float64, s)
	for i := range kss {
		kss[i] = 1.3
	}
	om, ov, ok := naive.PredictDTC(naive.RBF(rows, 1.3, ls), naive.RBFCross(test, rows, 1.3, ls), kss, yc, noise, set)
	if !ok {
		t.Fatal("dense oracle failed")
	}
	for i := range om {
		om[i] += mu
	}
	xall, _ := kernel.NewVectors(n, 2, slices.Concat(rows...))
	f, err := cholqr.New(xall, y, kernel.Clone(kern), noise, len(set), 0)
	if err != nil {
		t.Fatal(err)
	}
	f.SetMean(mu)
	if err := f.Factorize(set); err != nil {
		t.Fatal(err)
	}
	sm, sv, err := newPredictor(f).PredictTo(nil, nil, xs)
	if err != nil {
		t.Fatal(err)
	}
	for P := 1; P <= 4; P++ {
		for r, res := range fitOnRanks(t, P, rows, y, kern, noise, o) {
			name := fmt.Sprintf("P=%d rank %d", P, r)
			p := res.Predictor()
			if p == nil {
				t.Fatalf("%s: no predictor", name)
			}
			if !slices.Equal(p.inducer, set) || p.PriorMean != mu || p.NoiseV != noise || p.X.Len() != len(set) {
				t.Errorf("%s: predictor set %v μ %v σ² %v %d inputs; fit %v μ %v", name, p.inducer, p.PriorMean, p.NoiseV, p.X.Len(), set, mu)
			}
			for i, j := range set {
				if !slices.Equal(p.X.(*kernel.Vectors).Row(i), rows[j]) {
					t.Errorf("%s: inducing input %d is %v, row %d is %v", name, i, p.X.(*kernel.Vectors).Row(i), j, rows[j])
				}
			}
			m, v, err := p.PredictTo(nil, nil, xs)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for i := range m {
				for _, c := range []struct {
					what      string
					got, want float64
				}{{"oracle mean", m[i], om[i]}, {"oracle variance", v[i], ov[i]}, {"factor mean", m[i], sm[i]}, {"factor variance", v[i], sv[i]}} {
					if !(math.Abs(c.got-c.want) <= 1e-10*math.Max(1, math.Abs(c.want))) {
						t.Errorf("%s: test point %d: %s %.15g, want %.15g", name, i, c.what, c.got, c.want)
					}
				}
			}
		}
	}
}
