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
	"github.com/cholqr/sgp/sgp/internal/naive"
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
	Stats() base.Stats
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
// the end; the objectives objs, one an epoch.
func (tr *schedTrace) epochs(e schedEngine, rng *rand.Rand, objs ...base.Objective) {
	for _, o := range objs {
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

// schedule runs the whole scenario on e: the greedy start, three epochs
// (o, o, then the other objective), two removals and Grow back to m, and
// the forward starts without pivots (the other objective), with pivots
// (o) and without candidates, each refactorised and followed by an
// epoch.
func schedule(e schedEngine, m int, order []int, o base.Objective) *schedTrace {
	other := base.MLE
	if o == base.MLE {
		other = base.VAR
	}
	tr := &schedTrace{}
	e.SetOrder(order)
	rng := rand.New(rand.NewPCG(11, 12))
	if err := e.Factorize(e.GreedyVariance(m)); err != nil {
		panic(err)
	}
	tr.set(e, o)
	tr.epochs(e, rng, o, o, other)
	act := e.Active(nil)
	e.Remove(act[2])
	e.Remove(act[len(act)-1])
	tr.set(e, o)
	tr.ints = append(tr.ints, e.Grow(o, func(j int) { tr.ints = append(tr.ints, j) }))
	tr.set(e, o)
	for i, pivots := range []bool{false, true, false} {
		fo, s := other, 5
		if pivots {
			fo = o
		}
		if i == 2 {
			s = 0 // every step falls back to the largest residual
		}
		tr.ints = append(tr.ints, e.ForwardSelect(context.Background(), m, s, pivots, fo, rng.IntN, func(k int) { tr.ints = append(tr.ints, k) }))
		tr.sets = append(tr.sets, e.Active(nil))
		if err := e.Factorize(e.Active(nil)); err != nil {
			panic(err)
		}
		tr.set(e, fo)
		tr.epochs(e, rng, fo)
	}
	st := e.Stats()
	tr.ints = append(tr.ints, st.Swaps, st.Accepted, st.InfoRefreshes, st.Predicted, st.PredictedReject, st.NoQ, st.Factorizations)
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
func runSched(t *testing.T, p *problem, P, m, z int, order []int, o base.Objective, noQTol float64) []*schedTrace {
	t.Helper()
	out := make([]*schedTrace, P)
	runOnRanksZ(t, p, P, m, z, func(r int, d *Dist) {
		d.noQTol = noQTol
		out[r] = schedule(d, m, order, o)
	})
	return out
}

// TestDistScheduleMatchesFactor runs Model's epoch schedule, Grow and
// both forward starts on Factor and on Dist over P = 1…4 ranks (n not a
// multiple of the block rows, uneven ranks, one without rows at P = 4)
// from the same seed, with the rows' own order and with a permutation
// set by SetOrder, for VAR and for MLE, and with addNoQ's rebuilds
// made frequent: the same removed, proposed and accepted points for
// every swap, the same inducing sets and information pivots, the values
// within 1e-10 of Factor's and bit for bit the same across P.
func TestDistScheduleMatchesFactor(t *testing.T) {
	n, m, z := 2*comm.BlockRows+552, 12, 10
	p := newProblem(rand.New(rand.NewPCG(21, 22)), n, 2, 1.3, 0.7, 0.03)
	perm := rand.New(rand.NewPCG(5, 5)).Perm(n)
	for _, c := range []struct {
		order  []int
		o      base.Objective
		noQTol float64
	}{{nil, base.VAR, 0}, {perm, base.VAR, 0}, {perm, base.MLE, 0}, {perm, base.VAR, 0.995}} {
		order, o := c.order, c.o
		f := p.factor(t, m, z)
		f.noQTol = c.noQTol
		want := schedule(f, m, order, o)
		acc := 0
		for i := 2; i < 9*m; i += 3 {
			acc += want.ints[i]
		}
		st := want.ints[len(want.ints)-7:]
		t.Logf("%v, order set %v, noQTol %v: %d of %d swaps of the first epochs accepted; values %.8g; swaps, accepted, refreshes, predicted, rejected so, no Q, factorisations %v",
			o, order != nil, c.noQTol, acc, 3*m, want.floats[:3], st)
		if acc == 0 || acc == 3*m {
			t.Fatalf("%d of %d swaps accepted: the schedule tests no decision", acc, 3*m)
		}
		var first *schedTrace
		for P := 1; P <= 4; P++ {
			for r, tr := range runSched(t, p, P, m, z, order, o, c.noQTol) {
				name := fmt.Sprintf("%v, order %v, P=%d rank %d", o, order != nil, P, r)
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

// TestDistTiesMatchFactor checks ties across ranks: every input appears
// twice (rows i and i + n/2, in other blocks and, for P ≥ 2, on other
// ranks), so that a stationary kernel's greedy start ties at every step:
// all rows at the first, then each chosen row's duplicate against the
// other's. With a canonical order set, Dist's GreedyVariance and its
// greedy information pivots (Factorize, from the empty set and from the
// greedy set) must take of each pair the row first in that order, as
// Factor's do. (The duplicate of a pivot is no exact tie with it: the
// pivot's own row of G is exact, its duplicate's rounded; so the swaps
// are not compared here.)
func TestDistTiesMatchFactor(t *testing.T) {
	half, m, z := comm.BlockRows+276, 10, 8
	q := naive.NewProblem(rand.New(rand.NewPCG(31, 32)), half, 2, 1.1, 0.8, 0.04)
	q.Rows = append(q.Rows, q.Rows...)
	q.Y = append(q.Y, q.Y...)
	q.K = nil
	p := fromNaive(q)
	n := 2 * half
	order := rand.New(rand.NewPCG(7, 7)).Perm(n)
	rank := make([]int, n)
	for r, i := range order {
		rank[i] = r
	}
	dup := func(i int) int { return (i + half) % n }
	// greedy records the greedy set and the information pivots of the
	// empty set and of the greedy set.
	greedy := func(e schedEngine, order []int) [][]int {
		e.SetOrder(order)
		set := e.GreedyVariance(m)
		if err := e.Factorize(nil); err != nil {
			panic(err)
		}
		empty := e.InfoPivots(nil)
		if err := e.Factorize(set); err != nil {
			panic(err)
		}
		return [][]int{set, empty, e.InfoPivots(nil)}
	}
	want := greedy(p.factor(t, m, z), order)
	if fromRows := greedy(p.factor(t, m, z), nil); slices.Equal(fromRows[0], want[0]) {
		t.Fatalf("the greedy start %v does not depend on the order: the ties test nothing", want[0])
	}
	for _, set := range want {
		for _, j := range set {
			if rank[dup(j)] < rank[j] {
				t.Fatalf("Factor chose %d over its duplicate %d, first in the order", j, dup(j))
			}
		}
	}
	if want[0][0] != order[0] || want[1][0] != order[0] {
		t.Fatalf("Factor's greedy starts begin with %d and %d, want %d, first in the order", want[0][0], want[1][0], order[0])
	}
	for P := 1; P <= 4; P++ {
		got := make([][][]int, P)
		runOnRanksZ(t, p, P, m, z, func(r int, d *Dist) { got[r] = greedy(d, order) })
		for r, sets := range got {
			for i, set := range sets {
				if !slices.Equal(set, want[i]) {
					t.Errorf("P=%d rank %d: greedy set %d = %v, want Factor's %v", P, r, i, set, want[i])
				}
			}
		}
	}
}

// TestDistNearDuplicatesMatchFactor runs the schedule, and exact scores
// and additions of the near-duplicates of information pivots, on rows
// whose second half repeats the first moved by 10⁻⁴: a near-duplicate's
// residual after the pivots is negligible while its residual given the
// inducing set is not, so that placing it first drops the pivots that
// explain it (Factor.placeCandidate's loop), on Factor and on Dist over
// P = 1…4.
func TestDistNearDuplicatesMatchFactor(t *testing.T) {
	half, m, z := comm.BlockRows+276, 10, 8
	q := naive.NewProblem(rand.New(rand.NewPCG(41, 42)), half, 2, 1.1, 0.8, 0.04)
	for i := range half {
		r := q.Rows[i]
		q.Rows = append(q.Rows, []float64{r[0] + 1e-4, r[1] - 1e-4})
		q.Y = append(q.Y, q.Y[i]+0.01)
	}
	q.K = nil
	p := fromNaive(q)
	n := 2 * half
	order := rand.New(rand.NewPCG(8, 8)).Perm(n)
	run := func(e schedEngine, ed func(j int) float64, add func(j int) error) *schedTrace {
		tr := schedule(e, m, order, base.VAR)
		e.Remove(e.Active(nil)[0])
		for _, pv := range e.InfoPivots(nil) {
			tr.floats = append(tr.floats, ed((pv+half)%n))
			tr.sets = append(tr.sets, e.InfoPivots(nil))
		}
		if err := add((e.InfoPivots(nil)[0] + half) % n); err != nil {
			panic(err)
		}
		tr.set(e, base.VAR)
		return tr
	}
	f := p.factor(t, m, z)
	want := run(f, func(j int) float64 { return f.ExactDelta(j, base.VAR) }, f.Add)
	var first *schedTrace
	for P := 1; P <= 4; P++ {
		got := make([]*schedTrace, P)
		runOnRanksZ(t, p, P, m, z, func(r int, d *Dist) {
			got[r] = run(d, func(j int) float64 { return d.ExactDelta(j, base.VAR) }, d.Add)
		})
		for r, tr := range got {
			compareSched(t, fmt.Sprintf("P=%d rank %d vs Factor", P, r), tr, want, 1e-10)
			if first == nil {
				first = tr
			}
			compareSched(t, fmt.Sprintf("P=%d rank %d vs P=1", P, r), tr, first, 0)
		}
	}
}

// TestDistApproxDeltasMatchFactor compares each rank's ApproxDeltasTo
// with Factor's scores of the same rows, after the same start and swaps,
// for VAR and MLE: within 1e-10 relative, NaN at the inducing points and
// −Inf where Factor's are, and bit for bit across P.
func TestDistApproxDeltasMatchFactor(t *testing.T) {
	n, m, z := 2*comm.BlockRows+552, 12, 10
	p := newProblem(rand.New(rand.NewPCG(51, 52)), n, 2, 1.3, 0.7, 0.03)
	prep := func(e schedEngine) {
		rng := rand.New(rand.NewPCG(3, 3))
		if err := e.Factorize(e.GreedyVariance(m)); err != nil {
			panic(err)
		}
		for i := 0; i < 4; i++ {
			e.Swap(m-1-i, base.VAR, rng.IntN)
		}
	}
	f := p.factor(t, m, z)
	prep(f)
	var first [2][]float64
	for P := 1; P <= 4; P++ {
		got := make([][2][]float64, P)
		runOnRanksZ(t, p, P, m, z, func(r int, d *Dist) {
			prep(d)
			for i, o := range []base.Objective{base.VAR, base.MLE} {
				got[r][i] = d.ApproxDeltasTo(nil, o)
			}
		})
		for i, o := range []base.Objective{base.VAR, base.MLE} {
			want := f.ApproxDeltasTo(nil, o)
			var all []float64
			for r := range got {
				all = append(all, got[r][i]...)
			}
			if len(all) != n {
				t.Fatalf("P=%d: %d scores over the ranks, want %d", P, len(all), n)
			}
			nan := 0
			for j, v := range all {
				w := want[j]
				switch {
				case math.IsNaN(w) || math.IsInf(w, -1):
					if math.Float64bits(v) != math.Float64bits(w) && !(math.IsNaN(v) && math.IsNaN(w)) {
						t.Errorf("P=%d %v: row %d scores %v, want %v", P, o, j, v, w)
					}
					if math.IsNaN(w) {
						nan++
					}
				case math.Abs(v-w) > 1e-10*math.Max(1, math.Abs(w)):
					t.Errorf("P=%d %v: row %d scores %.17g, want %.17g", P, o, j, v, w)
				}
			}
			if nan != m {
				t.Errorf("P=%d %v: %d NaN scores, want %d (the inducing points)", P, o, nan, m)
			}
			if first[i] == nil {
				first[i] = all
			} else if !slices.EqualFunc(all, first[i], func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
				t.Errorf("P=%d %v: the scores differ from P=1's", P, o)
			}
		}
	}
}
