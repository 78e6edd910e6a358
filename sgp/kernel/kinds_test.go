package kernel_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/kerneltest"
	"github.com/cholqr/sgp/sgp/internal/naive"

	"github.com/cholqr/sgp/sgp/kernel"
)

// kindCase is a kernel of vector inputs with its independent formula.
type kindCase struct {
	name   string
	k      kernel.Kernel
	oracle naive.Func
	dim    int
}

// kindCases returns the Matérn, RQ, linear, periodic and constant kernels,
// and sums and products of them, each with naive's formula at the same
// hyperparameters.
func kindCases() []kindCase {
	ls1, ls2 := []float64{0.7}, []float64{0.8, 1.9}
	return []kindCase{
		{"matern12", kernel.NewMatern(0.5, 1.3, ls2), naive.MaternFunc(0.5, 1.3, ls2), 2},
		{"matern32", kernel.NewMatern(1.5, 0.7, ls2), naive.MaternFunc(1.5, 0.7, ls2), 2},
		{"matern52", kernel.NewMatern(2.5, 2.1, ls2), naive.MaternFunc(2.5, 2.1, ls2), 2},
		{"matern52-1d", kernel.NewMatern(2.5, 0.9, ls1), naive.MaternFunc(2.5, 0.9, ls1), 1},
		{"rq", kernel.NewRQ(1.2, ls2, 0.6), naive.RQFunc(1.2, ls2, 0.6), 2},
		{"rq-large-alpha", kernel.NewRQ(0.8, ls1, 40), naive.RQFunc(0.8, ls1, 40), 1},
		{"linear", kernel.NewLinear([]float64{0.5, 1.7}), naive.LinearFunc([]float64{0.5, 1.7}), 2},
		{"periodic", kernel.NewPeriodic(1.1, []float64{0.9, 1.4}, []float64{1.3, 2.2}), naive.PeriodicFunc(1.1, []float64{0.9, 1.4}, []float64{1.3, 2.2}), 2},
		{"periodic-1d", kernel.NewPeriodic(0.6, []float64{0.5}, []float64{0.8}), naive.PeriodicFunc(0.6, []float64{0.5}, []float64{0.8}), 1},
		{"const", kernel.NewConst(0.4), naive.ConstFunc(0.4), 2},
		{"periodic*rbf", kernel.NewProduct(kernel.NewPeriodic(1.1, ls1, []float64{0.9}), kernel.NewRBF(0.8, []float64{2.5})),
			naive.ProductFunc(naive.PeriodicFunc(1.1, ls1, []float64{0.9}), naive.RBFFunc(0.8, []float64{2.5})), 1},
		{"rbf+linear", kernel.NewSum(kernel.NewRBF(1.2, ls2), kernel.NewLinear([]float64{0.3, 0.2})),
			naive.SumFunc(naive.RBFFunc(1.2, ls2), naive.LinearFunc([]float64{0.3, 0.2})), 2},
		{"matern52+const", kernel.NewSum(kernel.NewMatern(2.5, 1.2, ls2), kernel.NewConst(0.7)),
			naive.SumFunc(naive.MaternFunc(2.5, 1.2, ls2), naive.ConstFunc(0.7)), 2},
		{"(rbf+linear)*matern32", kernel.NewProduct(kernel.NewSum(kernel.NewRBF(1.2, ls2), kernel.NewLinear([]float64{0.3, 0.2})), kernel.NewMatern(1.5, 0.9, ls2)),
			naive.ProductFunc(naive.SumFunc(naive.RBFFunc(1.2, ls2), naive.LinearFunc([]float64{0.3, 0.2})), naive.MaternFunc(1.5, 0.9, ls2)), 2},
		{"linear*linear*const", kernel.NewProduct(kernel.NewLinear([]float64{0.3, 0.2}), kernel.NewLinear([]float64{1.1, 0.6}), kernel.NewConst(2)),
			naive.ProductFunc(naive.LinearFunc([]float64{0.3, 0.2}), naive.LinearFunc([]float64{1.1, 0.6}), naive.ConstFunc(2)), 2},
	}
}

// TestKindsConformance runs the conformance suite on every new kind of
// kernel and on sums and products of them: hyperparameter and input
// gradients against finite differences, symmetry, positive
// semi-definiteness, the block paths against the columns, concurrency.
func TestKindsConformance(t *testing.T) {
	t.Parallel()
	for _, tc := range kindCases() {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(3, uint64(len(tc.name))))
			kerneltest.Test(t, tc.k, mustVectors(t, randomRows(rnd, 40, tc.dim)))
		})
	}
}

// TestKindsAgainstOracle checks Column, Diag and CrossT of every new kind
// against naive's formulas, to 1e-13 of the kernel's scale, at inputs near
// each other, far apart and coinciding.
func TestKindsAgainstOracle(t *testing.T) {
	t.Parallel()
	for _, tc := range kindCases() {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(9, uint64(len(tc.name))))
			rows := randomRows(rnd, 30, tc.dim)
			for i := range rows[20:] {
				for t0 := range rows[20+i] {
					rows[20+i][t0] *= 5 // far apart
				}
			}
			copy(rows[29], rows[3]) // coinciding
			x := mustVectors(t, rows)
			n := len(rows)
			want := naive.Gram(rows, tc.oracle)
			scale := 0.0
			for i := range n {
				scale = math.Max(scale, math.Abs(want.At(i, i)))
			}
			col, diag := make([]float64, n), make([]float64, n)
			tc.k.Diag(diag, x, 0, n)
			cols := []int{0, 3, 17, 29}
			block := make([]float64, n*len(cols))
			if bk, ok := tc.k.(kernel.BlockEvaluator); ok {
				bk.CrossT(block, x, x, cols)
			} else {
				block = nil
			}
			for c, j := range cols {
				tc.k.Column(col, x, 0, n, x, j)
				for i := range n {
					w := want.At(i, j)
					if math.Abs(col[i]-w) > 1e-13*scale {
						t.Fatalf("Column: κ(x%d, x%d) = %.17g, oracle %.17g", i, j, col[i], w)
					}
					if block != nil && math.Abs(block[c*n+i]-w) > 1e-13*scale {
						t.Fatalf("CrossT: κ(x%d, x%d) = %.17g, oracle %.17g", i, j, block[c*n+i], w)
					}
				}
			}
			for i := range n {
				if math.Abs(diag[i]-want.At(i, i)) > 1e-13*scale {
					t.Fatalf("Diag: κ(x%d, x%d) = %.17g, oracle %.17g", i, i, diag[i], want.At(i, i))
				}
			}
		})
	}
}

// TestMatern12InputGradAtCusp: where an inducing input coincides with a
// training input (the continuous refinement starts from CholQR's
// selection, a subset of the inputs), Matérn-1/2 has no derivative; its
// input gradient takes the subgradient 0 for that pair, so it is finite
// and equals the gradient with that pair's weight removed.
func TestMatern12InputGradAtCusp(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(2, 5))
	x := mustVectors(t, randomRows(rnd, 12, 2))
	z := x.Rows([]int{4, 9})
	k := kernel.NewMatern(0.5, 1.3, []float64{0.8, 1.2})
	n, m := 12, 2
	kx, kz := make([]float64, m*n), make([]float64, m*m)
	k.CrossT(kx, x, z, []int{0, 1})
	k.CrossT(kz, z, z, []int{0, 1})
	wx, wz := make([]float64, m*n), make([]float64, m*m)
	for i := range wx {
		wx[i] = rnd.NormFloat64()
	}
	for i := range wz {
		wz[i] = rnd.NormFloat64()
	}
	gz := make([]float64, m*2)
	k.InputGradT(gz, wx, kx, wz, kz, x, z)
	// The same with the coinciding pairs' weights set to 0.
	wx0 := append([]float64(nil), wx...)
	wx0[0*n+4], wx0[1*n+9] = 0, 0
	g0 := make([]float64, m*2)
	k.InputGradT(g0, wx0, kx, wz, kz, x, z)
	for p := range gz {
		if math.IsNaN(gz[p]) || math.IsInf(gz[p], 0) || math.Abs(gz[p]-g0[p]) > 1e-14*math.Max(1, math.Abs(g0[p])) {
			t.Fatalf("∂/∂z[%d] = %v at the cusp, %v without the coinciding pairs", p, gz[p], g0[p])
		}
	}
}

// TestKindsDisplay checks the one-line displays, in the format of the
// other kernels: name(hyperparameter value, …), products joined by " * "
// and sums by " + ".
func TestKindsDisplay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		k    kernel.Kernel
		want string
	}{
		{kernel.NewMatern(2.5, 1.2, []float64{0.8, 2.1}), "matern52(variance 1.2, lengthscales [0.8 2.1])"},
		{kernel.NewMatern(0.5, 1, []float64{3}), "matern12(variance 1, lengthscales [3])"},
		{kernel.NewRQ(2, []float64{0.5}, 0.25), "rq(variance 2, lengthscales [0.5], alpha 0.25)"},
		{kernel.NewLinear([]float64{0.5, 1.5}), "linear(variances [0.5 1.5])"},
		{kernel.NewPeriodic(1, []float64{0.7}, []float64{12}), "periodic(variance 1, lengthscales [0.7], periods [12])"},
		{kernel.NewConst(0.3), "const(variance 0.3)"},
		{kernel.NewSum(kernel.NewMatern(2.5, 1.2, []float64{0.8}), kernel.NewLinear([]float64{0.1})), "matern52(variance 1.2, lengthscales [0.8]) + linear(variances [0.1])"},
		{kernel.NewProduct(kernel.NewPeriodic(1, []float64{0.7}, []float64{12}), kernel.NewRBF(2, []float64{40})), "periodic(variance 1, lengthscales [0.7], periods [12]) * rbf(variance 2, lengthscales [40])"},
		{kernel.NewProduct(kernel.NewSum(kernel.NewConst(1), kernel.NewLinear([]float64{2})), kernel.NewConst(3)), "(const(variance 1) + linear(variances [2])) * const(variance 3)"},
	} {
		if got := fmt.Sprint(tc.k); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
