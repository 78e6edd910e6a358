package sgp

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/internal/stats"
	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// TestNoiseMap checks the change of variables: toTheta inverts toX, σ²
// stays above the floor for every u, the gradient matches central finite
// differences of F(toTheta(x)), and a zero floor is the identity.
func TestNoiseMap(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(60, 4)
	kern := kernel.NewRBFFromData(train.X, train.Y)
	nm := newParamMap(nil, make([]float64, kern.NumParams()+1), noiseFloor(train.X, train.Y, 0))
	if want := noiseFloorRel * detrendedVariance(train.X, train.Y, stats.Variance(train.Y)); math.Abs(nm.floor-want) > 1e-15*want {
		t.Fatalf("floor %g, want %g", nm.floor, want)
	}
	for _, logS2 := range []float64{math.Log(0.3), math.Log(5 * nm.floor), math.Log(nm.floor) + 1e-3} {
		theta := append(kern.Params(nil), logS2)
		x := nm.toX(make([]float64, len(theta)), theta)
		back := nm.toTheta(make([]float64, len(theta)), x)
		for i := range theta {
			if math.Abs(back[i]-theta[i]) > 1e-9 {
				t.Errorf("log σ² %g: round trip %v, want %v", logS2, back, theta)
			}
		}
		for _, o := range []Objective{VAR, MLE} {
			ev := NewEvaluator(train.X, train.Y, kern, o, []int{3, 17, 29, 44})
			g := make([]float64, len(x))
			if _, err := ev.FuncGrad(g, nm.toTheta(make([]float64, len(x)), x)); err != nil {
				t.Fatal(err)
			}
			nm.grad(g, g, x)
			k := len(x) - 1
			const h = 1e-5
			fAt := func(u float64) float64 {
				xx := append([]float64(nil), x...)
				xx[k] = u
				f, err := ev.FuncGrad(nil, nm.toTheta(make([]float64, len(xx)), xx))
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
			fd := (fAt(x[k]+h) - fAt(x[k]-h)) / (2 * h)
			if !scalar.EqualWithinAbsOrRel(g[k], fd, 1e-5, 1e-5) {
				t.Errorf("%v, log σ² %g: ∂F/∂u = %g, finite differences %g", o, logS2, g[k], fd)
			}
		}
	}
	for _, u := range []float64{-800, -50, 0, 3} {
		th := nm.toTheta(make([]float64, 3), []float64{0, 0, u})
		if s2 := math.Exp(th[2]); !(s2 >= nm.floor) {
			t.Errorf("u = %g: σ² = %g below the floor %g", u, s2, nm.floor)
		}
	}
	id := newParamMap(nil, make([]float64, 2), 0)
	x := []float64{1, -40}
	if th := id.toTheta(make([]float64, 2), x); th[0] != x[0] || th[1] != x[1] {
		t.Errorf("zero floor: toTheta(%v) = %v", x, th)
	}
}

// TestNoiselessTargetsFitAtTheFloor checks fits of targets with no noise
// (sin x sampled exactly): every path that fits the hyperparameters ends
// with σ² at or above the default floor (noiseFloor), converged, and
// predicts to about that accuracy. Without a floor, MLE drove σ² to
// 10⁻¹³ of var(y) and stalled on F that differed by a nat between two
// evaluations of one state.
func TestNoiselessTargetsFitAtTheFloor(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	sample := func(n int) *data.Dataset {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = 6*r.Float64() - 3
			y[i] = math.Sin(x[i])
		}
		xv, err := kernel.NewVectors(n, 1, x)
		if err != nil {
			t.Fatal(err)
		}
		return &data.Dataset{X: xv, Y: y}
	}
	train, test := sample(300), sample(200)
	floor := noiseFloor(train.X, train.Y, 0)
	check := func(name string, logS2 float64, converged bool, mean []float64) {
		t.Helper()
		if s2 := math.Exp(logS2); !(s2 >= floor*(1-1e-9)) || s2 > 1e-3*stats.Variance(train.Y) {
			t.Errorf("%s: σ² = %g, want in [%g, 10⁻³·var(y)]", name, s2, floor)
		}
		if !converged {
			t.Errorf("%s: did not converge", name)
		}
		if s, _ := SMSE(mean, test.Y); !(s < 1e-5) {
			t.Errorf("%s: test SMSE %g, want below 10⁻⁵", name, s)
		}
	}
	for _, o := range []Objective{VAR, MLE} {
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(20).WithObjective(o)
		res, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		mean, _, err := md.Predict(test.X)
		if err != nil {
			t.Fatal(err)
		}
		check("CholQR "+o.String(), res.Params[len(res.Params)-1], res.Converged, mean)
		if !res.AtNoiseFloor {
			t.Errorf("CholQR %v: σ² = %g not reported at the floor %g", o, math.Exp(res.Params[len(res.Params)-1]), res.NoiseFloor)
		}
	}
	kern := kernel.NewRBFFromData(train.X, train.Y)
	cr, err := NewContinuous(train.X, train.Y, kern).WithInducingInputs(train.X.Rows([]int{0, 1, 2, 3, 4, 5, 6, 7})).WithNoise(stats.Variance(train.Y) / 4).WithObjective(VAR).WithMaxEvals(3000).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mean, _, err := cr.Predictor.PredictTo(nil, nil, test.X)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("continuous: %s after %d evaluations, F %.6g, σ² %g", stopText(cr.Status, cr.Reason), cr.Evals, cr.Objective, math.Exp(cr.Params[len(cr.Params)-1]))
	// L-BFGS on Z and θ ends on its line search at this precision of F
	// (max |∂F| ≈ 0.01 at F ≈ −1833), with or without the floor; what is
	// checked is σ² and the predictions.
	check("continuous", cr.Params[len(cr.Params)-1], cr.Status != MaxEvaluations, mean)
	ex, err := NewExact(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mean, _, err = ex.Predictor.Predict(test.X)
	if err != nil {
		t.Fatal(err)
	}
	check("exact", ex.Params[len(ex.Params)-1], ex.Converged, mean)
}

// trendTargets samples y = 50 + 3 sin x₀ + x₁²/100 + ε, x₀ ∈ [−5, 5],
// x₁ ∈ [0, 1000], ε ~ N(0, 0.25): targets whose variance (≈ 8.9·10⁶)
// comes from a smooth trend, not from the noise.
func trendTargets(n int, seed uint64) *data.Dataset {
	r := rand.New(rand.NewPCG(seed, 9))
	x, y := make([]float64, 2*n), make([]float64, n)
	for i := range y {
		x0, x1 := 10*r.Float64()-5, 1000*r.Float64()
		x[2*i], x[2*i+1] = x0, x1
		y[i] = 50 + 3*math.Sin(x0) + x1*x1/100 + 0.5*r.NormFloat64()
	}
	xv, _ := kernel.NewVectors(n, 2, x)
	return &data.Dataset{X: xv, Y: y}
}

// TestNoiseFloorOnTrendTargets checks that the default noise floor does
// not decide the noise of targets dominated by a trend: a fit finds the
// noise variance 0.25 within 20%, not at its floor, with calibrated
// predictive intervals (95% coverage 0.90–0.99 on test data). A floor of
// 10⁻⁶·var(y) held σ² at 8.9, with coverage 1.000.
func TestNoiseFloorOnTrendTargets(t *testing.T) {
	t.Parallel()
	train, test := trendTargets(3000, 1), trendTargets(1000, 2)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithSeed(1)
	res, err := md.Fit()
	if err != nil {
		t.Fatal(err)
	}
	ev, err := md.Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	s2 := math.Exp(res.Params[len(res.Params)-1])
	if math.Abs(s2-0.25) > 0.2*0.25 || res.AtNoiseFloor {
		t.Errorf("σ² = %.4g (floor %.4g, at it: %v), want within 20%% of the noise variance 0.25", s2, res.NoiseFloor, res.AtNoiseFloor)
	}
	if ev.Coverage95 < 0.90 || ev.Coverage95 > 0.99 {
		t.Errorf("95%% coverage %.3f, want 0.90–0.99", ev.Coverage95)
	}
	if want := noiseFloorMin * stats.Variance(train.Y); !(res.NoiseFloor <= want*(1+1e-12)) {
		t.Errorf("floor %.4g, want the least default %.4g (the quadratic trend explains the target)", res.NoiseFloor, want)
	}
}

// TestNoiseFloorSettableAndReported checks WithNoiseFloor and the options
// of Continuous and Exact: a floor set above the targets' noise
// holds σ² there, and every result says so (AtNoiseFloor, NoiseFloor and
// a warning naming the floor, shown by the Result's display); with the
// default floor, the same fits of noisy targets are not at the floor; a
// negative floor is refused.
func TestNoiseFloorSettableAndReported(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(200, 3) // noise variance about 0.08 after the fit
	const floor = 1.0
	hasWarning := func(ws []string) bool {
		for _, w := range ws {
			if strings.Contains(w, "ended at its floor") {
				return true
			}
		}
		return false
	}
	for _, set := range []float64{0, floor} {
		md := NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(10).WithSeed(1).WithNoiseFloor(set)
		res, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		s2 := math.Exp(res.Params[len(res.Params)-1])
		at := set > 0
		if res.AtNoiseFloor != at || hasWarning(res.Warnings) != at || strings.Contains(res.String(), "at its floor") != at {
			t.Errorf("floor %g: σ² = %.4g, AtNoiseFloor %v, warnings %q; want at the floor: %v", set, s2, res.AtNoiseFloor, res.Warnings, at)
		}
		if at && (!(s2 >= floor) || res.NoiseFloor != floor) {
			t.Errorf("floor %g: σ² = %.4g, Result.NoiseFloor %g", set, s2, res.NoiseFloor)
		}
		ex, err := NewExact(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithNoiseFloor(set).FitContext(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if ex.AtNoiseFloor != at || hasWarning(ex.Warnings) != at || (at && !(math.Exp(ex.Params[len(ex.Params)-1]) >= floor)) {
			t.Errorf("exact, floor %g: σ² = %.4g, AtNoiseFloor %v, warnings %q", set, math.Exp(ex.Params[len(ex.Params)-1]), ex.AtNoiseFloor, ex.Warnings)
		}
		cr, err := NewContinuous(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithInducingInputs(train.X.Rows([]int{0, 20, 40, 60, 80, 100, 120, 140, 160, 180})).WithNoise(0.25).WithObjective(VAR).WithNoiseFloor(set).WithMaxEvals(300).FitContext(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if cr.AtNoiseFloor != at || (at && (!(math.Exp(cr.Params[len(cr.Params)-1]) >= floor) || cr.NoiseFloor != floor)) {
			t.Errorf("continuous, floor %g: σ² = %.4g, AtNoiseFloor %v", set, math.Exp(cr.Params[len(cr.Params)-1]), cr.AtNoiseFloor)
		}
	}
	if err := NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithNoiseFloor(-1).Err(); err == nil {
		t.Error("WithNoiseFloor(-1) accepted")
	}
	if _, err := NewExact(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithNoiseFloor(math.NaN()).FitContext(context.Background()); err == nil {
		t.Error("Exact.WithNoiseFloor(NaN) accepted")
	}
}
