package sgp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/internal/naive"
	"github.com/cholqr/sgp/sgp/kernel"
)

// kindOracle is a kernel of vector inputs and naive's formula for it at
// any θ (the kernel's log hyperparameters, in its order).
type kindOracle struct {
	name   string
	k      kernel.Kernel
	oracle func(theta []float64) naive.Func
}

// exps returns exp θ_i for each i.
func exps(theta []float64) []float64 {
	v := make([]float64, len(theta))
	for i, t := range theta {
		v[i] = math.Exp(t)
	}
	return v
}

// kindOracles returns the kinds of kernel beyond RBF of 2-D inputs, and sums and
// products of them, with their dense oracles.
func kindOracles() []kindOracle {
	matern := func(nu float64) func([]float64) naive.Func {
		return func(th []float64) naive.Func { e := exps(th); return naive.MaternFunc(nu, e[0], e[1:]) }
	}
	rbf := func(th []float64) naive.Func { e := exps(th); return naive.RBFFunc(e[0], e[1:]) }
	linear := func(th []float64) naive.Func { return naive.LinearFunc(exps(th)) }
	periodic := func(th []float64) naive.Func { e := exps(th); return naive.PeriodicFunc(e[0], e[1:3], e[3:5]) }
	return []kindOracle{
		{"matern12", kernel.NewMatern(0.5, 1.3, []float64{0.9, 1.6}), matern(0.5)},
		{"matern32", kernel.NewMatern(1.5, 0.8, []float64{0.7, 1.2}), matern(1.5)},
		{"matern52", kernel.NewMatern(2.5, 1.1, []float64{0.8, 1.4}), matern(2.5)},
		{"rq", kernel.NewRQ(1.2, []float64{0.9, 1.1}, 0.8), func(th []float64) naive.Func { e := exps(th); return naive.RQFunc(e[0], e[1:3], e[3]) }},
		{"periodic", kernel.NewPeriodic(1.0, []float64{0.9, 1.2}, []float64{2.5, 3.1}), periodic},
		{"linear+const+matern12", kernel.NewSum(kernel.NewLinear([]float64{0.4, 0.3}), kernel.NewConst(0.7), kernel.NewMatern(0.5, 0.6, []float64{1.1, 0.9})),
			func(th []float64) naive.Func {
				return naive.SumFunc(linear(th[:2]), naive.ConstFunc(math.Exp(th[2])), matern(0.5)(th[3:]))
			}},
		{"rbf+linear", kernel.NewSum(kernel.NewRBF(1.1, []float64{0.8, 1.3}), kernel.NewLinear([]float64{0.2, 0.1})),
			func(th []float64) naive.Func { return naive.SumFunc(rbf(th[:3]), linear(th[3:])) }},
		{"periodic*rbf", kernel.NewProduct(kernel.NewPeriodic(1.0, []float64{0.9, 1.2}, []float64{2.5, 3.1}), kernel.NewRBF(0.9, []float64{2.1, 1.7})),
			func(th []float64) naive.Func { return naive.ProductFunc(periodic(th[:5]), rbf(th[5:])) }},
		{"matern52*linear+const", kernel.NewSum(kernel.NewProduct(kernel.NewMatern(2.5, 1.1, []float64{0.8, 1.4}), kernel.NewLinear([]float64{0.5, 0.6})), kernel.NewConst(0.3)),
			func(th []float64) naive.Func {
				return naive.SumFunc(naive.ProductFunc(matern(2.5)(th[:3]), linear(th[3:5])), naive.ConstFunc(math.Exp(th[5])))
			}},
	}
}

// TestKindsEvaluatorMatchesOracle checks the objective (VAR and MLE) and
// its gradient in θ and log σ² for every kind of kernel beyond RBF, and sums and
// products, against the dense oracle: the objective to 1e-9 of naive.DTC
// on the Gram matrix of naive's formulas, the gradient to 1e-9 of
// sixth-order central differences of that oracle objective. The engine's
// block path and its generic path (Column and AddGrad) are both checked.
func TestKindsEvaluatorMatchesOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 7))
	const n = 36
	rows := make([][]float64, n)
	y := make([]float64, n)
	for i := range rows {
		rows[i] = []float64{4 * rng.Float64(), 3 * rng.Float64()}
		y[i] = math.Sin(2*rows[i][0]) + 0.5*rows[i][1] + 0.2*rng.NormFloat64()
	}
	x, err := kernel.VectorsFromRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	active := rng.Perm(n)[:9]
	const noise = 0.05
	for _, tc := range kindOracles() {
		for _, o := range []Objective{VAR, MLE} {
			oracleF := func(th []float64) float64 {
				np := len(th) - 1
				mle, vfe, ok := naive.DTC(naive.Gram(rows, tc.oracle(th[:np])), y, math.Exp(th[np]), active)
				if !ok {
					t.Fatalf("%s: oracle failed at θ = %v", tc.name, th)
				}
				if o == MLE {
					return mle
				}
				return vfe
			}
			theta := append(tc.k.Params(nil), math.Log(noise))
			want := oracleF(theta)
			fdGrad := make([]float64, len(theta))
			for p := range theta {
				fdGrad[p] = fdRichardson(oracleF, theta, p, 4e-3)
			}
			for _, generic := range []bool{false, true} {
				name := fmt.Sprintf("%s %v generic=%v", tc.name, o, generic)
				k := kernel.Clone(tc.k)
				if generic {
					k = plainKernel{k}
				}
				e := NewEvaluator(x, y, k, o, active)
				grad := make([]float64, len(theta))
				got, err := e.FuncGrad(grad, theta)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !scalar.EqualWithinAbsOrRel(got, want, 1e-9, 1e-9) {
					t.Errorf("%s: objective %.15g, oracle %.15g", name, got, want)
				}
				for p := range grad {
					if !scalar.EqualWithinAbsOrRel(grad[p], fdGrad[p], 1e-9, 1e-9) {
						t.Errorf("%s: ∂F/∂θ[%d] = %.12g, oracle's finite differences %.12g", name, p, grad[p], fdGrad[p])
					}
				}
			}
		}
	}
}

// fdRichardson returns Richardson's extrapolation of fd6 at steps h and
// 2h, (64·D(h) − D(2h))/63, of eighth order.
func fdRichardson(f func([]float64) float64, theta []float64, p int, h float64) float64 {
	return (64*fd6(f, theta, p, h) - fd6(f, theta, p, 2*h)) / 63
}

// fd6 returns the sixth-order central difference of f in θ_p with step h
// (truncation error O(h⁶)).
func fd6(f func([]float64) float64, theta []float64, p int, h float64) float64 {
	at := func(k float64) float64 {
		th := append([]float64(nil), theta...)
		th[p] += k * h
		return f(th)
	}
	return (45*(at(1)-at(-1)) - 9*(at(2)-at(-2)) + (at(3) - at(-3))) / (60 * h)
}
