package sgp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/internal/stats"
	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

func TestInducingInputGradientFD(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 31))
	for _, dim := range []int{1, 3} {
		p := newProblem(rng, 40, dim, 1.2, 0.6*float64(dim), 0.05)
		m := 6
		zd := make([]float64, m*dim)
		for i := range zd {
			zd[i] = 4 * rng.Float64()
		}
		z, _ := kernel.NewVectors(m, dim, zd)
		for _, o := range []Objective{VAR, MLE} {
			e := NewEvaluatorInputs(p.x, p.y, p.kern, o, z)
			theta := append(p.kern.Params(nil), math.Log(p.noise))
			g := make([]float64, len(theta))
			if _, err := e.FuncGrad(g, theta); err != nil {
				t.Fatal(err)
			}
			gz := make([]float64, m*dim)
			e.zGrad(gz)
			z0 := append([]float64(nil), zd...)
			fdz := fd.Gradient(nil, func(zz []float64) float64 {
				copy(zd, zz)
				v, err := e.FuncGrad(nil, theta)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}, z0, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			copy(zd, z0)
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
	train, test := data.SnelsonLike(200, 12)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(8).WithMaxEpochs(5)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	before, _ := md.Value()
	// CholQR's selection as the start of the continuous optimisation.
	ind, _ := md.Inducing()
	noise, _ := md.Noise()
	res, err := NewContinuous(train.X, train.Y, md.Kernel()).WithInducingInputs(train.X.Rows(ind)).WithNoise(noise).WithMaxEvals(300).Fit()
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
	kern := kernel.NewRBFFromData(train.X, train.Y)
	cres, err := NewContinuous(train.X, train.Y, kern).WithInducingInputs(z0).WithNoise(stats.Variance(train.Y) / 4).WithObjective(VAR).WithMaxEvals(500).WithJitter(1e-6).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !(cres.Objective < cres.Start) || cres.Z.Len() != 8 {
		t.Errorf("continuous fit: %g → %g, %d inducing", cres.Start, cres.Objective, cres.Z.Len())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewContinuous(train.X, train.Y, kern).WithInducingInputs(z0).WithNoise(0.1).WithObjective(VAR).WithMaxEvals(100).WithJitter(1e-6).FitContext(ctx); err == nil {
		t.Error("cancelled fit returned no error")
	}
}

// TestStallLabel: a continuous fit counted as converged at a gradient that
// is not small says which stop rule ended it; at a small gradient, or for
// another reason, the reason is kept.
func TestStallLabel(t *testing.T) {
	flat := fmt.Sprintf("F changed by less than a relative %g over %d iterations", contRelTol, contIters)
	for _, c := range []struct {
		stopped     Status
		why         string
		grad, scale float64 // scale: unitFreeScale of F
		want        stop
	}{
		{Converged, flat, 0.0473, 5680.7, stop{Stalled, "F changed by less than a relative 1e-09 over 20 iterations, at max |∂F| = 0.0473"}},
		{Converged, "no decrease along the search direction", 0.01, 100, stop{Stalled, "no decrease along the search direction, at max |∂F| = 0.01"}},
		{Converged, flat, 1e-3, 5680.7, stop{status: Converged}}, // below 1e-6 of the scale
		{Converged, flat, 5e-7, 1, stop{status: Converged}},      // below 1e-6 of the scale
		{MaxEvaluations, flat, 1, 1, stop{status: MaxEvaluations}},
	} {
		if got := stallLabel(stop{status: c.stopped}, c.why, c.grad, c.scale); got != c.want {
			t.Errorf("stallLabel(%v, %q, %g, %g) = %v, want %v", c.stopped, c.why, c.grad, c.scale, got, c.want)
		}
	}
}
