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
	o := RanksOptions{M: 12, Objective: VAR, MaxEpochs: 4, Seed: 3, Mean: MeanZero}
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

// equalsModelProblem is the data of the comparisons of FitRanks with
// Model: n = 2600 rows of two inputs (three blocks, uneven over the
// ranks), a smooth function of them plus noise sd 0.1, offset by 2.
func equalsModelProblem() (*kernel.Vectors, [][]float64, []float64) {
	rng := rand.New(rand.NewPCG(21, 22))
	n := 2600
	rows := make([][]float64, n)
	y := make([]float64, n)
	for i := range rows {
		rows[i] = []float64{5 * rng.Float64(), 3 * rng.Float64()}
		y[i] = 2 + math.Sin(2*rows[i][0])*math.Cos(rows[i][1]) + 0.1*rng.NormFloat64()
	}
	x, err := kernel.NewVectors(n, 2, slices.Concat(rows...))
	if err != nil {
		panic(err)
	}
	return x, rows, y
}

// checkEqualsModel compares FitRanks' result res with Model's want: the
// same inducing set in the same order, the same swaps made and accepted,
// the same epochs, the objective and the hyperparameters within 1e-10
// relative.
func checkEqualsModel(t *testing.T, name string, res *RanksResult, want *Result) {
	t.Helper()
	if !slices.Equal(res.Inducing, want.Inducing) {
		t.Errorf("%s: inducing %v, Model's %v", name, res.Inducing, want.Inducing)
	}
	if math.Abs(res.Value-want.Objective) > 1e-10*math.Abs(want.Objective) {
		t.Errorf("%s: objective %.15g, Model's %.15g", name, res.Value, want.Objective)
	}
	if res.Swaps != want.Stats.Swaps || res.Accepted != want.Stats.Accepted || res.Epochs != want.Epochs || res.Converged != want.Converged {
		t.Errorf("%s: %d of %d swaps accepted in %d epochs (converged %v), Model %d of %d in %d (%v)",
			name, res.Accepted, res.Swaps, res.Epochs, res.Converged, want.Stats.Accepted, want.Stats.Swaps, want.Epochs, want.Converged)
	}
	for i, v := range res.Hyperparameters.Values {
		if w := math.Exp(want.Params[i]); math.Abs(v-w) > 1e-10*w {
			t.Errorf("%s: %s = %.15g, Model's %.15g", name, res.Hyperparameters.Names[i], v, w)
		}
	}
}

// TestFitRanksEqualsModel checks that FitRanks on P = 1…4 ranks makes the
// fit Model.Fit makes with the same hyperparameters held, seed, M,
// objective and mean (checkEqualsModel).
func TestFitRanksEqualsModel(t *testing.T) {
	x, rows, y := equalsModelProblem()
	kern := kernel.NewRBF(1.1, []float64{0.6, 0.9})
	const noise = 0.015
	for _, tc := range []struct {
		obj  Objective
		mean Mean
	}{{VAR, MeanConstant}, {MLE, MeanZero}} {
		md := NewModel(x, y, kernel.Clone(kern)).WithM(14).WithNoise(noise).WithFixedHyperparameters(true).
			WithObjective(tc.obj).WithMean(tc.mean).WithSeed(3).WithMaxEpochs(6)
		want, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		if want.Stats.Accepted == 0 {
			t.Fatalf("%v: Model accepted no swap", tc.obj)
		}
		o := RanksOptions{M: 14, Objective: tc.obj, MaxEpochs: 6, Seed: 3, Mean: tc.mean}
		for P := 1; P <= 4; P++ {
			for r, res := range fitOnRanks(t, P, rows, y, kern, noise, o) {
				checkEqualsModel(t, fmt.Sprintf("%v P=%d rank %d", tc.obj, P, r), res, want)
			}
		}
		t.Logf("%v: %d epochs, %d of %d swaps accepted, F %.12g", tc.obj, want.Epochs, want.Stats.Accepted, want.Stats.Swaps, want.Objective)
	}
}

// TestFitRanksLearnsAsModel checks that FitRanks with Learn makes, on
// P = 1…3 ranks, the fit Model.Fit makes learning the hyperparameters
// from the same start with the same noise floor (checkEqualsModel): the
// gradient phases take the same steps, their evaluator's sums being
// those of one process. Neither fit here meets Model's restart from MLE
// or its switch-back of lengthscales, which FitRanks does not run.
func TestFitRanksLearnsAsModel(t *testing.T) {
	x, rows, y := equalsModelProblem()
	kern := kernel.NewRBF(1.1, []float64{0.6, 0.9})
	for _, obj := range []Objective{MLE, VAR} {
		md := NewModel(x, y, kernel.Clone(kern)).WithM(14).WithNoise(0.05).WithObjective(obj).WithMean(MeanConstant).
			WithSeed(3).WithMaxEpochs(4).WithNoiseFloor(1e-6)
		want, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		o := RanksOptions{M: 14, Objective: obj, MaxEpochs: 4, Seed: 3, Mean: MeanConstant, Learn: true, NoiseFloor: 1e-6}
		for P := 1; P <= 3; P++ {
			for r, res := range fitOnRanks(t, P, rows, y, kern, 0.05, o) {
				checkEqualsModel(t, fmt.Sprintf("%v P=%d rank %d", obj, P, r), res, want)
			}
		}
		if slices.Equal(want.Params, append(kern.Params(nil), math.Log(0.05))) {
			t.Errorf("%v: the hyperparameters did not move", obj)
		}
	}
}
