package cholqr

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gsLazyRatio bounds ‖c₂‖²/‖w₁‖² for the lazy second Gram–Schmidt pass
// (see gramSchmidt): at or below it the remainder keeps at least √0.75 of
// w₁'s norm, so the second projection alone restores orthogonality to
// rounding ("twice is enough", Giraud et al. 2005) and r² = ‖w₁‖² − ‖c₂‖²
// loses at most a factor 4/3 of relative precision to cancellation.
const gsLazyRatio = 0.25

// gsOneSweep is the least ‖w₁‖²/‖w‖² at which gramSchmidt accepts one
// sweep when the measured departure from orthogonality is below gsOrthTol:
// the measurement itself carries rounding of about ε‖w‖, which must stay
// far below gsOrthTol·‖w₁‖ (at a ratio of ¼, ε‖w‖ ≤ 2ε‖w₁‖ ≈ 4·10⁻¹⁶‖w₁‖).
// Explicit CGS2 stops at 0.49 on the norm loss alone, without measuring;
// ¼ puts most swap candidates on the one-sweep path.
const gsOneSweep = 0.25

// gsOrthTol bounds ‖Qᵀw₁‖/‖w₁‖, the measured departure of the first
// remainder from orthogonality (c₂ from a second sweep, or δ = d − c₁
// from the first), below which gramSchmidt takes q = w₁/‖w₁‖ without the
// second projection's update of the column: about 45 ε, the level at
// which the computed c₂ is rounding noise, so that the column is as
// orthogonal as CGS2 would make it.
const gsOrthTol = 1e-14

// rowChunks returns the chunk length and the number of chunks for rows
// rows: minChunk rows or more, or f.minChunk if set (by tests, so that a
// small problem has several chunks).
func (f *Factor) rowChunks(rows int) (size, count int) {
	mc := minChunk
	if f.minChunk > 0 {
		mc = f.minChunk
	}
	count = max(1, min(maxChunks, rows/mc))
	size = (rows + count - 1) / count
	return size, (rows + size - 1) / size
}

// gramSchmidt orthogonalises the augmented column w = [G[:, k]; 0_k; σ]
// against Q[:, :k] by classical Gram–Schmidt, reprojecting when needed
// ("twice is enough", Giraud et al. 2005), and stores the tentative result
// in Q[:, k] and f.cvec/f.tent without changing the committed state.
//
// The first projection's coefficients need no pass over Q: since
// [G[:, :k]; σI] = QR (Cao et al. 2013, §3) and row n+k of Q[:, :k] is
// zero,
//
//	c₁ = Qᵀw = R⁻ᵀ G[:, :k]ᵀ G[:, k] = R⁻ᵀ A[:k, k],
//
// an O(k²) triangular solve with the Gram matrix A = GᵀG (as in
// approxScores). One sweep over Q[:, :k], by blocks of columns small
// enough to stay in the cache for two uses, forms w₁ = w − Qc₁ in Q[:, k]
// and d = Qᵀw (against the partly reduced w, as modified Gram–Schmidt
// does), so that δ = d − c₁ ≈ Qᵀw₁ measures how far w₁ is from
// orthogonal. Where w₁ kept enough of w's norm for the measurement to
// mean something, ‖w₁‖² ≥ gsOneSweep·‖w‖², and is orthogonal to working
// accuracy, ‖δ‖ ≤ gsOrthTol·‖w₁‖, the column is q = w₁/‖w₁‖ with R's
// column [c₁; ‖w₁‖]: one sweep in all. Measuring d costs a third of a
// sweep, so the sweep does it only when ‖w‖² − ‖c₁‖², which predicts
// ‖w₁‖², is at least gsOneSweep·‖w‖².
//
// Otherwise a second sweep computes c₂ = Qᵀw₁ with ‖w₁‖², w₁ᵀy and w₁ᵀ1
// (rows < n), and the second projection w₂ = w₁ − Qc₂ follows
// algebraically: with Q orthonormal,
//
//	r² = ‖w₂‖² = ‖w₁‖² − ‖c₂‖²,  c = c₁ + c₂,
//	a_new = (w₁ᵀy − c₂ᵀa)/r,     b_new = (w₁ᵀ1 − c₂ᵀb)/r,
//
// which is all that deltaFromTentative needs. The column q = w₂/r itself
// is formed by commitActive, one more pass over Q for accepted candidates
// only, and not even that when ‖c₂‖ ≤ gsOrthTol·‖w₁‖ (then q = w₁/‖w₁‖
// as above). A rounding error of c₁ (A is updated, not recomputed, and R
// may be ill-conditioned) lands in w₁ as a component Q·δ that the second
// projection removes; if it is large, ‖c₂‖² > gsLazyRatio·‖w₁‖², the
// remainder is formed explicitly and projected again until it keeps half
// of its norm squared, as classical CGS2 does, and Stats.Reorthogonalize
// counts the event.
//
// Cost O(k²) plus one or two sweeps over Q, O((n+k)·k), where explicit
// CGS2 takes two or four; the one-sweep bound gsOneSweep puts most swap
// candidates on the one-sweep path. The sweeps are split by row chunks
// over the Factor's workers.
func (f *Factor) gramSchmidt() {
	f.needQ()
	n, k := f.n, f.k
	rows := n + k + 1
	var gg float64
	for _, v := range f.col(k) {
		gg += v * v
	}
	vv := gg + f.noise // ‖w‖²
	c := f.firstCoefficients()
	// ‖w₁‖² ≈ ‖w‖² − ‖c₁‖² predicts whether one sweep can do; if not,
	// the sweep does not measure d, which costs a third of a sweep more.
	measure := vv-sumSquares(c) >= gsOneSweep*vv
	mode := gsProject
	if measure {
		mode = gsProjectMeasure
	}
	ww, wy, w1 := f.gsPass(mode, c, 1)
	c2 := f.c2[:k]
	if measure {
		var cc float64
		for i, v := range c2 {
			c2[i] = v - c[i]
			cc += c2[i] * c2[i]
		}
		if ww >= gsOneSweep*vv && cc <= gsOrthTol*gsOrthTol*ww {
			f.tentOrthogonal(ww, wy, w1, gg)
			return
		}
	}
	f.gsPass(gsDot, nil, 1)
	var cc, ca, cb float64
	for i, v := range c2 {
		cc += v * v
		ca += v * f.a[i]
		cb += v * f.b[i]
	}
	if cc <= gsOrthTol*gsOrthTol*ww {
		f.tentOrthogonal(ww, wy, w1, gg)
		return
	}
	if cc <= gsLazyRatio*ww {
		r := math.Sqrt(ww - cc)
		for i, v := range c2 {
			c[i] += v
		}
		f.tent = tentative{valid: true, pending: true, r: r, anew: (wy - ca) / r, bnew: (w1 - cb) / r, gg: gg}
		return
	}
	// The first projection was poor: classical passes on the explicit
	// remainder.
	f.stats.Reorthogonalize++
	w := f.qcol(k)[:rows]
	wv := blas64.Vector{N: rows, Data: w, Inc: 1}
	qt := f.qmat(k, rows)
	blas64.Gemv(blas.Trans, -1, qt, blas64.Vector{N: k, Data: c2, Inc: 1}, 1, wv)
	for i, v := range c2 {
		c[i] += v
	}
	prev, cur := ww, sumSquares(w)
	for pass := 0; cur < 0.49*prev && pass < 2; pass++ {
		cv := blas64.Vector{N: k, Data: c2, Inc: 1}
		blas64.Gemv(blas.NoTrans, 1, qt, wv, 0, cv)
		blas64.Gemv(blas.Trans, -1, qt, cv, 1, wv)
		for i, v := range c2 {
			c[i] += v
		}
		prev, cur = cur, sumSquares(w)
	}
	r := math.Sqrt(cur)
	inv := 1 / r
	for i := range w {
		w[i] *= inv
	}
	var anew, bnew float64
	for i, v := range w[:n] {
		anew += v * f.y[i]
		bnew += v * f.meanDir(i)
	}
	f.tent = tentative{valid: true, r: r, anew: anew, bnew: bnew, gg: gg}
}

// projection holds the sums of firstProjection.
type projection struct {
	gg, gy, g1 float64 // ‖g‖², gᵀ(y − μ), gᵀ1
	cc, ca, cb float64 // ‖c₁‖², c₁ᵀa, c₁ᵀb
}

// firstProjection computes, for the candidate at column k of G, the first
// Gram–Schmidt coefficients c₁ = R⁻ᵀA[:k, k] = Qᵀ[g; 0; σ] into f.cvec
// (see gramSchmidt) and the sums from which r² = ‖g‖² + σ² − ‖c₁‖²,
// a_new = (gᵀ(y − μ) − c₁ᵀa)/r and b_new = (gᵀ1 − c₁ᵀb)/r follow, in
// O(k² + n) and without reading Q.
func (f *Factor) firstProjection() projection {
	k := f.k
	var p projection
	for i, v := range f.col(k) {
		p.gg += v * v
		p.gy += v * f.y[i]
		p.g1 += v * f.meanDir(i)
	}
	for i, v := range f.firstCoefficients() {
		p.cc += v * v
		p.ca += v * f.a[i]
		p.cb += v * f.b[i]
	}
	return p
}

// firstCoefficients sets f.cvec[:k] to c₁ = R⁻ᵀA[:k, k], the first
// Gram–Schmidt coefficients of the candidate at column k of G, and returns
// it: O(k²), without reading Q.
func (f *Factor) firstCoefficients() []float64 {
	k := f.k
	c := f.cvec[:k]
	for i := range c {
		c[i] = f.gram[i*f.tcap+k]
	}
	if k > 0 {
		rt := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: k, Stride: f.mcap, Data: f.r}
		blas64.Trsv(blas.Trans, rt, blas64.Vector{N: k, Data: c, Inc: 1})
	}
	return c
}

// tentOrthogonal sets the tentative column for a remainder w₁ that is
// orthogonal to Q to working accuracy: q = w₁/‖w₁‖, R's column [c₁; ‖w₁‖],
// given ‖w₁‖², w₁ᵀy and w₁ᵀ1; commitActive need not read Q.
func (f *Factor) tentOrthogonal(ww, wy, w1, gg float64) {
	r := math.Sqrt(ww)
	f.tent = tentative{valid: true, pending: true, orthogonal: true, r: r, anew: wy / r, bnew: w1 / r, gg: gg}
}

// commitActive makes the tentative column computed by gramSchmidt the k-th
// active column, first forming q = (w₁ − Qc₂)/r, or w₁/r if w₁ was
// orthogonal already, in Q[:, k] if gramSchmidt left it pending.
func (f *Factor) commitActive() {
	if !f.tent.valid {
		panic("sgp: internal error: no tentative column")
	}
	k, m := f.k, f.mcap
	switch {
	case f.tent.orthogonal:
		inv := 1 / f.tent.r
		w := f.qcol(k)[:f.n+k+1]
		for i := range w {
			w[i] *= inv
		}
	case f.tent.pending:
		f.gsPass(gsFinish, f.c2[:k], 1/f.tent.r)
	}
	for i := 0; i < k; i++ {
		f.r[i*m+k] = f.cvec[i]
	}
	f.r[k*m+k] = f.tent.r
	f.a[k] = f.tent.anew
	f.b[k] = f.tent.bnew
	f.k++
	f.tent = tentative{}
}

// gsColBlock and gsSegment shape the blocks of Q (columns × rows, 64 KiB)
// that the gsProjectMeasure sweep uses twice, for d and for w₁, while they are in
// the cache. Each column block runs down its rows in one piece, so that
// the hardware prefetcher follows its columns. Four columns match gonum's
// Gemv kernels; wider blocks or shorter segments leave the cache or
// restart the prefetcher more often.
const (
	gsColBlock = 4
	gsSegment  = 2048
)

// gsPass runs the pass mode with coefficients coef over Q on the Factor's
// workers. For gsProject and gsProjectMeasure it returns ‖w₁‖², w₁ᵀy and
// w₁ᵀ1, and the latter leaves d in f.c2; gsDot leaves c₂ in f.c2. The sums are added in chunk order.
func (f *Factor) gsPass(mode gsMode, coef []float64, scale float64) (ww, wy, w1 float64) {
	rows := f.n + f.k + 1
	size, chunks := f.rowChunks(rows)
	t := &f.gsTask
	t.f, t.mode, t.coef, t.scale, t.chunk = f, mode, coef, scale, size
	f.qSweeps[mode]++
	f.pool.RunParts(t, chunks, f.pool.Size())
	t.coef = nil
	if mode == gsFinish {
		return 0, 0, 0
	}
	k, width := f.k, f.partWidth()
	c2 := f.c2[:k]
	clear(c2)
	for ch := 0; ch < chunks; ch++ {
		p := f.gsParts[ch*width : (ch+1)*width]
		for i, v := range p[:k] {
			c2[i] += v
		}
		ww += p[k]
		wy += p[k+1]
		w1 += p[k+2]
	}
	return ww, wy, w1
}

func (t *gsTask) RunRange(_, lo, hi int) {
	f := t.f
	n, k, ldq := f.n, f.k, f.ldq
	rows := n + k + 1
	cs := t.chunk
	r0, r1 := lo*cs, min(rows, hi*cs)
	w := f.qcol(k)
	width := f.partWidth()
	switch t.mode {
	case gsFinish:
		if k > 0 {
			q := blas64.General{Rows: k, Cols: r1 - r0, Stride: ldq, Data: f.q[r0 : (k-1)*ldq+r1]}
			blas64.Gemv(blas.Trans, -1, q, blas64.Vector{N: k, Data: t.coef, Inc: 1}, 1, blas64.Vector{N: r1 - r0, Data: w[r0:r1], Inc: 1})
		}
		for i := r0; i < r1; i++ {
			w[i] *= t.scale
		}
		return
	case gsDot:
		for ch := lo; ch < hi && k > 0; ch++ {
			c0, c1 := ch*cs, min(rows, (ch+1)*cs)
			q := blas64.General{Rows: k, Cols: c1 - c0, Stride: ldq, Data: f.q[c0 : (k-1)*ldq+c1]}
			acc := f.gsParts[ch*width : ch*width+k]
			blas64.Gemv(blas.NoTrans, 1, q, blas64.Vector{N: c1 - c0, Data: w[c0:c1], Inc: 1}, 0, blas64.Vector{N: k, Data: acc, Inc: 1})
		}
		return
	}
	// w = [g; 0_k; σ] on these rows, then w −= Qc₁, for gsProjectMeasure
	// by blocks of columns with d += Q_bᵀw before w −= Q_b c₁[b] on each
	// segment of rows.
	g := f.col(k)
	if r0 < n {
		copy(w[r0:r1], g[r0:min(r1, n)])
	}
	for i := max(r0, n); i < r1; i++ {
		w[i] = 0
	}
	if r0 <= n+k && n+k < r1 {
		w[n+k] = math.Sqrt(f.noise)
	}
	if t.mode == gsProject && k > 0 {
		q := blas64.General{Rows: k, Cols: r1 - r0, Stride: ldq, Data: f.q[r0 : (k-1)*ldq+r1]}
		blas64.Gemv(blas.Trans, -1, q, blas64.Vector{N: k, Data: t.coef, Inc: 1}, 1, blas64.Vector{N: r1 - r0, Data: w[r0:r1], Inc: 1})
	}
	if t.mode == gsProjectMeasure {
		for ch := lo; ch < hi; ch++ {
			clear(f.gsParts[ch*width : ch*width+k])
		}
		for b0 := 0; b0 < k; b0 += gsColBlock {
			b1 := min(k, b0+gsColBlock)
			coef := blas64.Vector{N: b1 - b0, Data: t.coef[b0:b1], Inc: 1}
			for ch := lo; ch < hi; ch++ {
				c0, c1 := ch*cs, min(rows, (ch+1)*cs)
				acc := blas64.Vector{N: b1 - b0, Data: f.gsParts[ch*width+b0 : ch*width+b1], Inc: 1}
				for s0 := c0; s0 < c1; s0 += gsSegment {
					s1 := min(c1, s0+gsSegment)
					q := blas64.General{Rows: b1 - b0, Cols: s1 - s0, Stride: ldq, Data: f.q[b0*ldq+s0 : (b1-1)*ldq+s1]}
					wv := blas64.Vector{N: s1 - s0, Data: w[s0:s1], Inc: 1}
					blas64.Gemv(blas.NoTrans, 1, q, wv, 1, acc)
					blas64.Gemv(blas.Trans, -1, q, coef, 1, wv)
				}
			}
		}
	}
	for ch := lo; ch < hi; ch++ {
		c0, c1 := ch*cs, min(rows, (ch+1)*cs)
		var ww, wy, w1 float64
		for _, v := range w[c0:c1] {
			ww += v * v
		}
		if c0 < n {
			yp := f.y[c0:min(c1, n)]
			if f.wt == nil {
				for i, v := range w[c0 : c0+len(yp)] {
					wy += v * yp[i]
					w1 += v
				}
			} else {
				wt := f.wt[c0 : c0+len(yp)]
				for i, v := range w[c0 : c0+len(yp)] {
					wy += v * yp[i]
					w1 += v * wt[i]
				}
			}
		}
		p := f.gsParts[ch*width : (ch+1)*width]
		p[k], p[k+1], p[k+2] = ww, wy, w1
	}
}
