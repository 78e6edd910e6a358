// Package kerneltest is a conformance suite for implementations of
// kernel.Kernel. Every kernel of the project runs it from its own test:
//
//	func TestRBF(t *testing.T) {
//		k := kernel.NewRBF(1, []float64{0.5, 2})
//		kerneltest.Test(t, k, x)
//	}
//
// in the style of gonum's testlapack (DpstrfTest(t, impl)), GPyTorch's
// BaseKernelTestCase and scikit-learn's test_kernel_diag and
// test_kernel_gradient. The suite checks the Kernel contract of
// sgp/kernel/kernel.go: hyperparameter bookkeeping, agreement of Column and Diag over
// sub-ranges, symmetry, positive semi-definiteness, and the gradients AddGrad
// and AddDiagGrad against central finite differences in θ, the log
// hyperparameters.
//
// It builds dense Gram matrices, which package sgp never does, so it uses at
// most maxInputs of the inputs it is given.
//
// Test (this file) runs the checks, one file per part of the contract:
// params.go the hyperparameter bookkeeping, values.go the kernel values
// (Column and Diag over sub-ranges, symmetry, positive semi-definiteness),
// grad.go the gradients against finite differences and concurrent.go
// evaluation from several goroutines.
package kerneltest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/kernel"
)

const (
	// maxInputs is the largest number of inputs the suite evaluates; larger
	// input sets are cut to their first maxInputs points.
	maxInputs = 40

	// sameTol is the relative tolerance between two evaluations of the same
	// kernel values over different row ranges or goroutines.
	sameTol = 1e-13
	// identityTol is the relative tolerance of mathematical identities that
	// hold up to rounding: symmetry, Diag = diagonal of Column, θ round trips.
	identityTol = 1e-12
	// splitTol is the relative tolerance between a gradient summed over
	// sub-ranges and the gradient over the whole range.
	splitTol = 1e-10
	// gradTol is the relative tolerance between analytic gradients and
	// central finite differences with step fdStep (truncation error O(h²),
	// rounding error O(ε/h)).
	gradTol = 1e-6
	fdStep  = 1e-5

	// jitter, times the largest diagonal entry, is added to the Gram matrix
	// before the Cholesky factorization.
	jitter = 1e-9
	// eigTol, times the largest diagonal entry, bounds how negative an
	// eigenvalue of the Gram matrix may be.
	eigTol = 1e-8

	// perturbation is the half-width of the uniform offsets added to θ for
	// the second evaluation point.
	perturbation = 0.25

	// maxCols is the number of columns used in the AddGrad checks.
	maxCols = 5
	// chunk is the number of rows given to each goroutine in the
	// concurrency checks.
	chunk = 3
)

// sentinel fills destination slices longer than hi−lo to detect writes
// beyond dst[:hi−lo].
const sentinel = -123456.789

// Test runs the conformance suite on kernel k with inputs x (at least 2 points k accepts).
// It restores k's hyperparameters before returning.
func Test(t *testing.T, k kernel.Kernel, x kernel.Inputs) {
	t.Helper()
	if x.Len() < 2 {
		t.Fatalf("kerneltest: need at least 2 inputs, got %d", x.Len())
	}
	if x.Len() > maxInputs {
		x = x.Subset(seq(0, maxInputs))
	}
	var snapshot []float64
	if v, ok := x.(*kernel.Vectors); ok {
		snapshot = slices.Clone(v.RawData())
	}
	theta0 := k.Params(nil)
	defer k.SetParams(theta0)

	if !t.Run("Accepts", func(t *testing.T) {
		if err := k.Accepts(x); err != nil {
			t.Fatalf("Accepts(x) = %v, want nil", err)
		}
	}) {
		return
	}

	rnd := rand.New(rand.NewPCG(1, 1))
	t.Run("Params", func(t *testing.T) { testParams(t, k, x, theta0, rnd) })

	perturbed := slices.Clone(theta0)
	for p := range perturbed {
		perturbed[p] += perturbation * (2*rnd.Float64() - 1)
	}
	for _, s := range []struct {
		name  string
		theta []float64
	}{
		{"theta=current", theta0},
		{"theta=perturbed", perturbed},
	} {
		t.Run(s.name, func(t *testing.T) {
			defer k.SetParams(theta0)
			k.SetParams(s.theta)
			t.Run("ColumnSubRange", func(t *testing.T) { testColumnSubRange(t, k, x) })
			t.Run("ColumnCrossInputs", func(t *testing.T) { testColumnCross(t, k, x, rnd) })
			t.Run("DiagSubRange", func(t *testing.T) { testDiagSubRange(t, k, x) })
			t.Run("DiagIsColumnDiagonal", func(t *testing.T) { testDiagColumn(t, k, x) })
			t.Run("Symmetry", func(t *testing.T) { testSymmetry(t, k, x) })
			t.Run("PSD", func(t *testing.T) { testPSD(t, k, x) })
			t.Run("AddGrad", func(t *testing.T) { testAddGrad(t, k, x, s.theta, rnd) })
			t.Run("AddDiagGrad", func(t *testing.T) { testAddDiagGrad(t, k, x, s.theta, rnd) })
			t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, k, x, rnd) })
		})
	}

	t.Run("InputsUnmodified", func(t *testing.T) {
		if snapshot == nil {
			t.Skipf("inputs of type %T expose no raw data to compare", x)
		}
		data := x.(*kernel.Vectors).RawData()
		if len(data) != len(snapshot) {
			t.Fatalf("len(RawData) = %d, was %d", len(data), len(snapshot))
		}
		for i := range data {
			// Bit equality: the data must not have been touched at all.
			if math.Float64bits(data[i]) != math.Float64bits(snapshot[i]) {
				t.Errorf("inputs modified: RawData()[%d] = %v, was %v", i, data[i], snapshot[i])
			}
		}
	})
}

// Panics reports whether fn panics.
func Panics(fn func()) (panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			panicked = true
		}
	}()
	fn()
	return false
}

// gram returns the dense matrix K[i][j] = κ(x_i, x_j), built column by
// column with Column.
func gram(k kernel.Kernel, x kernel.Inputs) *mat.Dense {
	n := x.Len()
	K := mat.NewDense(n, n, nil)
	col := make([]float64, n)
	for j := range n {
		k.Column(col, x, 0, n, x, j)
		K.SetCol(j, col)
	}
	return K
}

// maxDiag returns the largest absolute diagonal entry of K, the scale of
// the kernel values, or 1 if the diagonal is zero.
func maxDiag(K *mat.Dense) float64 {
	r, _ := K.Dims()
	var m float64
	for i := range r {
		m = math.Max(m, math.Abs(K.At(i, i)))
	}
	if m == 0 {
		return 1
	}
	return m
}

func maxAbs(s []float64) float64 {
	var m float64
	for _, v := range s {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// near reports whether a and b agree to relative tolerance tol, or to
// absolute tolerance tol·scale, where scale is the size of the kernel values
// (the largest diagonal entry).
func near(a, b, scale, tol float64) bool {
	return scalar.EqualWithinAbsOrRel(a, b, tol*scale, tol)
}

// seq returns lo, lo+1, …, hi−1.
func seq(lo, hi int) []int {
	s := make([]int, hi-lo)
	for i := range s {
		s[i] = lo + i
	}
	return s
}
