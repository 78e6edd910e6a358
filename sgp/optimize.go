package sgp

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// equalSlices reports whether a and b, of the same length, are equal
// element by element.
func equalSlices(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// finiteSlice reports whether every element of v is finite.
func finiteSlice(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// errBudget stops an optimisation whose evaluation budget is used up.
var errBudget = errors.New("sgp: evaluation budget reached")

// maxAbs returns max |v_i|.
func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// funcRecorder adapts a stop check to optimize.Recorder.
type funcRecorder func() error

func (r funcRecorder) Init() error { return nil }

func (r funcRecorder) Record(*optimize.Location, optimize.Operation, *optimize.Stats) error {
	return r()
}

// funcGrader is what the gradient phase evaluates: an objective and its
// gradient in θ (Evaluator, or noiseEval with known per-point noise).
type funcGrader interface {
	FuncGrad(grad, theta []float64) (float64, error)
}

// cgProblem adapts an Evaluator to gonum/optimize for the gradient phase
// of an epoch (Model.continuous), with a value+gradient cache,
// remembering the best point seen.
type cgProblem struct {
	stop      func() error
	report    func(f float64) // told each evaluation that lowers bestF
	ev        funcGrader
	x, g      []float64 // the optimiser's point (paramMap coordinates: the free hyperparameters), ∂F there
	th, gθ    []float64 // x as log hyperparameters, ∂F/∂θ there
	nm        paramMap
	f         float64
	valid     bool
	best      []float64
	bestG     []float64
	bestF     float64
	evals     int
	calls     int // objective requests, cached and capped ones included
	nonFinite int // evaluations that gave no finite value
	budget    int
	firstF    float64
	firstErr  error
	cap       *stepCap // points beyond it are not evaluated
	// logScale and n are the factor's n·log sd(y) and n: the stop rule
	// compares changes of F with F − logScale (shiftedConverge).
	logScale float64
	n        int
}

func (p *cgProblem) eval(x []float64) {
	p.calls++
	if p.valid && equalSlices(x, p.x) {
		return
	}
	copy(p.x, x)
	p.valid = true
	if p.stop() != nil || p.evals >= p.budget || p.cap.beyond(x) {
		p.f = math.Inf(1)
		for i := range p.g {
			p.g[i] = 0
		}
		return
	}
	f, err := p.ev.FuncGrad(p.gθ, p.nm.toTheta(p.th, p.x))
	p.nm.grad(p.g, p.gθ, p.x)
	p.evals++
	if p.evals == 1 {
		p.firstF, p.firstErr = f, err
	}
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || !finiteSlice(p.g) {
		p.nonFinite++
		f = math.Inf(1)
		for i := range p.g {
			p.g[i] = 0
		}
	}
	p.f = f
	if f < p.bestF {
		p.bestF = f
		copy(p.best, x)
		copy(p.bestG, p.g)
		if p.report != nil {
			p.report(f)
		}
	}
}

// minimize runs Polak–Ribière conjugate gradients on p from x0, with the
// guarded Moré–Thuente line search and steps bounded by p's cap, until
// gonum's function convergence (on F − n·log sd(y), shiftedConverge),
// the evaluation budget or the stop check.
func (p *cgProblem) minimize(x0 []float64) (*optimize.Result, error) {
	problem := optimize.Problem{
		Func: func(x []float64) float64 { p.eval(x); return p.f },
		Grad: func(grad, x []float64) { p.eval(x); copy(grad, p.g) },
	}
	settings := &optimize.Settings{
		Recorder:  ctxRecorder{p, p.budget},
		Converger: newShiftedConverge(1e-9, 3, p.n, p.logScale),
	}
	ls := &guardedLinesearch{mt: optimize.MoreThuente{CurvatureFactor: 0.1}, cap: p.cap, maxShrinks: 30}
	return optimize.Minimize(problem, x0, settings, &optimize.CG{
		Variant: &optimize.PolakRibierePolyak{}, Linesearcher: ls, InitialStep: &capStepSizer{cap: p.cap}})
}

// status says how the gradient phase on p ended, from gonum's result and
// error and whether a stop check ended it (stopped).
func (p *cgProblem) status(res *optimize.Result, optErr error, stopped bool) CGStop {
	switch {
	case stopped:
		return CGCancelled
	case p.evals > 0 && p.nonFinite == p.evals, errors.Is(optErr, errNonFinite):
		return CGNonFinite
	case errors.Is(optErr, errBudget):
		return CGBudget
	case errors.Is(optErr, optimize.ErrNonDescentDirection):
		return CGNoDescent
	case optErr != nil:
		return CGLineSearch
	case res != nil && (res.Status == optimize.FunctionConvergence || res.Status == optimize.GradientThreshold):
		return CGConverged
	}
	return CGBudget
}

// ctxRecorder stops gonum/optimize when the problem's stop check says so
// or its budget is used up.
type ctxRecorder struct {
	p      *cgProblem
	budget int
}

func (r ctxRecorder) Init() error { return nil }
func (r ctxRecorder) Record(*optimize.Location, optimize.Operation, *optimize.Stats) error {
	// Requests for a point already evaluated, or beyond the step cap, are
	// answered without an evaluation; a line search that keeps asking for
	// them would otherwise never reach the evaluation budget.
	if r.p.evals >= r.budget || r.p.calls >= maxCallsPerEval*r.budget {
		return errBudget
	}
	return r.p.stop()
}

// maxCallsPerEval bounds the objective requests of one gradient phase, as
// a multiple of its evaluation budget.
const maxCallsPerEval = 20

// maxLogStep bounds how far one line search may move any log
// hyperparameter: a factor of e³ ≈ 20. Far from an optimum, in particular
// from a noise variance orders of magnitude too small, the gradient is
// dominated by one term and steepest descent would jump straight to the
// degenerate region where everything is noise (a tiny lengthscale, a huge
// noise variance), whose objective is lower than an absurd start's but
// from which no gradient leads back. Bounded steps follow the valley
// instead; normal steps are far shorter than the bound.
const maxLogStep = 3.0

// stepCap holds the longest step along the current search direction that
// keeps every log hyperparameter within maxLogStep of the line search's
// start.
type stepCap struct {
	anchor []float64 // the start of the current line search
	step   float64   // maxLogStep / ‖dir‖∞
}

// capStepSizer is gonum's first-order initial step bounded by the cap,
// recording the cap for the line search and the problem.
type capStepSizer struct {
	inner optimize.FirstOrderStepSize
	cap   *stepCap
}

func (c *capStepSizer) set(loc *optimize.Location, dir []float64) {
	c.cap.anchor = append(c.cap.anchor[:0], loc.X...)
	c.cap.step = maxLogStep / math.Max(maxAbs(dir), math.SmallestNonzeroFloat64)
}

func (c *capStepSizer) Init(loc *optimize.Location, dir []float64) float64 {
	c.set(loc, dir)
	return math.Min(c.inner.Init(loc, dir), c.cap.step)
}

func (c *capStepSizer) StepSize(loc *optimize.Location, dir []float64) float64 {
	c.set(loc, dir)
	return math.Min(c.inner.StepSize(loc, dir), c.cap.step)
}

// beyond reports whether x is further than maxLogStep from the anchor in
// some coordinate (conjugate gradients restart with a unit step, which
// can be); such points are not evaluated.
func (c *stepCap) beyond(x []float64) bool {
	if c == nil || c.anchor == nil {
		return false
	}
	for i, v := range x {
		if math.Abs(v-c.anchor[i]) > maxLogStep*(1+1e-9) {
			return true
		}
	}
	return false
}

// guardedLinesearch is a Moré–Thuente line search (strong Wolfe
// conditions, as conjugate gradients need) bounded by the step cap, that
// survives trial steps whose objective is not finite. Far from the start
// a step of the log hyperparameters can overflow the kernel or noise, or
// make K[I,I] numerically indefinite; the inner search assumes finite
// values. Such a step (or one beyond the cap, which is not evaluated) is
// retried at a tenth of its length with the search capped at half of it,
// up to maxShrinks times; a search that is still decreasing at its cap
// ends there.
type guardedLinesearch struct {
	mt         optimize.MoreThuente
	cap        *stepCap
	f0, g0     float64 // φ(0), φ′(0)
	step       float64 // the step being evaluated
	shrinks    int
	maxShrinks int
}

func (ls *guardedLinesearch) Init(f, g, step float64) optimize.Operation {
	ls.f0, ls.g0, ls.step, ls.shrinks = f, g, step, 0
	ls.mt.MaximumStep = ls.cap.step
	return ls.mt.Init(f, g, step)
}

func (ls *guardedLinesearch) Iterate(f, g float64) (optimize.Operation, float64, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) || math.IsNaN(g) || math.IsInf(g, 0) {
		if ls.shrinks >= ls.maxShrinks {
			return optimize.NoOperation, 0, errNonFinite
		}
		ls.shrinks++
		ls.mt.MaximumStep = math.Min(ls.step/2, ls.cap.step)
		ls.step = math.Min(ls.step/10, ls.cap.step)
		op := ls.mt.Init(ls.f0, ls.g0, ls.step)
		return op, ls.step, nil
	}
	op, step, err := ls.mt.Iterate(f, g)
	if errors.Is(err, optimize.ErrLinesearcherBound) && f < ls.f0 {
		// Still decreasing at the cap: take the step reached.
		return optimize.MajorIteration, ls.step, nil
	}
	if err == nil {
		ls.step = step
	}
	return op, step, err
}

var errNonFinite = errors.New("sgp: the objective is not finite along the search direction")

// startValid reports whether the phase's first evaluation, at its start,
// gave a finite value.
func (p *cgProblem) startValid() bool {
	return p.firstErr == nil && p.evals > 0 && !math.IsInf(p.firstF, 0)
}
