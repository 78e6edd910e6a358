// Package kerneltest is a conformance suite for implementations of
// sgp.Kernel. Every kernel of the project runs it from its own test:
//
//	func TestRBF(t *testing.T) {
//		k := sgp.NewRBF(1, []float64{0.5, 2})
//		kerneltest.Test(t, k, x)
//	}
//
// in the style of gonum's testlapack (DpstrfTest(t, impl)), GPyTorch's
// BaseKernelTestCase and scikit-learn's test_kernel_diag and
// test_kernel_gradient. The suite checks the Kernel contract of
// sgp/kernel.go: hyperparameter bookkeeping, agreement of Column and Diag over
// sub-ranges, symmetry, positive semi-definiteness, and the gradients AddGrad
// and AddDiagGrad against central finite differences in θ, the log
// hyperparameters.
//
// It builds dense Gram matrices, which package sgp never does, so it uses at
// most maxInputs of the inputs it is given.
package kerneltest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp"
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
func Test(t *testing.T, k sgp.Kernel, x sgp.Inputs) {
	t.Helper()
	if x.Len() < 2 {
		t.Fatalf("kerneltest: need at least 2 inputs, got %d", x.Len())
	}
	if x.Len() > maxInputs {
		x = x.Subset(seq(0, maxInputs))
	}
	var snapshot []float64
	if v, ok := x.(*sgp.Vectors); ok {
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
		data := x.(*sgp.Vectors).RawData()
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

// testParams checks the hyperparameter bookkeeping: counts, names, Params
// and SetParams.
func testParams(t *testing.T, k sgp.Kernel, x sgp.Inputs, theta0 []float64, rnd *rand.Rand) {
	defer k.SetParams(theta0)
	np := k.NumParams()

	t.Run("Count", func(t *testing.T) {
		if got := len(k.ParamNames()); got != np {
			t.Errorf("len(ParamNames()) = %d, NumParams() = %d", got, np)
		}
		if got := len(k.Params(nil)); got != np {
			t.Errorf("len(Params(nil)) = %d, NumParams() = %d", got, np)
		}
	})

	t.Run("Names", func(t *testing.T) {
		seen := make(map[string]int)
		for p, name := range k.ParamNames() {
			if name == "" {
				t.Errorf("ParamNames()[%d] is empty", p)
			}
			if q, ok := seen[name]; ok {
				t.Errorf("ParamNames()[%d] = ParamNames()[%d] = %q", q, p, name)
			}
			seen[name] = p
		}
	})

	t.Run("Dst", func(t *testing.T) {
		want := k.Params(nil)
		dst := make([]float64, np)
		for p := range dst {
			dst[p] = math.NaN()
		}
		got := k.Params(dst)
		if len(got) != np {
			t.Fatalf("len(Params(dst)) = %d, want %d", len(got), np)
		}
		if np > 0 && &got[0] != &dst[0] {
			t.Errorf("Params(dst) did not return dst")
		}
		for p := range dst {
			if !scalar.EqualWithinAbsOrRel(dst[p], want[p], identityTol, identityTol) {
				t.Errorf("Params(dst)[%d] = %v, Params(nil)[%d] = %v", p, dst[p], p, want[p])
			}
		}
	})

	t.Run("NoAliasing", func(t *testing.T) {
		defer k.SetParams(theta0)
		got := k.Params(nil)
		for p := range got {
			got[p] += 1
		}
		checkParams(t, "after changing the slice Params returned", k, theta0)
		theta := slices.Clone(theta0)
		k.SetParams(theta)
		for p := range theta {
			theta[p] += 1
		}
		checkParams(t, "after changing the slice given to SetParams", k, theta0)
	})

	t.Run("RoundTrip", func(t *testing.T) {
		defer k.SetParams(theta0)
		before := gram(k, x)
		k.SetParams(k.Params(nil))
		after := gram(k, x)
		scale := maxDiag(before)
		n := x.Len()
		for i := range n {
			for j := range n {
				b, a := before.At(i, j), after.At(i, j)
				if !near(a, b, scale, identityTol) {
					t.Errorf("κ(x_%d, x_%d) = %v after SetParams(Params(nil)), was %v", i, j, a, b)
				}
			}
		}
	})

	t.Run("SetThenGet", func(t *testing.T) {
		defer k.SetParams(theta0)
		theta := slices.Clone(theta0)
		for p := range theta {
			theta[p] += 2 * perturbation * (2*rnd.Float64() - 1)
		}
		k.SetParams(theta)
		checkParams(t, "after SetParams(θ′)", k, theta)
	})

	t.Run("WrongLength", func(t *testing.T) {
		defer k.SetParams(theta0)
		lengths := []int{np + 1, np + 5}
		if np > 0 {
			lengths = append(lengths, np-1, 0)
		}
		for _, l := range lengths {
			if !Panics(func() { k.SetParams(make([]float64, l)) }) {
				t.Errorf("SetParams with %d values (NumParams = %d) did not panic", l, np)
			}
			checkParams(t, fmt.Sprintf("after SetParams with %d values panicked", l), k, theta0)
		}
	})
}

// checkParams reports an error if k.Params(nil) is not close to want.
func checkParams(t *testing.T, when string, k sgp.Kernel, want []float64) {
	t.Helper()
	got := k.Params(nil)
	if len(got) != len(want) {
		t.Errorf("%s: len(Params(nil)) = %d, want %d", when, len(got), len(want))
		return
	}
	for p := range got {
		if !scalar.EqualWithinAbsOrRel(got[p], want[p], identityTol, identityTol) {
			t.Errorf("%s: Params(nil)[%d] = %v, want %v", when, p, got[p], want[p])
		}
	}
}

// ranges returns half-open row ranges of [0, n) used by the sub-range
// checks, including the full range and an empty one.
func ranges(n int) [][2]int {
	r := [][2]int{{0, n}, {0, 1}, {n - 1, n}, {n / 2, n / 2}, {n / 3, n - n/3}}
	if n > 2 {
		r = append(r, [2]int{1, n - 1})
	}
	return r
}

// newDst returns a slice of length m whose entries are NaN, so that entries
// left unset fail the comparisons.
func newDst(m int) []float64 {
	dst := make([]float64, m)
	for i := range dst {
		dst[i] = math.NaN()
	}
	return dst
}

// checkLongDst calls fn with a destination slice two entries longer than
// the m entries it must set. fn may panic on the length mismatch; if it does
// not, it must leave the extra entries untouched.
func checkLongDst(t *testing.T, what string, m int, fn func(dst []float64)) {
	t.Helper()
	dst := make([]float64, m+2)
	for i := range dst {
		dst[i] = sentinel
	}
	if Panics(func() { fn(dst) }) {
		return
	}
	for _, v := range dst[m:] {
		// Bit equality: the entries must not have been touched at all.
		if math.Float64bits(v) != math.Float64bits(sentinel) {
			t.Errorf("%s with len(dst) = hi−lo+2 wrote past dst[:hi−lo]", what)
			return
		}
	}
}

func testColumnSubRange(t *testing.T, k sgp.Kernel, x sgp.Inputs) {
	n := x.Len()
	K := gram(k, x)
	scale := maxDiag(K)
	for j := range n {
		for _, r := range ranges(n) {
			lo, hi := r[0], r[1]
			dst := newDst(hi - lo)
			k.Column(dst, x, lo, hi, x, j)
			what := fmt.Sprintf("Column(x, [%d,%d), x, %d)", lo, hi, j)
			checkLongDst(t, what, hi-lo, func(dst []float64) { k.Column(dst, x, lo, hi, x, j) })
			for i := lo; i < hi; i++ {
				if got, want := dst[i-lo], K.At(i, j); !near(got, want, scale, sameTol) {
					t.Errorf("%s[%d] = %v, full column gives %v", what, i-lo, got, want)
				}
			}
		}
	}
}

// testColumnCross checks Column with y ≠ x: y is a subset of x in a random
// order with a repeated point, so each of its columns is a column of the
// Gram matrix of x.
func testColumnCross(t *testing.T, k sgp.Kernel, x sgp.Inputs, rnd *rand.Rand) {
	n := x.Len()
	idx := rnd.Perm(n)[:min(n, maxCols)]
	idx = append(idx, idx[0])
	y := x.Subset(idx)
	if err := k.Accepts(y); err != nil {
		t.Fatalf("Accepts(x.Subset) = %v, want nil", err)
	}
	K := gram(k, x)
	scale := maxDiag(K)
	dst := make([]float64, max(n, len(idx)))
	for c, j := range idx {
		k.Column(dst[:n], x, 0, n, y, c)
		for i := range n {
			if got, want := dst[i], K.At(i, j); !near(got, want, scale, sameTol) {
				t.Errorf("κ(x_%d, y_%d) = %v, κ(x_%d, x_%d) = %v", i, c, got, i, j, want)
			}
		}
	}
	for j := range n {
		k.Column(dst[:len(idx)], y, 0, len(idx), x, j)
		for c, i := range idx {
			if got, want := dst[c], K.At(i, j); !near(got, want, scale, sameTol) {
				t.Errorf("κ(y_%d, x_%d) = %v, κ(x_%d, x_%d) = %v", c, j, got, i, j, want)
			}
		}
	}
}

func testDiagSubRange(t *testing.T, k sgp.Kernel, x sgp.Inputs) {
	n := x.Len()
	full := make([]float64, n)
	k.Diag(full, x, 0, n)
	scale := maxAbs(full)
	if scale == 0 {
		scale = 1
	}
	for _, r := range ranges(n) {
		lo, hi := r[0], r[1]
		dst := newDst(hi - lo)
		k.Diag(dst, x, lo, hi)
		what := fmt.Sprintf("Diag(x, [%d,%d))", lo, hi)
		checkLongDst(t, what, hi-lo, func(dst []float64) { k.Diag(dst, x, lo, hi) })
		for i := lo; i < hi; i++ {
			if got, want := dst[i-lo], full[i]; !near(got, want, scale, sameTol) {
				t.Errorf("%s[%d] = %v, full diagonal gives %v", what, i-lo, got, want)
			}
		}
	}
}

func testDiagColumn(t *testing.T, k sgp.Kernel, x sgp.Inputs) {
	n := x.Len()
	diag := make([]float64, n)
	k.Diag(diag, x, 0, n)
	K := gram(k, x)
	scale := maxDiag(K)
	for i := range n {
		if got, want := diag[i], K.At(i, i); !near(got, want, scale, identityTol) {
			t.Errorf("Diag[%d] = %v, Column(x, %d)[%d] = %v", i, got, i, i, want)
		}
		if diag[i] < 0 {
			t.Errorf("Diag[%d] = %v < 0", i, diag[i])
		}
	}
}

func testSymmetry(t *testing.T, k sgp.Kernel, x sgp.Inputs) {
	n := x.Len()
	K := gram(k, x)
	scale := maxDiag(K)
	for i := range n {
		for j := range i {
			if a, b := K.At(i, j), K.At(j, i); !near(a, b, scale, identityTol) {
				t.Errorf("κ(x_%d, x_%d) = %v, κ(x_%d, x_%d) = %v", i, j, a, j, i, b)
			}
		}
	}
}

func testPSD(t *testing.T, k sgp.Kernel, x sgp.Inputs) {
	n := x.Len()
	K := gram(k, x)
	scale := maxDiag(K)
	// The upper triangle; symmetry is checked separately.
	S := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			S.SetSym(i, j, K.At(i, j))
		}
	}

	var es mat.EigenSym
	if !es.Factorize(S, false) {
		t.Fatalf("EigenSym.Factorize of the Gram matrix failed")
	}
	vals := es.Values(nil)
	if lmin := slices.Min(vals); lmin < -eigTol*scale {
		t.Errorf("smallest eigenvalue of the Gram matrix is %.3g < −%g·max diag = %.3g", lmin, eigTol, -eigTol*scale)
	}

	for i := range n {
		S.SetSym(i, i, S.At(i, i)+jitter*scale)
	}
	var chol mat.Cholesky
	if !chol.Factorize(S) {
		t.Errorf("Cholesky of the Gram matrix + %g·max diag·I failed", jitter)
	}
}

// weightedColumns returns Σ_{i∈[lo,hi)} Σ_c w[(i−lo)·len(cols)+c] κ(x_i, x_cols[c])
// computed with Column.
func weightedColumns(k sgp.Kernel, x sgp.Inputs, lo, hi int, cols []int, w []float64) float64 {
	col := make([]float64, hi-lo)
	var s float64
	for c, j := range cols {
		k.Column(col, x, lo, hi, x, j)
		for i, v := range col {
			s += w[i*len(cols)+c] * v
		}
	}
	return s
}

// weightedDiag returns Σ_{i∈[lo,hi)} w[i−lo] κ(x_i, x_i) computed with Diag.
func weightedDiag(k sgp.Kernel, x sgp.Inputs, lo, hi int, w []float64) float64 {
	diag := make([]float64, hi-lo)
	k.Diag(diag, x, lo, hi)
	var s float64
	for i, v := range diag {
		s += w[i] * v
	}
	return s
}

// fdGradient returns the central finite-difference gradient of f(θ),
// which evaluates k after k.SetParams(θ). It restores θ before returning.
func fdGradient(k sgp.Kernel, theta []float64, f func() float64) []float64 {
	defer k.SetParams(theta)
	return fd.Gradient(nil, func(th []float64) float64 {
		k.SetParams(th)
		return f()
	}, theta, &fd.Settings{Formula: fd.Central, Step: fdStep})
}

// checkGrad compares an analytic gradient with a reference and reports
// |Δ|∞ when they differ.
func checkGrad(t *testing.T, what string, k sgp.Kernel, got, want []float64, scale, tol float64) {
	t.Helper()
	names := k.ParamNames()
	var maxDelta float64
	bad := false
	for p := range got {
		maxDelta = math.Max(maxDelta, math.Abs(got[p]-want[p]))
		if !near(got[p], want[p], scale, tol) {
			bad = true
			t.Errorf("%s: ∂/∂θ[%d] (%s) = %v, want %v", what, p, names[p], got[p], want[p])
		}
	}
	if bad {
		t.Errorf("%s: |Δ|∞ = %.3g\n got %v\nwant %v", what, maxDelta, got, want)
	}
}

func randWeights(rnd *rand.Rand, m int) []float64 {
	w := make([]float64, m)
	for i := range w {
		w[i] = 2*rnd.Float64() - 1
	}
	return w
}

func testAddGrad(t *testing.T, k sgp.Kernel, x sgp.Inputs, theta []float64, rnd *rand.Rand) {
	defer k.SetParams(theta)
	n, np := x.Len(), k.NumParams()
	cols := rnd.Perm(n)[:min(n, maxCols)]
	nc := len(cols)
	w := randWeights(rnd, n*nc)
	scale := maxDiag(gram(k, x))

	grad := make([]float64, np)
	k.AddGrad(grad, w, x, 0, n, x, cols)
	want := fdGradient(k, theta, func() float64 { return weightedColumns(k, x, 0, n, cols, w) })
	checkGrad(t, "AddGrad over [0,n)", k, grad, want, scale, gradTol)

	// A sub-range with the matching rows of w.
	lo, hi := n/4, n-n/4
	sub := make([]float64, np)
	wsub := w[lo*nc : hi*nc]
	k.AddGrad(sub, wsub, x, lo, hi, x, cols)
	want = fdGradient(k, theta, func() float64 { return weightedColumns(k, x, lo, hi, cols, wsub) })
	checkGrad(t, fmt.Sprintf("AddGrad over [%d,%d)", lo, hi), k, sub, want, scale, gradTol)

	// The gradients over [0,m) and [m,n) add up to the one over [0,n).
	m := n / 2
	split := make([]float64, np)
	k.AddGrad(split, w[:m*nc], x, 0, m, x, cols)
	k.AddGrad(split, w[m*nc:], x, m, n, x, cols)
	checkGrad(t, fmt.Sprintf("AddGrad over [0,%d) + [%d,n)", m, m), k, split, grad, scale, splitTol)

	// AddGrad adds to grad rather than overwriting it.
	acc := randWeights(rnd, np)
	start := slices.Clone(acc)
	k.AddGrad(acc, w, x, 0, n, x, cols)
	k.AddGrad(acc, w, x, 0, n, x, cols)
	for p := range want {
		want[p] = start[p] + 2*grad[p]
	}
	checkGrad(t, "AddGrad called twice on a non-zero grad", k, acc, want, scale, splitTol)

	// An empty range adds nothing.
	empty := slices.Clone(start)
	k.AddGrad(empty, w[:0], x, m, m, x, cols)
	checkGrad(t, "AddGrad over an empty range", k, empty, start, scale, sameTol)
}

func testAddDiagGrad(t *testing.T, k sgp.Kernel, x sgp.Inputs, theta []float64, rnd *rand.Rand) {
	defer k.SetParams(theta)
	n, np := x.Len(), k.NumParams()
	w := randWeights(rnd, n)
	scale := maxDiag(gram(k, x))

	grad := make([]float64, np)
	k.AddDiagGrad(grad, w, x, 0, n)
	want := fdGradient(k, theta, func() float64 { return weightedDiag(k, x, 0, n, w) })
	checkGrad(t, "AddDiagGrad over [0,n)", k, grad, want, scale, gradTol)

	lo, hi := n/4, n-n/4
	sub := make([]float64, np)
	wsub := w[lo:hi]
	k.AddDiagGrad(sub, wsub, x, lo, hi)
	want = fdGradient(k, theta, func() float64 { return weightedDiag(k, x, lo, hi, wsub) })
	checkGrad(t, fmt.Sprintf("AddDiagGrad over [%d,%d)", lo, hi), k, sub, want, scale, gradTol)

	m := n / 2
	split := make([]float64, np)
	k.AddDiagGrad(split, w[:m], x, 0, m)
	k.AddDiagGrad(split, w[m:], x, m, n)
	checkGrad(t, fmt.Sprintf("AddDiagGrad over [0,%d) + [%d,n)", m, m), k, split, grad, scale, splitTol)

	acc := randWeights(rnd, np)
	start := slices.Clone(acc)
	k.AddDiagGrad(acc, w, x, 0, n)
	k.AddDiagGrad(acc, w, x, 0, n)
	for p := range want {
		want[p] = start[p] + 2*grad[p]
	}
	checkGrad(t, "AddDiagGrad called twice on a non-zero grad", k, acc, want, scale, splitTol)

	empty := slices.Clone(start)
	k.AddDiagGrad(empty, w[:0], x, m, m)
	checkGrad(t, "AddDiagGrad over an empty range", k, empty, start, scale, sameTol)
}

// testConcurrent calls Column, Diag and AddGrad from many goroutines on
// disjoint row ranges and compares with serial calls. Run the tests with
// -race to also catch data races.
func testConcurrent(t *testing.T, k sgp.Kernel, x sgp.Inputs, rnd *rand.Rand) {
	n, np := x.Len(), k.NumParams()
	K := gram(k, x)
	scale := maxDiag(K)
	diag := make([]float64, n)
	k.Diag(diag, x, 0, n)
	cols := rnd.Perm(n)[:min(n, maxCols)]
	nc := len(cols)
	w := randWeights(rnd, n*nc)
	grad := make([]float64, np)
	k.AddGrad(grad, w, x, 0, n, x, cols)

	par := mat.NewDense(n, n, nil)
	pdiag := make([]float64, n)
	var parts [][]float64
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		for j := range n {
			wg.Go(func() {
				col := make([]float64, hi-lo)
				k.Column(col, x, lo, hi, x, j)
				for i, v := range col {
					par.Set(lo+i, j, v) // disjoint elements: no race
				}
			})
		}
		wg.Go(func() { k.Diag(pdiag[lo:hi], x, lo, hi) })
		part := make([]float64, np)
		parts = append(parts, part)
		wg.Go(func() { k.AddGrad(part, w[lo*nc:hi*nc], x, lo, hi, x, cols) })
	}
	wg.Wait()

	for i := range n {
		for j := range n {
			if got, want := par.At(i, j), K.At(i, j); !near(got, want, scale, sameTol) {
				t.Errorf("concurrent κ(x_%d, x_%d) = %v, serial %v", i, j, got, want)
			}
		}
		if got, want := pdiag[i], diag[i]; !near(got, want, scale, sameTol) {
			t.Errorf("concurrent Diag[%d] = %v, serial %v", i, got, want)
		}
	}
	sum := make([]float64, np)
	for _, part := range parts {
		for p, v := range part {
			sum[p] += v
		}
	}
	checkGrad(t, "AddGrad summed over concurrent ranges", k, sum, grad, scale, splitTol)
}

// gram returns the dense matrix K[i][j] = κ(x_i, x_j), built column by
// column with Column.
func gram(k sgp.Kernel, x sgp.Inputs) *mat.Dense {
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
