package sgp

import (
	"math"

	"github.com/cholqr/sgp/sgp/internal/linalg"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// exactBatchMax bounds the candidates exactDeltas scores at once (its
// scratch space is one n-vector per candidate).
const exactBatchMax = 64

// exactBatch is the scratch space of exactDeltas for up to s candidates.
type exactBatch struct {
	s   int
	kc  []float64 // s×n: candidate q's Cholesky column given the active set in row q
	tmp []float64 // n: one kernel column, or s×n: all of them (block kernels)
	bt  []float64 // k×s: G[cands, :k]ᵀ
	u   []float64 // k×s: G[:, :k]ᵀ g_q
	c   []float64 // k: R⁻ᵀu_q
}

func newExactBatch(n, m, s int, block bool) *exactBatch {
	nt := n
	if block {
		nt = s * n
	}
	return &exactBatch{s: s, kc: make([]float64, s*n), tmp: make([]float64, nt),
		bt: make([]float64, m*s), u: make([]float64, m*s), c: make([]float64, m)}
}

// exactDeltas sets dst[q] to the decrease of objective o if cands[q] joined
// the inducing set, as ExactDelta returns it (NaN for an active point, 0 for
// a negligible residual), for several candidates at once and without
// changing the state. Where ExactDelta orthogonalises each candidate's
// column against Q, this uses the identities of the augmented QR
// [G[:, :k]; σI] = QR: for the new column w = [g; 0; σ],
//
//	c = Qᵀw = R⁻ᵀ G[:, :k]ᵀ g,  r² = ‖g‖² + σ² − ‖c‖²,
//	a_new = (gᵀ(y − μ) − cᵀa)/r
//
// (the same R⁻ᵀGᵀ form as the approximate scores, approxScores), so that
// the candidates' Cholesky columns
//
//	g = (K[:, j] − G[:, :k] G[j, :k]ᵀ)/√d_j     (Cao et al. 2013, §3)
//
// and their products with G take two level-3 passes over G[:, :k] for the
// whole batch instead of several passes over G and Q per candidate. The
// values agree with ExactDelta to rounding amplified by the conditioning
// of R (r² ≥ σ² is enforced: the σ entry of w lies in a row of the
// augmented matrix that no column of Q touches). Cost s kernel columns and
// O(n·k·s + k²·s).
func (f *Factor) exactDeltas(cands []int, o Objective, dst []float64, w *exactBatch) {
	n, k, s := f.n, f.k, len(cands)
	if s > w.s {
		panic("sgp: internal error: exact batch too large")
	}
	kc := w.kc[:s*n]
	// P = G[cands, :k]·G[:, :k]ᵀ into kc, then kc = K[:, cands]ᵀ − P.
	if k > 0 {
		bt := w.bt[:k*s]
		for c := 0; c < k; c++ {
			col := f.col(c)
			for q, j := range cands {
				bt[c*s+q] = col[j]
			}
		}
		linalg.GemmTN(s, n, k, bt, s, f.g, n, kc, n)
	} else {
		clear(kc)
	}
	sigma2 := f.noise
	// The kernel columns: all at once for a block kernel (RBF: four
	// columns share each pass over the inputs), else one at a time.
	bk, isBlock := f.kern.(blockKernel)
	isBlock = isBlock && len(w.tmp) >= s*n
	if isBlock {
		bk.crossT(w.tmp[:s*n], f.x, f.x, cands)
		f.stats.KernelEvals += s * n
	}
	for q, j := range cands {
		row := kc[q*n : (q+1)*n]
		if f.IsActive(j) {
			dst[q] = math.NaN()
			clear(row)
			continue
		}
		// The residual variance given the active set only.
		dA := f.d[j]
		for c := k; c < f.t; c++ {
			v := f.g[c*n+j]
			dA += v * v
		}
		if dA <= f.pivotTol(j) {
			dst[q] = 0
			clear(row)
			continue
		}
		dst[q] = math.Inf(1) // scored below
		kcol := w.tmp[:n]
		if isBlock {
			kcol = w.tmp[q*n : (q+1)*n]
		} else {
			kernelColumn(f.kern, kcol, f.x, f.x, j)
			f.stats.KernelEvals += n
		}
		inv := 1 / math.Sqrt(dA)
		for i, v := range kcol {
			row[i] = (v - row[i]) * inv
		}
		for _, p := range f.perm[:k] {
			row[p] = 0
		}
		row[j] = math.Sqrt(dA)
	}
	// U = G[:, :k]ᵀ [g_1 … g_s].
	u := w.u[:k*s]
	if k > 0 {
		linalg.GemmNT(k, s, n, f.g, n, kc, n, u, s)
	}
	rt := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: k, Stride: f.mcap, Data: f.r}
	for q := range cands {
		if !math.IsInf(dst[q], 1) {
			continue
		}
		row := kc[q*n : (q+1)*n]
		var gg, gy float64
		for i, v := range row {
			gg += v * v
			gy += v * f.y[i]
		}
		c := w.c[:k]
		var cc, ca float64
		if k > 0 {
			for i := range c {
				c[i] = u[i*s+q]
			}
			blas64.Trsv(blas.Trans, rt, blas64.Vector{N: k, Data: c, Inc: 1})
			for i, v := range c {
				cc += v * v
				ca += v * f.a[i]
			}
		}
		r2 := math.Max(gg+sigma2-cc, sigma2)
		r := math.Sqrt(r2)
		anew := (gy - ca) / r
		df := 0.5 * (anew*anew/sigma2 + math.Log(sigma2) - math.Log(r2))
		if o == VAR {
			df += 0.5 * gg / sigma2
		}
		dst[q] = df
	}
}
