package sgp

import (
	"math"

	"github.com/cholqr/sgp/sgp/internal/par"
)

// scaledSum is implemented by the built-in kernels that are sums of fixed
// kernels with one variance each,
//
//	κ(x, x′) = Σ_p V_p · B_p(x, x′),   θ_p = log V_p for every parameter p,
//
// with the B_p independent of θ: the WL kernel (one B per depth, or one
// in all), the histogram intersection (one per channel), the Tanimoto and
// spectrum kernels and FuncKernel (one each). For a fixed inducing set the
// gradient phase evaluates the blocks B_p(x_i, z_c) once and forms K_mn
// and its derivatives from them at every θ (see Evaluator.combineBasis):
// on thrombin's WL kernel with four depths the kernel work was two thirds
// of a CholQR fit.
type scaledSum interface {
	Kernel
	// basisT sets dst[(p·len(cols)+c)·n+i] = B_p(x_i, y_cols[c]) for the
	// n = x.Len() inputs x, every c and every parameter p.
	basisT(dst []float64, x Inputs, y Inputs, cols []int)
}

var (
	_ scaledSum = (*WL)(nil)
	_ scaledSum = (*HistogramIntersection)(nil)
	_ scaledSum = (*Tanimoto)(nil)
	_ scaledSum = (*Spectrum)(nil)
	_ scaledSum = (*FuncKernel)(nil)
)

// basisMaxValues bounds the number of values an Evaluator keeps for the
// blocks of a scaledSum kernel (512 MiB); beyond it the gradient phase
// evaluates the kernel at every θ as before.
const basisMaxValues = 1 << 26

// unitBasisT is basisT for a kernel V·B with one parameter, log V: the
// block κ/V.
func unitBasisT(k blockKernel, v float64, dst []float64, x Inputs, y Inputs, cols []int) {
	n := x.Len()
	k.crossT(dst[:n*len(cols)], x, y, cols)
	inv := 1 / v
	par.For(len(dst), 1<<14, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] *= inv
		}
	})
}

func (k *Tanimoto) basisT(dst []float64, x Inputs, y Inputs, cols []int) {
	unitBasisT(k, k.s.v[0], dst, x, y, cols)
}

func (k *Spectrum) basisT(dst []float64, x Inputs, y Inputs, cols []int) {
	unitBasisT(k, k.s.v[0], dst, x, y, cols)
}

func (k *FuncKernel) basisT(dst []float64, x Inputs, y Inputs, cols []int) {
	unitBasisT(k, k.v, dst, x, y, cols)
}

// basisT sets the per-depth normalised kernels ⟨φ_d(x_i), φ_d(y_j)⟩ /
// (‖φ_d(x_i)‖ ‖φ_d(y_j)‖), or the whole normalised kernel with one
// variance, in parallel over the columns.
func (k *WL) basisT(dst []float64, x Inputs, y Inputs, cols []int) {
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

// basisT sets the per-channel intersections Σ_b min(h_cb, h′_cb).
func (k *HistogramIntersection) basisT(dst []float64, x Inputs, y Inputs, cols []int) {
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
