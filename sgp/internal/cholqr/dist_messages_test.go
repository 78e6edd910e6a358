package cholqr

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/base"
)

// opCount is the collective calls by kind, and the messages and bytes
// sent, of one operation on one rank, averaged over its repetitions.
type opCount struct {
	name           string
	calls          [5]float64 // SumFloat64s, OrderedSum, ArgMax, broadcasts, Any
	messages, byts float64
}

// measure runs op reps times on d and returns its mean counts.
func measure(d *Dist, name string, reps int, op func()) opCount {
	d.Comm().ResetStats()
	for range reps {
		op()
	}
	return countOf(d, name, reps)
}

// TestDistMessages counts the collective calls of Dist's operations
// on P = 4 ranks with z information pivots, the table of Dist's type
// comment and docs/scaling.md (go test -v -run TestDistMessages): a
// removal to the park and the moves of pivots make none, and every rank
// makes the same calls.
func TestDistMessages(t *testing.T) {
	n, m, z, s := 4*comm.BlockRows+100, 16, 16, 8
	p := newProblem(rand.New(rand.NewPCG(9, 9)), n, 2, 1, 0.7, 0.05)
	const P = 4
	tables := make([][]opCount, P)
	runOnRanksZ(t, p, P, m, z, func(r int, d *Dist) {
		rng := rand.New(rand.NewPCG(1, 2))
		var ops []opCount
		var set []int
		ops = append(ops, measure(d, "GreedyVariance (m points)", 1, func() { set = d.GreedyVariance(m) }))
		ops = append(ops, measure(d, "Factorize (m points, z greedy pivots)", 1, func() {
			if err := d.Factorize(set); err != nil {
				panic(err)
			}
		}))
		ops = append(ops, measure(d, "removal to the park, moves of pivots", 1, func() {
			d.removeToPark(3)
			d.move(d.k, d.t-1)
			d.move(d.t-1, d.k)
		}))
		if ops[2].calls != [5]float64{} {
			panic(fmt.Sprintf("a removal and moves made collective calls %v", ops[2].calls))
		}
		d.restorePark()
		ops = append(ops, measure(d, "Value", 1, func() { d.Value(base.VAR) }))
		k := d.NumActive()
		d.Comm().ResetStats()
		for i := 0; i < k; i++ {
			d.Swap(k-1-i, base.VAR, rng.IntN)
		}
		ops = append(ops, countOf(d, "Swap (an epoch's mean)", k))
		ops = append(ops, measure(d, "RefreshInfo", 5, func() { d.RefreshInfo(rng.IntN) }))
		ops = append(ops, measure(d, "RefreshInfoGreedy (z pivots)", 1, func() { d.RefreshInfoGreedy() }))
		ops = append(ops, measure(d, "bestApprox", 1, func() { d.bestApprox(base.VAR) }))
		d.Remove(d.Active(nil)[0])
		ops = append(ops, measure(d, "Grow (one point)", 1, func() { d.Grow(base.VAR, nil) }))
		for _, pivots := range []bool{false, true} {
			name := fmt.Sprintf("forward step, %d candidates", s)
			if pivots {
				name += " + the best approximate"
			}
			d.Comm().ResetStats()
			d.ForwardSelect(context.Background(), m, s, pivots, base.VAR, rng.IntN, nil)
			ops = append(ops, countOf(d, name, m))
			if err := d.Factorize(d.Active(nil)); err != nil {
				panic(err)
			}
		}
		tables[r] = ops
	})
	var b strings.Builder
	fmt.Fprintf(&b, "n=%d m=%d z=%d P=%d; calls of SumFloat64s, OrderedSum, ArgMax, Bcast, Any; messages and bytes sent by rank 0 (max over ranks)\n", n, m, z, P)
	for i, oc := range tables[0] {
		mx, bx := 0.0, 0.0
		for r := range tables {
			if tables[r][i].calls != oc.calls {
				t.Errorf("%s: rank %d made calls %v, rank 0 %v", oc.name, r, tables[r][i].calls, oc.calls)
			}
			mx, bx = max(mx, tables[r][i].messages), max(bx, tables[r][i].byts)
		}
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f (%.1f) | %.0f (%.0f) |\n", oc.name,
			oc.calls[0], oc.calls[1], oc.calls[2], oc.calls[3], oc.calls[4], oc.messages, mx, oc.byts, bx)
	}
	t.Log(b.String())
}

// countOf returns the counts d's Comm holds, over reps repetitions.
func countOf(d *Dist, name string, reps int) opCount {
	st := d.Comm().Stats()
	r := float64(reps)
	oc := opCount{name: name, messages: float64(st.Total().Messages) / r, byts: float64(st.Total().Bytes) / r}
	for i, k := range []comm.Kind{comm.KindSum, comm.KindOrderedSum, comm.KindArgMax, comm.KindBcast, comm.KindAny} {
		oc.calls[i] = float64(st[k].Calls) / r
	}
	return oc
}
