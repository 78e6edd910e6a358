package sgp

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/stats"
	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// TestConstantTargetsRefused checks that fits of the hyperparameters refuse
// targets that are all equal, whose objective has no minimum (σ² → 0), on
// every path that optimises θ, and that fixed hyperparameters still work.
// Before, the hybrid's refinement followed the lengthscale to +Inf and
// reported a panic from the kernel.
func TestConstantTargetsRefused(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(60, 1)
	y := make([]float64, train.X.Len())
	for i := range y {
		y[i] = 2.5
	}
	const want = "all 60 training targets equal 2.5"
	for _, sel := range []string{"cholqr", "hybrid", "random", "greedy-variance", "titsias:4"} {
		s, err := ParseSelector(sel)
		if err != nil {
			t.Fatal(err)
		}
		md := NewModel(train.X, y, kernel.NewRBFFromData(train.X, train.Y)).WithM(8).WithSelector(s)
		if res, err := md.Fit(); err == nil || res != nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, %v; want an error containing %q", sel, res, err, want)
		}
	}
	kern := kernel.NewRBFFromData(train.X, train.Y)
	if _, err := NewContinuous(train.X, y, kern).WithInducingInputs(train.X.Rows([]int{1, 2, 3})).WithNoise(0.1).WithObjective(VAR).FitContext(context.Background()); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("NewContinuous: got %v, want an error containing %q", err, want)
	}
	// At fixed hyperparameters the swaps are well defined, and the model
	// predicts the constant.
	md := NewModel(train.X, y, kernel.NewRBFFromData(train.X, train.Y)).WithM(8).WithFixedHyperparameters(true)
	if _, err := md.Fit(); err != nil {
		t.Fatalf("fixed hyperparameters: %v", err)
	}
	mean, _, err := md.Predict(train.X)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range mean {
		if math.Abs(v-2.5) > 1e-9 {
			t.Fatalf("fixed hyperparameters: mean[%d] = %g, want 2.5", i, v)
		}
	}
}

// TestFuncGradRefusesOutOfRangeParams checks that the objective refuses a
// log kernel parameter beyond ±kernel.MaxLogParameter (F = +Inf and an error), where
// exp(θ) would overflow a kernel that can be neither built nor saved, and
// still evaluates one just inside.
func TestFuncGradRefusesOutOfRangeParams(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(40, 2)
	kern := kernel.NewRBFFromData(train.X, train.Y)
	for _, o := range []Objective{VAR, MLE} {
		ev := NewEvaluator(train.X, train.Y, kern, o, []int{7}) // one point: K_mm stays positive at any lengthscale
		for _, tc := range []struct {
			theta []float64
			ok    bool
		}{
			{[]float64{0, kernel.MaxLogParameter - 1, -2}, true},
			{[]float64{0, kernel.MaxLogParameter + 1, -2}, false},
			{[]float64{0, math.Inf(1), -2}, false},
			{[]float64{0, math.NaN(), -2}, false},
			{[]float64{-kernel.MaxLogParameter - 1, 0, -2}, false},
		} {
			g := make([]float64, 3)
			f, err := ev.FuncGrad(g, tc.theta)
			if tc.ok && (err != nil || math.IsInf(f, 0) || math.IsNaN(f)) {
				t.Errorf("%v θ=%v: got %v, %v; want a finite objective", o, tc.theta, f, err)
			}
			if !tc.ok && (err == nil || !math.IsInf(f, 1) || !strings.Contains(err.Error(), "out of range")) {
				t.Errorf("%v θ=%v: got %v, %v; want +Inf and an out-of-range error", o, tc.theta, f, err)
			}
		}
	}
	// The exact GP's objective refuses them too.
	for _, tc := range []struct {
		ls float64
		ok bool
	}{{math.Exp(kernel.MaxLogParameter - 1), true}, {math.Exp(kernel.MaxLogParameter + 1), false}} {
		_, err := NewExact(train.X, train.Y, kernel.NewRBF(1, []float64{tc.ls})).WithFixedHyperparameters(true).WithNoise(0.1).FitContext(context.Background())
		if tc.ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "out of range")) {
			t.Errorf("exact, lengthscale %g: %v", tc.ls, err)
		}
	}
}

// TestPureNoiseReachesNoiseOnly checks that CholQR fits targets with no
// signal down to the noise-only optimum, F* = n/2·(log 2πs² + 1) with s²
// the targets' variance about their mean, and say so. The gradient phase
// lowers F from the start by lengthening the lengthscale until the
// inducing set cannot be factorised whole at the kernel's numerical rank;
// the fit keeps that best point rather than undoing it when a rebuild
// there fails, so that it reaches F* instead of stalling at its start.
func TestPureNoiseReachesNoiseOnly(t *testing.T) {
	t.Parallel()
	const n = 400
	r := rand.New(rand.NewPCG(1, 2))
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = 6*r.Float64() - 3
		y[i] = r.NormFloat64()
	}
	xv, err := kernel.NewVectors(n, 1, x)
	if err != nil {
		t.Fatal(err)
	}
	s2 := stats.Variance(y) // about the mean, over n: the noise-only model's σ²
	fStar := n / 2 * (math.Log(2*math.Pi*s2) + 1)
	for _, o := range []Objective{VAR, MLE} {
		md := NewModel(xv, y, kernel.NewRBFFromData(xv, y)).WithObjective(o).WithSeed(1)
		res, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		// F ≤ F*: the noise-only model is one the objective can reach; a
		// little lower where a faint signal is fitted.
		if !(res.Objective <= fStar+0.5) || !(res.Objective >= fStar-10) {
			t.Errorf("%v: F = %.6g, want within [F* − 10, F* + 0.5], F* = %.6g (epochs %d, %s)", o, res.Objective, fStar, res.Epochs, stopText(res.Status, res.Reason))
		}
		if !res.NoiseOnly {
			t.Errorf("%v: F = %.6g, the noise-only optimum was not reported (%q)", o, res.Objective, res.Warnings)
		}
		// The advice fits the objective: an MLE fit is not told to try MLE.
		if all := strings.Join(res.Warnings, "\n"); (o == MLE) == strings.Contains(all, "WithObjective(MLE)") {
			t.Errorf("%v: warnings %q", o, res.Warnings)
		}
	}
}

// TestUndoneBestPointTakenOnRepeat checks when a gradient phase whose best
// point cannot hold the whole inducing set is taken with fewer points: not
// the first time (SnelsonLike(60, 1) then slid to the noise-only optimum,
// F 73.2; undone, the swaps adapt the set and the fit reaches F ≈ 58), but
// when the next phase ends the same way (SnelsonLike(60, 3), where undoing
// every time leaves the fit stalled at its start, F 99.8). Where the fit
// goes after the point is taken depends on the optimiser's path: seed 3
// reaches F ≈ 58 or the noise-only optimum (F ≈ 73) as rounding decides,
// as about one seed in five does (seeds 1–150: 119 to 122 reach F < 60
// with the noise floor at 10⁻⁶·var(y) or of the detrended variance), so
// for seed 3 the test checks the rule itself.
func TestUndoneBestPointTakenOnRepeat(t *testing.T) {
	t.Parallel()
	fit := func(seed uint64) (*Model, *Result) {
		train, _ := data.SnelsonLike(60, seed)
		md := NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(5).WithMaxEpochs(50)
		res, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		return md, res
	}
	if _, res := fit(1); !(res.Objective < 60) || res.NoiseOnly || !res.Converged {
		t.Errorf("seed 1: F = %.6g, noise-only %v, %s; want F < 60, converged, with signal", res.Objective, res.NoiseOnly, stopText(res.Status, res.Reason))
	}
	md, res := fit(3)
	tr := md.Trace()
	if len(tr) < 2 || tr[0].CGStatus != CGUndone || tr[1].CGStatus == CGUndone || !(tr[1].Objective < tr[0].Objective-10) {
		t.Fatalf("seed 3: want epoch 1's phase undone and epoch 2's best point taken, lowering F by more than 10; trace\n%v", Trace(tr))
	}
	if !(res.Objective < tr[0].Objective-10) {
		t.Errorf("seed 3: F = %.6g, stalled near its first epoch's %.6g", res.Objective, tr[0].Objective)
	}
}

// TestRoseNamesItsCause checks the warning for an objective that rose
// during a fit: it blames left-out inducing points only when a rebuild
// left some out.
func TestRoseNamesItsCause(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(100, 1)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(8).WithMaxEpochs(3)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	if w := md.rose(md.obj, 0, md.f.Stats().LeftOut); w != "" {
		t.Fatalf("a fit whose objective did not rise: %q", w)
	}
	// An earlier epoch 10 nats lower than the state now.
	md.trace = append(md.trace, EpochRecord{Epoch: 99, Kind: md.obj, Objective: md.f.Value(md.obj) - 10})
	if w := md.rose(md.obj, 0, md.f.Stats().LeftOut); !strings.Contains(w, "(epoch 99)") || strings.Contains(w, "left out") {
		t.Errorf("no point left out: %q", w)
	}
	if w := md.rose(md.obj, 0, md.f.Stats().LeftOut-2); !strings.Contains(w, "left out 2 inducing points") {
		t.Errorf("two points left out: %q", w)
	}
}
