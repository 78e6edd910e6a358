package cholqr

import (
	"math"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// Swap proposes to replace the active point at position p, as
// Factor.Swap: it removes it (parked), proposes the row of best
// approximate score of the information pivots (bestApprox), predicts
// or scores its exact decrease and accepts it only if the objective
// decreases by more than a relative swapThreshold; otherwise the removed
// point returns, last in the inducing set. The information pivots are
// refilled from rnd's draws where Factor's are (a uniform index source
// returning the same sequence on every rank), so that the same source
// gives the same draws. Messages: see Dist.
func (f *Dist) Swap(p int, o base.Objective, rnd func(n int) int) base.SwapResult {
	if !f.ok {
		panic(errBadFactor)
	}
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
		wasInfo := f.Pos(best) >= 0
		placed := f.placeCandidate(best)
		reject := false
		if placed {
			res.ExactDelta, reject = f.predictReject(o, removedValue, res.Before)
		}
		if placed && !reject {
			f.gramSchmidt()
			res.ExactDelta = gainF(o, f.tent.anew, 2*math.Log(f.tent.r), f.tent.gg, f.noise)
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
			f.tent = tentative{}
		}
		if placed && !wasInfo {
			f.move(f.k, f.t-1)
			f.dropInfoLast()
		}
	}
	f.restorePark()
	f.refillInfoRandom(rnd)
	res.After = res.Before
	return res
}

// predictReject is Factor.predictReject on the candidate at column k:
// the exact decrease predicted from the first projection alone
// (firstProjection: one ordered sum of 3), and whether the swap is
// rejected by more than predictTol times the size of its terms, so that
// Gram–Schmidt's sums are skipped.
func (f *Dist) predictReject(o base.Objective, removed, before float64) (df float64, reject bool) {
	df, size, ok := f.firstProjection().predicted(o, f.noise, f.a[:f.k])
	if !ok {
		return 0, false
	}
	f.stats.Predicted++
	reject = removed-df >= before-swapThreshold*f.ValueScale(before)+predictTol*size
	if reject {
		f.stats.PredictedReject++
	}
	return df, reject
}

// SwapWith proposes to replace the active point at position p by row j
// (not active), with Factor.Swap's rule but no approximate proposal and
// no prediction: remove it, score j exactly, and accept only if the
// objective decreases by more than a relative swapThreshold; otherwise
// the removed point returns, last in the inducing set as after Factor's
// rejected swap. The information pivots are refilled greedily. Messages:
// two Values, those of one pivot append and Gram–Schmidt, and of a
// second append on rejection, and the refill's.
func (f *Dist) SwapWith(p, j int, o base.Objective) base.SwapResult {
	if !f.ok {
		panic(errBadFactor)
	}
	f.needQ()
	if p < 0 || p >= f.k || j < 0 || j >= f.n {
		panic(errIndex)
	}
	if f.IsActive(j) {
		panic(errIsActive)
	}
	res := base.SwapResult{Removed: f.perm[p], Proposed: j, Before: f.Value(o), After: math.NaN()}
	f.stats.Swaps++
	f.removeToPark(p)
	removed := f.Value(o)
	wasInfo := f.Pos(j) >= 0
	if f.placeCandidate(j) {
		f.gramSchmidt()
		res.ExactDelta = gainF(o, f.tent.anew, 2*math.Log(f.tent.r), f.tent.gg, f.noise)
		after := removed - res.ExactDelta
		if after < res.Before-swapThreshold*f.ValueScale(res.Before) {
			f.commitActive()
			f.discardPark()
			res.Accepted, res.After = true, after
			f.stats.Accepted++
			f.fillInfoGreedy()
			return res
		}
		f.tent = tentative{}
		if !wasInfo {
			f.move(f.k, f.t-1)
			f.dropInfoLast()
		}
	}
	f.restorePark()
	f.fillInfoGreedy()
	res.After = res.Before
	return res
}
