package kernel

import (
	"math"

	"github.com/cholqr/sgp/sgp/internal/par"
)

var (
	_ ScaledSum = (*WL)(nil)
	_ ScaledSum = (*HistogramIntersection)(nil)
	_ ScaledSum = (*Tanimoto)(nil)
	_ ScaledSum = (*Spectrum)(nil)
)

// unitBasisT is BasisT for a kernel V·B with one parameter, log V: the
// block κ/V.
func unitBasisT(k BlockEvaluator, v float64, dst []float64, x Inputs, y Inputs, cols []int) {
	n := x.Len()
	k.CrossT(dst[:n*len(cols)], x, y, cols)
	inv := 1 / v
	par.For(len(dst), 1<<14, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] *= inv
		}
	})
}

// BasisT sets the block κ/V.
func (k *Tanimoto) BasisT(dst []float64, x Inputs, y Inputs, cols []int) {
	unitBasisT(k, k.s.v[0], dst, x, y, cols)
}

// BasisT sets the block κ/V.
func (k *Spectrum) BasisT(dst []float64, x Inputs, y Inputs, cols []int) {
	unitBasisT(k, k.s.v[0], dst, x, y, cols)
}

// BasisT sets the per-depth normalised kernels ⟨φ_d(x_i), φ_d(y_j)⟩ /
// (‖φ_d(x_i)‖ ‖φ_d(y_j)‖), or the whole normalised kernel with one
// variance, in parallel over the columns.
func (k *WL) BasisT(dst []float64, x Inputs, y Inputs, cols []int) {
	fx, fy := k.features(x), k.features(y)
	n, m := x.Len(), len(cols)
	if !k.perDepth {
		par.For(m, max(1, par.MinRows/max(1, n)), func(c0, c1 int) {
			for c := c0; c < c1; c++ {
				normalisedColumn(dst[c*n:(c+1)*n], 1, fx.sp, 0, n, fy.sp, cols[c])
			}
		})
		return
	}
	D := k.h + 1
	par.For(m, max(1, par.MinRows/max(1, n)), func(c0, c1 int) {
		p := k.scratch(D * n)
		defer k.pool.Put(p)
		acc := *p
		for c := c0; c < c1; c++ {
			j := cols[c]
			bi, bv := fy.sp.row(j)
			sb := fy.sqd[j*D : (j+1)*D]
			clear(acc)
			if n >= invMinRows {
				fx.sp.index().scatterDotSplit(acc, wlDepthShift, 0, n, bi, bv)
			} else {
				var buf [wlMaxDepth + 1]float64
				a := buf[:D]
				for i := 0; i < n; i++ {
					clear(a)
					ai, av := fx.sp.row(i)
					sparseDotSplit(a, wlDepthShift, ai, av, bi, bv)
					for d, v := range a {
						acc[d*n+i] = v
					}
				}
			}
			for d := 0; d < D; d++ {
				out := dst[(d*m+c)*n : (d*m+c+1)*n]
				for i, v := range acc[d*n : (d+1)*n] {
					out[i] = v / math.Sqrt(fx.sqd[i*D+d]*sb[d])
				}
			}
		}
	})
}

// BasisT sets the per-channel intersections Σ_b min(h_cb, h′_cb).
func (k *HistogramIntersection) BasisT(dst []float64, x Inputs, y Inputs, cols []int) {
	xh, yh := x.(*Histograms), y.(*Histograms)
	n, m, C := x.Len(), len(cols), len(k.s.v)
	par.For(m, max(1, par.MinRows/max(1, n)), func(c0, c1 int) {
		acc := make([]float64, C)
		for c := c0; c < c1; c++ {
			z := yh.item(cols[c])
			for i := 0; i < n; i++ {
				k.intersections(acc, xh.chOff, xh.item(i), z)
				for p, v := range acc {
					dst[(p*m+c)*n+i] = v
				}
			}
		}
	})
}
