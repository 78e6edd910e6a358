package cholqr

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// appendPivot appends point j (not yet a pivot) as column t of G: the
// Cholesky column of the residual K − G Gᵀ at j,
//
//	g = (K[:, j] − G G[j, :]ᵀ) / √d_j        (Cao et al. 2013, §3)
//
// and updates d ← d − g∘g and row and column t of A = GᵀG. It costs one
// kernel column and O(n·t): one pass over G by row chunks on the Factor's
// workers (see appendTask). It returns false, changing nothing, if d_j is
// below tolerance or if the update would drive some residual below
// −clampTol (a kernel that is not positive semi-definite).
func (f *Factor) appendPivot(j int, tol float64) bool {
	if f.t >= f.tcap {
		panic(errFull)
	}
	dj := f.d[j]
	if dj <= tol {
		return false
	}
	n, t := f.n, f.t
	col := f.col(t)
	gj := f.gj[:t]
	for c := range gj {
		gj[c] = f.g[c*n+j]
	}
	size, chunks := f.rowChunks(n)
	at := &f.appendTask
	at.f, at.j, at.dj, at.chunk = f, j, dj, size
	f.pool.RunParts(at, chunks, f.pool.Size())
	f.stats.KernelEvals += n
	for i, v := range col {
		if f.d[i]-v*v < -f.clampTol(i) {
			return false
		}
	}
	for i, v := range col {
		di := f.d[i] - v*v
		if di < 0 {
			if di < 0 && i != j {
				f.stats.Clamped++
			}
			di = 0
		}
		f.d[i] = di
	}
	f.d[j] = 0
	f.perm[t] = j
	f.pos[j] = t
	f.t++
	// Row and column t of A, summed in chunk order.
	tc, width := f.tcap, f.partWidth()
	row := f.gram[t*tc : t*tc+t+1]
	clear(row)
	for ch := 0; ch < chunks; ch++ {
		for c, v := range f.gsParts[ch*width : ch*width+t+1] {
			row[c] += v
		}
	}
	for c, v := range row {
		f.gram[c*tc+t] = v
	}
	return true
}

func (a *appendTask) RunRange(_, lo, hi int) {
	f := a.f
	n, t, j := f.n, f.t, a.j
	cs := a.chunk
	r0, r1 := lo*cs, min(n, hi*cs)
	col := f.col(t)
	f.kern.Column(col[r0:r1], f.x, r0, r1, f.x, j)
	f.scaleColumn(col[r0:r1], r0, j)
	if t > 0 {
		g := blas64.General{Rows: t, Cols: r1 - r0, Stride: n, Data: f.g[r0 : (t-1)*n+r1]}
		blas64.Gemv(blas.Trans, -1, g, blas64.Vector{N: t, Data: f.gj[:t], Inc: 1}, 1, blas64.Vector{N: r1 - r0, Data: col[r0:r1], Inc: 1})
	}
	inv := 1 / math.Sqrt(a.dj)
	for i := r0; i < r1; i++ {
		col[i] *= inv
	}
	for _, p := range f.perm[:t] {
		if r0 <= p && p < r1 {
			col[p] = 0
		}
	}
	if r0 <= j && j < r1 {
		col[j] = math.Sqrt(a.dj)
	}
	width := f.partWidth()
	for ch := lo; ch < hi; ch++ {
		c0, c1 := ch*cs, min(n, (ch+1)*cs)
		p := f.gsParts[ch*width : ch*width+t+1]
		p[t] = sumSquares(col[c0:c1])
		if t > 0 {
			g := blas64.General{Rows: t, Cols: c1 - c0, Stride: n, Data: f.g[c0 : (t-1)*n+c1]}
			blas64.Gemv(blas.NoTrans, 1, g, blas64.Vector{N: c1 - c0, Data: col[c0:c1], Inc: 1}, 0, blas64.Vector{N: t, Data: p[:t], Inc: 1})
		}
	}
}

// gramColumn sets row and column c of A = GᵀG from G: one pass over G.
func (f *Factor) gramColumn(c int) {
	tc := f.tcap
	row := f.gram[c*tc : c*tc+f.t]
	blas64.Gemv(blas.NoTrans, 1, f.gmat(0, f.t), blas64.Vector{N: f.n, Data: f.col(c), Inc: 1}, 0, blas64.Vector{N: f.t, Data: row, Inc: 1})
	for i, v := range row {
		f.gram[i*tc+c] = v
	}
}

// dropLast removes the last pivot column of G (which must not be active),
// restoring its contribution to d, and parks it with its row of A.
func (f *Factor) dropLast() {
	f.t--
	c := f.t
	f.parkedGram = f.parkedGram[:c+1]
	copy(f.parkedGram, f.gram[c*f.tcap:c*f.tcap+c+1])
	f.parkedK = f.k
	col := f.col(c)
	for i, v := range col {
		f.d[i] += v * v
	}
	j := f.perm[c]
	f.d[j] = math.Max(f.d[j], 0)
	f.pos[j] = -1
	f.parked = j
	f.parkStale = false
	copy(f.parkedCol, col)
}

// unpark puts the parked point back as the last pivot column of G.
//
// Its row of A comes from the parked copy where that is still valid: the
// active columns G[:, :k] do not change while a point is parked (a swap
// that changes them discards the park), so neither does A[:k, c] nor
// A[c, c] = ‖g‖², and only the entries against the information pivots,
// which a candidate's insertion may have reordered, are recomputed from
// G[:, k:c]: O(n·z) instead of a pass over G.
func (f *Factor) unpark() {
	j := f.parked
	c := f.t
	col := f.col(c)
	copy(col, f.parkedCol)
	for i, v := range col {
		di := f.d[i] - v*v
		if di < 0 {
			di = 0
		}
		f.d[i] = di
	}
	f.d[j] = 0
	f.perm[c] = j
	f.pos[j] = c
	f.t++
	f.parked = -1
	k, tc := f.k, f.tcap
	if f.parkedK != k || len(f.parkedGram) != c+1 {
		f.gramColumn(c)
		return
	}
	row := f.gram[c*tc : c*tc+c+1]
	copy(row[:k], f.parkedGram[:k])
	row[c] = f.parkedGram[c]
	if c > k {
		blas64.Gemv(blas.NoTrans, 1, f.gmat(k, c), blas64.Vector{N: f.n, Data: col, Inc: 1}, 0, blas64.Vector{N: c - k, Data: row[k:c], Inc: 1})
	}
	for i, v := range row {
		f.gram[i*tc+c] = v
	}
}

// gmat returns columns [c0, c1) of G as a row-major (c1−c0)×n matrix Gᵀ.
func (f *Factor) gmat(c0, c1 int) blas64.General {
	return blas64.General{Rows: c1 - c0, Cols: f.n, Stride: f.n, Data: f.g[c0*f.n : c1*f.n]}
}

// deltaFromTentative returns the exact decrease of the objective o if the
// tentative column joins the active set (Cao et al. 2013, §3):
//
//	ΔE_D = σ⁻² a_new²,  ΔE_C = log σ² − log r²,  ΔE_V = σ⁻² ‖g‖²
//	ΔF = ½(ΔE_D + ΔE_C [+ ΔE_V])
//
// Here r is the norm of the Gram–Schmidt remainder of [g; 0; σ], so
// r² = ‖g‖² + σ² − ‖c‖² including the σ² term.
func (f *Factor) deltaFromTentative(o base.Objective) float64 {
	t := f.tent
	return gainF(o, t.anew, 2*math.Log(t.r), t.gg, f.noise)
}

// gainF returns ΔF of deltaFromTentative from a_new, log r², ‖g‖² and σ²;
// predictReject and exactDeltas score candidates with it too.
func gainF(o base.Objective, anew, logR2, gg, s2 float64) float64 {
	df := 0.5 * (anew*anew/s2 + math.Log(s2) - logR2)
	if o == base.VAR {
		df += 0.5 * gg / s2
	}
	return df
}

// predicted returns the decrease of o if the candidate of projection p
// joined the set, predicted from p alone at noise σ² = s2 with a the
// data-fit coordinates Qᵀ(y − μ) of the k active columns, and the size
// of its terms (a data-fit term bounded without cancellation), against
// which predictTol measures a margin (Factor.predictReject). ok is false
// where r² = ‖g‖² + σ² − ‖c₁‖² < gsOneSweep·(‖g‖² + σ²): there the
// rounding of c₁ could reach the prediction, and Gram–Schmidt decides.
func (p projection) predicted(o base.Objective, s2 float64, a []float64) (df, size float64, ok bool) {
	vv := p.gg + s2
	r2 := vv - p.cc
	if r2 < gsOneSweep*vv {
		return 0, 0, false
	}
	logR2 := math.Log(r2)
	df = gainF(o, (p.gy-p.ca)/math.Sqrt(r2), logR2, p.gg, s2)
	size = 1 + math.Abs(math.Log(s2)-logR2)
	bound := math.Abs(p.gy) + math.Sqrt(p.cc*sumSquares(a))
	size += bound * bound / (r2 * s2)
	if o == base.VAR {
		size += p.gg / s2
	}
	return df, size, true
}

// noQColumn writes R's new column k (m columns a row) from projection p
// at noise σ² = s2, [c₁; r] with c₁ = cvec[:k] and r² = ‖g‖² + σ² − ‖c₁‖²
// kept at σ² or more, with a_new and b_new into a[k] and b[k], as
// addNoQ takes them without Gram–Schmidt, and returns r² and ‖g‖² + σ².
func (p projection) noQColumn(r, a, b, cvec []float64, m, k int, s2 float64) (r2, vv float64) {
	vv = p.gg + s2
	r2 = math.Max(vv-p.cc, s2)
	rk := math.Sqrt(r2)
	for i, v := range cvec[:k] {
		r[i*m+k] = v
	}
	r[k*m+k] = rk
	a[k] = (p.gy - p.ca) / rk
	b[k] = (p.g1 - p.cb) / rk
	return r2, vv
}

// dropActive removes the last active column from the QR factorisation:
// k ← k−1. The point stays as the first non-active pivot column of G.
func (f *Factor) dropActive() {
	f.k--
	k := f.k
	// Row n+k of Q belonged to the dropped point's augmentation; in the
	// remaining columns it is zero up to rounding.
	for c := 0; c < k; c++ {
		f.q[c*f.ldq+f.n+k] = 0
	}
	for i := 0; i <= k; i++ {
		f.r[i*f.mcap+k] = 0
	}
	f.a[k] = 0
	f.b[k] = 0
}

// fillInfoGreedy appends information pivots by largest residual variance
// until there are zcap of them or no point has a residual above keepTol.
// Information pivots only feed the approximate scores, so they may go
// below the admission tolerance of the inducing set.
func (f *Factor) fillInfoGreedy() {
	for f.t-f.k < f.zcap {
		best, bd := -1, 0.0
		for i, v := range f.d {
			if f.pos[i] == -1 && v > f.keepTol(i) && f.first(i, best, v, bd) {
				best, bd = i, v
			}
		}
		if best < 0 || !f.appendPivot(best, f.keepTol(best)) {
			return
		}
	}
}
