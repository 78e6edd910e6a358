package kerneltest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/cholqr/sgp/sgp/kernel"
)

// weightedColumns returns Σ_{i∈[lo,hi)} Σ_c w[(i−lo)·len(cols)+c] κ(x_i, x_cols[c])
// computed with Column.
func weightedColumns(k kernel.Kernel, x kernel.Inputs, lo, hi int, cols []int, w []float64) float64 {
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
func weightedDiag(k kernel.Kernel, x kernel.Inputs, lo, hi int, w []float64) float64 {
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
func fdGradient(k kernel.Kernel, theta []float64, f func() float64) []float64 {
	defer k.SetParams(theta)
	return fd.Gradient(nil, func(th []float64) float64 {
		k.SetParams(th)
		return f()
	}, theta, &fd.Settings{Formula: fd.Central, Step: fdStep})
}

// checkGrad compares an analytic gradient with a reference and reports
// |Δ|∞ when they differ.
func checkGrad(t *testing.T, what string, k kernel.Kernel, got, want []float64, scale, tol float64) {
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

func testAddGrad(t *testing.T, k kernel.Kernel, x kernel.Inputs, theta []float64, rnd *rand.Rand) {
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

func testAddDiagGrad(t *testing.T, k kernel.Kernel, x kernel.Inputs, theta []float64, rnd *rand.Rand) {
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
