package cholqr

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/base"
)

// schedEngine is the part of Factor's and Dist's API that Model's epoch
// schedule and the forward starts drive.
type schedEngine interface {
	SetOrder(order []int)
	GreedyVariance(m int) []int
	Factorize(active []int) error
	Swap(p int, o base.Objective, rnd func(n int) int) base.SwapResult
	RefreshInfo(rnd func(n int) int)
	RefreshInfoGreedy()
	Grow(o base.Objective, added func(j int)) int
	ForwardSelect(ctx context.Context, m, s int, pivots bool, o base.Objective, rnd func(n int) int, progress func(k int)) int
	Remove(j int)
	Value(o base.Objective) float64
	Active(dst []int) []int
	InfoPivots(dst []int) []int
	NumActive() int
	NumInfo() int
}

// schedTrace is what a schedule records: the swaps' decisions (ints, to
// compare exactly), their values and the objective values (floats, to
// compare within a tolerance against Factor and bit for bit across P),
// and the sets.
type schedTrace struct {
	ints   []int
	floats []float64
	sets   [][]int
}

func (tr *schedTrace) set(e schedEngine, o base.Objective) {
	tr.sets = append(tr.sets, e.Active(nil), e.InfoPivots(nil))
	tr.floats = append(tr.floats, e.Value(o))
}

func (tr *schedTrace) swap(r base.SwapResult) {
	acc := 0
	if r.Accepted {
		acc = 1
	}
	tr.ints = append(tr.ints, r.Removed, r.Proposed, acc)
	tr.floats = append(tr.floats, r.Before, r.After, r.ApproxDelta, r.ExactDelta)
}

// epochs runs Model's epoch schedule (sgp/epoch.go's epochStep): swaps
// over the positions from the last to the first, a random refresh of
// the information pivots after every fifth but the last, a greedy one at
// the end; VAR, VAR, then MLE.
func (tr *schedTrace) epochs(e schedEngine, rng *rand.Rand, n int) {
	for _, o := range []base.Objective{base.VAR, base.VAR, base.MLE}[:n] {
		k := e.NumActive()
		for i := 0; i < k; i++ {
			tr.swap(e.Swap(k-1-i, o, rng.IntN))
			if (i+1)%5 == 0 && i < k-1 {
				e.RefreshInfo(rng.IntN)
			}
		}
		e.RefreshInfoGreedy()
		tr.set(e, o)
	}
}

// schedule runs the whole scenario on e: the greedy start, three epochs,
// two removals and Grow back to m, and the forward starts without and
// with pivots (each refactorised and followed by an epoch).
func schedule(e schedEngine, m int, order []int) *schedTrace {
	tr := &schedTrace{}
	e.SetOrder(order)
	rng := rand.New(rand.NewPCG(11, 12))
	if err := e.Factorize(e.GreedyVariance(m)); err != nil {
		panic(err)
	}
	tr.set(e, base.VAR)
	tr.epochs(e, rng, 3)
	act := e.Active(nil)
	e.Remove(act[2])
	e.Remove(act[len(act)-1])
	tr.set(e, base.VAR)
	tr.ints = append(tr.ints, e.Grow(base.VAR, func(j int) { tr.ints = append(tr.ints, j) }))
	tr.set(e, base.VAR)
	for _, pivots := range []bool{false, true} {
		o := base.MLE
		if pivots {
			o = base.VAR
		}
		tr.ints = append(tr.ints, e.ForwardSelect(context.Background(), m, 5, pivots, o, rng.IntN, nil))
		tr.sets = append(tr.sets, e.Active(nil))
		if err := e.Factorize(e.Active(nil)); err != nil {
			panic(err)
		}
		tr.set(e, o)
		tr.epochs(e, rng, 1)
	}
	return tr
}

// compareSched compares got with want: the same decisions and sets, the
// floats within tol relative (bit for bit if tol is 0).
func compareSched(t *testing.T, name string, got, want *schedTrace, tol float64) {
	t.Helper()
	if !slices.Equal(got.ints, want.ints) {
		t.Fatalf("%s: decisions\n%v, want\n%v", name, got.ints, want.ints)
	}
	if len(got.sets) != len(want.sets) || len(got.floats) != len(want.floats) {
		t.Fatalf("%s: %d sets and %d values, want %d and %d", name, len(got.sets), len(got.floats), len(want.sets), len(want.floats))
	}
	for i := range got.sets {
		if !slices.Equal(got.sets[i], want.sets[i]) {
			t.Errorf("%s: set %d = %v, want %v", name, i, got.sets[i], want.sets[i])
		}
	}
	for i, v := range got.floats {
		w := want.floats[i]
		if tol == 0 {
			if math.Float64bits(v) != math.Float64bits(w) {
				t.Errorf("%s: value %d = %.17g, want %.17g bit for bit", name, i, v, w)
			}
		} else if math.Abs(v-w) > tol*math.Max(1, math.Abs(w)) {
			t.Errorf("%s: value %d = %.17g, want %.17g", name, i, v, w)
		}
	}
}

// runSched runs schedule on Dist over P ranks of comm.Local (z
// information pivots) and returns each rank's trace.
func runSched(t *testing.T, p *problem, P, m, z int, order []int) []*schedTrace {
	t.Helper()
	out := make([]*schedTrace, P)
	runOnRanksZ(t, p, P, m, z, func(r int, d *Dist) { out[r] = schedule(d, m, order) })
	return out
}

// TestDistScheduleMatchesFactor runs Model's epoch schedule, Grow and
// both forward starts on Factor and on Dist over P = 1…4 ranks (n not a
// multiple of the block rows, uneven ranks, one without rows at P = 4)
// from the same seed, with the rows' own order and with a permutation
// set by SetOrder: the same removed, proposed and accepted points for
// every swap, the same inducing sets and information pivots, the values
// within 1e-10 of Factor's and bit for bit the same across P.
func TestDistScheduleMatchesFactor(t *testing.T) {
	n, m, z := 2*comm.BlockRows+552, 12, 10
	p := newProblem(rand.New(rand.NewPCG(21, 22)), n, 2, 1.3, 0.7, 0.03)
	perm := rand.New(rand.NewPCG(5, 5)).Perm(n)
	for _, order := range [][]int{nil, perm} {
		want := schedule(p.factor(t, m, z), m, order)
		acc := 0
		for i := 2; i < 9*m; i += 3 {
			acc += want.ints[i]
		}
		t.Logf("order set %v: %d of %d swaps of the first epochs accepted; values %.8g", order != nil, acc, 3*m, want.floats[:3])
		if acc == 0 || acc == 3*m {
			t.Fatalf("%d of %d swaps accepted: the schedule tests no decision", acc, 3*m)
		}
		var first *schedTrace
		for P := 1; P <= 4; P++ {
			for r, tr := range runSched(t, p, P, m, z, order) {
				name := fmt.Sprintf("order %v, P=%d rank %d", order != nil, P, r)
				if first == nil {
					first = tr
					compareSched(t, name+" vs Factor", tr, want, 1e-10)
					continue
				}
				compareSched(t, name+" vs P=1", tr, first, 0)
			}
		}
	}
}
