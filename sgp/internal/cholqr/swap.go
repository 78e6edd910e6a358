package cholqr

import (
	"math"

	"github.com/cholqr/sgp/sgp/internal/asm"
	"github.com/cholqr/sgp/sgp/internal/base"
)

// move moves the pivot at position from to position to; the pivots in
// between shift by one. Both positions must lie in the active block [0, k)
// or both in [k, t), and an active pivot may only move to a later position
// (Cao et al. 2013, §3.2 "removing a point"; no caller moves one earlier).
//
// The move is the chain of adjacent transpositions l = from … to−1 (or
// from−1 … to), each restoring the factorisation by
//
//	G ← G·X,  X = [s c; c −s] on columns (l, l+1)
//
// with (c, s) ∝ (G[p, l+1], G[p, l]) and p the pivot that comes to sit at
// position l, so that the new column l+1 is zero in row p. If the pivots
// are active, R ← H·R·X with a left rotation H that re-triangularises R,
// Q ← diag(I_n, Xᵀ)·Q·Hᵀ (the isotropic block σI absorbs X by rotating Q's
// augmented rows), and a ← H·a, b ← H·b. A = GᵀG becomes XᵀAX.
//
// The rotations are first computed from the few rows they depend on
// (planForward, planBackward, retriangularize), then applied to G and Q by
// row panels (rotatePanels), so that each touched value of G and Q is read
// and written once per move while the moving column's panel stays in
// cache. Cost O(n·|to−from|) streamed once, plus O((k+z)·|to−from|) for A,
// R and the pivot rows.
func (f *Factor) move(from, to int) {
	var ops []reflection
	switch {
	case from < to:
		ops = f.planForward(from, to)
	case from > to:
		if from < f.k {
			panic("sgp: internal error: an active pivot moved to an earlier position")
		}
		ops = f.planBackward(from, to)
	default:
		return
	}
	f.rotateGram(ops)
	var giv []givens
	if to < f.k {
		giv = f.retriangularize(ops)
		f.rotateAugmented(ops)
	}
	f.rotatePanels(ops, giv)
}

// planForward returns the reflections that move the pivot at position a to
// position b > a, and updates perm and pos. Transposition l (= a … b−1)
// moves pivot p = perm[l+1] to position l; its rotation needs G[p, l+1],
// which no earlier transposition of the move has touched, and G[p, l] of
// the moving column after the earlier rotations. That column is tracked at
// the rows perm[a+1 … b] only: O((b−a)²) reads of the pivot block of G.
func (f *Factor) planForward(a, b int) []reflection {
	ops := f.rot.refl[:b-a]
	rows := f.perm[a+1 : b+1]
	v := f.rot.v[:b-a]
	g := f.col(a)
	for i, p := range rows {
		v[i] = g[p]
	}
	for i, p := range rows {
		l := a + i
		g1 := f.col(l + 1)
		rho := math.Hypot(v[i], g1[p])
		c, s := g1[p]/rho, v[i]/rho
		ops[i] = reflection{l: l, p: p, c: c, s: s, rho: rho}
		// The moving column becomes c·G[:, l] − s·G[:, l+1] (the new
		// column l+1); it is needed only at the rows still ahead.
		for j := i + 1; j < len(rows); j++ {
			v[j] = c*v[j] - s*g1[rows[j]]
		}
	}
	q := f.perm[a]
	copy(f.perm[a:b], f.perm[a+1:b+1])
	f.perm[b] = q
	for i := a; i <= b; i++ {
		f.pos[f.perm[i]] = i
	}
	return ops
}

// planBackward returns the reflections that move the pivot q at position a
// to position b < a, and updates perm and pos. Every transposition l
// (= a−1 … b) moves q itself to position l, so all rotations are read off
// q's row of G, which after transposition l is rho in column l and zero in
// column l+1.
func (f *Factor) planBackward(a, b int) []reflection {
	n := f.n
	q := f.perm[a]
	ops := f.rot.refl[:a-b]
	w := f.g[a*n+q] // the moving column at row q
	for i := range ops {
		l := a - 1 - i
		u := f.g[l*n+q]
		rho := math.Hypot(u, w)
		ops[i] = reflection{l: l, p: q, c: w / rho, s: u / rho, rho: rho}
		w = rho
	}
	copy(f.perm[b+1:a+1], f.perm[b:a])
	f.perm[b] = q
	for i := b; i <= a; i++ {
		f.pos[f.perm[i]] = i
	}
	return ops
}

// rotateGram applies the reflections to A = GᵀG: A ← XᵀAX for each in turn.
// Right and left products commute, so the column rotations run along each
// row and then the row rotations follow, all on contiguous rows.
func (f *Factor) rotateGram(ops []reflection) {
	tc, t := f.tcap, f.t
	reflectRows(f.gram, tc, t, ops, t)
	for _, o := range ops {
		rotPair(f.gram[o.l*tc:o.l*tc+t], f.gram[(o.l+1)*tc:(o.l+1)*tc+t], o.s, o.c)
	}
}

// retriangularize applies the reflections of a forward move within the
// active block (columns l, l+1 in increasing l) to R, which makes R upper
// Hessenberg in the moved columns, restores the triangle by the left
// rotations H_l that zero R[l+1, l], in turn, applies them to a and b, and
// returns them for Q. Since left and right products commute and column l
// is final once X_l is applied, this equals interleaving X_l and H_l. The
// rotations keep R's diagonal positive up to the last row of the move,
// whose sign is fixed at the end; R with positive diagonal determines Q.
func (f *Factor) retriangularize(ops []reflection) []givens {
	m, k := f.mcap, f.k
	R := f.r
	a, last := ops[0].l, ops[len(ops)-1].l+1
	// R ← R·X: row i is zero left of column i, so the first rotation that
	// touches a non-zero is X_{i−1}, the (i−1−a)-th.
	reflectRows(R, m, last+1, ops, a+1)
	giv := f.rot.giv[:len(ops)]
	for i, o := range ops {
		l := o.l
		r0, r1 := R[l*m:l*m+k], R[(l+1)*m:(l+1)*m+k]
		rho := math.Hypot(r0[l], r1[l])
		ch, sh := r0[l]/rho, r1[l]/rho
		givensPair(r0[l:k], r1[l:k], ch, sh, 1)
		r1[l] = 0
		giv[i] = givens{l: l, ch: ch, sh: sh, sg: 1}
		u, v := f.a[l], f.a[l+1]
		f.a[l], f.a[l+1] = ch*u+sh*v, ch*v-sh*u
		u, v = f.b[l], f.b[l+1]
		f.b[l], f.b[l+1] = ch*u+sh*v, ch*v-sh*u
	}
	if R[last*m+last] < 0 {
		giv[len(giv)-1].sg = -1
		for j := last; j < k; j++ {
			R[last*m+j] = -R[last*m+j]
		}
		f.a[last], f.b[last] = -f.a[last], -f.b[last]
	}
	return giv
}

// rotateAugmented applies Q ← diag(I_n, Xᵀ)·Q for each reflection of a move
// within the active block: rows n+l, n+l+1 of every column of Q.
func (f *Factor) rotateAugmented(ops []reflection) {
	f.needQ()
	// Column col of Q from row n on is row col of a k×k matrix with stride
	// ldq; the reflections act on its entries (l, l+1) as on a row of R.
	reflectRows(f.q[f.n:], f.ldq, f.k, ops, f.k)
}

// reflectRows applies the reflections in turn to each of the first rows
// rows of data (row i at data[i·stride:]), on entries (l, l+1) as
// (x, y) ← (s·x + c·y, c·x − s·y), that is R ← R·X. Row i starts at the
// reflection numbered max(0, i−skip): a caller whose rows are zero below
// a staircase passes its offset, so that those zeros are skipped (a
// reflection of two zeros gives zeros). Four rows run together so that
// their dependency chains, one through the rotated entries of each row,
// overlap.
func reflectRows(data []float64, stride, rows int, ops []reflection, skip int) {
	i := 0
	for ; i+4 <= rows; i += 4 {
		r0, r1 := data[i*stride:], data[(i+1)*stride:]
		r2, r3 := data[(i+2)*stride:], data[(i+3)*stride:]
		for _, o := range ops[max(0, i-skip):] {
			l, c, s := o.l, o.c, o.s
			x0, y0 := r0[l], r0[l+1]
			x1, y1 := r1[l], r1[l+1]
			x2, y2 := r2[l], r2[l+1]
			x3, y3 := r3[l], r3[l+1]
			r0[l], r0[l+1] = s*x0+c*y0, c*x0-s*y0
			r1[l], r1[l+1] = s*x1+c*y1, c*x1-s*y1
			r2[l], r2[l+1] = s*x2+c*y2, c*x2-s*y2
			r3[l], r3[l+1] = s*x3+c*y3, c*x3-s*y3
		}
	}
	for ; i < rows; i++ {
		r := data[i*stride:]
		for _, o := range ops[max(0, i-skip):] {
			x, y := r[o.l], r[o.l+1]
			r[o.l], r[o.l+1] = o.s*x+o.c*y, o.c*x-o.s*y
		}
	}
}

// movePanel is the number of rows that rotatePanels rotates at a time.
// The segments of the moving column of G and of Q (128 KiB each) stay in
// the L2 cache while those of the other columns stream past them once.
// Whole columns stream with fewer restarts of the hardware prefetcher and
// are re-read from the caches by the next rotation, so panels are long;
// they bound the working set once whole columns outgrow the caches (at
// n = 10⁶ a column of G is 8 MB).
const movePanel = 16384

// rotatePanels applies a move's reflections to G and its Givens rotations,
// if any, to Q (rows < n+k), panel by panel. Rows are independent, so the
// rows are split in two ranges run on two cores when there are enough of
// them (moveSplitRows): one core does not take the memory bandwidth the
// rotations could use. Every value is computed by the
// same operations whatever the split.
func (f *Factor) rotatePanels(refl []reflection, giv []givens) {
	rows := f.n
	if len(giv) > 0 {
		rows += f.k
	}
	t := &f.rot.task
	t.f, t.refl, t.giv = f, refl, giv
	if rows >= moveSplitRows {
		f.pool.RunParts(t, rows, 2)
	} else {
		t.RunRange(0, 0, rows)
	}
	t.refl, t.giv = nil, nil
}

// moveSplitRows is the number of rows from which rotatePanels splits the
// rows over two cores.
const moveSplitRows = 4096

func (t *rotTask) RunRange(_, lo, hi int) {
	f := t.f
	n, ldq := f.n, f.ldq
	for r0 := lo; r0 < hi; r0 += movePanel {
		r1 := min(hi, r0+movePanel)
		if g1 := min(r1, n); r0 < g1 {
			for _, o := range t.refl {
				c0, c1 := o.l*n, (o.l+1)*n
				rotPair(f.g[c0+r0:c0+g1], f.g[c1+r0:c1+g1], o.s, o.c)
				// The pivot row gets its exact values, as the
				// triangular structure of G requires; later
				// reflections rotate its zeros into zeros.
				if r0 <= o.p && o.p < g1 {
					f.g[c0+o.p], f.g[c1+o.p] = o.rho, 0
				}
			}
		}
		for _, o := range t.giv {
			c0, c1 := o.l*ldq, (o.l+1)*ldq
			givensPair(f.q[c0+r0:c0+r1], f.q[c1+r0:c1+r1], o.ch, o.sh, o.sg)
		}
	}
}

// rotPair sets (u, v) ← (s·u + c·v, c·u − s·v) elementwise: the symmetric
// reflection X = [s c; c −s] applied to a pair of columns.
func rotPair(u, v []float64, s, c float64) {
	asm.Rot2(u, v[:len(u)], s, c, c, -s)
}

// givensPair sets (u, v) ← (ch·u + sh·v, sg·(ch·v − sh·u)) elementwise: a
// Givens rotation followed by an optional sign flip of the second output.
func givensPair(u, v []float64, ch, sh, sg float64) {
	// sg = ±1, so sg·(ch·y − sh·x) = (−sg·sh)·x + (sg·ch)·y exactly.
	asm.Rot2(u, v[:len(u)], ch, sh, -sg*sh, sg*ch)
}

// removeToPark removes the active point at position p: it is moved to the
// end of the active block, dropped from the QR factorisation, moved past the
// information pivots and dropped from G, where it stays parked so that
// restorePark can undo the removal. Cost O(n·(k+z)).
func (f *Factor) removeToPark(p int) {
	f.move(p, f.k-1)
	k, rows := f.k-1, f.n+f.k
	copy(f.parkedQ[:rows], f.qcol(k)[:rows])
	for i := 0; i <= k; i++ {
		f.parkedR[i] = f.r[i*f.mcap+k]
	}
	f.parkedA, f.parkedB = f.a[k], f.b[k]
	f.dropActive()
	f.move(f.k, f.t-1)
	f.dropLast()
}

// insertCandidate makes point j (not active) the first non-active pivot,
// at position k, so that G[:, k] is its Cholesky column given the active set,
// and computes the tentative QR column. It returns false, changing nothing,
// if j's residual variance is negligible.
func (f *Factor) insertCandidate(j int) bool {
	if !f.placeCandidate(j) {
		return false
	}
	f.gramSchmidt()
	return true
}

// placeCandidate is insertCandidate without the Gram–Schmidt step: G[:, k]
// and A[:, k] describe j, Q and R are unchanged.
func (f *Factor) placeCandidate(j int) bool {
	p := f.pos[j]
	switch {
	case p >= f.k:
		// An information pivot was admitted against an earlier active set;
		// check its residual given the current one, d_j + ‖L_z[j, :]‖².
		dI := f.d[j]
		for c := f.k; c < f.t; c++ {
			v := f.g[c*f.n+j]
			dI += v * v
		}
		if dI <= f.pivotTol(j) {
			return false
		}
		f.move(p, f.k)
	case p < 0:
		if f.t >= f.tcap {
			// The pivot columns are full: give up the last information pivot.
			f.dropInfoLast()
			f.parkStale = true
		}
		// If the information pivots explain j's residual given the active
		// set, appending j after them is degenerate: drop the pivots that
		// explain most of it until j stands out.
		for f.d[j] <= f.pivotTol(j) && f.t > f.k {
			best, bv := f.k, -1.0
			for c := f.k; c < f.t; c++ {
				if v := math.Abs(f.g[c*f.n+j]); v > bv {
					best, bv = c, v
				}
			}
			f.move(best, f.t-1)
			f.dropInfoLast()
			f.parkStale = true
		}
		if !f.appendPivot(j, f.pivotTol(j)) {
			return false
		}
		f.move(f.t-1, f.k)
	default:
		panic(errIsActive)
	}
	return true
}

// dropInfoLast discards the last information pivot without parking it.
func (f *Factor) dropInfoLast() {
	f.t--
	col := f.col(f.t)
	for i, v := range col {
		f.d[i] += v * v
	}
	j := f.perm[f.t]
	f.d[j] = math.Max(f.d[j], 0)
	f.pos[j] = -1
}

// discardPark forgets the parked point: its removal is final.
func (f *Factor) discardPark() { f.parked = -1 }

// restorePark re-inserts the parked point as the last active point.
func (f *Factor) restorePark() {
	if f.t >= f.tcap {
		f.dropInfoLast()
		f.parkStale = true
	}
	if f.parkStale {
		// The information pivots changed since the point was parked, so
		// its parked column (its Cholesky column after them) is stale.
		j := f.parked
		f.parked = -1
		if !f.appendPivot(j, 0) {
			panic("sgp: internal error: cannot restore a removed inducing point")
		}
	} else {
		f.unpark()
	}
	f.move(f.t-1, f.k)
	// The active block has not changed since the point was parked, and the
	// partial Cholesky column of a given pivot order is unique, so its old
	// QR column is still valid.
	k, rows := f.k, f.n+f.k+1
	copy(f.qcol(k)[:rows], f.parkedQ[:rows])
	for i := 0; i <= k; i++ {
		f.r[i*f.mcap+k] = f.parkedR[i]
	}
	f.a[k], f.b[k] = f.parkedA, f.parkedB
	f.k++
}

// ExactDelta returns the exact decrease of objective o if point j joined
// the inducing set (Cao et al. 2013, §3, with the σ² term in r², see Factor), leaving the state as
// it was up to the order of the information pivots. It costs one kernel
// column (none if j is an information pivot) and O(n·(k+z)).
//
// It returns NaN if j is active and 0 if j's residual variance is
// negligible. It panics if the inducing set is full (k = m): remove a point
// first.
func (f *Factor) ExactDelta(j int, o base.Objective) float64 {
	f.check()
	f.needQ()
	if j < 0 || j >= f.n {
		panic(errIndex)
	}
	if f.IsActive(j) {
		return math.NaN()
	}
	if f.k >= f.mcap {
		panic(errFull)
	}
	wasPivot := f.pos[j] >= 0
	if !f.insertCandidate(j) {
		return 0
	}
	df := f.deltaFromTentative(o)
	f.tent.valid = false
	if !wasPivot {
		f.move(f.k, f.t-1)
		f.dropInfoLast()
		f.fillInfoGreedy()
	}
	return df
}

// Add appends point j to the inducing set. It returns a *DegenerateError,
// changing nothing, if j's residual variance is negligible, and panics if j
// is already active or the set is full. Cost as ExactDelta.
func (f *Factor) Add(j int) error {
	f.checkAdd(j)
	f.needQ()
	wasInfo := f.pos[j] >= f.k
	if !f.insertCandidate(j) {
		return &base.DegenerateError{Index: j, Residual: f.d[j]}
	}
	f.commitActive()
	if wasInfo {
		f.fillInfoGreedy()
	}
	return nil
}

// checkAdd panics unless point j can be added: a valid Factor, j in
// range and room in the inducing set.
func (f *Factor) checkAdd(j int) {
	f.check()
	if j < 0 || j >= f.n {
		panic(errIndex)
	}
	if f.k >= f.mcap {
		panic(errFull)
	}
}

// Remove removes point j from the inducing set in O(n·(k+z)) by adjacent
// transpositions (never refactorising). It panics if j is not active.
func (f *Factor) Remove(j int) {
	f.check()
	f.needQ()
	if !f.IsActive(j) {
		panic(errNotActive)
	}
	f.removeToPark(f.pos[j])
	f.discardPark()
	f.fillInfoGreedy()
}

// swapThreshold is the relative decrease (see valueScale) a swap must
// achieve to be accepted; it stops churn between equally good points.
const swapThreshold = 1e-9

// Swap proposes to replace the active point at position p: it removes it,
// ranks every other point by the approximate score of the information
// pivots (Cao et al. 2013, §4), scores the best one exactly and accepts it
// only if the exact objective decreases by more than a relative 1e-9.
// Otherwise the removed point is restored. Cost O(n·(k+z) + n·z·(k+z)) and
// one kernel column; the objective never increases.
//
// If the best candidate was an information pivot, it is replaced by a new
// one chosen by rnd (a uniform random index source, see RefreshInfo).
func (f *Factor) Swap(p int, o base.Objective, rnd func(n int) int) base.SwapResult {
	f.check()
	f.needQ()
	if p < 0 || p >= f.k {
		panic(errIndex)
	}
	res := base.SwapResult{Removed: f.perm[p], Proposed: -1, Before: f.Value(o), After: math.NaN()}
	f.stats.Swaps++
	f.removeToPark(p)
	removedValue := f.Value(o)
	best, approx := f.bestApprox(o)
	if best >= 0 {
		res.Proposed, res.ApproxDelta = best, approx
		wasInfo := f.pos[best] >= 0
		placed := f.placeCandidate(best)
		reject := false
		if placed {
			res.ExactDelta, reject = f.predictReject(o, removedValue, res.Before)
		}
		if placed && !reject {
			f.gramSchmidt()
			res.ExactDelta = f.deltaFromTentative(o)
			after := removedValue - res.ExactDelta
			if after < res.Before-swapThreshold*f.ValueScale(res.Before) {
				f.commitActive()
				f.discardPark()
				res.Accepted, res.After = true, after
				f.stats.Accepted++
				if wasInfo {
					f.refillInfoRandom(rnd)
				}
				return res
			}
			f.tent.valid = false
		}
		if placed && !wasInfo {
			// Placed but rejected: the candidate goes back out.
			f.move(f.k, f.t-1)
			f.dropInfoLast()
		}
	}
	f.restorePark()
	f.refillInfoRandom(rnd)
	res.After = res.Before
	return res
}

// RefreshInfo replaces one information pivot, chosen by rnd, with a point
// chosen uniformly at random among those that are neither active nor
// pivots and have a non-negligible residual (Cao et al. 2013 found random
// refreshes to work better than optimised ones). rnd(n) must return a
// uniform integer in [0, n). It does nothing if there are no information
// pivots.
func (f *Factor) RefreshInfo(rnd func(n int) int) {
	f.check()
	z := f.t - f.k
	if z == 0 {
		return
	}
	f.move(f.k+rnd(z), f.t-1)
	f.dropInfoLast()
	f.refillInfoRandom(rnd)
	f.stats.InfoRefreshes++
}

// RefreshInfoGreedy discards all information pivots and chooses them again
// greedily by largest residual variance.
func (f *Factor) RefreshInfoGreedy() {
	f.check()
	for f.t > f.k {
		f.dropInfoLast()
	}
	f.fillInfoGreedy()
}

// refillInfoRandom adds random information pivots until there are zcap,
// trying a bounded number of random draws and falling back to the greedy
// choice.
func (f *Factor) refillInfoRandom(rnd func(n int) int) {
	for tries := 0; f.t-f.k < f.zcap && tries < 64; tries++ {
		j := f.DrawRow(rnd)
		if f.pos[j] == -1 && j != f.parked && f.d[j] > f.keepTol(j) {
			f.appendPivot(j, f.keepTol(j))
		}
	}
	f.fillInfoGreedy()
}

// predictTol is the relative margin, against the size of the terms of ΔF,
// by which a predicted swap (predictReject) must fall short of acceptance
// for its Gram–Schmidt sweeps to be skipped.
const predictTol = 1e-6

// predictReject predicts the exact decrease of o from the candidate at
// column k of G without a sweep over Q, from the first Gram–Schmidt
// projection c₁ = R⁻ᵀA[:k, k] alone (see gramSchmidt): with Q
// orthonormal and c₁ = Qᵀw,
//
//	r² = ‖w‖² − ‖c₁‖²,  a_new = (gᵀ(y − μ) − c₁ᵀa)/r,
//
// and ΔF follows as in deltaFromTentative. That costs O(k² + n), where
// gramSchmidt's sweeps read Q (n·k values) once or twice. It reports
// reject when the swap would end at removed − ΔF at or above
// before − swapThreshold·scale by more than predictTol times the size of
// ΔF's terms (a data-fit term bounded without cancellation), and only
// when ‖w‖² − ‖c₁‖² ≥ gsOneSweep·‖w‖², where an error δ in c₁ changes
// the predicted r² by at most 8‖δ‖/‖w‖ relative (2‖c₁‖‖δ‖ against r²):
// gramSchmidt's bound on ‖δ‖/‖w₁‖ (gsOrthTol) keeps that far below
// predictTol. Otherwise the caller runs gramSchmidt and decides on its
// result; a rejected swap leaves the same state either way.
//
// Most swaps that are rejected are rejected by far, and skipping their
// sweeps saves most of a pass over Q per rejected swap.
func (f *Factor) predictReject(o base.Objective, removed, before float64) (df float64, reject bool) {
	if f.noPredict {
		return 0, false
	}
	df, size, ok := f.firstProjection().predicted(o, f.noise, f.a[:f.k])
	if !ok {
		return 0, false
	}
	f.stats.Predicted++
	scale := f.ValueScale(before)
	reject = removed-df >= before-swapThreshold*scale+predictTol*size
	if reject {
		f.stats.PredictedReject++
	}
	return df, reject
}

// noQRebuild is the least r²/(‖g‖² + σ²) at which addNoQ keeps its
// column; below it the rounding of ‖c₁‖² (about k·ε·‖g‖², amplified by
// that ratio) could reach 10⁻⁷ of r² at k = 1000, and the factor is
// rebuilt. On problems with lengthscales up to 6 and noise down to 10⁻¹²
// the ratio stayed above 0.01, and R agreed with Gram–Schmidt's to
// 1.5·10⁻¹² relative (TestAddNoQMatchesAdd).
const noQRebuild = 1e-6

// addNoQ appends point j to the inducing set as Add does, but takes R's
// new column [c₁; r], a_new and b_new from firstProjection instead of
// Gram–Schmidt, so that Q is neither read nor written: it is left stale
// (qStale) until the next Factorize, and the methods that need Q panic
// until then. R then is the Cholesky factor of GᵀG + σ²I built column by
// column, which is what the forward start's scores need (exactDeltas and
// approxScores read R, a and b, never Q). r² is kept at σ² or more, as in
// exactDeltas. Where r² < noQRebuild·(‖g‖² + σ²), so that its rounding
// can be amplified, the factor is rebuilt from scratch (Factorize, which
// restores Q). It returns a *DegenerateError, changing nothing, if j's
// residual variance is negligible.
func (f *Factor) addNoQ(j int) error {
	f.checkAdd(j)
	wasInfo := f.pos[j] >= f.k
	if !f.placeCandidate(j) {
		return &base.DegenerateError{Index: j, Residual: f.d[j]}
	}
	r2, vv := f.firstProjection().noQColumn(f.r, f.a, f.b, f.cvec, f.mcap, f.k, f.noise)
	f.k++
	f.qStale = true
	f.stats.NoQ++
	tol := noQRebuild
	if f.noQTol > 0 {
		tol = f.noQTol
	}
	if r2 < tol*vv {
		return f.Factorize(f.Active(nil))
	}
	if wasInfo {
		f.fillInfoGreedy()
	}
	return nil
}
