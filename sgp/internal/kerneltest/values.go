package kerneltest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/kernel"
)

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

func testColumnSubRange(t *testing.T, k kernel.Kernel, x kernel.Inputs) {
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
func testColumnCross(t *testing.T, k kernel.Kernel, x kernel.Inputs, rnd *rand.Rand) {
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

func testDiagSubRange(t *testing.T, k kernel.Kernel, x kernel.Inputs) {
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

func testDiagColumn(t *testing.T, k kernel.Kernel, x kernel.Inputs) {
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

func testSymmetry(t *testing.T, k kernel.Kernel, x kernel.Inputs) {
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

func testPSD(t *testing.T, k kernel.Kernel, x kernel.Inputs) {
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
