package sgp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"
)

func TestInducingInputGradientFD(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 31))
	for _, dim := range []int{1, 3} {
		p := newProblem(rng, 40, dim, 1.2, 0.6*float64(dim), 0.05)
		m := 6
		z := &Vectors{n: m, d: dim, data: make([]float64, m*dim)}
		for i := range z.data {
			z.data[i] = 4 * rng.Float64()
		}
		for _, o := range []Objective{VAR, MLE} {
			e := NewEvaluatorInputs(p.x, p.y, p.kern, o, z)
			theta := append(p.kern.Params(nil), math.Log(p.noise))
			g := make([]float64, len(theta))
			if _, err := e.FuncGrad(g, theta); err != nil {
				t.Fatal(err)
			}
			gz := make([]float64, m*dim)
			e.zGradRBF(gz)
			z0 := append([]float64(nil), z.data...)
			fdz := fd.Gradient(nil, func(zz []float64) float64 {
				copy(z.data, zz)
				v, err := e.FuncGrad(nil, theta)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}, z0, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			copy(z.data, z0)
			diff := make([]float64, len(gz))
			floats.SubTo(diff, gz, fdz)
			if dd := floats.Norm(diff, math.Inf(1)); dd > 1e-5*math.Max(1, floats.Norm(fdz, math.Inf(1))) {
				t.Errorf("d=%d %v: |Δ|∞ = %.3g\nanalytic %v\nfd       %v", dim, o, dd, gz, fdz)
			}
		}
	}
}

func TestFitContinuousAndRefine(t *testing.T) {
	t.Parallel()
	train, test := SnelsonLike(200, 12)
	md := NewModel(train.X, train.Y, NewRBFFromData(train.X, train.Y)).WithM(8).WithMaxEpochs(5)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	before, _ := md.Value()
	res, err := md.RefineContinuous(context.Background(), ContinuousOptions{MaxEvals: 300})
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinAbsOrRel(res.Start, before, 1e-8, 1e-8) {
		t.Errorf("refinement starts at %g, the model is at %g", res.Start, before)
	}
	if !(res.Objective <= before) {
		t.Errorf("refinement raised the objective: %g → %g", before, res.Objective)
	}
	in := test.Subset(interior(test))
	mean, _, err := res.Predictor.PredictTo(nil, nil, in.X)
	if err != nil {
		t.Fatal(err)
	}
	if smse, _ := SMSE(mean, in.Y); smse > 0.15 {
		t.Errorf("refined SMSE %g", smse)
	}
	// From a clumped start, as GPflow would be used.
	z0 := train.X.Rows(clumpedStart(train.X, 1.5, 8))
	kern := NewRBFFromData(train.X, train.Y)
	cres, err := FitContinuous(context.Background(), train.X, train.Y, kern, z0, variance(train.Y)/4, VAR, ContinuousOptions{MaxEvals: 500, Jitter: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if !(cres.Objective < cres.Start) || cres.Z.Len() != 8 {
		t.Errorf("continuous fit: %g → %g, %d inducing", cres.Start, cres.Objective, cres.Z.Len())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FitContinuous(ctx, train.X, train.Y, kern, z0, 0.1, VAR, ContinuousOptions{MaxEvals: 100, Jitter: 1e-6}); err == nil {
		t.Error("cancelled fit returned no error")
	}
}
