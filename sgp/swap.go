package sgp

import (
	"math"
)

// transpose exchanges the pivots at positions l and l+1 and restores the
// factorisation (Cao et al. 2013, §3.2 "removing a point"):
//
//	G ← G·X,  X = [s c; c −s] on columns (l, l+1)
//
// where (c, s) ∝ (G[p, l+1], G[p, l]) and p = perm[l+1], so that the new
// column l+1 is zero in row p, the new first pivot. If both positions are
// active, R ← H·R·X with a left rotation H that re-triangularises R, Q ←
// diag(I_n, Xᵀ)·Q·Hᵀ (the isotropic block σI absorbs X by rotating Q's
// augmented rows), and a ← H·a, b ← H·b. Cost O(n) for G plus O(n+k) for Q.
func (f *Factor) transpose(l int) {
	p, q := f.perm[l+1], f.perm[l]
	gl, gl1 := f.col(l), f.col(l+1)
	rho := math.Hypot(gl[p], gl1[p])
	c, s := gl1[p]/rho, gl[p]/rho
	rotPair(gl, gl1, s, c)
	gl[p], gl1[p] = rho, 0
	f.perm[l], f.perm[l+1] = p, q
	f.pos[p], f.pos[q] = l, l+1
	// A ← XᵀAX on rows and columns l, l+1.
	tc, t := f.tcap, f.t
	rotPair(f.gram[l*tc:l*tc+t], f.gram[(l+1)*tc:(l+1)*tc+t], s, c)
	for i := 0; i < t; i++ {
		u, v := f.gram[i*tc+l], f.gram[i*tc+l+1]
		f.gram[i*tc+l] = s*u + c*v
		f.gram[i*tc+l+1] = c*u - s*v
	}
	if l+1 < f.k {
		f.transposeQR(l, c, s)
	}
}

// rotPair sets (u, v) ← (s·u + c·v, c·u − s·v) elementwise: the symmetric
// reflection X = [s c; c −s] applied to a pair of columns.
func rotPair(u, v []float64, s, c float64) {
	v = v[:len(u)]
	for i, x := range u {
		y := v[i]
		u[i] = s*x + c*y
		v[i] = c*x - s*y
	}
}

// givensPair sets (u, v) ← (ch·u + sh·v, sg·(ch·v − sh·u)) elementwise: a
// Givens rotation followed by an optional sign flip of the second output.
func givensPair(u, v []float64, ch, sh, sg float64) {
	v = v[:len(u)]
	for i, x := range u {
		y := v[i]
		u[i] = ch*x + sh*y
		v[i] = sg * (ch*y - sh*x)
	}
}

// transposeQR applies the column transposition X = [s c; c −s] at active
// positions (l, l+1) to the QR factorisation of [G_I; σI].
func (f *Factor) transposeQR(l int, c, s float64) {
	m, k, n := f.mcap, f.k, f.n
	R := f.r
	// R ← R·X on columns l, l+1 (rows 0..l+1 are the only non-zeros).
	for i := 0; i <= l+1; i++ {
		u, v := R[i*m+l], R[i*m+l+1]
		R[i*m+l] = s*u + c*v
		R[i*m+l+1] = c*u - s*v
	}
	// Left rotation H on rows l, l+1 to zero R[l+1, l].
	alpha, beta := R[l*m+l], R[(l+1)*m+l]
	rho := math.Hypot(alpha, beta)
	ch, sh := alpha/rho, beta/rho
	for j := l; j < k; j++ {
		u, v := R[l*m+j], R[(l+1)*m+j]
		R[l*m+j] = ch*u + sh*v
		R[(l+1)*m+j] = ch*v - sh*u
	}
	R[(l+1)*m+l] = 0
	sg := 1.0
	if R[(l+1)*m+l+1] < 0 {
		sg = -1
		for j := l + 1; j < k; j++ {
			R[(l+1)*m+j] = -R[(l+1)*m+j]
		}
	}
	// Q ← Q·Hᵀ on columns l, l+1 (rows 0..n+k), a ← H·a.
	rows := n + k
	givensPair(f.qcol(l)[:rows], f.qcol(l + 1)[:rows], ch, sh, sg)
	u, v := f.a[l], f.a[l+1]
	f.a[l], f.a[l+1] = ch*u+sh*v, sg*(ch*v-sh*u)
	u, v = f.b[l], f.b[l+1]
	f.b[l], f.b[l+1] = ch*u+sh*v, sg*(ch*v-sh*u)
	// Q ← diag(I, Xᵀ)·Q on augmented rows n+l, n+l+1.
	for col := 0; col < k; col++ {
		qc := f.qcol(col)
		u, v := qc[n+l], qc[n+l+1]
		qc[n+l] = s*u + c*v
		qc[n+l+1] = c*u - s*v
	}
}

// move moves the pivot at position from to position to by adjacent
// transpositions; the pivots in between shift by one. Both positions must
// lie in the active block [0, k) or both in [k, t).
func (f *Factor) move(from, to int) {
	for l := from; l < to; l++ {
		f.transpose(l)
	}
	for l := from - 1; l >= to; l-- {
		f.transpose(l)
	}
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
	f.gramSchmidt()
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
func (f *Factor) ExactDelta(j int, o Objective) float64 {
	f.check()
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
	f.check()
	if j < 0 || j >= f.n {
		panic(errIndex)
	}
	if f.k >= f.mcap {
		panic(errFull)
	}
	wasInfo := f.pos[j] >= f.k
	if !f.insertCandidate(j) {
		return &DegenerateError{Index: j, Residual: f.d[j]}
	}
	f.commitActive()
	if wasInfo {
		f.fillInfoGreedy()
	}
	return nil
}

// Remove removes point j from the inducing set in O(n·(k+z)) by adjacent
// transpositions (never refactorising). It panics if j is not active.
func (f *Factor) Remove(j int) {
	f.check()
	if !f.IsActive(j) {
		panic(errNotActive)
	}
	f.removeToPark(f.pos[j])
	f.discardPark()
	f.fillInfoGreedy()
}

// SwapResult describes one swap proposal.
type SwapResult struct {
	Removed     int     // data index of the inducing point taken out
	Proposed    int     // best candidate by approximate score, or −1 if none
	Accepted    bool    // whether Proposed replaced Removed
	ApproxDelta float64 // approximate decrease of F from adding Proposed
	ExactDelta  float64 // exact decrease of F from adding Proposed
	Before      float64 // objective before the swap
	After       float64 // objective after the swap (= Before if rejected)
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
func (f *Factor) Swap(p int, o Objective, rnd func(n int) int) SwapResult {
	f.check()
	if p < 0 || p >= f.k {
		panic(errIndex)
	}
	res := SwapResult{Removed: f.perm[p], Proposed: -1, Before: f.Value(o), After: math.NaN()}
	f.stats.Swaps++
	f.removeToPark(p)
	removedValue := f.Value(o)
	best, approx := f.bestApprox(o)
	if best >= 0 {
		res.Proposed, res.ApproxDelta = best, approx
		wasInfo := f.pos[best] >= 0
		if f.insertCandidate(best) {
			res.ExactDelta = f.deltaFromTentative(o)
			after := removedValue - res.ExactDelta
			if after < res.Before-swapThreshold*f.valueScale(res.Before) {
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
			if !wasInfo {
				f.move(f.k, f.t-1)
				f.dropInfoLast()
			}
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
		j := rnd(f.n)
		if f.pos[j] == -1 && j != f.parked && f.d[j] > f.keepTol(j) {
			f.appendPivot(j, f.keepTol(j))
		}
	}
	f.fillInfoGreedy()
}
