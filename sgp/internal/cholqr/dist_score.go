package cholqr

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/par"
	"github.com/cholqr/sgp/sgp/kernel"
)

// bestApprox returns the row with the largest approximate score of o
// (Factor.approxScores: Cao et al. 2013, §4) other than the parked point,
// with its score, or −1 if no row has a non-negligible residual: the
// z-sized terms from the replicated A, R and a and one ordered sum of z
// (u), each rank's rows scored by Factor's formula, and one ArgMax.
func (f *Dist) bestApprox(o base.Objective) (int, float64) {
	if f.t == f.k {
		// Every score is −Inf (or NaN for an active point): no candidate.
		return -1, math.Inf(-1)
	}
	f.approxTerms()
	k, z, nl := f.k, f.t-f.k, f.nl
	w := &f.score
	// Each block's best, then the blocks' in order: the choice is by a
	// total order (score, then canonical position), so it is the same
	// as one pass's.
	nb := blocksOf(nl)
	if len(w.best) < nb {
		w.best, w.bv = make([]int, nb), make([]float64, nb)
	}
	if len(w.lb) < nb*z {
		w.lb = make([]float64, nb*z)
	}
	par.For(nb, 1, func(b0, b1 int) {
		for blk := b0; blk < b1; blk++ {
			l := w.lb[blk*z : (blk+1)*z]
			best, bv := -1, math.Inf(-1)
			for i := blk * comm.BlockRows; i < min(nl, (blk+1)*comm.BlockRows); i++ {
				j := f.lo + i
				if p := f.lpos[i]; p >= 0 && p < k || j == f.parked {
					continue
				}
				if v := f.approxScore(i, o, l); f.first(j, best, v, bv) {
					best, bv = j, v
				}
			}
			w.best[blk], w.bv[blk] = best, bv
		}
	})
	best, bv := -1, math.Inf(-1)
	for blk := range nb {
		if j, v := w.best[blk], w.bv[blk]; j >= 0 && f.first(j, best, v, bv) {
			best, bv = j, v
		}
	}
	return f.argMax(best, bv)
}

// ApproxDeltasTo stores in dst (length the number of this rank's rows,
// allocated if nil) the approximate decrease of objective o if each of
// this rank's rows joined the inducing set, as Factor.ApproxDeltasTo
// does for all rows: NaN for an active point, −Inf for a negligible
// residual. Every rank calls it (one ordered sum of z).
func (f *Dist) ApproxDeltasTo(dst []float64, o base.Objective) []float64 {
	if !f.ok {
		panic(errBadFactor)
	}
	if dst == nil {
		dst = make([]float64, f.nl)
	}
	if len(dst) != f.nl {
		panic(base.ErrShortBuffer)
	}
	z := f.t - f.k
	if z > 0 {
		f.approxTerms()
	}
	l := make([]float64, z)
	for i := range dst {
		switch p := f.lpos[i]; {
		case p >= 0 && p < f.k:
			dst[i] = math.NaN()
		case z == 0:
			dst[i] = math.Inf(-1)
		default:
			dst[i] = f.approxScore(i, o, l)
		}
	}
	return dst
}

// approxTerms sets the z-sized terms of the approximate scores (z > 0):
// u by one ordered sum of z, M, D and w from the replicated A, R and a.
func (f *Dist) approxTerms() {
	k, z := f.k, f.t-f.k
	w := &f.score
	nl := f.nl
	u := f.reduce(z, func(r0, r1 int, acc []float64) {
		for c := 0; c < z; c++ {
			var s float64
			for i, v := range f.g[(k+c)*nl+r0 : (k+c)*nl+r1] {
				s += v * f.y[r0+i]
			}
			acc[c] = s
		}
	})
	copy(w.u[:z], u)
	pivotTerms(f.gram, f.tcap, f.r, f.mcap, f.a, k, z, w.mm[:z*z], w.dd[:z*z], w.w[:z], w.bt[:z*k])
}

// approxScore returns Factor's approximate score of o for local row i
// (not active) from the terms bestApprox set: −Inf for a negligible
// residual given the active set; l (length z) is scratch.
func (f *Dist) approxScore(i int, o base.Objective, l []float64) float64 {
	k, nl := f.k, f.nl
	w := &f.score
	z := len(l)
	dj := f.d[i]
	for c := range l {
		l[c] = f.g[(k+c)*nl+i]
		dj += l[c] * l[c]
	}
	if dj <= 1e-6*f.kdiag[i] {
		return math.Inf(-1)
	}
	u, ww, mm, dd := w.u[:z], w.w[:z], w.mm[:z*z], w.dd[:z*z]
	var yg, ac, gg, rr float64
	for c, v := range l {
		yg += u[c] * v
		ac += ww[c] * v
	}
	if o == base.VAR {
		rr, gg = symQuad2(dd, mm, l)
	} else {
		rr = symQuad(dd, l)
	}
	s2 := f.noise
	inv := 1 / dj
	num := yg - ac
	r2 := max(s2+rr*inv, s2)
	df := 0.5 * (num*num*inv/(s2*r2) + math.Log(s2) - math.Log(r2))
	if o == base.VAR {
		df += 0.5 * gg * inv / s2
	}
	return df
}

// refillInfoRandom adds information pivots drawn by rnd until there are
// z, at most 64 draws, then greedily, as Factor.refillInfoRandom: a draw
// of a row that is no pivot costs its append's broadcast, whose d_j
// check refuses a negligible residual.
func (f *Dist) refillInfoRandom(rnd func(n int) int) {
	for tries := 0; f.t-f.k < f.zcap && tries < 64; tries++ {
		if j := f.DrawRow(rnd); f.Pos(j) == -1 && j != f.parked {
			f.appendPivot(j, 1e-8)
		}
	}
	f.fillInfoGreedy()
}

// RefreshInfo replaces one information pivot, chosen by rnd, with rows
// drawn by rnd, as Factor.RefreshInfo; rnd returns the same sequence on
// every rank. It does nothing without information pivots.
func (f *Dist) RefreshInfo(rnd func(n int) int) {
	if !f.ok {
		panic(errBadFactor)
	}
	z := f.t - f.k
	if z == 0 {
		return
	}
	f.move(f.k+rnd(z), f.t-1)
	f.dropInfoLast()
	f.refillInfoRandom(rnd)
	f.stats.InfoRefreshes++
}

// RefreshInfoGreedy discards all information pivots and chooses them
// again greedily by largest residual variance, as Factor's.
func (f *Dist) RefreshInfoGreedy() {
	if !f.ok {
		panic(errBadFactor)
	}
	for f.t > f.k {
		f.dropInfoLast()
	}
	f.fillInfoGreedy()
}

// exactDeltas sets dst[q] to the exact decrease of o if cands[q] joined
// the inducing set, as Factor.exactDeltas (NaN for an active point, 0 for
// a negligible residual given the active set) without changing the
// state: one SumFloat64s gathers the candidates' rows (x_j, d_j, κ_jj,
// G[j, :t]; each slot is its owner's, the others add zeros, so the sum is
// exact), each rank forms its rows of the candidates' columns given the
// active set, g = (K[:, j] − G[:, :k]G[j, :k]ᵀ)/√d_j, and one ordered
// sum of s·(k+2) gives G[:, :k]ᵀg, ‖g‖² and gᵀ(y − μ) of all of them.
func (f *Dist) exactDeltas(cands []int, o base.Objective, dst []float64) {
	k, t, nl, dim := f.k, f.t, f.nl, f.dim
	w := &f.score
	width := dim + 2 + t
	w.cands = w.cands[:0]
	for q, j := range cands {
		if f.IsActive(j) {
			dst[q] = math.NaN()
			continue
		}
		w.cands = append(w.cands, j)
	}
	s := len(w.cands)
	if s == 0 {
		return
	}
	if len(w.rows) < s*width {
		w.rows = make([]float64, s*width)
	}
	if len(w.kv) < s*nl {
		w.kv = make([]float64, s*nl)
	}
	rows := w.rows[:s*width]
	clear(rows)
	for q, j := range w.cands {
		if jl := f.local(j); jl >= 0 {
			row := rows[q*width : (q+1)*width]
			copy(row, f.x.Row(jl))
			row[dim], row[dim+1] = f.d[jl], f.kdiag[jl]
			for c := 0; c < t; c++ {
				row[dim+2+c] = f.g[c*nl+jl]
			}
		}
	}
	f.c.SumFloat64s(rows)
	// The residual given the active set and the scale of each column.
	inv := make([]float64, s)
	for q := range w.cands {
		row := rows[q*width : (q+1)*width]
		dA := row[dim]
		for _, v := range row[dim+2+k : dim+2+t] {
			dA += v * v
		}
		if dA > 1e-6*row[dim+1] {
			inv[q] = 1 / math.Sqrt(dA)
			row[dim] = math.Sqrt(dA)
		}
	}
	xs := make([]*kernel.Vectors, s)
	for q := range w.cands {
		if inv[q] == 0 {
			continue
		}
		row := rows[q*width : (q+1)*width]
		xj, err := kernel.NewVectors(1, dim, append([]float64(nil), row[:dim]...))
		if err != nil {
			panic(err)
		}
		xs[q] = xj
		f.stats.KernelEvals += f.n
	}
	// Each block forms its rows of the candidates' columns and its part
	// of the sums.
	sw := k + 2
	sums := f.reduce(s*sw, func(r0, r1 int, acc []float64) {
		for q, j := range w.cands {
			if inv[q] == 0 {
				continue
			}
			row := rows[q*width : (q+1)*width]
			cb := w.kv[q*nl+r0 : q*nl+r1]
			f.kern.Column(cb, f.x, r0, r1, xs[q], 0)
			if k > 0 {
				g := blas64.General{Rows: k, Cols: r1 - r0, Stride: nl, Data: f.g[r0 : (k-1)*nl+r1]}
				blas64.Gemv(blas.Trans, -1, g, blas64.Vector{N: k, Data: row[dim+2 : dim+2+k], Inc: 1}, 1, blas64.Vector{N: r1 - r0, Data: cb, Inc: 1})
			}
			for i := range cb {
				if p := f.lpos[r0+i]; p >= 0 && p < k {
					cb[i] = 0
				} else {
					cb[i] *= inv[q]
				}
			}
			if jl := f.local(j); jl >= r0 && jl < r1 {
				cb[jl-r0] = row[dim]
			}
			a := acc[q*sw : (q+1)*sw]
			if k > 0 {
				g := blas64.General{Rows: k, Cols: r1 - r0, Stride: nl, Data: f.g[r0 : (k-1)*nl+r1]}
				blas64.Gemv(blas.NoTrans, 1, g, blas64.Vector{N: r1 - r0, Data: cb, Inc: 1}, 0, blas64.Vector{N: k, Data: a[:k], Inc: 1})
			}
			for i, v := range cb {
				a[k] += v * v
				a[k+1] += v * f.y[r0+i]
			}
		}
	})
	rt := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: k, Stride: f.mcap, Data: f.r}
	s2 := f.noise
	q := 0
	for i, j := range cands {
		if f.IsActive(j) {
			continue
		}
		if inv[q] == 0 {
			dst[i] = 0
			q++
			continue
		}
		sq := sums[q*sw : (q+1)*sw]
		c := f.cvec[:k]
		copy(c, sq[:k])
		var cc, ca float64
		if k > 0 {
			blas64.Trsv(blas.Trans, rt, blas64.Vector{N: k, Data: c, Inc: 1})
			for e, v := range c {
				cc += v * v
				ca += v * f.a[e]
			}
		}
		r2 := math.Max(sq[k]+s2-cc, s2)
		dst[i] = gainF(o, (sq[k+1]-ca)/math.Sqrt(r2), math.Log(r2), sq[k], s2)
		q++
	}
}
