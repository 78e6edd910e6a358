package kerneltest

import (
	"math"

	"github.com/cholqr/sgp/sgp/kernel"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// sentinel fills destination slices longer than hi−lo to detect writes
// beyond dst[:hi−lo].
const sentinel = -123456.789

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
