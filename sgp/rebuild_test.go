package sgp

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/internal/cholqr"
	"github.com/cholqr/sgp/sgp/internal/naive"
	"github.com/cholqr/sgp/sgp/kernel"
)

// The model's rebuilds of a set the kernel cannot hold whole, and
// Titsias' selection with pools of several exact batches; the engine's
// side (cholqr.Factor.FactorizeSkipping, the batches) is tested in
// package cholqr.

// nearDuplicateProblem is naive.NearDuplicateProblem: point 7 a copy of
// point 3 moved by 1e-5, below keepTol given point 3.
func nearDuplicateProblem() *problem { return fromNaive(naive.NearDuplicateProblem()) }

// TestRefactorKeeping: the model's fallback rebuild leaves out the
// near-duplicate and refills the set to m by score, where rebuildRobust's
// admission at pivotTol would also have had to refuse points that the
// rebuild keeps (see refactorKeeping); the result is the set's exact
// objective.
func TestRefactorKeeping(t *testing.T) {
	t.Parallel()
	p := nearDuplicateProblem()
	md := NewModel(p.x, p.y, p.kern).WithNoise(p.noise).WithMean(MeanZero).WithM(8).WithInfoPivots(4).WithInducing([]int{0, 5, 11, 16, 20, 22, 1, 9})
	if err := md.build(); err != nil {
		t.Fatal(err)
	}
	md.refactorKeeping([]int{0, 3, 5, 7, 11, 16, 20}, md.obj)
	set := md.f.Active(nil)
	if len(set) != 8 {
		t.Fatalf("set %v: %d points, want 8 (refilled)", set, len(set))
	}
	if slices.Contains(set, 3) && slices.Contains(set, 7) {
		t.Fatalf("set %v holds both near-duplicates", set)
	}
	for _, j := range []int{0, 5, 11, 16, 20} {
		if !slices.Contains(set, j) {
			t.Errorf("regular point %d left out: %v", j, set)
		}
	}
	if got, want := md.f.Value(VAR), p.oracle(t, set, VAR); math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("F = %.12g, oracle %.12g", got, want)
	}
}

// discreteInputs is SyntheticDiscrete's training set: fits drive the
// signal variance up (about 10⁴ against the targets' 1) and lengthscales of
// discrete inputs out, until members of the inducing set fall below keepTol
// of it when the factor is rebuilt.
func discreteInputs(n int, seed uint64) *data.Dataset {
	train, _ := data.SyntheticDiscrete(n, 1, seed)
	return train
}

// TestFitAtNumericalRank: where a rebuild at new hyperparameters has to
// leave inducing points out (Stats.LeftOut) and the objective rises, the
// fit stops there and says so; it ends within 5% of the lowest objective
// it reached, and no later gradient phase goes on where the set cannot
// be held (a fallback rebuild admitting at pivotTol would lose dozens of
// points at once and let the objective rise while reporting convergence).
func TestFitAtNumericalRank(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("about 6 s")
	}
	data := discreteInputs(2000, 5)
	exercised := 0
	for _, seed := range []uint64{5, 6} {
		md := NewModel(data.X, data.Y, kernel.NewRBFFromData(data.X, data.Y)).WithM(64).WithInfoPivots(16).WithSeed(seed).WithMaxEpochs(70)
		res, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		best := math.Inf(1)
		for _, r := range md.Trace() {
			if r.Kind == VAR {
				best = math.Min(best, r.Objective)
			}
		}
		t.Logf("seed %d: F %.6g (lowest %.6g), %d left out, %s", seed, res.Objective, best, res.Stats.LeftOut, stopText(res.Status, res.Reason))
		if res.Stats.LeftOut == 0 {
			continue
		}
		exercised++
		if res.Objective > best+0.05*math.Abs(best) {
			t.Errorf("seed %d: F %.6g, more than 5%% above the lowest reached %.6g", seed, res.Objective, best)
		}
		// A fit whose objective rose after points were left out stops
		// there, with that reason; one that went on descending may stop
		// for another (with the pure-Go BLAS, seed 6 ends at its lowest F,
		// stalled in its gradient phase).
		rose := res.Objective > best+md.tol*md.f.ValueScale(best)
		if rose && (res.Status != Stalled || !strings.HasPrefix(res.Reason, "the inducing set is at the kernel's numerical rank")) {
			t.Errorf("seed %d: stopped %q after the objective rose with points left out", seed, stopText(res.Status, res.Reason))
		}
		warned := slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.HasPrefix(w, "the objective rose from") })
		if rose != warned {
			t.Errorf("seed %d: objective rose %v, warned %v: %q", seed, rose, warned, res.Warnings)
		}
		if rose && slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "best state reached") }) {
			t.Errorf("seed %d: claims the best state after the objective rose: %q", seed, res.Warnings)
		}
	}
	if exercised == 0 {
		t.Error("no fit left points out: the test no longer exercises the rebuild at numerical rank")
	}
}

// TestTitsiasLargePool runs Titsias' selection with more candidates per
// step than one exact batch holds (cholqr.ExactBatchMax), so that each step
// scores its pool in several batches, and checks that it selects m points
// and ends below a random subset's objective.
func TestTitsiasLargePool(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(400, 3)
	fit := func(sel Selector) *Result {
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(12).WithSeed(2).
			WithMaxEpochs(3).WithSelector(sel)
		res, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	big, rnd := fit(SelectTitsias(3*cholqr.ExactBatchMax)), fit(SelectRandom)
	if len(big.Inducing) != 12 || math.IsNaN(big.Objective) {
		t.Fatalf("Titsias-%d: %d points, F = %g", 3*cholqr.ExactBatchMax, len(big.Inducing), big.Objective)
	}
	if big.Objective >= rnd.Objective {
		t.Errorf("Titsias-%d F = %.4f, not below a random subset's %.4f", 3*cholqr.ExactBatchMax, big.Objective, rnd.Objective)
	}
}
