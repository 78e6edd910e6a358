package sgp

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/naive"
	"github.com/cholqr/sgp/sgp/kernel"
)

// onRanks runs fn on the P ranks of comm.Local, each with its span of
// the rows (x nil on a rank without rows), and returns each rank's value.
func onRanks[T any](t *testing.T, P int, rows [][]float64, y []float64, fn func(c *comm.Comm, x *kernel.Vectors, y []float64, lo int) T) []T {
	t.Helper()
	n := len(rows)
	out := make([]T, P)
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
			out[r] = fn(c, x, y[lo:hi], lo)
		}()
	}
	wg.Wait()
	return out
}

// near reports whether a and b agree to a relative tol.
func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b)) }

// startProblem returns n rows of d inputs, the last with outliers, and
// periodic targets with noise.
func startProblem(n, d int) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(d)))
	rows, y := make([][]float64, n), make([]float64, n)
	for i := range rows {
		rows[i] = make([]float64, d)
		for c := range d {
			rows[i][c] = 5 * rng.Float64()
		}
		if d > 1 && i%97 == 0 {
			rows[i][d-1] = 1e3
		}
		y[i] = 40 + 3*math.Sin(3*rows[i][0]) + 0.2*rng.NormFloat64()
	}
	return rows, y
}

// TestSpreadRanksIsSpreadOf checks that SpreadRanks gives, on every rank
// of P = 1…4 (some ranks without rows), kernel.SpreadOf of all the rows:
// the ranges and the strided samples exactly (n = 40000 strides both,
// 2 and 20), the mean squares and the targets' scale to 1e-13 and the
// same bits for every P; and that kernel.ParseSpread of it gives Parse's
// θ to 1e-12, a periodic kernel's period from the gathered periodogram
// included.
func TestSpreadRanksIsSpreadOf(t *testing.T) {
	for _, c := range []struct{ n, d int }{{40000, 1}, {2600, 3}} {
		rows, y := startProblem(c.n, c.d)
		x, _ := kernel.NewVectors(c.n, c.d, slices.Concat(rows...))
		want := kernel.SpreadOf(x, y)
		var first *kernel.Spread
		for P := 1; P <= 4; P++ {
			got := onRanks(t, P, rows, y, func(cm *comm.Comm, x *kernel.Vectors, y []float64, lo int) *kernel.Spread {
				s, err := SpreadRanks(cm, x, y, lo, c.n)
				if err != nil {
					t.Error(err)
				}
				return s
			})
			for r, s := range got {
				if s == nil {
					t.FailNow()
				}
				if !slices.Equal(s.Lo, want.Lo) || !slices.Equal(s.Hi, want.Hi) || !slices.Equal(s.Sample, want.Sample) ||
					!slices.Equal(s.PeriodX, want.PeriodX) || !slices.Equal(s.PeriodY, want.PeriodY) || s.N != c.n {
					t.Fatalf("n=%d P=%d rank %d: ranges or samples differ from SpreadOf's (%d, %d sample values)", c.n, P, r, len(s.Sample), len(want.Sample))
				}
				if !near(s.TargetScale, want.TargetScale, 1e-13) || !slices.EqualFunc(s.MeanSquare, want.MeanSquare, func(a, b float64) bool { return near(a, b, 1e-13) }) {
					t.Errorf("n=%d P=%d rank %d: scale %v, mean squares %v; SpreadOf's %v %v", c.n, P, r, s.TargetScale, s.MeanSquare, want.TargetScale, want.MeanSquare)
				}
				if first == nil {
					first = s
				} else if !sameBits(append([]float64{s.TargetScale}, s.MeanSquare...), append([]float64{first.TargetScale}, first.MeanSquare...)) {
					t.Errorf("n=%d P=%d rank %d: the sums differ in their bits from P=1's", c.n, P, r)
				}
			}
		}
		for _, spec := range []string{"rbf", "periodic", "linear", "rbf+periodic"} {
			k, err := kernel.Parse(spec, x, y)
			if err != nil {
				t.Fatal(err)
			}
			kr, err := kernel.ParseSpread(spec, first)
			if err != nil {
				t.Fatal(err)
			}
			a, b := kr.Params(nil), k.Params(nil)
			if !slices.EqualFunc(a, b, func(u, v float64) bool { return math.Abs(u-v) <= 1e-12*math.Max(1, math.Abs(v)) }) {
				t.Errorf("n=%d %s: θ %v over ranks, Parse's %v", c.n, spec, a, b)
			}
		}
	}
}

// TestFitRanksStartIsModels checks that FitRanks passed σ² = 0 starts,
// on every rank of P = 1…4, where Model's build starts on the same rows:
// σ² = var(y)/4 (startNoise), the noise floor noiseFloor's default
// (the trend fitted on the rows it gathers, n = 25000 striding them by
// 2), ȳ as the mean's start, to 1e-13, the same bits for every P; that
// a start at or below the floor starts at twice it where the noise is
// learned; and that FitRanks refuses, naming the row, a kernel whose
// prior variance is not finite at some rank's row, as checkStart does.
func TestFitRanksStartIsModels(t *testing.T) {
	rows, y := startProblem(25000, 2)
	x, _ := kernel.NewVectors(len(rows), 2, slices.Concat(rows...))
	kern := kernel.NewRBF(2, []float64{1, 1})
	floor := noiseFloor(x, y, 0)
	mean, _ := meanVar(y)
	o := RanksOptions{M: 4, Objective: VAR, MaxEpochs: 1, Seed: 1, Mean: MeanConstant, Learn: true}
	var first *RanksResult
	for P := 1; P <= 4; P++ {
		for r, res := range fitOnRanks(t, P, rows, y, kern, 0, o) {
			s := res.StartHyperparameters.Values
			if !near(s[3], startNoise(y), 1e-13) || !near(res.NoiseFloor, floor, 1e-13) || !near(res.StartMean, mean, 1e-13) || !sameBits(s[:3], newHyperparameters(kern.ParamNames(), kern.Params(nil)).Values) {
				t.Errorf("P=%d rank %d: start σ² %v floor %v mean %v; Model's %v %v %v", P, r, s[3], res.NoiseFloor, res.StartMean, startNoise(y), floor, mean)
			}
			if first == nil {
				first = res
			} else if !sameBits([]float64{s[3], res.NoiseFloor, res.StartMean}, []float64{first.StartHyperparameters.Values[3], first.NoiseFloor, first.StartMean}) {
				t.Errorf("P=%d rank %d: the start differs in its bits from P=1's", P, r)
			}
		}
	}
	o.NoiseFloor = 1
	for _, res := range fitOnRanks(t, 2, rows, y, kern, 0.5, o) {
		if s := res.StartHyperparameters.Values[3]; s != 2 {
			t.Errorf("start σ² 0.5 below the floor 1: starts at %v, want 2", s)
		}
	}
	bad := slices.Clone(rows)
	bad[1500] = []float64{1e200, 1}
	errs := onRanks(t, 3, bad, y, func(c *comm.Comm, x *kernel.Vectors, y []float64, lo int) error {
		_, err := FitRanks(context.Background(), c, x, y, lo, len(bad), kernel.NewLinear([]float64{1e200, 1}), 0.1, RanksOptions{M: 4, Objective: VAR})
		return err
	})
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "κ(x, x) is +Inf at training row 1500") {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// TestFitRanksProgressOnOneRank checks that a fit that learns its
// hyperparameters with a progress writer on rank 0 alone, as the command
// line runs it, ends on every rank with the same result and rank 0's
// progress lines: every reduction is taken by every rank, whether it
// prints or not.
func TestFitRanksProgressOnOneRank(t *testing.T) {
	rows, y := startProblem(2600, 2)
	var progress bytes.Buffer
	res := onRanks(t, 3, rows, y, func(c *comm.Comm, x *kernel.Vectors, y []float64, lo int) *RanksResult {
		o := RanksOptions{M: 8, Objective: VAR, MaxEpochs: 2, Seed: 2, Mean: MeanConstant, Learn: true}
		if c.Rank() == 0 {
			o.Progress = &progress
		}
		res, err := FitRanks(context.Background(), c, x, y, lo, len(rows), kernel.NewRBF(1, []float64{1, 1}), 0, o)
		if err != nil {
			t.Error(err)
		}
		return res
	})
	for r, got := range res {
		if got == nil || !sameBits([]float64{got.Value}, []float64{res[0].Value}) || got.CGEvals == 0 {
			t.Fatalf("rank %d: %+v, rank 0's value %v", r, got, res[0].Value)
		}
	}
	if n := strings.Count(progress.String(), "epoch "); n != res[0].Epochs {
		t.Errorf("%d progress lines for %d epochs:\n%s", n, res[0].Epochs, progress.String())
	}
}

// TestFitRanksKeepsThePointsThatQualify checks that a fit whose kernel
// tells fewer than M rows apart (lengthscales long next to the inputs'
// range) keeps the points that qualify, fewer than M, the same on every
// rank of P = 1…3, where the padded greedy set cannot be factorised.
func TestFitRanksKeepsThePointsThatQualify(t *testing.T) {
	rows, y := startProblem(2600, 1)
	o := RanksOptions{M: 60, Objective: VAR, MaxEpochs: 2, Seed: 1, Mean: MeanConstant}
	var want []int
	for P := 1; P <= 3; P++ {
		for r, res := range fitOnRanks(t, P, rows, y, kernel.NewRBF(1, []float64{20}), 0.01, o) {
			if k := len(res.Inducing); k == 0 || k >= o.M {
				t.Fatalf("P=%d rank %d: %d inducing points, want between 1 and %d", P, r, k, o.M-1)
			}
			if want == nil {
				want = res.Inducing
			} else if !slices.Equal(res.Inducing, want) {
				t.Errorf("P=%d rank %d: set %v, want %v", P, r, res.Inducing, want)
			}
		}
	}
	t.Logf("%d of M=%d points", len(want), o.M)
}

// countdown is a context whose Err is nil for its first calls and
// Canceled after them.
type countdown struct {
	context.Context
	left int
}

func (c *countdown) Err() error {
	if c.left--; c.left < 0 {
		return context.Canceled
	}
	return nil
}

// TestFitRanksStopsBetweenSwaps checks that a context done on one rank
// in the middle of an epoch (the fifth check: the epoch's, then four
// swaps'; the greedy start checks none) stops every rank of P = 3 before
// the same swap: Stopped, no complete epoch, the swaps made counted, and
// the same state on every rank.
func TestFitRanksStopsBetweenSwaps(t *testing.T) {
	rows, y := startProblem(2600, 2)
	o := RanksOptions{M: 10, Objective: VAR, MaxEpochs: 3, Seed: 3, Mean: MeanConstant, Greedy: true}
	res := fitOnRanksCtx(t, 3, rows, y, kernel.NewRBF(1, []float64{1, 1}), 0.05, o, func(r int) context.Context {
		if r == 1 {
			return &countdown{Context: context.Background(), left: 4}
		}
		return context.Background()
	})
	for r, got := range res {
		if !got.Stopped || got.Epochs != 0 || got.Swaps != 3 || !slices.Equal(got.Inducing, res[0].Inducing) || got.Value != res[0].Value {
			t.Errorf("rank %d: stopped %v after %d epochs and %d swaps, set %v; want stopped after 3 swaps of the first epoch, rank 0's set %v",
				r, got.Stopped, got.Epochs, got.Swaps, got.Inducing, res[0].Inducing)
		}
	}
}

// TestFitRanksGrowsItsSet checks that a fit whose starting lengthscale
// tells only a few rows apart (ℓ = 3 on inputs in [0, 5]) grows its
// inducing set once the gradient phase has shortened it: it ends with
// more points than it started with, at most M, the same set, θ and
// objective bit for bit on every rank of P = 1…3, and the dense
// oracle's VAR at its θ and set within 1e-9.
func TestFitRanksGrowsItsSet(t *testing.T) {
	rows, y := startProblem(2600, 1)
	o := RanksOptions{M: 30, Objective: VAR, MaxEpochs: 3, Seed: 1, Mean: MeanZero}
	held := len(fitOnRanks(t, 1, rows, y, kernel.NewRBF(1, []float64{3}), 0.5, o)[0].Inducing)
	o.Learn = true
	var want *RanksResult
	for P := 1; P <= 3; P++ {
		for r, res := range fitOnRanks(t, P, rows, y, kernel.NewRBF(1, []float64{3}), 0.5, o) {
			if want == nil {
				want = res
			} else if !slices.Equal(res.Inducing, want.Inducing) || !sameBits(res.Hyperparameters.Values, want.Hyperparameters.Values) || !sameBits([]float64{res.Value}, []float64{want.Value}) {
				t.Errorf("P=%d rank %d: set %v θ %v value %v; want %v %v %v", P, r, res.Inducing, res.Hyperparameters.Values, res.Value, want.Inducing, want.Hyperparameters.Values, want.Value)
			}
		}
	}
	h := want.Hyperparameters.Values
	if k := len(want.Inducing); k <= held || k > o.M || !(h[1] < 3) {
		t.Fatalf("%d inducing points at ℓ = %v; want more than the %d the start holds, at most %d", k, h[1], held, o.M)
	}
	_, vfe, ok := naive.DTC(naive.RBF(rows, h[0], h[1:2]), y, h[2], want.Inducing)
	if !ok || math.Abs(vfe-want.Value) > 1e-9*math.Abs(vfe) {
		t.Errorf("value %.12g, dense oracle %.12g (ok %v)", want.Value, vfe, ok)
	}
	t.Logf("%d of M=%d points (%d at the start), θ %v, VAR %.6g", len(want.Inducing), o.M, held, h, want.Value)
}
