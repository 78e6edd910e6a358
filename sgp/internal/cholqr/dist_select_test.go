package cholqr

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/naive"
)

// rebuildEngine is the part of Factor's and Dist's API of the rebuilds
// of a set the kernel cannot hold whole.
type rebuildEngine interface {
	schedEngine
	FactorizePivoted(active []int) error
	FactorizeSkipping(active []int) []int
	FactorizeFrom(active []int, rnd func(n int) int) int
	LastFactorized() []int
}

// TestDistRebuildsMatchFactor factorises, on Factor and on Dist over
// P = 1…4, a greedy set with three near-duplicates of its members (rows
// moved by 10⁻⁵, whose residual given their twin is below the rebuild
// tolerance) put among them: Factorize and FactorizePivoted fail naming
// the same point, FactorizeSkipping leaves out the same points,
// FactorizeFrom the same number, and the sets, information pivots and
// values after them agree (1e-10 against Factor, bit for bit across P).
func TestDistRebuildsMatchFactor(t *testing.T) {
	half, m, z := comm.BlockRows+276, 14, 6
	q := naive.NewProblem(rand.New(rand.NewPCG(61, 62)), half, 2, 1.1, 0.8, 0.04)
	for i := range half {
		r := q.Rows[i]
		q.Rows = append(q.Rows, []float64{r[0] + 1e-5, r[1]})
		q.Y = append(q.Y, q.Y[i])
	}
	q.K = nil
	p := fromNaive(q)
	n := 2 * half
	order := rand.New(rand.NewPCG(9, 1)).Perm(n)
	run := func(e rebuildEngine) *schedTrace {
		tr := &schedTrace{}
		e.SetOrder(order)
		set := e.GreedyVariance(m - 3)
		clumped := slices.Clone(set[:4])
		clumped = append(clumped, (set[1]+half)%n)
		clumped = append(clumped, set[4:]...)
		clumped = append(clumped, (set[6]+half)%n, (set[0]+half)%n)
		named := func(err error) int {
			var de *base.DegenerateError
			if !errors.As(err, &de) {
				panic(fmt.Sprintf("got %v, want a DegenerateError", err))
			}
			return de.Index
		}
		if err := e.Factorize(set); err != nil {
			panic(err)
		}
		tr.ints = append(tr.ints, named(e.Factorize(clumped)))
		tr.ints = append(tr.ints, named(e.FactorizePivoted(clumped)))
		tr.sets = append(tr.sets, e.LastFactorized())
		left := e.FactorizeSkipping(clumped)
		tr.sets = append(tr.sets, left)
		tr.set(e, base.VAR)
		rng := rand.New(rand.NewPCG(4, 4))
		tr.ints = append(tr.ints, e.FactorizeFrom(clumped, rng.IntN), e.NumActive())
		tr.set(e, base.MLE)
		return tr
	}
	want := run(p.factor(t, m, z))
	if len(want.sets[1]) != 3 || want.ints[2] != 3 {
		t.Fatalf("Factor left out %v and %d points, want the 3 near-duplicates", want.sets[1], want.ints[2])
	}
	var first *schedTrace
	for P := 1; P <= 4; P++ {
		got := make([]*schedTrace, P)
		runOnRanksZ(t, p, P, m, z, func(r int, d *Dist) { got[r] = run(d) })
		for r, tr := range got {
			compareSched(t, fmt.Sprintf("P=%d rank %d vs Factor", P, r), tr, want, 1e-10)
			if first == nil {
				first = tr
			}
			compareSched(t, fmt.Sprintf("P=%d rank %d vs P=1", P, r), tr, first, 0)
		}
	}
}
