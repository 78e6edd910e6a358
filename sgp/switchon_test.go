package sgp

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// TestReactivateBringsBackARelevantInput starts a continuous fit with two
// of three inputs switched off (lengthscales 10⁴ times their start): input
// 1, on which the target depends through cos(3x₁), and input 2, on which
// it does not. The fit stays on the plateau there (∂F/∂log ℓ vanishes), so
// it converges with input 1 off; reactivate must switch input 1 back on,
// lower F by far, predict held-out targets better, and leave input 2 off.
func TestReactivateBringsBackARelevantInput(t *testing.T) {
	t.Parallel()
	gen := func(n int, seed uint64) *data.Dataset {
		rng := rand.New(rand.NewPCG(seed, 5))
		xs, y := make([]float64, 3*n), make([]float64, n)
		for i := range y {
			x := xs[3*i : 3*i+3]
			for t := range x {
				x[t] = 2*rng.Float64() - 1
			}
			y[i] = math.Sin(3*x[0]) + math.Cos(3*x[1]) + 0.05*rng.NormFloat64()
		}
		xv, err := kernel.NewVectors(n, 3, xs)
		if err != nil {
			t.Fatal(err)
		}
		return &data.Dataset{Name: "react", X: xv, Y: y}
	}
	train, test := gen(300, 1), gen(300, 2)
	kern := kernel.NewRBFFromData(train.X, train.Y)
	var progress bytes.Buffer
	md := NewModel(train.X, train.Y, kern).WithM(12).WithSeed(1).WithProgress(&progress)
	if err := md.build(); err != nil {
		t.Fatal(err)
	}
	ls0 := kern.Lengthscales()
	theta := md.Params()
	theta[2] += math.Log(1e4)
	theta[3] += math.Log(1e4)
	opts := Continuous{maxEvals: 2000, jitter: hybridJitter}
	ctx := context.Background()
	run := func(theta []float64, z *kernel.Vectors) (*ContinuousResult, bool, error) {
		c, err := md.refineFrom(ctx, opts, theta, z)
		return c, err == nil, err
	}
	off, ok, err := run(theta, train.X.Rows(rand.New(rand.NewPCG(1, 1)).Perm(train.Len())[:12]))
	if !ok {
		t.Fatal(err)
	}
	if !endedOnItsOwn(off.Status) || off.Params[2] < math.Log(offFactor*ls0[1]) {
		t.Fatalf("the fit with input 1 off ended %q with log ℓ₁ = %.3g: the test needs it converged on the plateau", stopText(off.Status, off.Reason), off.Params[2])
	}
	smse := func(c *ContinuousResult) float64 {
		mu, _, err := c.Predictor.Predict(test.X)
		if err != nil {
			t.Fatal(err)
		}
		v, err := SMSE(mu, test.Y)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	got, on := md.reactivate(ctx, md.obj, off, kern.Variance(), ls0, run)
	t.Logf("F %.2f → %.2f, SMSE %.4f → %.4f, inputs %v, ℓ = %.3g", off.Objective, got.Objective, smse(off), smse(got), on,
		got.Params[1:4])
	if len(on) != 1 || on[0] != 1 {
		t.Fatalf("switched back on %v, want [1]", on)
	}
	if !(got.Objective < off.Objective-100) || !(smse(got) < smse(off)/10) {
		t.Errorf("F %.2f → %.2f, SMSE %.4f → %.4f: want F lower by 100 and SMSE by a factor 10", off.Objective, got.Objective, smse(off), smse(got))
	}
	if got.Params[2] > math.Log(offFactor*ls0[1]) || got.Params[3] < math.Log(offFactor*ls0[2]) {
		t.Errorf("log ℓ = %.3g: want input 1 on and input 2 still off", got.Params[1:4])
	}
	if got.Start != off.Start || got.Evals <= off.Evals {
		t.Errorf("start %g, %d evaluations: want the first fit's start %g and more than its %d evaluations", got.Start, got.Evals, off.Start, off.Evals)
	}
	if !strings.Contains(progress.String(), "lengthscale[1]") {
		t.Errorf("progress does not name lengthscale[1]:\n%s", progress.String())
	}
	if s := inputList([]int{3, 10}); s != "lengthscales[3, 10]" {
		t.Errorf("inputList = %q", s)
	}
}

// TestHybridSwitchesInputsBackOn fits SyntheticDiscrete (n = 500, m = 32)
// where CholQR's fit switches off input 10, which carries ½cos(2x₁₀): F
// 228.8 and 242.6, test SMSE 0.156 and 0.161 on seeds 1 and 2. The hybrid
// must bring the input back (reactivate) and end far lower: without
// reactivate its refinement stays on the plateau, at F 226.4 and 240.2.
// Since CholQR's own fit brings inputs back (switchBackSubset), the
// hybrid's CholQR phase does it there (F 52.3 and 46.9, SMSE 0.065 and
// 0.061).
func TestHybridSwitchesInputsBackOn(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 2; seed++ {
		train, test := data.SyntheticDiscrete(500, 1000, seed)
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(32).WithSeed(1).
			WithSelector(SelectHybrid).WithMaxEpochs(30)
		res, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		ev, err := md.Evaluate(test)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: F %.3f, SMSE %.4f, from %s", seed, res.Objective, ev.SMSE, res.RefinedFrom)
		// CholQR's phase brings it back itself (switchBackSubset), or the
		// refinement does.
		back := slices.Contains(res.SwitchedOn, 10) || strings.Contains(res.RefinedFrom, "lengthscale[10] switched back on")
		if !back || !(res.Objective < 100) || !(ev.SMSE < 0.1) {
			t.Errorf("seed %d: F %.3f, SMSE %.4f, switched on %v, refined from %q: want input 10 switched back on, F < 100 and SMSE < 0.1",
				seed, res.Objective, ev.SMSE, res.SwitchedOn, res.RefinedFrom)
		}
	}
}

// quadraticARD returns n training and 500 test points of d standard normal
// inputs with y = sin x₀ + ½x₁² + 0.1ε: input 1's effect is symmetric, so
// at the starting lengthscales the gradient does not see it.
func quadraticARD(n, d int, seed uint64) (train, test *data.Dataset) {
	rng := rand.New(rand.NewPCG(seed, 77))
	make1 := func(n int) *data.Dataset {
		rows := make([][]float64, n)
		y := make([]float64, n)
		for i := range rows {
			rows[i] = make([]float64, d)
			for j := range rows[i] {
				rows[i][j] = rng.NormFloat64()
			}
			y[i] = math.Sin(rows[i][0]) + 0.5*rows[i][1]*rows[i][1] + 0.1*rng.NormFloat64()
		}
		x, err := kernel.VectorsFromRows(rows)
		if err != nil {
			panic(err)
		}
		return &data.Dataset{X: x, Y: y}
	}
	return make1(n), make1(500)
}

// TestSwitchBackSubset: a CholQR fit on quadraticARD (12 inputs, n = 500,
// m = 24) finds inputs 0 and 1. Started instead with inputs 1 and 5
// switched off (lengthscales 10⁴ times their data-based start), it stays
// there (no gradient step brings input 1 back) and explains ½x₁² as
// noise; switchBackSubset then sets input 1 back, runs epochs from there
// and ends near the first fit's optimum, and leaves input 5, on which the
// target does not depend, switched off.
func TestSwitchBackSubset(t *testing.T) {
	t.Parallel()
	train, test := quadraticARD(500, 12, 1)
	kern := kernel.NewRBFFromData(train.X, train.Y)
	ls0 := append([]float64(nil), kern.Lengthscales()...)
	v0 := kern.Variance()
	full := NewModel(train.X, train.Y, kern).WithM(24).WithSeed(1).WithMaxEpochs(60)
	res, err := full.Fit()
	if err != nil {
		t.Fatal(err)
	}
	offLs := append([]float64(nil), ls0...)
	offLs[1], offLs[5] = 1e4*ls0[1], 1e4*ls0[5]
	var progress strings.Builder
	md := NewModel(train.X, train.Y, kernel.NewRBF(v0, offLs)).WithM(24).WithSeed(1).WithMaxEpochs(60).WithProgress(&progress)
	offRes, err := md.Fit()
	if err != nil {
		t.Fatal(err)
	}
	if p := md.Params(); p[2] < math.Log(offFactor*ls0[1]) {
		t.Fatalf("the fit from input 1 switched off brought it back itself (ℓ₁ = %.3g): pick another case", math.Exp(p[2]))
	}
	fOff := offRes.Objective
	evOff, _ := md.Evaluate(test)
	ended, on, err := md.switchBackSubset(md.newRun(context.Background()), v0, ls0, outcome{stop{status: Converged}, true})
	stopped, converged := ended.stop, ended.converged
	if err != nil {
		t.Fatal(err)
	}
	f, _ := md.Value()
	ev, _ := md.Evaluate(test)
	t.Logf("fit F %.2f; off F %.2f SMSE %.4f; switched back %v: F %.2f SMSE %.4f (%s)", res.Objective, fOff, evOff.SMSE, on, f, ev.SMSE, stopped)
	if !slices.Equal(on, []int{1}) || !converged {
		t.Fatalf("switched on %v, %s: want [1], converged", on, stopped)
	}
	if !(f < fOff-100) || !(ev.SMSE < evOff.SMSE/5) || f > res.Objective+1 {
		t.Errorf("F %.2f → %.2f (the fit's own %.2f), SMSE %.4f → %.4f", fOff, f, res.Objective, evOff.SMSE, ev.SMSE)
	}
	if p := md.Params(); p[6] < math.Log(offFactor*ls0[5]) {
		t.Errorf("input 5 switched back on: ℓ₅ = %.3g", math.Exp(p[6]))
	}
	if !strings.Contains(progress.String(), "switch-on: lengthscale[1]") {
		t.Errorf("progress does not report the switch:\n%s", progress.String())
	}
	// With nothing switched off, nothing changes and no epoch is run.
	before, epochs := md.Params(), len(md.Trace())
	if _, on, err := md.switchBackSubset(md.newRun(context.Background()), v0, ls0, outcome{stop{status: Converged}, true}); err != nil || on != nil ||
		!slices.Equal(before[:6], md.Params()[:6]) || len(md.Trace()) != epochs {
		t.Errorf("second call: on %v, err %v, %d → %d epochs", on, err, epochs, len(md.Trace()))
	}
}
