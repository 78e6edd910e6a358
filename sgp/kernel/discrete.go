package kernel

import (
	"fmt"
	"math"

	"github.com/cholqr/sgp/sgp/internal/par"
)

// The kernels on histograms, strings and sparse counts (the kernels of
// Cao et al. 2013, §5) each have a file: HistogramIntersection in
// histogram.go, Spectrum in spectrum.go, Tanimoto in tanimoto.go; the
// graph kernel WL is in wl.go, Sum in sum.go and Func in func.go. All of
// them are positive semi-definite, have only variance hyperparameters,
// seen through their logarithms, and are safe for concurrent Column, Diag
// and AddGrad calls on disjoint row ranges. This
// file holds what they share: the log-scale hyperparameters, the
// column-by-column gradient, FNV hashing of labels and the normalised
// inner product of sparse features (Spectrum and WL).

// logScales holds positive scale hyperparameters (variances): θ = log V is
// the state, so that Params and SetParams round-trip bit for bit, and
// V = exp θ is derived from it.
type logScales struct {
	theta []float64 // log V_p
	v     []float64 // V_p
}

// newLogScales returns the scales vals; it panics, naming what, unless
// every value is positive and finite.
func newLogScales(what string, vals []float64) logScales {
	s := logScales{theta: make([]float64, len(vals)), v: make([]float64, len(vals))}
	for p, v := range vals {
		if !(v > 0) || math.IsInf(v, 0) {
			panic(fmt.Sprintf("sgp: %s variances must be positive and finite, got %v", what, vals))
		}
		s.theta[p] = math.Log(v)
	}
	s.set(s.theta)
	return s
}

func (s *logScales) params(dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(s.theta))
	}
	if len(dst) != len(s.theta) {
		panic(errParamLen)
	}
	copy(dst, s.theta)
	return dst
}

func (s *logScales) set(theta []float64) {
	if len(theta) != len(s.theta) {
		panic(errParamLen)
	}
	copy(s.theta, theta)
	for p, t := range s.theta {
		s.v[p] = math.Exp(t)
	}
}

// names returns "variance" for a single scale and prefix[0], prefix[1], …
// for several.
func (s *logScales) names(prefix string) []string {
	if len(s.theta) == 1 {
		return []string{"variance"}
	}
	names := make([]string, len(s.theta))
	for p := range names {
		names[p] = fmt.Sprintf("%s[%d]", prefix, p)
	}
	return names
}

// addGradColumns adds Σ_c Σ_i w[c·n+i]·∂κ(x_i, y_cols[c])/∂θ to grad for
// w laid out by column, as BlockEvaluator.AddGradBlockT, by AddGrad calls on
// one column at a time, in parallel over columns with the partial sums
// added in column order.
func addGradColumns(k Kernel, grad, w []float64, x Inputs, y Inputs, cols []int) {
	n, m, np := x.Len(), len(cols), k.NumParams()
	parts := make([]float64, m*np)
	par.For(m, max(1, par.MinRows/max(1, n)), func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			k.AddGrad(parts[c*np:(c+1)*np], w[c*n:(c+1)*n], x, 0, n, y, cols[c:c+1])
		}
	})
	for c := 0; c < m; c++ {
		for p, v := range parts[c*np : (c+1)*np] {
			grad[p] += v
		}
	}
}

// fnv64 returns the 64-bit FNV-1a hash of b.
func fnv64(b string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(b); i++ {
		h ^= uint64(b[i])
		h *= 1099511628211
	}
	return h
}

// normalisedColumn sets dst[i−lo] = V·⟨a_i, b_j⟩/√(‖a_i‖²‖b_j‖²) for the
// rows of two feature sets, through the inverted index of fx for ranges of
// at least invMinRows rows, else by merges; both add the same products in
// the same order. For i = j of the same set the ratio is exactly 1 while
// the squared norm is below 2²⁶.
func normalisedColumn(dst []float64, v float64, fx *sparseFeatures, lo, hi int, fy *sparseFeatures, j int) {
	bi, bv := fy.row(j)
	ny := fy.sq[j]
	dst = dst[:hi-lo]
	if hi-lo >= invMinRows {
		clear(dst)
		fx.index().scatterDot(dst, lo, hi, bi, bv)
		for i := lo; i < hi; i++ {
			dst[i-lo] = v * dst[i-lo] / math.Sqrt(fx.sq[i]*ny)
		}
		return
	}
	for i := lo; i < hi; i++ {
		ai, av := fx.row(i)
		dst[i-lo] = v * sparseDot(ai, av, bi, bv) / math.Sqrt(fx.sq[i]*ny)
	}
}

// normalisedAddGrad adds Σ_i Σ_c w·κ to g: ∂κ/∂log V = κ for κ = V·f.
func normalisedAddGrad(g *float64, w []float64, v float64, fx *sparseFeatures, lo, hi int, fy *sparseFeatures, cols []int) {
	var s float64
	for i := lo; i < hi; i++ {
		ai, av := fx.row(i)
		wi := w[(i-lo)*len(cols) : (i-lo+1)*len(cols)]
		for c, j := range cols {
			if wi[c] == 0 {
				continue
			}
			bi, bv := fy.row(j)
			s += wi[c] * v * sparseDot(ai, av, bi, bv) / math.Sqrt(fx.sq[i]*fy.sq[j])
		}
	}
	*g += s
}
