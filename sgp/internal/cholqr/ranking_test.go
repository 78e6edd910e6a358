package cholqr

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// TestCostRankingAfterShorterPark: CostRanking works on a state whose
// last removal parked a pivot from a shorter pivot block (the park
// buffer's length shrank below the factor's pivots): the ranking's copy
// of the factor keeps the buffers' capacity, so its own removal does not
// run past them. Which set and swaps reach such a state depends on their
// path, so the test looks for one among random sets and sequences of
// swaps, removals, refills and refreshes of the information pivots. The
// ranking's exact costs are the dense oracle's decrease of F, and f is
// left as it was.
func TestCostRankingAfterShorterPark(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	p := newProblem(rng, 120, 1, 1, 0.4, 0.05)
	var f *Factor
	for m := 9; m <= 11 && f == nil; m++ {
		for seed := uint64(1); seed <= 20 && f == nil; seed++ {
			g := p.factor(t, m, 3)
			r := rand.New(rand.NewPCG(seed, seed))
			if err := g.Factorize(r.Perm(p.x.Len())[:m]); err != nil {
				t.Fatal(err)
			}
			for i := range 60 {
				switch {
				case i%7 == 6 && g.NumActive() > 2:
					g.Remove(g.Active(nil)[r.IntN(g.NumActive())])
				case i%7 == 3 && g.NumActive() < m:
					g.Grow(base.VAR, nil)
				case i%5 == 4:
					g.RefreshInfo(r.IntN)
				default:
					g.Swap(r.IntN(g.NumActive()), base.VAR, r.IntN)
				}
				if cap(slices.Clone(g.parkedGram)) < g.t {
					f = g
					break
				}
			}
		}
	}
	if f == nil {
		t.Fatal("no set of 9…11 points and 60 swaps, removals, refills and refreshes left a park buffer whose copy is shorter than the pivots; widen the search")
	}
	before := f.Value(base.VAR)
	active := f.Active(nil)
	for _, j := range active {
		rk := f.CostRanking(j, base.VAR, nil)
		if len(rk.Candidates) == 0 || len(rk.Exact) != len(rk.Candidates) || len(rk.Approx) != len(rk.Candidates) {
			t.Fatalf("CostRanking(%d): %d candidates, %d exact and %d approximate costs", j, len(rk.Candidates), len(rk.Exact), len(rk.Approx))
		}
		rest := slices.DeleteFunc(slices.Clone(active), func(i int) bool { return i == j })
		without := p.oracle(t, rest, base.VAR)
		for q, c := range rk.Candidates[:3] {
			want := without - p.oracle(t, append(slices.Clone(rest), c), base.VAR)
			if math.Abs(rk.Exact[q]-want) > 1e-7*math.Max(1, math.Abs(without)) {
				t.Errorf("CostRanking(%d): candidate %d exact ΔF %.10g, oracle %.10g", j, c, rk.Exact[q], want)
			}
		}
	}
	if got := f.Value(base.VAR); got != before || !slices.Equal(f.Active(nil), active) {
		t.Errorf("CostRanking changed the state: F %v → %v", before, got)
	}
}
