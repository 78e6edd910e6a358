package sgp

import (
	"fmt"
	"math"
)

// This file holds the kernels on histograms, strings and sparse counts
// (the kernels of Cao et al. 2013, §5); the graph kernel is in wl.go, Sum and FuncKernel in
// kernel_sum.go. All of them are positive semi-definite, have only variance
// hyperparameters, seen through their logarithms, and are safe for
// concurrent Column, Diag and AddGrad calls on disjoint row ranges.

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

// HistogramIntersection is the histogram intersection kernel summed over
// C channels, one variance per channel:
//
//	κ(x, x′) = Σ_c V_c · Σ_b min(h_cb, h′_cb)
//
// where h_cb is bin b of channel c of x. It is positive semi-definite for
// non-negative bins, since min(a, b) = ∫ 1[t ≤ a]·1[t ≤ b] dt is an inner
// product (Swain & Ballard 1991; Barla, Odone & Verri 2003; Maji, Berg &
// Malik 2008); Cao et al. (2013, §5) use it on HoG descriptors. The
// diagonal is Σ_c V_c Σ_b h_cb, the channel masses.
//
// Its hyperparameters, in θ order, are log V₁, …, log V_C. It accepts
// *Histograms with C channels. Cost O(B) per kernel value for B bins in
// all.
type HistogramIntersection struct {
	s logScales
}

var (
	_ Kernel      = (*HistogramIntersection)(nil)
	_ blockKernel = (*HistogramIntersection)(nil)
)

// NewHistogramIntersection returns the kernel with channel variances
// variances (one per channel). It panics if there are none or one is not
// positive and finite.
func NewHistogramIntersection(variances []float64) *HistogramIntersection {
	if len(variances) == 0 {
		panic("sgp: histogram intersection needs at least one channel variance")
	}
	return &HistogramIntersection{s: newLogScales("histogram intersection", variances)}
}

// NewHistogramIntersectionFromData returns the kernel for x with every
// channel variance set to var(y)/(C·m_c), where m_c is the mean mass of
// channel c over x, so that the mean of κ(x_i, x_i) is var(y) with every
// channel weighted alike. Empty channels and constant y fall back to 1.
func NewHistogramIntersectionFromData(x *Histograms, y []float64) *HistogramIntersection {
	C := x.NumChannels()
	vy := 1.0
	if len(y) > 0 {
		if v := variance(y); v > 0 {
			vy = v
		}
	}
	vars := make([]float64, C)
	for c := range vars {
		var m float64
		for i := 0; i < x.n; i++ {
			m += x.sums[i*C+c]
		}
		m /= float64(x.n)
		vars[c] = vy / float64(C)
		if m > 0 {
			vars[c] /= m
		}
	}
	return NewHistogramIntersection(vars)
}

// NumChannels returns C.
func (k *HistogramIntersection) NumChannels() int { return len(k.s.v) }

// Variances returns a copy of V₁, …, V_C.
func (k *HistogramIntersection) Variances() []float64 { return append([]float64(nil), k.s.v...) }

// NumParams returns C.
func (k *HistogramIntersection) NumParams() int { return len(k.s.v) }

// ParamNames returns "variance" for one channel, else "variance[0]", ….
func (k *HistogramIntersection) ParamNames() []string { return k.s.names("variance") }

// Params returns (log V₁, …, log V_C) in dst.
func (k *HistogramIntersection) Params(dst []float64) []float64 { return k.s.params(dst) }

// SetParams sets V_c = exp θ_c.
func (k *HistogramIntersection) SetParams(theta []float64) { k.s.set(theta) }

// Accepts reports whether x is a *Histograms with C channels.
func (k *HistogramIntersection) Accepts(x Inputs) error {
	h, ok := x.(*Histograms)
	if !ok {
		return fmt.Errorf("sgp: the histogram intersection kernel needs histogram inputs (*sgp.Histograms), got %T", x)
	}
	if h.NumChannels() != len(k.s.v) {
		return fmt.Errorf("sgp: the histogram intersection kernel has %d channel variances but the inputs have %d channels", len(k.s.v), h.NumChannels())
	}
	return nil
}

// intersections stores Σ_b min(a_cb, b_cb) for each channel c in acc.
func (k *HistogramIntersection) intersections(acc []float64, off []int, a, b []float64) {
	b = b[:len(a)]
	for c := range acc {
		lo, hi := off[c], off[c+1]
		bc := b[lo:hi]
		var m float64
		for t, u := range a[lo:hi] {
			m += min(u, bc[t])
		}
		acc[c] = m
	}
}

// Column sets dst[i−lo] = κ(x_i, y_j).
func (k *HistogramIntersection) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	xh, yh := x.(*Histograms), y.(*Histograms)
	z := yh.item(j)
	v := k.s.v
	off := xh.chOff
	for i := lo; i < hi; i++ {
		a := xh.item(i)
		var s float64
		for c, vc := range v {
			bc := z[off[c]:off[c+1]]
			var m float64
			for t, u := range a[off[c]:off[c+1]] {
				m += min(u, bc[t])
			}
			s += vc * m
		}
		dst[i-lo] = s
	}
}

// Diag sets dst[i−lo] = Σ_c V_c Σ_b h_icb.
func (k *HistogramIntersection) Diag(dst []float64, x Inputs, lo, hi int) {
	xh := x.(*Histograms)
	C := len(k.s.v)
	for i := lo; i < hi; i++ {
		var s float64
		for c, vc := range k.s.v {
			s += vc * xh.sums[i*C+c]
		}
		dst[i-lo] = s
	}
}

// AddGrad adds the weighted derivatives ∂κ/∂log V_c = V_c Σ_b min(h_cb, h′_cb).
func (k *HistogramIntersection) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	xh, yh := x.(*Histograms), y.(*Histograms)
	acc := make([]float64, len(k.s.v))
	for i := lo; i < hi; i++ {
		a := xh.item(i)
		wi := w[(i-lo)*len(cols) : (i-lo+1)*len(cols)]
		for c, j := range cols {
			if wi[c] == 0 {
				continue
			}
			k.intersections(acc, xh.chOff, a, yh.item(j))
			for p, m := range acc {
				grad[p] += wi[c] * k.s.v[p] * m
			}
		}
	}
}

// AddDiagGrad adds Σ_i w_i V_c Σ_b h_icb to the derivative for log V_c.
func (k *HistogramIntersection) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	xh := x.(*Histograms)
	C := len(k.s.v)
	for i := lo; i < hi; i++ {
		for c, vc := range k.s.v {
			grad[c] += w[i-lo] * vc * xh.sums[i*C+c]
		}
	}
}

// crossT evaluates the block column by column, in parallel over columns.
func (k *HistogramIntersection) crossT(dst []float64, x Inputs, y Inputs, cols []int) {
	crossColumns(k, dst, x, y, cols)
}

// addGradBlockT needs the per-channel intersections, not only the values:
// with one channel it uses ∂κ/∂log V = κ, otherwise it recomputes them.
func (k *HistogramIntersection) addGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	n, m := x.Len(), len(cols)
	if len(k.s.v) == 1 {
		addGradScaled(&grad[0], w, kv, n, m)
		return
	}
	addGradColumns(k, grad, w, x, y, cols)
}

// addGradColumns adds Σ_c Σ_i w[c·n+i]·∂κ(x_i, y_cols[c])/∂θ to grad for
// w laid out by column, as blockKernel.addGradBlockT, by AddGrad calls on
// one column at a time, in parallel over columns with the partial sums
// added in column order.
func addGradColumns(k Kernel, grad, w []float64, x Inputs, y Inputs, cols []int) {
	n, m, np := x.Len(), len(cols), k.NumParams()
	parts := make([]float64, m*np)
	parallelFor(m, max(1, minRowsPerTask/max(1, n)), func(c0, c1 int) {
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

// Spectrum is the normalised k-mer spectrum string kernel (Leslie, Eskin &
// Noble 2002, "The spectrum kernel", PSB; normalised as in Shawe-Taylor &
// Cristianini 2004, §11.2):
//
//	κ(s, t) = V · ⟨φ(s), φ(t)⟩ / (‖φ(s)‖ ‖φ(t)‖),   φ(s)_u = #occurrences of u in s
//
// over all k-mers u, the substrings of k bytes. κ(s, s) = V.
//
// A string shorter than k has no k-mer; it is mapped instead to a unit
// vector of its own, orthogonal to all k-mer counts, so that κ(s, t) = V if
// s and t are the same short string and 0 otherwise. The kernel stays
// positive semi-definite (it is the inner product of unit feature vectors).
//
// Its only hyperparameter is log V. It accepts *Strings. The k-mer counts of
// each string are computed once per *Strings and k (O(L log L) for a string
// of length L, in parallel) and kept in the inputs, with an inverted index
// (k-mer → strings) built on first use; a column then costs O(number of
// matching k-mers), and a single value a merge of two sorted count vectors,
// O(L_s + L_t) (see WL for timings). For k ≤ 7 k-mers are
// packed exactly into the feature ids; for k > 7 they are hashed to 63 bits
// (FNV-1a), where a collision has probability about 2⁻⁶³ per pair.
type Spectrum struct {
	k int
	s logScales
}

var (
	_ Kernel      = (*Spectrum)(nil)
	_ blockKernel = (*Spectrum)(nil)
)

// NewSpectrum returns the normalised k-mer spectrum kernel with variance V.
// It panics if k < 1 or V is not positive and finite.
func NewSpectrum(k int, variance float64) *Spectrum {
	if k < 1 {
		panic(fmt.Sprintf("sgp: spectrum kernel needs k ≥ 1, got %d", k))
	}
	return &Spectrum{k: k, s: newLogScales("spectrum", []float64{variance})}
}

// K returns the k-mer length k.
func (k *Spectrum) K() int { return k.k }

// Variance returns V.
func (k *Spectrum) Variance() float64 { return k.s.v[0] }

// NumParams returns 1.
func (k *Spectrum) NumParams() int { return 1 }

// ParamNames returns "variance".
func (k *Spectrum) ParamNames() []string { return []string{"variance"} }

// Params returns (log V) in dst.
func (k *Spectrum) Params(dst []float64) []float64 { return k.s.params(dst) }

// SetParams sets V = exp θ₀.
func (k *Spectrum) SetParams(theta []float64) { k.s.set(theta) }

// Accepts reports whether x is *Strings.
func (k *Spectrum) Accepts(x Inputs) error {
	if _, ok := x.(*Strings); !ok {
		return fmt.Errorf("sgp: the spectrum kernel needs string inputs (*sgp.Strings), got %T", x)
	}
	return nil
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

// spectrumShort marks the feature id of a string shorter than k.
const spectrumShort = 1 << 63

// kmerIDs appends the feature ids of the k-mers of s to buf, or the id of s
// itself if len(s) < k.
func kmerIDs(buf []uint64, s string, k int) []uint64 {
	if len(s) < k {
		if k <= 7 {
			var id uint64
			for t := 0; t < len(s); t++ {
				id |= uint64(s[t]) << (8 * t)
			}
			return append(buf, spectrumShort|uint64(len(s))<<56|id)
		}
		return append(buf, spectrumShort|fnv64(s)>>1)
	}
	for p := 0; p+k <= len(s); p++ {
		if k <= 7 {
			var id uint64
			for t := 0; t < k; t++ {
				id |= uint64(s[p+t]) << (8 * t)
			}
			buf = append(buf, id)
		} else {
			buf = append(buf, fnv64(s[p:p+k])>>1)
		}
	}
	return buf
}

// features returns the k-mer counts of x, computing them on first use.
func (k *Spectrum) features(x Inputs) *sparseFeatures {
	xs := x.(*Strings)
	return xs.cache.get(featKey{featSpectrum, k.k}, func() any {
		return newSparseFeatures(countRows(len(xs.s), func(i int, buf []uint64) []uint64 { return kmerIDs(buf, xs.s[i], k.k) }))
	}).(*sparseFeatures)
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

// Column sets dst[i−lo] = κ(x_i, y_j).
func (k *Spectrum) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	normalisedColumn(dst, k.s.v[0], k.features(x), lo, hi, k.features(y), j)
}

// Diag sets dst[i−lo] = V.
func (k *Spectrum) Diag(dst []float64, x Inputs, lo, hi int) {
	for i := range dst[:hi-lo] {
		dst[i] = k.s.v[0]
	}
}

// AddGrad adds the weighted derivatives ∂κ/∂log V = κ.
func (k *Spectrum) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	if hi-lo >= invMinRows {
		addGradByColumns(k, &grad[0], w, x, lo, hi, y, cols)
		return
	}
	normalisedAddGrad(&grad[0], w, k.s.v[0], k.features(x), lo, hi, k.features(y), cols)
}

// AddDiagGrad adds Σ_i w_i V to the derivative for log V.
func (k *Spectrum) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	var s float64
	for _, v := range w[:hi-lo] {
		s += v
	}
	grad[0] += s * k.s.v[0]
}

func (k *Spectrum) crossT(dst []float64, x Inputs, y Inputs, cols []int) {
	crossColumns(k, dst, x, y, cols)
}

// addGradBlockT uses ∂κ/∂log V = κ: no kernel evaluations.
func (k *Spectrum) addGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	addGradScaled(&grad[0], w, kv, x.Len(), len(cols))
}

// Tanimoto is the Tanimoto or MinMax kernel on non-negative count vectors
// (Ralaivola, Swamidass, Saigo & Baldi 2005, "Graph kernels for chemical
// informatics", Neural Networks 18(8), eq. (8)):
//
//	κ(a, b) = V · Σ_k min(a_k, b_k) / Σ_k max(a_k, b_k)
//
// which for binary vectors is the Tanimoto (Jaccard) similarity. It is
// positive semi-definite: it is the collision probability of consistent
// weighted sampling (Ioffe 2010, ICDM). Two zero vectors have κ = V (they
// hash alike) and a zero vector has κ = 0 with any other, which keeps the
// kernel positive semi-definite; so κ(a, a) = V for every a.
//
// Its only hyperparameter is log V. It accepts *SparseCounts. Σ max is
// computed as Σa + Σb − Σ min from cached sums, so a kernel value needs Σ
// min only: a column goes through an inverted index of the rows (built on
// first use) at O(number of matching indices), a single value is one merge
// of the two index lists, O(nnz_a + nnz_b).
type Tanimoto struct {
	s logScales
}

var (
	_ Kernel      = (*Tanimoto)(nil)
	_ blockKernel = (*Tanimoto)(nil)
)

// NewTanimoto returns the MinMax kernel with variance V. It panics unless
// V is positive and finite.
func NewTanimoto(variance float64) *Tanimoto {
	return &Tanimoto{s: newLogScales("Tanimoto", []float64{variance})}
}

// Variance returns V.
func (k *Tanimoto) Variance() float64 { return k.s.v[0] }

// NumParams returns 1.
func (k *Tanimoto) NumParams() int { return 1 }

// ParamNames returns "variance".
func (k *Tanimoto) ParamNames() []string { return []string{"variance"} }

// Params returns (log V) in dst.
func (k *Tanimoto) Params(dst []float64) []float64 { return k.s.params(dst) }

// SetParams sets V = exp θ₀.
func (k *Tanimoto) SetParams(theta []float64) { k.s.set(theta) }

// Accepts reports whether x is *SparseCounts.
func (k *Tanimoto) Accepts(x Inputs) error {
	if _, ok := x.(*SparseCounts); !ok {
		return fmt.Errorf("sgp: the Tanimoto kernel needs sparse count inputs (*sgp.SparseCounts), got %T", x)
	}
	return nil
}

// minMax returns Σ min / Σ max given Σ min = m and the sums sa, sb; 0/0 is 1.
func minMax(m, sa, sb float64) float64 {
	den := sa + sb - m
	if den == 0 {
		return 1
	}
	return m / den
}

// Column sets dst[i−lo] = κ(x_i, y_j).
func (k *Tanimoto) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	fx, fy := x.(*SparseCounts).sp, y.(*SparseCounts).sp
	bi, bv := fy.row(j)
	sb := fy.sum[j]
	v := k.s.v[0]
	dst = dst[:hi-lo]
	if hi-lo >= invMinRows {
		clear(dst)
		fx.index().scatterMinSum(dst, lo, hi, bi, bv)
		for i := lo; i < hi; i++ {
			dst[i-lo] = v * minMax(dst[i-lo], fx.sum[i], sb)
		}
		return
	}
	for i := lo; i < hi; i++ {
		ai, av := fx.row(i)
		dst[i-lo] = v * minMax(sparseMinSum(ai, av, bi, bv), fx.sum[i], sb)
	}
}

// Diag sets dst[i−lo] = V.
func (k *Tanimoto) Diag(dst []float64, x Inputs, lo, hi int) {
	for i := range dst[:hi-lo] {
		dst[i] = k.s.v[0]
	}
}

// AddGrad adds the weighted derivatives ∂κ/∂log V = κ.
func (k *Tanimoto) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	if hi-lo >= invMinRows {
		addGradByColumns(k, &grad[0], w, x, lo, hi, y, cols)
		return
	}
	fx, fy := x.(*SparseCounts).sp, y.(*SparseCounts).sp
	v := k.s.v[0]
	var s float64
	for i := lo; i < hi; i++ {
		ai, av := fx.row(i)
		wi := w[(i-lo)*len(cols) : (i-lo+1)*len(cols)]
		for c, j := range cols {
			if wi[c] == 0 {
				continue
			}
			bi, bv := fy.row(j)
			s += wi[c] * v * minMax(sparseMinSum(ai, av, bi, bv), fx.sum[i], fy.sum[j])
		}
	}
	grad[0] += s
}

// AddDiagGrad adds Σ_i w_i V to the derivative for log V.
func (k *Tanimoto) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	var s float64
	for _, v := range w[:hi-lo] {
		s += v
	}
	grad[0] += s * k.s.v[0]
}

func (k *Tanimoto) crossT(dst []float64, x Inputs, y Inputs, cols []int) {
	crossColumns(k, dst, x, y, cols)
}

// addGradBlockT uses ∂κ/∂log V = κ: no kernel evaluations.
func (k *Tanimoto) addGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	addGradScaled(&grad[0], w, kv, x.Len(), len(cols))
}
