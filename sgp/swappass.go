package sgp

import (
	"math/rand/v2"
	"slices"
)

// swapEngine is what an epoch's pass of swaps needs of the engine: a
// cholqr.Factor in one process, a cholqr.Dist across ranks. Both run the
// same swap (Cao et al. 2013, Alg. 1), so the pass below, given the same
// random stream, makes the same swaps on either.
type swapEngine interface {
	Active(dst []int) []int
	Pos(j int) int
	Swap(p int, o Objective, rnd func(n int) int) SwapResult
	RefreshInfo(rnd func(n int) int)
	RefreshInfoGreedy()
	Ready() bool
	Value(o Objective) float64
}

// visits records when each inducing point was last proposed for removal,
// by a counter of swaps, so that a pass visits the points not visited for
// longest first. Points never visited count as visited at 0.
type visits struct {
	at      map[int]int
	counter int
}

func newVisits() *visits { return &visits{at: map[int]int{}} }

// mark records j as visited at the current count.
func (v *visits) mark(j int) { v.at[j] = v.counter }

// order returns up to count of the points active, those not proposed for
// removal for longest first, ties in random order.
func (v *visits) order(active []int, rng *rand.Rand, count int) []int {
	rng.Shuffle(len(active), func(a, b int) { active[a], active[b] = active[b], active[a] })
	// Stable insertion sort by last visit (m is small).
	for a := 1; a < len(active); a++ {
		for b := a; b > 0 && v.at[active[b]] < v.at[active[b-1]]; b-- {
			active[b], active[b-1] = active[b-1], active[b]
		}
	}
	return active[:min(count, len(active))]
}

// swapOne proposes to replace inducing point j, scoring for o; after an
// accepted swap it calls accepted (the re-estimation of an estimated
// mean, which can only lower F further) and reads the objective again.
func swapOne(e swapEngine, j int, o Objective, rng *rand.Rand, v *visits, accepted func()) SwapResult {
	v.counter++
	v.mark(j)
	res := e.Swap(e.Pos(j), o, rng.IntN)
	if res.Accepted {
		v.mark(res.Proposed)
		if accepted != nil {
			accepted()
		}
		res.After = e.Value(o)
	}
	return res
}

// swapPass runs the discrete pass of an epoch over the points of order:
// from the last position in the factor to the first (removing the point
// at position p rotates the k−1−p columns after it, and a swapped point,
// kept or replaced, ends last, so that the i-th swap rotates i columns,
// k/2 on average over a full pass), with a random refresh of the
// information pivots after every fifth swap and a greedy one at the end.
// stop is checked before each swap; done, if not nil, receives each
// swap's result. It returns the swaps made and accepted.
func swapPass(e swapEngine, order []int, o Objective, rng *rand.Rand, v *visits, stop func() error, accepted func(), done func(SwapResult)) (swaps, acc int, err error) {
	slices.SortFunc(order, func(a, b int) int { return e.Pos(b) - e.Pos(a) })
	for i, j := range order {
		if err := stop(); err != nil {
			return swaps, acc, err
		}
		res := swapOne(e, j, o, rng, v, accepted)
		swaps++
		if res.Accepted {
			acc++
		}
		if done != nil {
			done(res)
		}
		if (i+1)%5 == 0 && i < len(order)-1 {
			e.RefreshInfo(rng.IntN)
		}
	}
	if len(order) > 0 && e.Ready() {
		// The pass leaves the information pivots chosen greedily for the
		// inducing set it ends with, as a fresh Factorize of that set
		// chooses them. The random refreshes serve the swaps of the pass;
		// kept after it, they are points drawn against earlier sets, whose
		// residuals given the final set are small, and the approximate
		// scores made from them (the next Swap, or CostRanking after a
		// fit) rank candidates poorly.
		e.RefreshInfoGreedy()
	}
	return swaps, acc, nil
}
