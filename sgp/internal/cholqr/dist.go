package cholqr

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/par"
	"github.com/cholqr/sgp/sgp/kernel"
)

// Dist is the CholQR state of Factor held by the ranks of a Comm, each
// holding its own rows [lo, hi) of the n training points in comm.Span's
// layout (whole blocks of comm.BlockRows rows, consecutive blocks per
// rank). Its methods take and return global row indices, give the same
// results on every rank and run Factor's algorithm: the same pivots, the
// same information pivots, the same choices and ties, the same draws of
// a random source (one that returns the same sequence on every rank).
//
// On the owner of each row: the inputs, the targets, diag K, the residual
// variances d, its rows of G (the k active columns, the z information
// pivots' columns and a candidate's) and its rows of the first n rows of
// Q. Replicated on every rank, O((m+z)²): the pivot order, the pivots'
// own rows of G (pivRows) and inputs, A = GᵀG, R, the σI rows of Q
// (n ≤ row < n+m), a and b, and the canonical order of the rows
// (SetOrder, and its inverse) where one is set.
//
// Every sum over rows is a sum of per-block partials through
// comm.OrderedSum, in global block order, so that the results are the
// same bit for bit for every number of ranks; the replicated terms (the
// σI rows) are added after it, on every rank alike. A choice of the row
// of largest score is each rank's best by Factor's rule and one ArgMax
// whose index is the row's position in the canonical order, so that ties
// go where Factor's go. The messages per operation (comm's calls; see
// docs/scaling.md):
//
//	appending a pivot   one broadcast of d+2+t numbers (x_j, d_j, κ_jj,
//	                    G[j, :t]) from j's owner, one ordered sum of t+1
//	                    (a column of A), one Any (the residuals' check)
//	Gram–Schmidt        one ordered sum of k+3 per projection (one, two
//	                    where the first loses orthogonality)
//	moving pivots,      none: the rotations are read off the replicated
//	removal             pivot rows of G, R and the σI rows of Q
//	Value               one ordered sum (the trace)
//	approximate scores  one ordered sum of z (u = L_zᵀy), one ArgMax
//	greedy pivot        one ArgMax, then an append
//	random pivot        a broadcast per draw of a row that is no pivot
//	                    (the append's, whose check refuses it or goes on)
//	Swap                two Values, the approximate scores, the
//	                    candidate's append (unless it is an information
//	                    pivot), one ordered sum of 3 (predictReject) and,
//	                    unless that rejects, Gram–Schmidt; on rejection
//	                    the removed point's append (its column is
//	                    recomputed, not parked); the refill of pivots
//	RefreshInfo         the random pivot's draws (at most 64), then a
//	                    greedy pivot if none was taken
//	forward step        one Any (the context), the approximate scores
//	                    with pivots, one SumFloat64s of s·(d+2+t) (the
//	                    candidates' rows), one ordered sum of s·(k+2) (the
//	                    batch's exact scores), the winner's append and
//	                    its ordered sum of 3 (addNoQ) or Gram–Schmidt (Add)
//
// TestDistMessages measures them (go test -v -run TestDistMessages).
type Dist struct {
	c     *comm.Comm
	x     *kernel.Vectors // this rank's rows
	kern  kernel.Kernel
	noise float64
	yraw  []float64 // this rank's targets
	y     []float64 // y − μ on this rank's rows
	mu    float64
	yy    float64 // ‖y − μ‖² over all rows
	sumY  float64 // Σ(y − μ) over all rows
	// logScale is n·log sd(y), as Factor's (see ValueScale).
	logScale   float64
	ybar, vary float64        // mean and variance of the targets
	prior      base.MeanPrior // the prior on an estimated μ (MAPMean)
	n          int            // global rows
	lo, nl     int            // this rank's first row and its number of rows
	dim        int
	mcap       int // m
	zcap       int // z, the information pivots
	tcap       int // m + z + 1: the active columns, the pivots and one candidate
	k, t       int
	ok         bool
	qStale     bool    // Q is out of date after addNoQ, until the next Factorize
	noQTol     float64 // if > 0, overrides noQRebuild (tests)
	// order and rank are Factor's canonical order of the rows and its
	// inverse (SetOrder), the same on every rank; nil for row order.
	order, rank []int
	// lastFactorized is the inducing set of the last successful
	// Factorize (or of the state Lend took), to rebuild from.
	lastFactorized []int

	perm    []int     // perm[:t], global indices in pivot order
	lpos    []int     // lpos[i]: the position of local row i in perm, or −1
	pivRows []float64 // tcap×tcap row-major: row r is G[perm[r], :]
	pivX    []float64 // tcap×dim row-major: row r is x_perm[r]
	pivK    []float64 // pivK[r] = κ(x_perm[r], x_perm[r])
	g       []float64 // this rank's rows of G, column-major, stride nl
	kdiag   []float64 // diag K on this rank's rows
	d       []float64 // residual variances on this rank's rows
	q       []float64 // this rank's rows of Q[:n, :], column-major, stride nl
	qs      []float64 // Q[n:n+m, :]: qs[c·m + i] = Q[n+i, c]
	r       []float64 // R, m×m row-major, upper triangular
	a, b    []float64
	gram    []float64 // A = GᵀG, tcap×tcap row-major

	// A removed point waits here until its removal is final (Swap), so
	// that a rejected swap restores its QR column without a pass: its
	// rows of Q (this rank's, then the σI rows), its column of R, a and b.
	parked           int // global index, or −1
	parkedQ, parkedR []float64
	parkedA, parkedB float64

	tent  tentative
	cvec  []float64 // c of the tentative column (m)
	c2    []float64 // the last projection's coefficients (m)
	buf   []float64 // broadcast buffer
	part  []float64 // per-block partials
	sum   []float64 // the reduced sums
	score scoreWork // the approximate scores' z-sized terms

	stats base.Stats
}

// scoreWork holds the z-sized terms of the approximate scores, the same
// on every rank (see Factor.approxScores).
type scoreWork struct {
	bt    []float64 // Bᵀ = (R⁻ᵀA[:k, k:t])ᵀ, z×k row-major
	u, w  []float64 // u = L_zᵀ(y − μ), w = Bᵀa
	mm    []float64 // M = A[k:t, k:t], z×z
	dd    []float64 // D = M − BᵀB, z×z
	best  []int     // bestApprox: each block's best row
	bv    []float64 // and its score
	lb    []float64 // each block's scratch row L_z[j, :]
	kv    []float64 // exactDeltas: the candidates' columns on this rank's rows
	rows  []float64 // exactDeltas: the candidates' fetched rows
	cands []int     // exactDeltas: the candidates scored
}

func (w *scoreWork) init(m, z int) {
	w.bt = make([]float64, z*m)
	w.u, w.w = make([]float64, z), make([]float64, z)
	w.mm, w.dd = make([]float64, z*z), make([]float64, z*z)
}

// NewDist returns an empty Dist (call Factorize) over this rank's rows
// [lo, lo+len(y)) of n, which must be Span(n, comm.BlockRows, rank,
// size), with their inputs x (nil for a rank without rows) and targets
// y; every rank passes the same kern, noise σ², capacity m and number
// of information pivots z (as New's). The inputs are vectors, whose rows
// a broadcast can carry. Every rank calls it, and a bad argument on any
// rank is every rank's error (one all-gather).
func NewDist(c *comm.Comm, x *kernel.Vectors, y []float64, lo, n int, kern kernel.Kernel, noise float64, m, z int) (*Dist, error) {
	dim, nl := 0, len(y)
	if x != nil {
		dim = x.Dim()
	}
	err := checkDist(c, x, y, lo, n, kern, noise, m, z)
	failed := 0
	if err != nil {
		failed = 1
	}
	all := c.AllGatherInts([]int{dim, failed})
	for r := 0; r < len(all); r += 2 {
		if all[r+1] != 0 && err == nil {
			err = fmt.Errorf("sgp: rank %d of %d refused its rows", r/2, c.Size())
		}
		if all[r] != 0 && dim != 0 && all[r] != dim && err == nil {
			err = fmt.Errorf("sgp: rank %d holds inputs of %d columns, rank %d of %d", c.Rank(), dim, r/2, all[r])
		}
		dim = max(dim, all[r])
	}
	if err != nil {
		return nil, err
	}
	z = min(z, n)
	tc := m + z + 1
	f := &Dist{
		c: c, x: x, kern: kern, noise: noise, yraw: y, y: make([]float64, nl),
		n: n, lo: lo, nl: nl, dim: dim, mcap: m, zcap: z, tcap: tc,
		perm: make([]int, tc), lpos: make([]int, nl), pivRows: make([]float64, tc*tc), pivX: make([]float64, tc*dim), pivK: make([]float64, tc),
		g: make([]float64, nl*tc), kdiag: make([]float64, nl), d: make([]float64, nl),
		q: make([]float64, nl*m), qs: make([]float64, m*m), r: make([]float64, m*m),
		a: make([]float64, m), b: make([]float64, m), gram: make([]float64, tc*tc),
		parked: -1, parkedQ: make([]float64, nl+m), parkedR: make([]float64, m),
		cvec: make([]float64, m), c2: make([]float64, m),
		buf: make([]float64, dim+2+tc), sum: make([]float64, tc+3),
		part: make([]float64, blocksOf(nl)*(tc+3)),
	}
	for i := range f.lpos {
		f.lpos[i] = -1
	}
	f.score.init(m, z)
	if nl > 0 {
		kern.Diag(f.kdiag, x, 0, nl)
	}
	f.SetMean(0)
	mean := f.sumY / float64(n)
	ss := f.reduce(1, func(r0, r1 int, acc []float64) {
		for _, v := range y[r0:r1] {
			acc[0] += (v - mean) * (v - mean)
		}
	})[0]
	f.ybar, f.vary = mean, ss/float64(n)
	if v := ss / float64(n); v > 0 && !math.IsInf(v, 0) {
		f.logScale = 0.5 * float64(n) * math.Log(v)
	}
	return f, nil
}

// checkDist returns the error of NewDist's arguments on this rank.
func checkDist(c *comm.Comm, x *kernel.Vectors, y []float64, lo, n int, kern kernel.Kernel, noise float64, m, z int) error {
	wlo, whi := comm.Span(n, comm.BlockRows, c.Rank(), c.Size())
	switch {
	case (x == nil && len(y) > 0) || (x != nil && len(y) != x.Len()):
		return fmt.Errorf("sgp: rank %d: inputs and targets of different lengths", c.Rank())
	case lo != wlo || lo+len(y) != whi:
		return fmt.Errorf("sgp: rank %d holds rows [%d, %d) but its span of %d rows is [%d, %d)", c.Rank(), lo, lo+len(y), n, wlo, whi)
	case !(noise > 0) || math.IsInf(noise, 0):
		return fmt.Errorf("%w, got %v", base.ErrNoise, noise)
	case m < 1 || m > n:
		return fmt.Errorf("sgp: a factor's capacity m=%d must satisfy 1 ≤ m ≤ n=%d", m, n)
	case z < 0:
		return fmt.Errorf("sgp: the number of information pivots z=%d must be ≥ 0", z)
	case kern == nil:
		return fmt.Errorf("sgp: no kernel")
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("sgp: target %d is %v; remove or impute non-finite targets", lo+i, v)
		}
	}
	if len(y) > 0 {
		return kern.Accepts(x)
	}
	return nil
}

// blocksOf returns the number of comm.BlockRows blocks of nl rows.
func blocksOf(nl int) int { return (nl + comm.BlockRows - 1) / comm.BlockRows }

// reduce returns, on every rank, the sum over all rows of width numbers
// that fill computes for the rows [r0, r1) (local indices) of one block
// into acc, zeroed: per-block partials added in global block order.
func (f *Dist) reduce(width int, fill func(r0, r1 int, acc []float64)) []float64 {
	nb := blocksOf(f.nl)
	if len(f.part) < nb*width {
		f.part = make([]float64, nb*width)
	}
	if len(f.sum) < width {
		f.sum = make([]float64, width)
	}
	parts := f.part[:nb*width]
	clear(parts)
	par.For(nb, 1, func(b0, b1 int) {
		for b := b0; b < b1; b++ {
			fill(b*comm.BlockRows, min(f.nl, (b+1)*comm.BlockRows), parts[b*width:(b+1)*width])
		}
	})
	out := f.sum[:width]
	clear(out)
	f.c.OrderedSum(parts, width, out)
	return out
}

// local returns the local index of global row j, or −1 if another rank holds it.
func (f *Dist) local(j int) int {
	if j >= f.lo && j < f.lo+f.nl {
		return j - f.lo
	}
	return -1
}

// SetMean sets the constant prior mean μ (as Factor.SetMean).
func (f *Dist) SetMean(mu float64) {
	if math.IsNaN(mu) || math.IsInf(mu, 0) {
		panic("sgp: non-finite mean")
	}
	delta := mu - f.mu
	f.mu = mu
	for i, v := range f.yraw {
		f.y[i] = v - mu
	}
	s := f.reduce(2, func(r0, r1 int, acc []float64) {
		for _, v := range f.y[r0:r1] {
			acc[0] += v * v
			acc[1] += v
		}
	})
	f.yy, f.sumY = s[0], s[1]
	if f.ok {
		for c := 0; c < f.k; c++ {
			f.a[c] -= delta * f.b[c]
		}
	}
}

// N returns n, the global number of rows.
func (f *Dist) N() int { return f.n }

// Comm returns the ranks the state is spread over.
func (f *Dist) Comm() *comm.Comm { return f.c }

// NumActive returns k.
func (f *Dist) NumActive() int { return f.k }

// Stats returns the engine's counters.
func (f *Dist) Stats() base.Stats { return f.stats }

// Active returns the inducing set in pivot order.
func (f *Dist) Active(dst []int) []int { return append(dst[:0], f.perm[:f.k]...) }

// InfoPivots returns the information pivots in pivot order in dst.
func (f *Dist) InfoPivots(dst []int) []int { return append(dst[:0], f.perm[f.k:f.t]...) }

// NumInfo returns the current number of information pivots.
func (f *Dist) NumInfo() int { return f.t - f.k }

// MaxInfo returns z, the capacity of the information-pivot set.
func (f *Dist) MaxInfo() int { return f.zcap }

// MaxActive returns m, the capacity of the inducing set.
func (f *Dist) MaxActive() int { return f.mcap }

// Pos returns the position of global row j in the pivot order (active
// points first, then the information pivots), or −1: a search of the
// replicated pivots, O(m+z).
func (f *Dist) Pos(j int) int {
	for p, v := range f.perm[:f.t] {
		if v == j {
			return p
		}
	}
	return -1
}

// IsActive reports whether global row j is in the inducing set.
func (f *Dist) IsActive(j int) bool {
	p := f.Pos(j)
	return p >= 0 && p < f.k
}

// Order returns the canonical order of the rows set by SetOrder, or nil.
func (f *Dist) Order() []int { return f.order }

// Noise returns σ².
func (f *Dist) Noise() float64 { return f.noise }

// Ready reports whether the state holds a successful Factorize (not
// lent, not left invalid by a degenerate set).
func (f *Dist) Ready() bool { return f.ok }

// SetOrder sets the canonical order of the rows (as Factor.SetOrder):
// order, the same on every rank, is a permutation of the n global rows,
// or nil for their own order. Draws (DrawRow) read it and choices by
// largest score break ties by it.
func (f *Dist) SetOrder(order []int) {
	if order != nil && len(order) != f.n {
		panic(base.ErrShortBuffer)
	}
	f.order, f.rank = order, nil
	if order != nil {
		f.rank = make([]int, len(order))
		for p, i := range order {
			f.rank[i] = p
		}
	}
}

// DrawRow returns a row drawn by rnd, a uniform random index source,
// through the canonical order of the rows, as Factor.DrawRow.
func (f *Dist) DrawRow(rnd func(n int) int) int { return f.AtPos(rnd(f.n)) }

// AtPos returns the row at position p of the canonical order.
func (f *Dist) AtPos(p int) int {
	if f.order != nil {
		return f.order[p]
	}
	return p
}

// canon returns the position of global row i in the canonical order.
func (f *Dist) canon(i int) int {
	if f.rank != nil {
		return f.rank[i]
	}
	return i
}

// first is Factor.first: whether global row i beats best, whose scores
// are v and bv, in a choice by largest score with ties by canonical order.
func (f *Dist) first(i, best int, v, bv float64) bool {
	if v != bv || best < 0 {
		return v > bv
	}
	return f.canon(i) < f.canon(best)
}

// argMax returns the row of largest score over all ranks from this
// rank's best row (global index, or −1) and its score, as Factor's
// choices make it (first): one ArgMax over the rows' canonical positions,
// whose ties go to the smallest. It returns −1 if no rank offers one.
func (f *Dist) argMax(best int, bv float64) (int, float64) {
	idx := -1
	if best >= 0 {
		idx = f.canon(best)
	}
	v, idx := f.c.ArgMax(bv, idx)
	if idx < 0 {
		return -1, v
	}
	return f.AtPos(idx), v
}

// Parts returns the objective terms, the same on every rank.
func (f *Dist) Parts() base.Parts {
	if !f.ok {
		panic(errBadFactor)
	}
	n, k := float64(f.n), f.k
	var aa, logR float64
	for i := 0; i < k; i++ {
		aa += f.a[i] * f.a[i]
		logR += math.Log(math.Abs(f.r[i*f.mcap+i]))
	}
	tr := f.reduce(1, func(r0, r1 int, acc []float64) {
		for _, v := range f.d[r0:r1] {
			acc[0] += v
		}
		for c := f.k; c < f.t; c++ {
			for _, v := range f.g[c*f.nl+r0 : c*f.nl+r1] {
				acc[0] += v * v
			}
		}
	})[0]
	return partsOf(f.yy, aa, f.noise, n, k, logR, tr, f.prior.Penalty(f.mu))
}

// InducingInputs returns the inputs of the inducing set in pivot order,
// k×d row-major, the same on every rank (each added point's input is
// broadcast by its owner): for a model's predictions or a gradient phase,
// which need the inducing inputs on every rank.
func (f *Dist) InducingInputs() []float64 { return append([]float64(nil), f.pivX[:f.k*f.dim]...) }

// Value returns objective o of the current inducing set.
func (f *Dist) Value(o base.Objective) float64 { return f.Parts().Value(o) }

// ValueScale returns the scale of relative changes of an objective value
// v, as Factor.ValueScale: |v − n·log sd(y)|, at least n/100.
func (f *Dist) ValueScale(v float64) float64 {
	return math.Max(math.Abs(v-f.logScale), float64(f.n)/100)
}

// gcol returns this rank's rows of column c of G.
func (f *Dist) gcol(c int) []float64 { return f.g[c*f.nl : (c+1)*f.nl] }

// qcol returns this rank's rows of column c of Q[:n, :].
func (f *Dist) qcol(c int) []float64 { return f.q[c*f.nl : (c+1)*f.nl] }

// fetch broadcasts from global row j's owner x_j, d_j, κ(x_j, x_j) and
// G[j, :t] into f.buf (in that order), which it returns: one broadcast.
func (f *Dist) fetch(j int) []float64 {
	t, nl, dim := f.t, f.nl, f.dim
	buf := f.buf[:dim+2+t]
	if jl := f.local(j); jl >= 0 {
		copy(buf, f.x.Row(jl))
		buf[dim], buf[dim+1] = f.d[jl], f.kdiag[jl]
		for c := 0; c < t; c++ {
			buf[dim+2+c] = f.g[c*nl+jl]
		}
	}
	f.c.BcastFloat64s(buf, comm.Owner(f.n, comm.BlockRows, f.c.Size(), j))
	return buf
}

// appendPivot appends global row j as pivot column t of G (as
// Factor.appendPivot): j's owner broadcasts x_j, d_j, κ(x_j, x_j) and
// G[j, :t] (fetch); every rank computes its rows of the new column and its
// blocks' part of A's new column. tolScale times κ(x_j, x_j) is the
// residual at or below which j is refused; so is a column that would
// drive some residual below −clampTol. A refusal changes nothing.
func (f *Dist) appendPivot(j int, tolScale float64) bool {
	if f.t >= f.tcap {
		panic(errFull)
	}
	f.fetch(j)
	return f.appendFetched(j, tolScale)
}

// appendFetched is appendPivot after the fetch of j's row into f.buf.
func (f *Dist) appendFetched(j int, tolScale float64) bool {
	t, nl, dim := f.t, f.nl, f.dim
	buf := f.buf[:dim+2+t]
	dj := buf[dim]
	if dj <= tolScale*buf[dim+1] {
		return false
	}
	xj, err := kernel.NewVectors(1, dim, append([]float64(nil), buf[:dim]...))
	if err != nil {
		panic(err)
	}
	gj := buf[dim+2 : dim+2+t]
	col := f.gcol(t)
	sq := math.Sqrt(dj)
	s := f.reduce(t+1, func(r0, r1 int, acc []float64) {
		cb := col[r0:r1]
		f.kern.Column(cb, f.x, r0, r1, xj, 0)
		if t > 0 {
			g := blas64.General{Rows: t, Cols: r1 - r0, Stride: nl, Data: f.g[r0 : (t-1)*nl+r1]}
			blas64.Gemv(blas.Trans, -1, g, blas64.Vector{N: t, Data: gj, Inc: 1}, 1, blas64.Vector{N: r1 - r0, Data: cb, Inc: 1})
		}
		inv := 1 / sq
		for i := range cb {
			cb[i] *= inv
		}
		for i := r0; i < r1; i++ {
			if f.lpos[i] >= 0 {
				col[i] = 0
			}
		}
		if jl := f.local(j); jl >= r0 && jl < r1 {
			col[jl] = sq
		}
		acc[t] = sumSquares(cb)
		if t > 0 {
			g := blas64.General{Rows: t, Cols: r1 - r0, Stride: nl, Data: f.g[r0 : (t-1)*nl+r1]}
			blas64.Gemv(blas.NoTrans, 1, g, blas64.Vector{N: r1 - r0, Data: cb, Inc: 1}, 0, blas64.Vector{N: t, Data: acc[:t], Inc: 1})
		}
	})
	f.stats.KernelEvals += f.n
	bad := false
	for i, v := range col {
		if f.d[i]-v*v < -1e-5*f.kdiag[i] {
			bad = true
			break
		}
	}
	if f.c.Any(bad) {
		clear(col)
		return false
	}
	tc := f.tcap
	row := f.gram[t*tc : t*tc+t+1]
	copy(row, s)
	for c, v := range row {
		f.gram[c*tc+t] = v
	}
	for i, v := range col {
		di := f.d[i] - v*v
		if di < 0 {
			if f.lo+i != j {
				f.stats.Clamped++
			}
			di = 0
		}
		f.d[i] = di
	}
	if jl := f.local(j); jl >= 0 {
		f.d[jl] = 0
		f.lpos[jl] = t
	}
	for r := 0; r < t; r++ {
		f.pivRows[r*tc+t] = 0
	}
	pr := f.pivRows[t*tc : (t+1)*tc]
	clear(pr)
	copy(pr, gj)
	pr[t] = sq
	copy(f.pivX[t*dim:(t+1)*dim], buf[:dim])
	f.pivK[t] = buf[dim+1]
	f.perm[t] = j
	f.t++
	return true
}

// dropInfoLast removes the last pivot column of G (not active), restoring
// its contribution to d, as Factor.dropInfoLast: no messages.
func (f *Dist) dropInfoLast() {
	f.t--
	c, tc := f.t, f.tcap
	j := f.perm[c]
	for i, v := range f.gcol(c) {
		f.d[i] += v * v
	}
	if jl := f.local(j); jl >= 0 {
		f.d[jl] = math.Max(f.d[jl], 0)
		f.lpos[jl] = -1
	}
	clear(f.gcol(c))
	for r := 0; r <= c; r++ {
		f.pivRows[r*tc+c] = 0
		f.gram[r*tc+c], f.gram[c*tc+r] = 0, 0
	}
	clear(f.pivRows[c*tc : (c+1)*tc])
}

// fillInfoGreedy appends information pivots by largest residual variance
// until there are z of them or no row has a residual above keepTol, as
// Factor.fillInfoGreedy (ties by canonical order; the parked point, which
// Factor never holds when it fills, is left out): one ArgMax and an
// append per pivot.
func (f *Dist) fillInfoGreedy() {
	for f.t-f.k < f.zcap {
		best, bd := -1, 0.0
		for i, v := range f.d {
			if j := f.lo + i; f.lpos[i] == -1 && j != f.parked && v > 1e-8*f.kdiag[i] && f.first(j, best, v, bd) {
				best, bd = j, v
			}
		}
		if best, _ = f.argMax(best, bd); best < 0 || !f.appendPivot(best, 1e-8) {
			return
		}
	}
}
