package cholqr

import (
	"math"
	"slices"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/linalg"
	"github.com/cholqr/sgp/sgp/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// ExactBatchMax bounds the candidates exactDeltas scores at once (its
// scratch space is one n-vector per candidate).
const ExactBatchMax = 64

// exactChunk is the number of points exactDeltas takes at a time: at
// k = 256 a chunk of G is 2 MB, which the second product over it reads
// from cache instead of memory.
const exactChunk = 1024

// exactGroups bounds the groups of consecutive chunks whose partial sums
// exactDeltas keeps. The groups depend on n alone and are added in order,
// so the scores do not depend on the number of cores.
const exactGroups = 64

// exactBatch is the scratch space of exactDeltas for up to s candidates.
type exactBatch struct {
	s, m  int
	chunk int       // points per chunk (exactChunk; smaller in tests)
	kv    []float64 // s×n: the candidates' kernel columns, one per row
	bt    []float64 // k×s: G[cands, :k]ᵀ
	c     []float64 // k: R⁻ᵀu_q
	u     []float64 // k×s: G[:, :k]ᵀ g_q
	gg    []float64 // s: ‖g_q‖²
	gy    []float64 // s: g_qᵀ(y − μ)
	inv   []float64 // s: 1/√d_j, or 0 for a candidate not scored
	sd    []float64 // s: √d_j
	parts []float64 // per group: its share of u, gg and gy
	rows  []float64 // per worker: s×chunk, the candidates' columns on a chunk
	prod  []float64 // per worker: k×s, one chunk's share of u
	act   []int     // the active points, in increasing order
	task  exactTask
}

// newExactBatch returns the scratch space for batches of up to s
// candidates on n points with at most m active ones, shared by the given
// number of workers.
func newExactBatch(n, m, s, workers int) *exactBatch {
	w := &exactBatch{s: s, m: m, kv: make([]float64, s*n), bt: make([]float64, m*s),
		c: make([]float64, m), u: make([]float64, m*s), gg: make([]float64, s), gy: make([]float64, s),
		inv: make([]float64, s), sd: make([]float64, s), act: make([]int, 0, m)}
	w.setChunk(n, exactChunk, workers)
	return w
}

// setChunk sizes the scratch of the groups and workers for chunks of the
// given number of points.
func (w *exactBatch) setChunk(n, chunk, workers int) {
	w.chunk = chunk
	ng := min(exactGroups, (n+chunk-1)/chunk)
	w.parts = make([]float64, ng*(w.m*w.s+2*w.s))
	w.rows = make([]float64, workers*w.s*chunk)
	w.prod = make([]float64, workers*w.m*w.s)
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
// and their products with G are two level-3 products over G[:, :k] for
// the whole batch instead of several passes over G and Q per candidate.
// Both products are taken on one chunk of rows of G after the other
// (exactTask), so that G is read from memory once per batch, and the
// chunks are shared by the cores, where two whole-matrix products would
// run the second on one core. The values agree with ExactDelta to rounding amplified by the
// conditioning of R (r² ≥ σ² is enforced: the σ entry of w lies in a row
// of the augmented matrix that no column of Q touches). Cost s kernel
// columns and O(n·k·s + k²·s).
func (f *Factor) exactDeltas(cands []int, o base.Objective, dst []float64, w *exactBatch) {
	n, k, s := f.n, f.k, len(cands)
	if s > w.s {
		panic("sgp: internal error: exact batch too large")
	}
	for c := 0; c < k; c++ {
		col := f.col(c)
		for q, j := range cands {
			w.bt[c*s+q] = col[j]
		}
	}
	// The kernel columns: all at once for a block kernel (RBF: four
	// columns share each pass over the inputs), else one at a time.
	bk, block := f.kern.(kernel.BlockEvaluator)
	if block {
		bk.CrossT(w.kv[:s*n], f.x, f.x, cands)
		f.stats.KernelEvals += s * n
	}
	for q, j := range cands {
		w.inv[q] = 0
		if f.IsActive(j) {
			dst[q] = math.NaN()
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
			continue
		}
		dst[q] = math.Inf(1) // scored below
		w.sd[q] = math.Sqrt(dA)
		w.inv[q] = 1 / w.sd[q]
		if !block {
			base.KernelColumn(f.kern, w.kv[q*n:(q+1)*n], f.x, f.x, j)
			f.stats.KernelEvals += n
		}
		f.scaleColumn(w.kv[q*n:(q+1)*n], 0, j)
	}
	w.act = append(w.act[:0], f.perm[:k]...)
	slices.Sort(w.act)
	chunks := (n + w.chunk - 1) / w.chunk
	per := (chunks + exactGroups - 1) / exactGroups
	groups := (chunks + per - 1) / per
	w.task = exactTask{f: f, w: w, cands: cands, k: k, per: per}
	f.pool.RunParts(&w.task, groups, f.pool.Size())
	w.task = exactTask{}
	// The groups' sums, in order.
	u, gg, gy := w.u[:k*s], w.gg[:s], w.gy[:s]
	clear(u)
	clear(gg)
	clear(gy)
	stride := k*s + 2*s
	for g := range groups {
		pg := w.parts[g*stride : (g+1)*stride]
		for i, v := range pg[:k*s] {
			u[i] += v
		}
		for q := range s {
			gg[q] += pg[k*s+q]
			gy[q] += pg[k*s+s+q]
		}
	}
	sigma2 := f.noise
	rt := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: k, Stride: f.mcap, Data: f.r}
	for q := range cands {
		if !math.IsInf(dst[q], 1) {
			continue
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
		r2 := math.Max(gg[q]+sigma2-cc, sigma2)
		dst[q] = gainF(o, (gy[q]-ca)/math.Sqrt(r2), math.Log(r2), gg[q], sigma2)
	}
}

// exactTask is exactDeltas' pass over the points, by groups of chunks of
// rows I of G. For each chunk it forms the candidates' columns
//
//	g_q[I] = (K[I, j_q] − G[I, :k] G[j_q, :k]ᵀ)/√d_j
//
// (0 at the active points, √d_j at j_q) and adds G[I, :k]ᵀ g_q[I],
// ‖g_q[I]‖² and g_q[I]ᵀ(y − μ)[I] to its group's sums.
type exactTask struct {
	f     *Factor
	w     *exactBatch
	cands []int
	k     int
	per   int // chunks per group
}

func (t *exactTask) RunRange(part, lo, hi int) {
	f, w, k, s := t.f, t.w, t.k, len(t.cands)
	n, chunk := f.n, w.chunk
	rows := w.rows[part*s*chunk : (part+1)*s*chunk]
	prod := w.prod[part*k*s : (part+1)*k*s]
	stride := k*s + 2*s
	for g := lo; g < hi; g++ {
		pg := w.parts[g*stride : (g+1)*stride]
		clear(pg)
		pu, pgg, pgy := pg[:k*s], pg[k*s:k*s+s], pg[k*s+s:]
		for i0 := g * t.per * chunk; i0 < min(n, (g+1)*t.per*chunk); i0 += chunk {
			i1 := min(n, i0+chunk)
			b := i1 - i0
			r := rows[:s*b]
			if k > 0 {
				// G[j_q, :k]·G[I, :k]ᵀ for every candidate at once.
				linalg.Gemm(true, false, s, b, k, w.bt, s, f.g[i0:], n, r, b)
			} else {
				clear(r)
			}
			a0, _ := slices.BinarySearch(w.act, i0)
			a1, _ := slices.BinarySearch(w.act, i1)
			yv := f.y[i0:i1]
			for q, j := range t.cands {
				row := r[q*b : (q+1)*b]
				inv := w.inv[q]
				if inv == 0 {
					clear(row)
					continue
				}
				kv := w.kv[q*n+i0 : q*n+i1]
				kv = kv[:len(row)]
				for i, v := range kv {
					row[i] = (v - row[i]) * inv
				}
				for _, p := range w.act[a0:a1] {
					row[p-i0] = 0
				}
				if i0 <= j && j < i1 {
					row[j-i0] = w.sd[q]
				}
				yv := yv[:len(row)]
				var gg, gy float64
				for i, v := range row {
					gg += v * v
					gy += v * yv[i]
				}
				pgg[q] += gg
				pgy[q] += gy
			}
			if k > 0 {
				linalg.Gemm(false, true, k, s, b, f.g[i0:], n, r, b, prod, s)
				for i, v := range prod {
					pu[i] += v
				}
			}
		}
	}
}
