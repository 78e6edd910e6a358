package sgp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/kernel"
)

func TestEvaluatorMatchesOracleAndFactor(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 11))
	for _, n := range []int{5, 33, 64} {
		for _, dim := range []int{1, 3} {
			p := newProblem(rng, n, dim, 1.7, 0.4*float64(dim), 0.03)
			k := max(1, n/4)
			active := rng.Perm(n)[:k]
			for _, o := range []Objective{VAR, MLE} {
				e := NewEvaluator(p.x, p.y, p.kern, o, active)
				theta := append(p.kern.Params(nil), math.Log(p.noise))
				got, err := e.FuncGrad(nil, theta)
				if err != nil {
					t.Fatal(err)
				}
				if want := p.oracle(t, active, o); !scalar.EqualWithinAbsOrRel(got, want, 1e-9, 1e-9) {
					t.Errorf("n=%d,d=%d %v: evaluator %.12g, oracle %.12g", n, dim, o, got, want)
				}
				f := p.factor(t, k, 2)
				if err := f.Factorize(active); err != nil {
					t.Fatal(err)
				}
				if want := f.Value(o); !scalar.EqualWithinAbsOrRel(got, want, 1e-9, 1e-9) {
					t.Errorf("n=%d,d=%d %v: evaluator %.12g, factor %.12g", n, dim, o, got, want)
				}
			}
		}
	}
}

func TestEvaluatorGradientFD(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(12, 12))
	for _, tc := range []struct {
		n, dim, k int
		noise     float64
	}{{6, 1, 2, 0.1}, {33, 2, 5, 0.01}, {64, 3, 10, 0.2}, {20, 1, 19, 0.05}} {
		p := newProblem(rng, tc.n, tc.dim, 1.3, 0.5*float64(tc.dim), tc.noise)
		active := rng.Perm(tc.n)[:tc.k]
		for _, o := range []Objective{VAR, MLE} {
			for _, generic := range []bool{false, true} {
				name := fmt.Sprintf("n=%d,d=%d,k=%d,%v,generic=%v", tc.n, tc.dim, tc.k, o, generic)
				var kern kernel.Kernel = p.kern
				if generic {
					kern = plainKernel{p.kern} // without the value-based gradient path
				}
				e := NewEvaluator(p.x, p.y, kern, o, active)
				theta := append(p.kern.Params(nil), math.Log(p.noise))
				for i := range theta {
					theta[i] += 0.2 * (rng.Float64() - 0.5)
				}
				grad := make([]float64, len(theta))
				if _, err := e.FuncGrad(grad, theta); err != nil {
					t.Fatal(err)
				}
				fdGrad := fdEvaluatorGrad(t, e, theta)
				diff := make([]float64, len(grad))
				floats.SubTo(diff, grad, fdGrad)
				scale := math.Max(1, floats.Norm(fdGrad, math.Inf(1)))
				if d := floats.Norm(diff, math.Inf(1)); d > 3e-5*scale { // central FD error on the ill-conditioned k = n−1 case reaches 1e-5
					t.Errorf("%s: |Δ|∞ = %.3g\nanalytic %v\nfd       %v", name, d, grad, fdGrad)
				}
			}
		}
	}
}

// plainKernel hides the optional methods of the kernel it wraps.
type plainKernel struct{ kernel.Kernel }

// TestEvaluatorRowBlocks: the gradient formed by row blocks (as a Model's
// fit does, to hold one m×n matrix instead of three) equals the one formed
// at once, for the block path (RBF) and the generic kernel path.
func TestEvaluatorRowBlocks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	p := newProblem(rng, 53, 3, 1, 0.7, 0.05)
	active := []int{3, 11, 20, 31, 40, 47}
	for name, k := range map[string]kernel.Kernel{"rbf": kernel.NewRBF(1.3, []float64{0.7, 0.9, 1.1}), "generic": kernel.NewSum(kernel.NewRBF(1.3, []float64{0.7, 0.9, 1.1}))} {
		for _, o := range []Objective{VAR, MLE} {
			whole := newEvaluator(p.x, p.y, k, o, p.x.Subset(active), 0, nil, nil)
			whole.active = active
			whole.SetMean(MeanConstant)
			blocks := newEvaluator(p.x, p.y, k, o, p.x.Subset(active), 7, nil, nil)
			blocks.active = active
			blocks.SetMean(MeanConstant)
			// As a Model's gradient phase: in storage lent by a factor
			// (longer than m·n, and not zeroed), K_mn kept.
			n, m := p.x.Len(), len(active)
			gt, kval := make([]float64, n*(m+3)), make([]float64, (n+m)*m)
			for i := range gt {
				gt[i] = math.NaN()
			}
			for i := range kval {
				kval[i] = math.NaN()
			}
			lent := newActiveEvaluator(p.x, p.y, k, o, active, gt, kval)
			lent.block = 7
			lent.SetMean(MeanConstant)
			theta := append(k.Params(nil), math.Log(0.05))
			g1, g2, g3 := make([]float64, len(theta)), make([]float64, len(theta)), make([]float64, len(theta))
			f1, err1 := whole.FuncGrad(g1, theta)
			f2, err2 := blocks.FuncGrad(g2, theta)
			f3, err3 := lent.FuncGrad(g3, theta)
			if err1 != nil || err2 != nil || err3 != nil {
				t.Fatal(err1, err2, err3)
			}
			if _, block := k.(kernel.BlockEvaluator); block != (lent.kval != nil) {
				t.Errorf("%s: kernel values kept %v", name, lent.kval != nil)
			}
			// The same operations on the same values: bit for bit.
			if f3 != f2 || !slices.Equal(g3, g2) {
				t.Errorf("%s %v: in lent storage %v %v, by blocks %v %v", name, o, f3, g3, f2, g2)
			}
			if math.Abs(f1-f2) > 1e-12*math.Abs(f1) {
				t.Errorf("%s %v: objective %v by blocks, %v at once", name, o, f2, f1)
			}
			for i := range g1 {
				if math.Abs(g1[i]-g2[i]) > 1e-10*math.Max(1, math.Abs(g1[i])) {
					t.Errorf("%s %v: gradient[%d] %v by blocks, %v at once", name, o, i, g2[i], g1[i])
				}
			}
		}
	}
}

// fdEvaluatorGrad returns the central finite-difference gradient of e's
// objective at theta (step 1e-5), failing t if an evaluation fails.
func fdEvaluatorGrad(t *testing.T, e *Evaluator, theta []float64) []float64 {
	t.Helper()
	return fd.Gradient(nil, func(th []float64) float64 {
		v, err := e.FuncGrad(nil, th)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}, theta, &fd.Settings{Formula: fd.Central, Step: 1e-5})
}
