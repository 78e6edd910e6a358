package kernel

import (
	"fmt"
	"math"

	"github.com/cholqr/sgp/sgp/internal/stats"
)

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
	_ Kernel         = (*HistogramIntersection)(nil)
	_ BlockEvaluator = (*HistogramIntersection)(nil)
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
	vy := stats.TargetScale(y)
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
		if math.IsInf(vars[c], 0) || !(vars[c] > 0) {
			vars[c] = 1 // a channel of masses too small to divide by
		}
	}
	return NewHistogramIntersection(vars)
}

// NumChannels returns C.
func (k *HistogramIntersection) NumChannels() int { return len(k.s.v) }

// Variances returns a copy of V₁, …, V_C.
func (k *HistogramIntersection) Variances() []float64 { return append([]float64(nil), k.s.v...) }

// String describes the kernel in one line: histogram(variance V) for one
// channel, histogram(variances [V₁ … V_C]) for C.
func (k *HistogramIntersection) String() string {
	if len(k.s.v) == 1 {
		return callText("histogram", argText("variance", k.s.v[0]))
	}
	return callText("histogram", vecText("variances", k.s.v))
}

// HTML returns the hyperparameters as a table, by name in θ order.
func (k *HistogramIntersection) HTML() string { return hyperHTML(k) }

// kind describes the kernel for Name.
func (k *HistogramIntersection) kind() string {
	return fmt.Sprintf("histogram intersection, %d channels", len(k.s.v))
}

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
		return fmt.Errorf("sgp: the histogram intersection kernel needs histogram inputs (*kernel.Histograms), got %T", x)
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

// CrossT evaluates the block column by column, in parallel over columns.
func (k *HistogramIntersection) CrossT(dst []float64, x Inputs, y Inputs, cols []int) {
	crossColumns(k, dst, x, y, cols)
}

// AddGradBlockT needs the per-channel intersections, not only the values:
// with one channel it uses ∂κ/∂log V = κ, otherwise it recomputes them.
func (k *HistogramIntersection) AddGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	n, m := x.Len(), len(cols)
	if len(k.s.v) == 1 {
		addGradScaled(&grad[0], w, kv, n, m)
		return
	}
	addGradColumns(k, grad, w, x, y, cols)
}
