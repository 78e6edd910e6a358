package sgp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/naive"
	"github.com/cholqr/sgp/sgp/kernel"
)

// fitOnRanks runs FitRanks on the P ranks of comm.Local, each with its
// span of the rows, and returns each rank's result.
func fitOnRanks(t *testing.T, P int, rows [][]float64, y []float64, kern kernel.Kernel, noise float64, o RanksOptions) []*RanksResult {
	t.Helper()
	return fitOnRanksCtx(t, P, rows, y, kern, noise, o, func(int) context.Context { return context.Background() })
}

// fitOnRanksCtx is fitOnRanks with rank r's context ctx(r).
func fitOnRanksCtx(t *testing.T, P int, rows [][]float64, y []float64, kern kernel.Kernel, noise float64, o RanksOptions, ctx func(r int) context.Context) []*RanksResult {
	t.Helper()
	n := len(rows)
	res := make([]*RanksResult, P)
	errs := make([]error, P)
	var wg sync.WaitGroup
	for r, c := range comm.Local(P) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo, hi := comm.Span(n, comm.BlockRows, r, P)
			var x *kernel.Vectors
			if hi > lo {
				x, _ = kernel.NewVectors(hi-lo, len(rows[0]), slices.Concat(rows[lo:hi]...))
			}
			res[r], errs[r] = FitRanks(ctx(r), c, x, y[lo:hi], lo, n, kernel.Clone(kern), noise, o)
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("P=%d rank %d: %v", P, r, err)
		}
	}
	return res
}

// TestFitRanksSameForEveryP checks that FitRanks gives, on every rank of
// P = 1…4 (n = 1800: two blocks, so that with P = 3 and 4 some ranks hold
// no rows), the same inducing set, objective bit for bit and epochs, that
// it accepted swaps and lowered the objective, and that its objective is
// the dense oracle's for its inducing set within 1e-9.
func TestFitRanksSameForEveryP(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	n := 1800
	rows := make([][]float64, n)
	y := make([]float64, n)
	for i := range rows {
		rows[i] = []float64{4 * rng.Float64(), 4 * rng.Float64()}
		y[i] = math.Sin(2*rows[i][0]) + math.Cos(rows[i][1]) + 0.1*rng.NormFloat64()
	}
	ls := []float64{0.7, 0.9}
	kern := kernel.NewRBF(1.3, ls)
	const noise = 0.02
	o := RanksOptions{M: 12, Objective: VAR, MaxEpochs: 4, Candidates: 4, Seed: 3, Mean: MeanZero}
	var want *RanksResult
	for P := 1; P <= 4; P++ {
		for r, res := range fitOnRanks(t, P, rows, y, kern, noise, o) {
			if want == nil {
				want = res
				continue
			}
			name := fmt.Sprintf("P=%d rank %d", P, r)
			if !slices.Equal(res.Inducing, want.Inducing) || math.Float64bits(res.Value) != math.Float64bits(want.Value) ||
				res.Epochs != want.Epochs || res.Accepted != want.Accepted || res.Ranks != P {
				t.Errorf("%s: set %v value %.17g epochs %d accepted %d ranks %d; want %v %.17g %d %d %d",
					name, res.Inducing, res.Value, res.Epochs, res.Accepted, res.Ranks, want.Inducing, want.Value, want.Epochs, want.Accepted, P)
			}
			if P > 1 && res.Messages == 0 {
				t.Errorf("%s: no messages counted", name)
			}
		}
	}
	if want.Accepted == 0 {
		t.Fatalf("no swap accepted in %d epochs", want.Epochs)
	}
	_, vfe, ok := naive.DTC(naive.RBF(rows, 1.3, ls), y, noise, want.Inducing)
	if !ok || math.Abs(vfe-want.Value) > 1e-9*math.Abs(vfe) {
		t.Errorf("value %.12g, dense oracle %.12g (ok %v)", want.Value, vfe, ok)
	}
	t.Logf("%d epochs, %d of %d swaps accepted, VAR %.10g", want.Epochs, want.Accepted, want.Swaps, want.Value)
}

// TestFitRanksStops checks that a context done on one rank only stops
// every rank after the same epoch: all report Stopped, no epoch run, and
// the same objective.
func TestFitRanksStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	n := 1500
	rows := make([][]float64, n)
	y := make([]float64, n)
	for i := range rows {
		rows[i] = []float64{rng.Float64(), rng.Float64()}
		y[i] = rows[i][0] - rows[i][1]
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	res := fitOnRanksCtx(t, 2, rows, y, kernel.NewRBF(1, []float64{0.5, 0.5}), 0.01, RanksOptions{M: 6, Objective: MLE, Mean: MeanGLS},
		func(r int) context.Context {
			if r == 1 {
				return done
			}
			return context.Background()
		})
	for r, x := range res {
		if !x.Stopped || x.Epochs != 0 || x.Value != res[0].Value {
			t.Errorf("rank %d: stopped %v after %d epochs, value %v (rank 0 %v); want stopped after none", r, x.Stopped, x.Epochs, x.Value, res[0].Value)
		}
	}
}
