package cholqr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/kernel"
)

// distTrace is what a scenario records on one rank: every value and
// inducing set, in order, to compare across ranks, P and Factor.
type distTrace struct {
	values []float64
	sets   [][]int
	swaps  []bool
	stats  comm.Stats
}

func (tr *distTrace) record(v float64, set []int) {
	tr.values = append(tr.values, v)
	tr.sets = append(tr.sets, slices.Clone(set))
}

// distEngine is the part of Factor's and Dist's API a scenario drives.
type distEngine interface {
	GreedyVariance(m int) []int
	Factorize(active []int) error
	Add(j int) error
	Remove(j int)
	ExactDelta(j int, o base.Objective) float64
	Value(o base.Objective) float64
	Active(dst []int) []int
	IsActive(j int) bool
	swap(p, j int, o base.Objective) bool
}

type factorEngine struct{ *Factor }

// swap is Factor's exact swap with a given candidate: the rule of
// Factor.Swap without the approximate proposal.
func (f factorEngine) swap(p, j int, o base.Objective) bool {
	before := f.Value(o)
	out := f.Active(nil)[p]
	f.Remove(out)
	after := f.Value(o) - f.ExactDelta(j, o)
	if after < before-swapThreshold*f.ValueScale(before) {
		if err := f.Add(j); err != nil {
			panic(err)
		}
		return true
	}
	if err := f.Add(out); err != nil {
		panic(err)
	}
	return false
}

type distEngineOf struct{ *Dist }

func (f distEngineOf) swap(p, j int, o base.Objective) bool { return f.SwapWith(p, j, o).Accepted }

// distScenario runs the same sequence on e: greedy start, refactorise,
// add, exact scores, removals, swaps with candidates drawn by a fixed
// seed; n rows, m inducing points.
func distScenario(e distEngine, n, m int, tr *distTrace) {
	set := e.GreedyVariance(m - 2)
	tr.record(float64(len(set)), set)
	if err := e.Factorize(set); err != nil {
		panic(err)
	}
	tr.record(e.Value(base.MLE), e.Active(nil))
	rng := rand.New(rand.NewPCG(5, 6))
	for _, j := range []int{n - 1, 1500, 1023} {
		if !e.IsActive(j) {
			tr.record(e.ExactDelta(j, base.VAR), nil)
		}
	}
	for _, j := range []int{n - 1, 1024} {
		if !e.IsActive(j) {
			if err := e.Add(j); err != nil {
				panic(err)
			}
		}
	}
	tr.record(e.Value(base.VAR), e.Active(nil))
	act := e.Active(nil)
	e.Remove(act[1])
	e.Remove(act[len(act)-1])
	tr.record(e.Value(base.VAR), e.Active(nil))
	for s := 0; s < 30; s++ {
		k := len(e.Active(nil))
		j := rng.IntN(n)
		for e.IsActive(j) {
			j = rng.IntN(n)
		}
		o := base.VAR
		if s%3 == 2 {
			o = base.MLE
		}
		tr.swaps = append(tr.swaps, e.swap(s%k, j, o))
		tr.record(e.Value(o), e.Active(nil))
	}
}

// TestDistSameForEveryP checks that Dist over P = 1…4 ranks of
// comm.Local gives bit for bit the same values, inducing sets and swap
// decisions on every rank and for every P, and the values of the
// single-process Factor within 1e-10 relative, on rows that do not
// divide evenly into blocks or ranks (with P = 4 one rank has none).
func TestDistSameForEveryP(t *testing.T) {
	n, m := 2*comm.BlockRows+452, 14
	p := newProblem(rand.New(rand.NewPCG(3, 4)), n, 3, 1.5, 0.8, 0.05)
	f := p.factor(t, m, 0)
	var want distTrace
	distScenario(factorEngine{f}, n, m, &want)
	accepted := 0
	for _, a := range want.swaps {
		if a {
			accepted++
		}
	}
	if accepted == 0 || accepted == len(want.swaps) {
		t.Fatalf("%d of %d swaps accepted: the scenario tests no decision", accepted, len(want.swaps))
	}
	t.Logf("%d of %d swaps accepted; values %v", accepted, len(want.swaps), want.values[:6])
	var first *distTrace
	for P := 1; P <= 4; P++ {
		traces := runDist(t, p, P, m)
		for r, tr := range traces {
			name := fmt.Sprintf("P=%d rank %d", P, r)
			if first == nil {
				first = tr
				compareTraces(t, name+" vs Factor", tr, &want, 1e-10)
				continue
			}
			compareTraces(t, name+" vs P=1", tr, first, 0)
		}
	}
}

// runDist runs distScenario on P ranks of comm.Local, each with its span
// of p's rows, and returns each rank's trace.
func runDist(t *testing.T, p *problem, P, m int) []*distTrace {
	t.Helper()
	return runOnRanks(t, p, P, func(d *Dist) *distTrace {
		tr := &distTrace{}
		distScenario(distEngineOf{d}, p.x.Len(), m, tr)
		return tr
	}, m)
}

// runOnRanks runs fn on a Dist of capacity m on each of P ranks of
// comm.Local, each with its span of p's rows, and returns each rank's
// trace with the rank's comm.Stats.
func runOnRanks(t *testing.T, p *problem, P int, fn func(d *Dist) *distTrace, m int) []*distTrace {
	t.Helper()
	traces := make([]*distTrace, P)
	runOnRanksZ(t, p, P, m, 0, func(r int, d *Dist) {
		tr := fn(d)
		tr.stats = d.Comm().Stats()
		traces[r] = tr
	})
	return traces
}

// runOnRanksZ runs fn on a Dist of capacity m and z information pivots
// on each of P ranks of comm.Local, each with its span of p's rows, and
// checks the inducing inputs each rank holds.
func runOnRanksZ(t *testing.T, p *problem, P, m, z int, fn func(r int, d *Dist)) {
	t.Helper()
	n := p.x.Len()
	ranks := comm.Local(P)
	errs := make([]error, P)
	var wg sync.WaitGroup
	for r, c := range ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if e := recover(); e != nil {
					errs[r] = fmt.Errorf("rank %d: %v", r, e)
					c.Abort(1)
				}
			}()
			lo, hi := comm.Span(n, comm.BlockRows, r, P)
			idx := make([]int, hi-lo)
			for i := range idx {
				idx[i] = lo + i
			}
			d, err := NewDist(c, p.x.Rows(idx), p.y[lo:hi], lo, n, kernel.Clone(p.kern), p.noise, m, z)
			if err != nil {
				errs[r] = err
				return
			}
			fn(r, d)
			if d.ok {
				xin := d.InducingInputs()
				for i, j := range d.Active(nil) {
					if !slices.Equal(xin[i*p.x.Dim():(i+1)*p.x.Dim()], p.x.Row(j)) {
						panic(fmt.Sprintf("inducing input %d is %v, want row %d's %v", i, xin[i*p.x.Dim():(i+1)*p.x.Dim()], j, p.x.Row(j)))
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func compareTraces(t *testing.T, name string, got, want *distTrace, tol float64) {
	t.Helper()
	if len(got.values) != len(want.values) || !slices.Equal(got.swaps, want.swaps) {
		t.Fatalf("%s: swaps %v, want %v", name, got.swaps, want.swaps)
	}
	for i, v := range got.values {
		w := want.values[i]
		if tol == 0 && math.Float64bits(v) != math.Float64bits(w) || math.Abs(v-w) > tol*math.Max(1, math.Abs(w)) {
			t.Errorf("%s: value %d = %.17g, want %.17g", name, i, v, w)
		}
		if !slices.Equal(got.sets[i], want.sets[i]) {
			t.Errorf("%s: set %d = %v, want %v", name, i, got.sets[i], want.sets[i])
		}
	}
}
