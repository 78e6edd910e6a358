package sgp

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/internal/table"

	"github.com/cholqr/sgp/sgp/kernel"
)

// trendData returns n points in d = 2 dimensions whose targets follow a
// linear trend in the first input, which the kernel explains only in
// part: the constant prior mean estimated for one inducing set and θ then
// differs clearly from that of another.
func trendData(n int) (*kernel.Vectors, []float64) {
	rng := rand.New(rand.NewPCG(5, 29))
	data := make([]float64, 2*n)
	y := make([]float64, n)
	for i := range y {
		data[2*i], data[2*i+1] = 10*rng.Float64(), 10*rng.Float64()
		y[i] = data[2*i] + 3*math.Sin(data[2*i+1]) + rng.NormFloat64()
	}
	x, err := kernel.NewVectors(n, 2, data)
	if err != nil {
		panic(err)
	}
	return x, y
}

// farMean returns the predictive mean at a point so far from every input
// that the RBF kernel underflows to 0 there: the prior mean μ the
// predictions add, read off a prediction. It checks that the latent
// variance there is the signal variance, i.e. that the point is far.
func farMean(t *testing.T, predict func(xs kernel.Inputs) ([]float64, []float64, error), signal float64) float64 {
	t.Helper()
	far, err := kernel.NewVectors(1, 2, []float64{1e12, -1e12})
	if err != nil {
		t.Fatal(err)
	}
	mean, vr, err := predict(far)
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinRel(vr[0], signal, 1e-9) {
		t.Fatalf("latent variance %v at the far point, want the signal variance %v", vr[0], signal)
	}
	return mean[0]
}

// savedMean returns the "mean" of a saved model file.
func savedMean(t *testing.T, save func(w *bytes.Buffer) error) float64 {
	t.Helper()
	var b bytes.Buffer
	if err := save(&b); err != nil {
		t.Fatal(err)
	}
	var f struct{ Mean *float64 }
	if err := json.Unmarshal(b.Bytes(), &f); err != nil || f.Mean == nil {
		t.Fatalf("saved model without a mean (%v)", err)
	}
	return *f.Mean
}

// TestOneMean: for every selector, the prior mean μ of a fit is one value
// wherever it is read — Result.Mean, its display, Model.Mean, the model's
// display, the Predictor, the saved file, and the mean the predictions
// add far from the data. On these trend-dominated targets the hybrid's
// refinement (kept: its objective is lower) estimates a μ far from the
// CholQR factor's.
func TestOneMean(t *testing.T) {
	t.Parallel()
	x, y := trendData(150)
	check := func(t *testing.T, name string, mus map[string]float64) {
		t.Helper()
		ref := mus["predictions"]
		for where, mu := range mus {
			if !scalar.EqualWithinAbsOrRel(mu, ref, 1e-9, 1e-9) {
				t.Errorf("%s: μ from %s is %v, the predictions add %v", name, where, mu, ref)
			}
		}
	}
	for _, sel := range []Selector{SelectCholQR, SelectHybrid, SelectRandom, SelectGreedyVariance, SelectTitsias(4)} {
		t.Run(sel.String(), func(t *testing.T) {
			t.Parallel()
			md := NewModel(x, y, kernel.NewRBFFromData(x, y)).WithM(5).WithSeed(3).WithMaxEpochs(6).WithSelector(sel)
			res, err := md.Fit()
			if err != nil {
				t.Fatal(err)
			}
			if sel == SelectHybrid {
				if res.Refined == nil {
					t.Fatal("the hybrid fit did not keep its refinement; the test needs data where it does")
				}
				if f, _ := md.Factor(); scalar.EqualWithinAbsOrRel(f.Mean(), res.Refined.Mean, 1e-6, 1e-6) {
					t.Fatalf("the refinement's μ %v equals CholQR's %v; the test needs data where they differ", res.Refined.Mean, f.Mean())
				}
			}
			mu, err := md.Mean()
			if err != nil {
				t.Fatal(err)
			}
			p, err := md.Predictor()
			if err != nil {
				t.Fatal(err)
			}
			signal := math.Exp(p.Kern.Params(nil)[0])
			mus := map[string]float64{
				"Result.Mean": res.Mean, "Model.Mean": mu, "Predictor.PriorMean": p.PriorMean,
				"the saved file": savedMean(t, func(w *bytes.Buffer) error { return md.Save(w) }),
				"predictions":    farMean(t, md.Predict, signal),
			}
			check(t, sel.String(), mus)
			want := table.G(mus["predictions"])
			for what, text := range map[string]string{"Result.String": res.String(), "Result.HTML": res.HTML(), "Model.String": md.String()} {
				if !strings.Contains(text, want) {
					t.Errorf("%s does not show μ = %s:\n%s", what, want, text)
				}
			}
		})
	}
	t.Run("continuous", func(t *testing.T) {
		t.Parallel()
		kern := kernel.NewRBFFromData(x, y)
		cr, err := NewContinuous(x, y, kern).WithInducingInputs(x.Rows([]int{0, 10, 20, 30, 40})).WithNoise(1).WithObjective(VAR).WithMaxEvals(200).WithJitter(1e-6).FitContext(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		p := cr.Predictor
		check(t, "continuous", map[string]float64{
			"ContinuousResult.Mean": cr.Mean, "Predictor.PriorMean": p.PriorMean,
			"the saved file": savedMean(t, func(w *bytes.Buffer) error { return p.Save(w) }),
			"predictions":    farMean(t, p.Predict, math.Exp(p.Kern.Params(nil)[0])),
		})
	})
	t.Run("exact", func(t *testing.T) {
		t.Parallel()
		res, err := NewExact(x, y, kernel.NewRBFFromData(x, y)).WithMaxEvals(60).FitContext(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		p := res.Predictor
		check(t, "exact", map[string]float64{
			"ExactResult.Mean": res.Mean, "Predictor.PriorMean": p.PriorMean,
			"the saved file": savedMean(t, func(w *bytes.Buffer) error { return p.Save(w) }),
			"predictions":    farMean(t, p.Predict, math.Exp(p.Kern.Params(nil)[0])),
		})
	})
}
