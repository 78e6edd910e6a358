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

// auxCounter is a kernel.AuxBlockEvaluator that counts the gradient
// blocks the engine takes from auxiliary values.
type auxCounter struct {
	kernel.AuxBlockEvaluator
	calls *int
}

func (k auxCounter) AddGradAuxT(grad, w, kv, aux []float64, x, y kernel.Inputs, cols []int) {
	*k.calls++
	k.AuxBlockEvaluator.AddGradAuxT(grad, w, kv, aux, x, y, cols)
}

// TestAuxEvaluatorMatchesOracle checks the engine's gradient from the
// auxiliary values of the Matérn and RQ kernels (kernel.AuxBlockEvaluator)
// in each way it keeps them: for all of K_mn without row blocks (the
// continuous baseline's Evaluator), for all of K_mn beside the kept values
// of row blocks (a fit's gradient phase), and formed block by block where
// the blocks evaluate their values again (NewEvaluator), with blocks of 10
// rows (several, the last partial) and of all rows. The objective (VAR and
// MLE) agrees with naive.DTC on the Gram matrix of naive's formulas to
// 1e-9, its gradient in θ and log σ² with the oracle's finite differences
// to 1e-9, and every evaluation reads the auxiliary values.
func TestAuxEvaluatorMatchesOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 71))
	const n, d = 43, 3
	rows := make([][]float64, n)
	y := make([]float64, n)
	for i := range rows {
		rows[i] = []float64{4 * rng.Float64(), 3 * rng.Float64(), 0.2 * rng.NormFloat64()}
		y[i] = math.Sin(2*rows[i][0]) + 0.5*rows[i][1] + rows[i][2] + 0.2*rng.NormFloat64()
	}
	x, err := kernel.VectorsFromRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	active := rng.Perm(n)[:9]
	ls := []float64{0.8, 1.4, 0.05}
	matern := func(nu float64) func([]float64) naive.Func {
		return func(th []float64) naive.Func { e := exps(th); return naive.MaternFunc(nu, e[0], e[1:]) }
	}
	cases := []struct {
		name   string
		k      kernel.AuxBlockEvaluator
		oracle func([]float64) naive.Func
	}{
		{"matern12", kernel.NewMatern(0.5, 1.3, ls), matern(0.5)},
		{"matern32", kernel.NewMatern(1.5, 0.8, ls), matern(1.5)},
		{"matern52", kernel.NewMatern(2.5, 1.1, ls), matern(2.5)},
		{"rq", kernel.NewRQ(1.2, ls, 0.8), func(th []float64) naive.Func { e := exps(th); return naive.RQFunc(e[0], e[1:1+d], e[1+d]) }},
	}
	const noise = 0.05
	modes := []struct {
		name string
		make func(k kernel.Kernel, o Objective) *Evaluator
	}{
		{"whole", func(k kernel.Kernel, o Objective) *Evaluator { return NewEvaluatorInputs(x, y, k, o, x.Subset(active)) }},
		{"kept,block=10", func(k kernel.Kernel, o Objective) *Evaluator {
			e := newEvaluator(x, y, k, o, x.Subset(active), 10, make([]float64, len(active)*n), make([]float64, len(active)*n))
			e.active = append([]int(nil), active...)
			return e
		}},
		{"kept,block=n", func(k kernel.Kernel, o Objective) *Evaluator {
			return newActiveEvaluator(x, y, k, o, active, make([]float64, len(active)*n), make([]float64, len(active)*n))
		}},
		{"again,block=10", func(k kernel.Kernel, o Objective) *Evaluator {
			e := newEvaluator(x, y, k, o, x.Subset(active), 10, nil, nil)
			e.active = append([]int(nil), active...)
			return e
		}},
		{"again,block=n", func(k kernel.Kernel, o Objective) *Evaluator { return NewEvaluator(x, y, k, o, active) }},
	}
	for _, tc := range cases {
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
			for _, mode := range modes {
				name := fmt.Sprintf("%s %v %s", tc.name, o, mode.name)
				calls := 0
				k := auxCounter{kernel.Clone(tc.k).(kernel.AuxBlockEvaluator), &calls}
				e := mode.make(k, o)
				grad := make([]float64, len(theta))
				for range 2 { // the second evaluation reuses the storage
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
				if calls < 2 {
					t.Errorf("%s: %d gradient blocks from auxiliary values in 2 evaluations", name, calls)
				}
			}
		}
	}
}

// auxInputCounter is a kernel.AuxInputGradient that counts the input
// gradients the engine takes from auxiliary values.
type auxInputCounter struct {
	kernel.AuxInputGradient
	calls *int
}

func (k auxInputCounter) InputGradAuxT(gz, wx, kx, aux, wz, kz []float64, x, z *kernel.Vectors) {
	*k.calls++
	k.AuxInputGradient.InputGradAuxT(gz, wx, kx, aux, wz, kz, x, z)
}

// TestAuxZGrad checks that continuous SGPR's input gradient (zGrad) reads
// the ψ of K_mn from the value pass of an evaluation with a gradient, and
// forms it again after one without (whose value pass forms no auxiliary
// values), agreeing with InputGradT to 1e-11 of the largest component
// either way, for the Matérn and RQ kernels.
func TestAuxZGrad(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 95))
	const n, d, m = 50, 2, 7
	xd := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		xd[i*d], xd[i*d+1] = 4*rng.Float64(), 3*rng.Float64()
		y[i] = math.Sin(2*xd[i*d]) + 0.3*xd[i*d+1] + 0.1*rng.NormFloat64()
	}
	x, _ := kernel.NewVectors(n, d, xd)
	zd := make([]float64, m*d)
	for i := range zd {
		zd[i] = 3 * rng.Float64()
	}
	z, _ := kernel.NewVectors(m, d, zd)
	ls := []float64{0.9, 1.3}
	for _, k0 := range []kernel.AuxInputGradient{kernel.NewMatern(0.5, 1.1, ls), kernel.NewMatern(2.5, 1.1, ls), kernel.NewRQ(1.1, ls, 0.9)} {
		calls := 0
		k := auxInputCounter{k0, &calls}
		e := NewEvaluatorInputs(x, y, k, VAR, z)
		theta := append(k.Params(nil), math.Log(0.05))
		for _, withGrad := range []bool{true, false} {
			var g []float64
			if withGrad {
				g = make([]float64, len(theta))
			}
			if _, err := e.FuncGrad(g, theta); err != nil {
				t.Fatal(err)
			}
			before := calls
			gz, want := make([]float64, m*d), make([]float64, m*d)
			e.zGrad(gz)
			k0.InputGradT(want, e.wmn, e.kraw, e.tmat, e.kmm, x, z)
			var scale float64
			for _, v := range want {
				scale = math.Max(scale, math.Abs(v))
			}
			for i := range gz {
				if math.Abs(gz[i]-want[i]) > 1e-11*scale {
					t.Errorf("%s, gradient %v: ∂F/∂z[%d] = %.17g, InputGradT %.17g", fmt.Sprint(k0), withGrad, i, gz[i], want[i])
				}
			}
			if used := calls > before; used != withGrad {
				t.Errorf("%s, gradient %v: auxiliary values read: %v", fmt.Sprint(k0), withGrad, used)
			}
		}
	}
}
