package sgp

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// constrainer is what Model, Exact and Continuous share of the
// constraints' options, for the tests to set them on each.
type constrainer interface {
	fix(name string)
	fixAt(name string, v float64)
	bound(name string, lo, hi float64)
	// fit fits and returns the summary and the predictions at xt (none
	// for a nil xt).
	fit(t *testing.T, xt kernel.Inputs) (s *FitSummary, mean, variance []float64)
}

type (
	modelC struct{ md *Model }
	exactC struct{ e *Exact }
	contC  struct{ c *Continuous }
)

func (c modelC) fix(n string)                   { c.md.WithFixed(n) }
func (c modelC) fixAt(n string, v float64)      { c.md.WithFixedAt(n, v) }
func (c modelC) bound(n string, lo, hi float64) { c.md.WithBounds(n, lo, hi) }
func (c exactC) fix(n string)                   { c.e.WithFixed(n) }
func (c exactC) fixAt(n string, v float64)      { c.e.WithFixedAt(n, v) }
func (c exactC) bound(n string, lo, hi float64) { c.e.WithBounds(n, lo, hi) }
func (c contC) fix(n string)                    { c.c.WithFixed(n) }
func (c contC) fixAt(n string, v float64)       { c.c.WithFixedAt(n, v) }
func (c contC) bound(n string, lo, hi float64)  { c.c.WithBounds(n, lo, hi) }

func (c modelC) fit(t *testing.T, xt kernel.Inputs) (*FitSummary, []float64, []float64) {
	t.Helper()
	r, err := c.md.Fit()
	mustOK(t, err)
	mean, variance := predictAt(t, c.md, xt)
	return &r.FitSummary, mean, variance
}

func (c exactC) fit(t *testing.T, xt kernel.Inputs) (*FitSummary, []float64, []float64) {
	t.Helper()
	r, err := c.e.Fit()
	mustOK(t, err)
	mean, variance := predictAt(t, r.Predictor, xt)
	return &r.FitSummary, mean, variance
}

func (c contC) fit(t *testing.T, xt kernel.Inputs) (*FitSummary, []float64, []float64) {
	t.Helper()
	r, err := c.c.Fit()
	mustOK(t, err)
	mean, variance := predictAt(t, r.Predictor, xt)
	return &r.FitSummary, mean, variance
}

// predictAt returns p's predictions at xt, none for a nil xt.
func predictAt(t *testing.T, p interface {
	Predict(kernel.Inputs) ([]float64, []float64, error)
}, xt kernel.Inputs) ([]float64, []float64) {
	t.Helper()
	if xt == nil {
		return nil, nil
	}
	mean, variance, err := p.Predict(xt)
	mustOK(t, err)
	return mean, variance
}

// constrainedFits returns a fresh fitter of each kind on a small
// Snelson-like set with an RBF kernel from the data: CholQR, the hybrid
// selector, the exact GP and continuous SGPR.
func constrainedFits(t *testing.T) map[string]func() constrainer {
	t.Helper()
	train, _ := data.SnelsonLike(120, 7)
	k := kernel.NewRBFFromData(train.X, train.Y)
	return map[string]func() constrainer{
		"cholqr": func() constrainer {
			return modelC{NewModel(train.X, train.Y, k).WithM(10).WithMaxEpochs(4)}
		},
		"hybrid": func() constrainer {
			return modelC{NewModel(train.X, train.Y, k).WithM(10).WithMaxEpochs(3).WithSelector(SelectHybrid)}
		},
		"exact": func() constrainer { return exactC{NewExact(train.X, train.Y, k).WithMaxEvals(80)} },
		"continuous": func() constrainer {
			return contC{NewContinuous(train.X, train.Y, k).WithM(10).WithMaxEvals(80)}
		},
	}
}

// TestFixedStaysExactly fixes the noise at a value given and the
// lengthscale at its start, on every kind of fit: both end bit for bit
// where they were set (θ, and the value given in Fixed and
// Hyperparameters), while the free variance moves.
func TestFixedStaysExactly(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(120, 7)
	k := kernel.NewRBFFromData(train.X, train.Y)
	ls0 := k.Params(nil)[1]
	for name, mk := range constrainedFits(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := mk()
			c.fixAt("noise", 0.01)
			c.fix("lengthscale[0]")
			s, _, _ := c.fit(t, nil)
			if s.Params[1] != ls0 {
				t.Errorf("log lengthscale %v, want its start %v bit for bit", s.Params[1], ls0)
			}
			if s.Params[2] != math.Log(0.01) {
				t.Errorf("log noise %v, want log 0.01 = %v", s.Params[2], math.Log(0.01))
			}
			h := s.Hyperparameters()
			if h.Value("noise") != 0.01 || s.Fixed["noise"] != 0.01 {
				t.Errorf("noise %v, Fixed %v, want 0.01 exactly", h.Value("noise"), s.Fixed)
			}
			if s.Fixed["lengthscale[0]"] != math.Exp(ls0) {
				t.Errorf("Fixed %v, want lengthscale[0] = %v", s.Fixed, math.Exp(ls0))
			}
			if s.Params[0] == k.Params(nil)[0] {
				t.Errorf("the free variance did not move from its start %v", s.Params[0])
			}
			if s.NoiseFloor != 0 || s.AtNoiseFloor {
				t.Errorf("a fixed noise reports the floor: %v, %v", s.NoiseFloor, s.AtNoiseFloor)
			}
		})
	}
}

// TestBoundsHold bounds the lengthscale below its free optimum on every
// kind of fit: the fit ends within the bounds, at the upper one, and
// says so (Bounds[0].At and a warning); a wide bound does not bind.
func TestBoundsHold(t *testing.T) {
	t.Parallel()
	for name, mk := range constrainedFits(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			free, _, _ := mk().fit(t, nil)
			ls := math.Exp(free.Params[1])
			c := mk()
			lo, hi := ls/20, ls/4
			c.bound("lengthscale[0]", lo, hi)
			s, _, _ := c.fit(t, nil)
			if v := math.Exp(s.Params[1]); !(v >= lo && v <= hi) {
				t.Errorf("lengthscale %v outside [%v, %v]", v, lo, hi)
			}
			if len(s.Bounds) != 1 || s.Bounds[0].Name != "lengthscale[0]" || s.Bounds[0].At != "upper" {
				t.Errorf("Bounds %+v, want lengthscale[0] at its upper bound", s.Bounds)
			}
			if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "lengthscale[0] ended at its upper bound") }) {
				t.Errorf("no warning of the bound: %q", s.Warnings)
			}
			w := mk()
			w.bound("lengthscale[0]", ls/100, ls*100)
			if s, _, _ := w.fit(t, nil); len(s.Bounds) != 1 || s.Bounds[0].At != "" {
				t.Errorf("a wide bound: Bounds %+v, want none at a bound", s.Bounds)
			}
		})
	}
}

// TestAllFixedIsFixedHyperparameters: fixing every hyperparameter by
// name fits as WithFixedHyperparameters(true) does (CholQR's swaps still
// run; the exact GP's status is Fixed).
func TestAllFixedIsFixedHyperparameters(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(120, 7)
	k := kernel.NewRBFFromData(train.X, train.Y)
	a := NewModel(train.X, train.Y, k).WithM(10).WithMaxEpochs(3).WithFixedHyperparameters(true)
	b := NewModel(train.X, train.Y, k).WithM(10).WithMaxEpochs(3)
	for _, n := range b.ParamNames() {
		b.WithFixed(n)
	}
	ra, err := a.Fit()
	mustOK(t, err)
	rb, err := b.Fit()
	mustOK(t, err)
	ia, _ := a.Inducing()
	ib, _ := b.Inducing()
	if ra.Objective != rb.Objective || !slices.Equal(ia, ib) || !slices.Equal(ra.Params, rb.Params) {
		t.Errorf("all fixed by name: F %v, set %v; WithFixedHyperparameters: F %v, set %v", rb.Objective, ib, ra.Objective, ia)
	}
	if tr := b.Trace(); tr[0].Swaps == 0 || tr[0].CGStatus != CGSkipped {
		t.Errorf("all fixed: swaps %d, CG %v; want swaps and no gradient phase", tr[0].Swaps, tr[0].CGStatus)
	}
	e := NewExact(train.X, train.Y, k)
	for _, n := range b.ParamNames() {
		e.WithFixed(n)
	}
	re, err := e.Fit()
	mustOK(t, err)
	if re.Status != Fixed || re.Evals != 1 {
		t.Errorf("exact, all fixed: status %v after %d evaluations, want fixed after 1", re.Status, re.Evals)
	}
}

// TestConstraintErrors: unknown names (with the closest suggested), bad
// values and bounds, a name given twice, and a noise bound below the
// floor are errors of Err and Fit.
func TestConstraintErrors(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(60, 7)
	k := kernel.NewRBFFromData(train.X, train.Y)
	mk := func() *Model { return NewModel(train.X, train.Y, k).WithM(5) }
	for _, tc := range []struct {
		name string
		md   *Model
		want string
	}{
		{"unknown", mk().WithFixed("lenghtscale[0]"), `no hyperparameter "lenghtscale[0]" (did you mean lengthscale[0]?)`},
		{"unknown bound", mk().WithBounds("nois", 1, 2), "(did you mean noise?)"},
		{"the mean", mk().WithFixedAt("mean", 3), "the prior mean μ is fixed by WithMean(MeanFixed(c))"},
		{"zero value", mk().WithFixedAt("noise", 0), "must be positive"},
		{"negative value", mk().WithFixedAt("noise", -1), "must be positive"},
		{"lo ≥ hi", mk().WithBounds("noise", 2, 1), "lo < hi"},
		{"lo ≤ 0", mk().WithBounds("variance", 0, 1), "positive"},
		{"hi infinite", mk().WithBounds("variance", 1, math.Inf(1)), "finite"},
		{"too close", mk().WithBounds("variance", 1, 1+1e-12), "too close"},
		{"twice", mk().WithFixed("noise").WithBounds("noise", 1, 2), "noise is fixed already"},
		{"below the floor", mk().WithNoiseFloor(0.1).WithBounds("noise", 0.01, 0.05), "at or below the noise floor"},
	} {
		_, err := tc.md.Fit()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if err := NewExact(train.X, train.Y, k).WithFixed("noice").Err(); err == nil || !strings.Contains(err.Error(), "did you mean noise?") {
		t.Errorf("exact: %v", err)
	}
	if err := NewContinuous(train.X, train.Y, k).WithBounds("period[0]", 1, 2).Err(); err == nil || !strings.Contains(err.Error(), "the hyperparameters are variance, lengthscale[0], noise") {
		t.Errorf("continuous: %v", err)
	}
}

// TestParamMapGradient checks the reduced coordinates' gradient (a
// fixed variance, a bounded lengthscale, a noise above its floor) against
// central finite differences of F(toTheta(x)), for the sparse and the
// exact objectives, and that every x maps inside the bounds.
func TestParamMapGradient(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(80, 3)
	k := kernel.NewRBFFromData(train.X, train.Y)
	floor := 1e-3
	// A fixed variance, a bounded lengthscale and the noise above its
	// floor; then a bounded noise whose lower bound the floor raises, and
	// a free lengthscale.
	var c1, c2 constraints
	mustOK(t, c1.fix("variance"))
	mustOK(t, c1.bound("lengthscale[0]", 0.2, 3))
	mustOK(t, c2.fix("variance"))
	mustOK(t, c2.bound("noise", 1e-4, 1))
	sparse := NewEvaluator(train.X, train.Y, k, VAR, []int{3, 17, 29, 44, 61})
	mle := NewEvaluator(train.X, train.Y, kernel.Clone(k), MLE, []int{3, 17, 29, 44, 61})
	ex := newExactEval(train.X, train.Y, kernel.Clone(k), MeanConstant)
	objs := map[string]func(g, th []float64) float64{
		"VAR":   func(g, th []float64) float64 { f, err := sparse.FuncGrad(g, th); mustOK(t, err); return f },
		"MLE":   func(g, th []float64) float64 { f, err := mle.FuncGrad(g, th); mustOK(t, err); return f },
		"exact": func(g, th []float64) float64 { f, err := ex.funcGrad(g, th); mustOK(t, err); return f },
	}
	theta0 := append(k.Params(nil), math.Log(0.3))
	for ci, c := range []constraints{c1, c2} {
		r, err := c.resolve(kernelNames(k))
		mustOK(t, err)
		pm := newParamMap(r, r.start(theta0, floor), floor)
		if pm.dim() != 2 {
			t.Fatalf("%d free coordinates, want 2", pm.dim())
		}
		for name, obj := range objs {
			points := [][]float64{{0.3, math.Log(0.1)}, {-2, 1}, {3, -4}}
			if ci == 1 { // x[0] is log ℓ: a moderate one (ℓ = e³ makes K[I,I] ill-conditioned)
				points = [][]float64{{0.3, 0}, {-0.5, 2}, {1, -3}}
			}
			for _, x := range points {
				gθ, gx := make([]float64, 3), make([]float64, 2)
				th := pm.toTheta(make([]float64, 3), x)
				obj(gθ, th)
				pm.grad(gx, gθ, x)
				for j := range x {
					const h = 1e-4 // F is O(10³): a shorter step loses the difference to rounding
					at := func(d float64) float64 {
						xx := slices.Clone(x)
						xx[j] += d
						g := make([]float64, 3)
						return obj(g, pm.toTheta(make([]float64, 3), xx))
					}
					if fd := (at(h) - at(-h)) / (2 * h); !scalar.EqualWithinAbsOrRel(gx[j], fd, 1e-5, 1e-5) {
						t.Errorf("constraints %d, %s at %v: ∂F/∂x[%d] = %g, finite differences %g", ci, name, x, j, gx[j], fd)
					}
				}
			}
		}
		for _, u := range []float64{-1e3, -40, 0, 40, 1e3} {
			th := pm.toTheta(make([]float64, 3), []float64{u, u})
			if th[0] != theta0[0] {
				t.Errorf("constraints %d, u = %g: the fixed variance moved (%v)", ci, u, th[0])
			}
			if v := math.Exp(th[1]); ci == 0 && !(v >= 0.2 && v <= 3) {
				t.Errorf("u = %g: lengthscale %v outside [0.2, 3]", u, v)
			}
			if v := math.Exp(th[2]); ci == 1 && !(v >= floor && v <= 1) {
				t.Errorf("u = %g: noise %v outside [%g (the floor), 1]", u, v, floor)
			}
		}
	}
}

// TestStartPlanConstrained: restarts keep a fixed hyperparameter's value
// in every start and draw a bounded one within its bounds, leaving the
// other draws as they are without constraints.
func TestStartPlanConstrained(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(80, 3)
	k := kernel.NewRBFFromData(train.X, train.Y)
	var c constraints
	mustOK(t, c.fix("variance"))
	mustOK(t, c.bound("noise", 0.05, 0.2))
	r, err := c.resolve(kernelNames(k))
	mustOK(t, err)
	theta0 := r.start(append(k.Params(nil), math.Log(0.1)), 0)
	free := startPlan(train.X, train.Y, k, theta0, 0, 8, 3, nil)
	plan := startPlan(train.X, train.Y, k, theta0, 0, 8, 3, r)
	for i, st := range plan {
		if st.theta[0] != theta0[0] {
			t.Errorf("start %d: variance θ %v, want %v", i, st.theta[0], theta0[0])
		}
		if v := math.Exp(st.theta[2]); !(v >= 0.05 && v <= 0.2) {
			t.Errorf("start %d: noise %v outside [0.05, 0.2]", i, v)
		}
		if st.theta[1] != free[i].theta[1] {
			t.Errorf("start %d: the free lengthscale %v, without constraints %v", i, st.theta[1], free[i].theta[1])
		}
	}
	// The restarts of every kind of fit run with the constraints: every
	// start's end keeps them.
	fits := map[string]func() (*FitSummary, error){
		"exact": func() (*FitSummary, error) {
			r, err := NewExact(train.X, train.Y, k).WithMaxEvals(40).WithRestarts(3).WithFixed("variance").WithBounds("noise", 0.05, 0.2).Fit()
			return &r.FitSummary, err
		},
		"cholqr": func() (*FitSummary, error) {
			r, err := NewModel(train.X, train.Y, k).WithM(8).WithMaxEpochs(2).WithRestarts(3).WithFixed("variance").WithBounds("noise", 0.05, 0.2).Fit()
			return &r.FitSummary, err
		},
		"continuous": func() (*FitSummary, error) {
			r, err := NewContinuous(train.X, train.Y, k).WithM(8).WithMaxEvals(40).WithJitter(1e-6).WithRestarts(3).WithFixed("variance").WithBounds("noise", 0.05, 0.2).Fit()
			return &r.FitSummary, err
		},
	}
	for name, fit := range fits {
		res, err := fit()
		mustOK(t, err)
		if len(res.Starts) != 4 {
			t.Errorf("%s: %d starts, want 4", name, len(res.Starts))
		}
		for i, s := range res.Starts {
			if len(s.End) == 0 {
				t.Errorf("%s: start %d from %v failed: %s (%v)", name, i, s.Start, s.Err, s.Status)
				continue
			}
			if s.Start[0] != k.Params(nil)[0] || s.End[0] != k.Params(nil)[0] || !(math.Exp(s.End[2]) >= 0.05 && math.Exp(s.End[2]) <= 0.2) {
				t.Errorf("%s: start %d from %v ended at %v", name, i, s.Start, s.End)
			}
		}
	}
}

// TestConstraintsUnits: with the fixed values and bounds changed with
// the units (a noise and a variance by s², a lengthscale by its input's
// scale), the fits of CholQR, the exact GP and continuous SGPR are
// equivariant, as without constraints (TestUnitsEquivariance).
func TestConstraintsUnits(t *testing.T) {
	t.Parallel()
	x, y, xt, yt := unitsData()
	_, vy := meanVar(y)
	tr := unitsTransform{name: "scaled", s: 3.5, b: -20, c: []float64{10, 0.1, 2}}
	fit := func(sel string, tr unitsTransform, x *kernel.Vectors, y []float64, xt *kernel.Vectors) unitsFit {
		k, err := kernel.Parse("rbf", x, y)
		mustOK(t, err)
		s2 := tr.s * tr.s
		c := map[string]constrainer{
			"cholqr":     modelC{NewModel(x, y, k).WithM(unitsM).WithSeed(1).WithMaxEpochs(1)},
			"exact":      exactC{NewExact(x, y, k).WithMaxEvals(20)},
			"continuous": contC{NewContinuous(x, y, k).WithM(unitsM).WithSeed(1).WithMaxEvals(20).WithJitter(1e-6)},
		}[sel]
		c.fixAt("noise", 0.05*s2)
		c.bound("lengthscale[1]", 0.3*tr.c[1], 3*tr.c[1])
		c.bound("variance", 0.1*s2, 10*s2)
		sum, mean, variance := c.fit(t, xt)
		u := unitsFit{mean: mean, vari: variance}
		u.f, u.params, u.names, u.mu, u.floor = sum.Objective, sum.Params, sum.Names, sum.Mean, sum.NoiseFloor
		return u
	}
	one := unitsTransform{s: 1, c: []float64{1, 1, 1}}
	for _, sel := range []string{"cholqr", "exact", "continuous"} {
		base := fit(sel, one, x, y, xt)
		x2, y2 := tr.apply(x, y, true)
		xt2, _ := tr.apply(xt, yt, false)
		got := fit(sel, tr, x2, y2, xt2)
		t.Run(sel, func(t *testing.T) { compareUnits(t, tr, base, got, x.Len(), math.Sqrt(vy), unitsTol) })
	}
}

// mustOK fails the test on an error.
func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestConstraintsSaved: a saved model records the fixed values (as
// given, in "noise", "fixed" and "hyperparameters") and the bounds, and
// loading it gives them back with the fixed θ bit for bit, for CholQR's,
// the exact and the continuous model; a file with bad ones is refused.
func TestConstraintsSaved(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(120, 7)
	k := kernel.NewRBFFromData(train.X, train.Y)
	ls0 := k.Params(nil)[1]
	md := NewModel(train.X, train.Y, k).WithM(10).WithMaxEpochs(3).WithFixedAt("noise", 0.01).WithFixed("lengthscale[0]").WithBounds("variance", 0.01, 100)
	_, err := md.Fit()
	mustOK(t, err)
	er, err := NewExact(train.X, train.Y, k).WithMaxEvals(60).WithFixedAt("noise", 0.01).WithFixed("lengthscale[0]").WithBounds("variance", 0.01, 100).Fit()
	mustOK(t, err)
	cr, err := NewContinuous(train.X, train.Y, k).WithM(8).WithMaxEvals(60).WithFixedAt("noise", 0.01).WithFixed("lengthscale[0]").WithBounds("variance", 0.01, 100).Fit()
	mustOK(t, err)
	for name, save := range map[string]func(*bytes.Buffer) error{
		"sparse":     func(b *bytes.Buffer) error { return md.Save(b) },
		"exact":      func(b *bytes.Buffer) error { return er.Predictor.Save(b) },
		"continuous": func(b *bytes.Buffer) error { return cr.Predictor.Save(b) },
	} {
		var buf bytes.Buffer
		mustOK(t, save(&buf))
		var f struct {
			Noise           float64               `json:"noise"`
			Hyperparameters map[string]float64    `json:"hyperparameters"`
			Fixed           map[string]float64    `json:"fixed"`
			Bounds          map[string][2]float64 `json:"bounds"`
		}
		mustOK(t, json.Unmarshal(buf.Bytes(), &f))
		if f.Noise != 0.01 || f.Fixed["noise"] != 0.01 || f.Hyperparameters["noise"] != 0.01 || f.Fixed["lengthscale[0]"] != math.Exp(ls0) || f.Bounds["variance"] != [2]float64{0.01, 100} {
			t.Errorf("%s: file holds fixed %v, hyperparameters %v, bounds %v", name, f.Fixed, f.Hyperparameters, f.Bounds)
		}
		r, err := LoadRegressor(bytes.NewReader(buf.Bytes()))
		mustOK(t, err)
		var fixed map[string]float64
		var bounds []Bound
		var kern kernel.Kernel
		var noise float64
		switch p := r.(type) {
		case *Predictor:
			fixed, bounds, kern, noise = p.Fixed, p.Bounds, p.Kern, p.NoiseV
		case *ExactPredictor:
			fixed, bounds, kern, noise = p.Fixed, p.Bounds, p.Kern, p.NoiseV
		}
		if noise != 0.01 {
			t.Errorf("%s: loaded noise %v, want 0.01 exactly", name, noise)
		}
		if fixed["noise"] != 0.01 || len(bounds) != 1 || bounds[0].Name != "variance" || bounds[0].Hi != 100 {
			t.Errorf("%s: loaded fixed %v, bounds %+v", name, fixed, bounds)
		}
		if kern.Params(nil)[1] != ls0 {
			t.Errorf("%s: loaded log lengthscale %v, want %v bit for bit", name, kern.Params(nil)[1], ls0)
		}
		for _, bad := range []struct{ from, to string }{
			{`"variance": [`, `"variance": [-1, `},
			{`"fixed": {`, `"fixed": {"k9.period[0]": 1, `},
		} {
			s := strings.Replace(buf.String(), bad.from, bad.to, 1)
			if s == buf.String() {
				t.Fatalf("%s: %q not in the file", name, bad.from)
			}
			if _, err := LoadRegressor(strings.NewReader(s)); err == nil {
				t.Errorf("%s: a file with %s loaded", name, bad.to)
			}
		}
	}
}

// TestConstraintsDisplayed: a fit's text and HTML displays list the
// fixed hyperparameters and the bounds, marking one at its bound.
func TestConstraintsDisplayed(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(120, 7)
	k := kernel.NewRBFFromData(train.X, train.Y)
	res, err := NewModel(train.X, train.Y, k).WithM(10).WithMaxEpochs(3).WithFixedAt("noise", 0.01).WithBounds("variance", 0.01, 0.02).Fit()
	mustOK(t, err)
	for _, s := range []string{res.String(), res.HTML()} {
		for _, want := range []string{"noise=0.01", "variance in [0.01, 0.02] (at upper)", "variance ended at its upper bound"} {
			if !strings.Contains(s, want) {
				t.Errorf("display lacks %q:\n%s", want, s)
			}
		}
	}
}

// TestHybridFixedHyperparameters: the hybrid selector's continuous fits
// keep the hyperparameters that WithFixedHyperparameters or WithFixed of
// every one holds, as its CholQR parent does.
func TestHybridFixedHyperparameters(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(120, 7)
	k := kernel.NewRBFFromData(train.X, train.Y)
	theta0 := append(k.Params(nil), math.Log(0.05))
	all := NewModel(train.X, train.Y, k).WithM(8).WithMaxEpochs(3).WithSelector(SelectHybrid).WithNoise(0.05)
	for _, n := range all.ParamNames() {
		all.WithFixed(n)
	}
	for name, md := range map[string]*Model{
		"WithFixedHyperparameters": NewModel(train.X, train.Y, k).WithM(8).WithMaxEpochs(3).WithSelector(SelectHybrid).WithNoise(0.05).WithFixedHyperparameters(true),
		"WithFixed of every one":   all,
	} {
		res, err := md.Fit()
		mustOK(t, err)
		if !slices.Equal(res.Params, theta0) {
			t.Errorf("%s: θ %v, want the start %v (kept %s)", name, res.Params, theta0, res.RefinedFrom)
		}
	}
}

// TestConstraintsNoiseFloor: a lower bound on the noise below the floor
// is raised to the floor, with a warning, and the noise stays above it;
// a fixed noise below the floor is used as given.
func TestConstraintsNoiseFloor(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(120, 7)
	k := kernel.NewRBFFromData(train.X, train.Y)
	for name, mk := range map[string]func() constrainer{
		"cholqr": func() constrainer {
			return modelC{NewModel(train.X, train.Y, k).WithM(8).WithMaxEpochs(3).WithNoiseFloor(0.5)}
		},
		"exact": func() constrainer { return exactC{NewExact(train.X, train.Y, k).WithMaxEvals(60).WithNoiseFloor(0.5)} },
		"continuous": func() constrainer {
			return contC{NewContinuous(train.X, train.Y, k).WithM(8).WithMaxEvals(60).WithNoiseFloor(0.5)}
		},
	} {
		c := mk()
		c.bound("noise", 1e-4, 10)
		s, _, _ := c.fit(t, nil)
		if len(s.Bounds) != 1 || s.Bounds[0].Lo != 0.5 || !(math.Exp(s.Params[2]) >= 0.5) {
			t.Errorf("%s: bounds %+v, σ² %v; want the lower bound raised to the floor 0.5", name, s.Bounds, math.Exp(s.Params[2]))
		}
		if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "lower bound 0.0001 is below the noise floor 0.5") }) {
			t.Errorf("%s: warnings %q", name, s.Warnings)
		}
		f := mk()
		f.fixAt("noise", 0.01)
		if s, _, _ := f.fit(t, nil); s.Hyperparameters().Value("noise") != 0.01 || s.Params[2] != math.Log(0.01) {
			t.Errorf("%s: a fixed noise 0.01 below the floor ended at %v", name, math.Exp(s.Params[2]))
		}
	}
}

// TestFixedStartNoiseExact: a noise fixed at its start (WithNoise, then
// WithFixed) is that value exactly in the result, the predictor and every
// restart, which exp(log σ²) would not give: exp(log 0.1) is
// 0.10000000000000002.
func TestFixedStartNoiseExact(t *testing.T) {
	t.Parallel()
	if math.Exp(math.Log(0.1)) == 0.1 {
		t.Fatal("the test needs a value that exp∘log does not give back")
	}
	train, _ := data.SnelsonLike(120, 7)
	k := kernel.NewRBFFromData(train.X, train.Y)
	check := func(name string, s *FitSummary, noise float64) {
		t.Helper()
		if v := s.Hyperparameters().Value("noise"); v != 0.1 || s.Fixed["noise"] != 0.1 || noise != 0.1 {
			t.Errorf("%s: noise %v, Fixed %v, predictor's %v; want 0.1 exactly", name, v, s.Fixed, noise)
		}
	}
	md := NewModel(train.X, train.Y, k).WithM(8).WithMaxEpochs(2).WithNoise(0.1).WithFixed("noise").WithRestarts(2)
	mr, err := md.Fit()
	mustOK(t, err)
	p, err := md.Predictor()
	mustOK(t, err)
	check("cholqr", &mr.FitSummary, p.NoiseV)
	er, err := NewExact(train.X, train.Y, k).WithMaxEvals(40).WithNoise(0.1).WithFixed("noise").WithRestarts(2).Fit()
	mustOK(t, err)
	check("exact", &er.FitSummary, er.Predictor.NoiseV)
	cr, err := NewContinuous(train.X, train.Y, k).WithM(8).WithMaxEvals(40).WithJitter(1e-6).WithNoise(0.1).WithFixed("noise").WithRestarts(2).Fit()
	mustOK(t, err)
	check("continuous", &cr.FitSummary, cr.Predictor.NoiseV)
}
