package sgp

import (
	"fmt"
	"math"
)

// Factorize builds the state from scratch for the ordered inducing set
// active, then chooses up to z information pivots greedily by largest
// residual variance. It costs O(n·(k+z)²) time and k+z kernel columns.
//
// It panics if an index is out of range or repeated, or if len(active) > m.
// It returns a *DegenerateError if a point's residual variance given the
// earlier ones is below 1e-10·κ(x,x) (a duplicate input); the Factor is then
// left invalid.
func (f *factor) Factorize(active []int) error {
	f.validateActive(active)
	f.reset()
	if f.factorizeBlocked(active) {
		f.fillInfoGreedy()
		f.stats.Factorizations++
	} else if err := f.factorizeRankOne(active); err != nil {
		return err
	}
	f.lastFactorized = append(f.lastFactorized[:0], active...)
	return nil
}

// factorizeRankOne is Factorize by k rank-one steps (appendPivot and
// Gram–Schmidt), which names the first degenerate point.
func (f *factor) factorizeRankOne(active []int) error {
	f.reset()
	for _, j := range active {
		if err := f.appendActive(j); err != nil {
			return err
		}
	}
	f.fillInfoGreedy()
	f.stats.Factorizations++
	return nil
}

// appendActive appends point j as the next active pivot during a rebuild
// (keepTol applies), or invalidates the Factor and names it.
func (f *factor) appendActive(j int) error {
	if !f.appendPivot(j, f.keepTol(j)) {
		f.ok = false
		return &DegenerateError{Index: j, Residual: f.d[j]}
	}
	f.gramSchmidt()
	f.commitActive()
	return nil
}

// validateActive panics on out-of-range or repeated indices.
func (f *factor) validateActive(active []int) {
	if len(active) > f.mcap {
		panic(errFull)
	}
	f.ok = false
	for i := range f.pos {
		f.pos[i] = -1
	}
	for _, j := range active {
		if j < 0 || j >= f.n {
			panic(errIndex)
		}
		if f.pos[j] != -1 {
			panic(fmt.Sprintf("sgp: inducing index %d repeated", j))
		}
		f.pos[j] = 0
	}
	for _, j := range active {
		f.pos[j] = -1
	}
}

// reset empties the factorisation: no pivots, d = diag K.
func (f *factor) reset() {
	f.k, f.t, f.parked = 0, 0, -1
	f.tent.valid = false
	kernelDiag(f.kern, f.kdiag, f.x)
	f.stats.KernelEvals += f.n
	copy(f.d, f.kdiag)
	for i := range f.q {
		f.q[i] = 0
	}
	for i := range f.r {
		f.r[i] = 0
	}
	clear(f.a)
	clear(f.b)
	f.qStale = false
	f.ok = true
}

// FactorizePivoted is Factorize with the inducing set reordered by a
// pivoted Cholesky restricted to it: each next point is the one of active
// with the largest residual variance given those before it. The resulting
// objective is the same as for any order, but a near-degenerate set
// factorises whenever any order would.
func (f *factor) FactorizePivoted(active []int) error {
	_, err := f.factorizePivoted(active, false)
	return err
}

// factorizeSkipping is FactorizePivoted that leaves out, rather than
// failing on, the points whose residual variance given the ones before is
// at most keepTol: numerically in the span of the others, they add
// nothing to the Nyström approximation. It returns the points left out
// (for a kernel that is not positive semi-definite, possibly all of them).
func (f *factor) factorizeSkipping(active []int) (left []int) {
	left, _ = f.factorizePivoted(active, true)
	f.stats.LeftOut += len(left)
	return left
}

// factorizePivoted is FactorizePivoted, or factorizeSkipping if skip.
func (f *factor) factorizePivoted(active []int, skip bool) (left []int, err error) {
	f.validateActive(active)
	f.reset()
	rest := append([]int(nil), active...)
	for len(rest) > 0 {
		b := 0
		for i, j := range rest {
			if f.d[j] > f.d[rest[b]] {
				b = i
			}
		}
		j := rest[b]
		rest[b] = rest[len(rest)-1]
		rest = rest[:len(rest)-1]
		if !skip {
			if err := f.appendActive(j); err != nil {
				return nil, err
			}
			continue
		}
		// appendPivot changes nothing when it refuses a point.
		if !f.appendPivot(j, f.keepTol(j)) {
			left = append(left, j)
			continue
		}
		f.gramSchmidt()
		f.commitActive()
	}
	f.fillInfoGreedy()
	f.stats.Factorizations++
	return left, nil
}

// Refactorize rebuilds the state from scratch for the current inducing set
// (in its current order) and fresh greedy information pivots, and records in
// Stats how far the updated state had drifted from the exact one. It
// returns the relative objective drift |F_updated − F_fresh|/|F_fresh| for
// the VAR objective.
func (f *factor) Refactorize() (float64, error) {
	f.check()
	before := f.Parts().VAR
	beforeResid := f.residualActive(f.approx.dI)
	active := f.Active(nil)
	if err := f.Factorize(active); err != nil {
		return 0, err
	}
	after := f.Parts().VAR
	drift := math.Abs(before-after) / math.Max(math.Abs(after), 1)
	afterResid := f.residualActive(f.approx.dIOld)
	var rd float64
	for i := range beforeResid {
		rd = math.Max(rd, math.Abs(beforeResid[i]-afterResid[i]))
	}
	f.stats.LastDrift = drift
	f.stats.LastResidDrift = rd
	f.stats.MaxDrift = math.Max(f.stats.MaxDrift, drift)
	return drift, nil
}
