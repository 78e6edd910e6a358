package sgp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/optimize"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/kernel"
)

// ContinuousResult reports a fit of the sparse GP whose inducing inputs
// move continuously in ℝᵈ. Its FitSummary's Status is Converged,
// MaxEvaluations, TimeBudget, Cancelled, Stalled (converged at a gradient
// that is not small) or Failed; Converged is true for Converged alone.
type ContinuousResult struct {
	FitSummary
	Kind      Objective       // the objective optimised, VAR or MLE
	Start     float64         // objective at the start
	Evals     int             // objective and gradient evaluations
	Z         *kernel.Vectors // the inducing inputs
	Predictor *Predictor      // for prediction
	Restarts  int             // L-BFGS restarts from the best point after a failed line search
	Gradient  float64         // max |∂F/∂p| over θ and Z where the fit ended
	Jitter    float64         // added to K[Z,Z]'s diagonal (WithJitter's relative jitter times the targets' variance): Objective is the bound of that model
}

// subsetStream is the second word of the seed of the random training
// inputs that continuous SGPR starts from by default, as the hybrid's
// refinement from a random subset does.
const subsetStream = 0x737562736574

// Continuous is SGPR with free inducing inputs, the method of GPflow and
// GPyTorch (Titsias 2009; Snelson & Ghahramani 2006 for MLE): θ and the
// m×d inducing inputs Z are optimised jointly by L-BFGS, for the VAR or
// MLE objective, with analytic gradients; σ² stays above the noise floor,
// as in Model.Fit. It is the continuous baseline of Cao et al. (2013). It
// needs vector inputs and a kernel with input gradients
// (kernel.InputGradient, as RBF), and is configured fluently with the
// options of Model that apply to it:
//
//	res, err := sgp.NewContinuous(x, y, kernel.NewRBFFromData(x, y)).WithM(32).WithTimeBudget(time.Minute).Fit()
//	mean, variance, err := res.Predictor.Predict(xTest)
//
// Each evaluation costs O(n·m² + n·m·d). The kernel given is not
// modified: the fit works on a copy (ContinuousResult.Params and
// Predictor hold the fitted values).
type Continuous struct {
	x          kernel.Inputs
	y          []float64
	kern       kernel.Kernel
	m          int
	z0         *kernel.Vectors // the starting inducing inputs; nil: m random training inputs
	obj        Objective
	mean       Mean
	seed       uint64
	noise      float64 // the starting σ²; 0: var(y)/4
	noiseFloor float64
	jitter     float64
	maxEvals   int
	budget     time.Duration
	fixed      bool
	cons       constraints // WithFixed, WithFixedAt, WithBounds
	progress   io.Writer
	restarts   int       // WithRestarts
	s2         []float64 // WithNoiseVariances: known per-point noise variances, nil for none
	err        error

	// pause, if set, is called before each evaluation: a hybrid fit's
	// continuous parent waits there while CholQR has its turn (see
	// Model.fitHybrid).
	pause func()
	// onEval, if set, is called after each evaluation with the number of
	// evaluations and the lowest objective so far (the hybrid selector's
	// progress lines).
	onEval func(evals int, best float64)
}

// NewContinuous returns continuous SGPR for inputs x, targets y and
// kernel k, to be configured with the With methods and fitted by Fit. By
// default it starts from m = min(100, max(1, ⌊n/2⌋)) training inputs
// drawn at random (seed 1) as inducing inputs, at the kernel's
// hyperparameters and σ² = var(y)/4, optimises VAR with an estimated
// constant mean, and allows 1000 evaluations without a time limit.
func NewContinuous(x kernel.Inputs, y []float64, k kernel.Kernel) *Continuous {
	c := &Continuous{x: x, y: y, kern: k, seed: 1, maxEvals: 1000}
	if x != nil {
		c.m = DefaultM(x.Len())
	}
	return c
}

// setErr keeps the first configuration error.
func (c *Continuous) setErr(err error) *Continuous {
	if c.err == nil {
		c.err = err
	}
	return c
}

// WithM sets the number of inducing inputs, drawn at random among the
// training inputs (see WithSeed) unless WithInducingInputs gives them;
// as for Model.WithM, 1 ≤ m < n.
func (c *Continuous) WithM(m int) *Continuous {
	c.m, c.z0 = m, nil
	return c
}

// WithInducingInputs sets the starting inducing inputs (their number sets
// m); z is not modified.
func (c *Continuous) WithInducingInputs(z *kernel.Vectors) *Continuous {
	if z == nil || z.Len() == 0 {
		return c.setErr(errors.New("sgp: no inducing inputs"))
	}
	c.z0, c.m = z, z.Len()
	return c
}

// WithObjective sets the objective, VAR (default) or MLE.
func (c *Continuous) WithObjective(o Objective) *Continuous {
	if err := checkObjective(o); err != nil {
		return c.setErr(err)
	}
	c.obj = o
	return c
}

// WithMean sets the prior mean (default MeanConstant; see Mean).
func (c *Continuous) WithMean(mn Mean) *Continuous { c.mean = mn; return c }

// WithSeed sets the seed of the random inducing inputs (default 1).
func (c *Continuous) WithSeed(seed uint64) *Continuous { c.seed = seed; return c }

// WithNoise sets the starting noise variance σ² (default var(y)/4, or 1/4
// for targets that are all equal).
func (c *Continuous) WithNoise(noise float64) *Continuous {
	if err := checkNoise(noise); err != nil {
		return c.setErr(err)
	}
	c.noise = noise
	return c
}

// WithNoiseFloor sets the least noise variance σ² the fit may reach, as
// Model.WithNoiseFloor does (0: the default).
func (c *Continuous) WithNoiseFloor(floor float64) *Continuous {
	if err := checkNoiseFloor(floor); err != nil {
		return c.setErr(err)
	}
	c.noiseFloor = floor
	return c
}

// WithJitter adds jitter·v to the diagonal of K[Z,Z] before its Cholesky
// factorisation, v the variance of the targets around a quadratic trend
// in the inputs (the noise floor's reference), at least 10⁻⁶ of their
// variance: about 1 for standardised targets, where 1e-6 is GPflow's
// default. The objective is then that of the jittered model, and
// ContinuousResult.Jitter says what was added. Relative to the targets'
// variance, the jitter and the model scale with the targets' units.
// Continuous inducing inputs can collide, which jitter tolerates; the
// default, 0, adds none.
func (c *Continuous) WithJitter(jitter float64) *Continuous {
	if err := checkJitter(jitter); err != nil {
		return c.setErr(err)
	}
	c.jitter = jitter
	return c
}

// WithMaxEvals bounds the objective-and-gradient evaluations (default
// 1000).
func (c *Continuous) WithMaxEvals(n int) *Continuous {
	if err := checkMaxEvals(n); err != nil {
		return c.setErr(err)
	}
	c.maxEvals = n
	return c
}

// WithTimeBudget stops the fit at the first evaluation after d has passed
// (0: no limit), with Status = TimeBudget and the best state reached.
func (c *Continuous) WithTimeBudget(d time.Duration) *Continuous {
	if err := checkTimeBudget(d); err != nil {
		return c.setErr(err)
	}
	c.budget = d
	return c
}

// WithFixedHyperparameters keeps θ at its starting values: only the
// inducing inputs move. WithFixed fixes them one by one.
func (c *Continuous) WithFixedHyperparameters(fixed bool) *Continuous { c.fixed = fixed; return c }

// WithProgress writes a line to w every few seconds of the fit, and one
// when it ends.
func (c *Continuous) WithProgress(w io.Writer) *Continuous { c.progress = w; return c }

// Err returns the first configuration error, or nil.
func (c *Continuous) Err() error {
	if c.err != nil {
		return c.err
	}
	_, _, err := c.check()
	return err
}

// check validates the data, the kernel and the inducing inputs, and
// returns the inputs as vectors and the kernel's input gradient.
func (c *Continuous) check() (*kernel.Vectors, kernel.InputGradient, error) {
	if c.x == nil || c.x.Len() == 0 || len(c.y) == 0 {
		return nil, nil, ErrEmpty
	}
	if len(c.y) != c.x.Len() {
		return nil, nil, fmt.Errorf("sgp: %d inputs but %d targets", c.x.Len(), len(c.y))
	}
	xv, ok := c.x.(*kernel.Vectors)
	if !ok {
		return nil, nil, fmt.Errorf("sgp: continuous SGPR moves inducing inputs in ℝᵈ, which needs vector inputs, not %T; use NewModel for discrete inputs", c.x)
	}
	kg, ok := c.kern.(kernel.InputGradient)
	if !ok {
		return nil, nil, fmt.Errorf("sgp: continuous SGPR needs a kernel with input gradients (kernel.InputGradient: %s), not %s", continuousNames(), kernel.Text(c.kern))
	}
	if err := kg.Accepts(xv); err != nil {
		return nil, nil, err
	}
	if c.z0 != nil {
		if err := kg.Accepts(c.z0); err != nil {
			return nil, nil, err
		}
	} else if err := checkM(c.m, xv.Len()); err != nil {
		// m inducing inputs drawn from the training inputs: the model's
		// rule.
		return nil, nil, err
	}
	if !c.fixed {
		if err := constantTargets(c.y); err != nil {
			return nil, nil, err
		}
	}
	if _, err := c.cons.resolve(kernelNames(c.kern)); err != nil {
		return nil, nil, err
	}
	if c.s2 != nil && len(c.s2) != len(c.y) {
		return nil, nil, fmt.Errorf("sgp: %d noise variances for %d training points", len(c.s2), len(c.y))
	}
	return xv, kg, nil
}

// Fit fits the model. See FitContext.
func (c *Continuous) Fit() (*ContinuousResult, error) { return c.FitContext(context.Background()) }

// FitContext is Fit with cancellation: it stops at the next evaluation
// once ctx is done, returning the best state reached and ctx's error.
func (c *Continuous) FitContext(ctx context.Context) (cr *ContinuousResult, err error) {
	defer base.RecoverTo(&err)
	if c.restarts > 0 && !c.fixed && !c.cons.fixesAll(kernelNames(c.kern)) {
		return c.fitStarts(ctx)
	}
	start := time.Now()
	if c.err != nil {
		return nil, c.err
	}
	xv, kg, err := c.check()
	if err != nil {
		return nil, err
	}
	user := ctx
	if c.budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, start.Add(c.budget))
		defer cancel()
	}
	kern, ok := kernel.Clone(kg).(kernel.InputGradient)
	if !ok {
		kern = kg
	}
	cf, err := newContinuousFit(c, xv, kern)
	if err != nil {
		return nil, err
	}
	if err := checkStart(xv, kern, math.Exp(cf.theta[cf.nθ-1]), c.y, c.mean); err != nil {
		return nil, err
	}
	cf.minimize(ctx)
	if math.IsInf(cf.bestF, 1) {
		if err := user.Err(); err != nil {
			// Cancelled before any evaluation succeeded: say so, rather
			// than blame the kernel matrix.
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("sgp: the time budget of %v ended before the continuous fit's first evaluation; allow more time", c.budget)
		}
		return nil, fmt.Errorf("sgp: continuous fit failed: %v", ErrNotPD)
	}
	if cf.stopped.status == Cancelled && user.Err() == nil {
		cf.stopped = stop{status: TimeBudget}
	}
	cr, err = cf.result()
	if err != nil {
		return nil, err
	}
	cr.Elapsed = time.Since(start)
	if c.progress != nil {
		fmt.Fprintf(c.progress, "continuous: %v %.6g → %.6g after %d evaluations (%s), %.3g s\n", c.obj, cr.Start, cr.Objective, cr.Evals, cr.Stopped(), cr.Elapsed.Seconds())
	}
	return cr, user.Err()
}

// continuousFit is the state of one continuous fit: the evaluator, the
// optimiser's coordinates (paramMap's for the free hyperparameters, then
// Z) and the best point.
type continuousFit struct {
	c     *Continuous
	kern  kernel.InputGradient
	ev    contEval
	jit   float64 // the jitter added to K_mm's diagonal
	nm    paramMap
	rs    *resolved // the constraints by index (nil: none)
	floor float64   // the noise floor in force (0 for a fixed noise)
	nθ    int       // the hyperparameters
	nx    int       // the free ones: the optimiser's coordinates before Z
	zdata []float64 // Z, row-major, as the evaluator reads it
	z     *kernel.Vectors
	// zs holds the inputs' spread by column (inputScales): the optimiser
	// moves Z_t/zs_t, so that nothing it sees depends on the inputs'
	// units.
	zs []float64
	// logScale is n·log sd(y) (logScaleOf): the stop rules compare
	// changes of F with F − logScale.
	logScale float64
	theta    []float64 // the point being evaluated, as log hyperparameters
	gθ       []float64
	p0       []float64 // the start in the optimiser's coordinates
	tick     *progressTicker
	evals    int
	best     []float64
	bestF    float64
	lastX    []float64
	lastF    float64
	lastG    []float64
	startF   float64
	stopped  stop
	why      string // what a converged fit's stop rule saw, for a large gradient
	restart  int
}

// newContinuousFit sets up the fit of c on inputs xv with kern, a copy of
// c's kernel, from c's inducing inputs (or m training inputs drawn at
// random, randomRows) and the kernel's and noise's starting values under
// c's constraints.
func newContinuousFit(c *Continuous, xv *kernel.Vectors, kern kernel.InputGradient) (*continuousFit, error) {
	z0 := c.z0
	if z0 == nil {
		z0 = randomRows(xv, c.y, c.m, c.seed)
	}
	noise := c.noise
	if noise == 0 {
		noise = startNoise(c.y)
	}
	m, d := z0.Len(), z0.Dim()
	zdata := append([]float64(nil), z0.RawData()...)
	z, _ := kernel.NewVectors(m, d, zdata)
	jit := 0.0
	if c.jitter > 0 {
		jit = c.jitter * jitterScale(xv, c.y)
	}
	nθ := kern.NumParams() + 1
	floor := noiseFloor(xv, c.y, c.noiseFloor)
	rs, theta, nm, err := c.cons.setup(kernelNames(kern), append(kern.Params(nil), math.Log(noise)), floor, c.fixed)
	if err != nil {
		return nil, err
	}
	if rs != nil && rs.noiseFixed() {
		floor = 0
	}
	var ev contEval
	if c.s2 != nil {
		ne := newNoiseEval(xv, c.y, kern, c.obj, z, c.s2, c.mean, jit)
		ne.exactNoise = rs.withStartNoise(noise).exactNoise()
		ev = ne
	} else {
		he := NewEvaluatorInputs(xv, c.y, kern, c.obj, z)
		he.jitter = jit
		he.SetMean(c.mean)
		he.exactNoise = rs.withStartNoise(noise).exactNoise()
		ev = he
	}
	kern.SetParams(theta[:nθ-1])
	nx := nm.dim()
	zs := inputScales(xv)
	p0 := nm.toX(make([]float64, nx, nx+m*d), theta)
	for i, v := range zdata {
		p0 = append(p0, v/zs[i%d])
	}
	return &continuousFit{c: c, kern: kern, ev: ev, jit: jit, nm: nm, rs: rs, floor: floor, nθ: nθ, nx: nx, zdata: zdata, z: z, zs: zs, logScale: logScaleOf(c.y), theta: theta,
		gθ: make([]float64, nθ), p0: p0, best: append([]float64(nil), p0...), bestF: math.Inf(1),
		lastG: make([]float64, len(p0)), startF: math.NaN(),
		tick: newTicker(c.progress != nil, 0)}, nil
}

// evaluate sets lastF and lastG to the objective and gradient at p, +Inf
// (and a zero gradient) when stopped, over budget or not finite. With
// fixed hyperparameters the gradient in θ is zero, so L-BFGS, whose
// steps are combinations of the gradients, moves Z only.
func (f *continuousFit) evaluate(ctx context.Context, p []float64) {
	if f.lastX != nil && equalSlices(p, f.lastX) {
		return
	}
	f.lastX = append(f.lastX[:0], p...)
	if ctx.Err() != nil || f.evals >= f.c.maxEvals {
		f.lastF = math.Inf(1)
		clear(f.lastG)
		return
	}
	if f.c.pause != nil {
		f.c.pause()
		if ctx.Err() != nil {
			f.lastF = math.Inf(1)
			clear(f.lastG)
			return
		}
	}
	nx := f.nx
	f.setZ(p[nx:])
	v, err := f.ev.FuncGrad(f.gθ, f.nm.toTheta(f.theta, p[:nx]))
	f.evals++
	if err != nil || math.IsNaN(v) {
		f.lastF = math.Inf(1)
		clear(f.lastG)
		return
	}
	f.nm.grad(f.lastG[:nx], f.gθ, p[:nx])
	f.zGrad(f.lastG[nx:])
	f.lastF = v
	if f.evals == 1 {
		f.startF = v
	}
	if v < f.bestF {
		f.bestF = v
		copy(f.best, p)
	}
	if f.c.onEval != nil {
		f.c.onEval(f.evals, f.bestF)
	}
	if f.tick.due() {
		fmt.Fprintf(f.c.progress, "continuous: %d evaluations, lowest %v %.6g, %.0f s\n", f.evals, f.c.obj, f.bestF, f.tick.elapsed().Seconds())
	}
}

// minimize runs L-BFGS from the start and sets how the fit stopped.
// L-BFGS stops on a line search that finds no acceptable step, which
// near an optimum often means rounding in F rather than a minimum, and
// far from it means a stale curvature model. Either way it restarts from
// the best point with its memory cleared; a restart that lowers F by
// less than a relative 1e-9 shows a minimum to the precision of F.
func (f *continuousFit) minimize(ctx context.Context) {
	problem := optimize.Problem{
		Func: func(p []float64) float64 { f.evaluate(ctx, p); return f.lastF },
		Grad: func(g, p []float64) { f.evaluate(ctx, p); copy(g, f.lastG) },
	}
	rec := funcRecorder(func() error {
		if f.evals >= f.c.maxEvals {
			return errBudget
		}
		return ctx.Err()
	})
	cur := append([]float64(nil), f.p0...)
	for {
		before := f.bestF
		res, optErr := optimize.Minimize(problem, cur, &optimize.Settings{Recorder: rec,
			Converger: newShiftedConverge(contRelTol, contIters, len(f.c.y), f.logScale)}, &optimize.LBFGS{Store: lbfgsMemory})
		switch {
		case ctx.Err() != nil:
			f.stopped = stop{status: Cancelled}
		case f.evals >= f.c.maxEvals:
			f.stopped = stop{status: MaxEvaluations}
		case optErr != nil && f.restart < maxRestarts && !math.IsInf(f.bestF, 1):
			if before-f.bestF > 1e-9*unitFreeScale(f.bestF, f.logScale, len(f.c.y)) || math.IsInf(before, 1) {
				f.restart++
				copy(cur, f.best)
				continue
			}
			f.stopped, f.why = stop{status: Converged}, "no decrease along the search direction, also after a restart from the best point"
		case optErr != nil:
			f.stopped = stop{Failed, optErr.Error()}
		case res != nil && res.Status == optimize.FunctionConvergence:
			f.stopped, f.why = stop{status: Converged}, fmt.Sprintf("F changed by less than a relative %g over %d iterations", contRelTol, contIters)
		case res != nil && res.Status == optimize.GradientThreshold:
			f.stopped = stop{status: Converged}
		case res != nil:
			f.stopped = stop{Failed, res.Status.String()}
		}
		return
	}
}

// result evaluates once more at the best point, to leave the factors
// there and to report the gradient where the fit ended, and returns the
// fit's result.
func (f *continuousFit) result() (*ContinuousResult, error) {
	nθ, nx, best := f.nθ, f.nx, f.best
	f.setZ(best[nx:])
	v, err := f.ev.FuncGrad(f.gθ, f.nm.toTheta(f.theta, best[:nx]))
	if err != nil {
		return nil, err
	}
	gz := make([]float64, len(best)-nx)
	f.zGrad(gz)
	gx := make([]float64, nx)
	f.nm.grad(gx, f.gθ, best[:nx])
	grad := max(maxAbs(gx), maxAbs(gz))
	stopped := stallLabel(f.stopped, f.why, grad, unitFreeScale(v, f.logScale, len(f.c.y)))
	p := f.ev.predictor()
	s2 := math.Exp(f.theta[nθ-1])
	cr := &ContinuousResult{
		FitSummary: FitSummary{
			Objective: v, Status: stopped.status, Reason: stopped.reason, Converged: stopped.status == Converged,
			Params: append([]float64(nil), f.theta...), Names: append(f.kern.ParamNames(), "noise"), Mean: p.PriorMean,
		},
		Kind: f.c.obj, Start: f.startF, Evals: f.evals, Z: f.z, Predictor: p, Restarts: f.restart, Gradient: grad, Jitter: f.jit,
	}
	f.rs.summarise(&cr.FitSummary, f.floor, f.c.fixed)
	p.Fixed, p.Bounds = cr.Fixed, cr.Bounds
	if !f.c.fixed && (f.rs == nil || !f.rs.noiseFixed()) {
		cr.NoiseFloor = f.floor
		if cr.AtNoiseFloor = atNoiseFloor(s2, f.floor); cr.AtNoiseFloor {
			cr.Warnings = append(cr.Warnings, noiseFloorWarning(s2, f.floor, f.c.noiseFloor > 0))
		}
	}
	switch stopped.status {
	case Converged, MaxEvaluations, TimeBudget:
	case Cancelled:
		cr.Warnings = append(cr.Warnings, fmt.Sprintf("interrupted after %d evaluations, F = %.6g; the result is the best state reached", f.evals, v))
	default:
		cr.Warnings = append(cr.Warnings, notConverged(stopped.String()))
	}
	return cr, nil
}

// Continuous counts as converged a fit whose objective changed by less
// than a relative contRelTol over contIters iterations (gonum's
// FunctionConverge). Where the gradient is then not small, it is a flat
// region or a local optimum at the precision of F, which more iterations
// or a tighter tolerance do not move.
const (
	contRelTol = 1e-9
	contIters  = 20
)

// lbfgsMemory is the number of past steps from which the continuous fit's
// L-BFGS builds its curvature model (gonum's default is 15). The joint
// problem in θ and Z has m·d + d + 2 parameters whose curvature a short
// memory models poorly: a longer one reaches a lower F in the same
// number of evaluations. Its cost, O(memory·(m·d)) per iteration and 2·memory·(m·d) floats, is
// small beside an evaluation's O(n·m²).
const lbfgsMemory = 200

// stallLabel returns the continuous fit's stop: a fit that its stop rule
// counted as converged while max |∂F| = grad is not small against the
// objective's scale (unitFreeScale) is Stalled, with what the rule saw
// (why).
func stallLabel(stopped stop, why string, grad, scale float64) stop {
	if stopped.status == Converged && grad > gradTol*scale {
		return stop{Stalled, fmt.Sprintf("%s, at max |∂F| = %.3g", why, grad)}
	}
	return stopped
}

// maxRestarts bounds the L-BFGS restarts of Continuous after line-search
// failures that still lowered the objective.
const maxRestarts = 50

// gradTol is the largest gradient, relative to the objective's scale
// (unitFreeScale: |F − n·log sd(y)|, at least n/100), at which a
// continuous fit whose line search finds no further decrease counts as
// converged: a unit step in any of the optimiser's coordinates (a log
// hyperparameter, an inducing input in units of its column's spread)
// would change F by less than a millionth of it.
const gradTol = 1e-6

// setZ sets the inducing inputs from the optimiser's coordinates u:
// Z_it = u_it·zs_t.
func (f *continuousFit) setZ(u []float64) {
	d := len(f.zs)
	for i, v := range u {
		f.zdata[i] = v * f.zs[i%d]
	}
}

// zGrad stores the gradient of F in the optimiser's coordinates of Z,
// ∂F/∂u_it = zs_t·∂F/∂Z_it, after a FuncGrad call with a gradient.
func (f *continuousFit) zGrad(g []float64) {
	f.ev.zGrad(g)
	d := len(f.zs)
	for i := range g {
		g[i] *= f.zs[i%d]
	}
}

// zGrad stores ∂F/∂Z (m×d, row-major) after a FuncGrad call with a
// gradient: with W_mn and W_mm the weights of dK_mn and dK_mm in F's
// differential (see Evaluator), the kernel's input gradient of
// Σ W_mn∘K_mn + Σ W_mm∘K_mm.
func (e *Evaluator) zGrad(gz []float64) {
	x, z := e.x.(*kernel.Vectors), e.xI.(*kernel.Vectors)
	if ak, ok := e.kern.(kernel.AuxInputGradient); ok && e.auxFresh && e.block == 0 {
		// ψ of K_mn from the value pass (kernelBlocks).
		ak.InputGradAuxT(gz, e.wmn, e.kraw, e.kaux, e.tmat, e.kmm, x, z)
		return
	}
	e.kern.(kernel.InputGradient).InputGradT(gz, e.wmn, e.kraw, e.tmat, e.kmm, x, z)
}

// randomRows returns m rows of x drawn at random without replacement by
// the seed's subsetStream through the canonical order of the rows
// (canonicalRows), so that the same rows are drawn from the data in any
// row order, column order and units: continuous SGPR's default start, and
// the hybrid's continuous parent's.
func randomRows(x *kernel.Vectors, y []float64, m int, seed uint64) *kernel.Vectors {
	pick := rand.New(rand.NewPCG(seed, subsetStream)).Perm(x.Len())[:m]
	if order := canonicalRows(x, y); order != nil {
		for i, p := range pick {
			pick[i] = order[p]
		}
	}
	return x.Rows(pick)
}

// predictor returns a Predictor for the state of the last FuncGrad call.
func (e *Evaluator) predictor() *Predictor {
	m := e.m
	p := &Predictor{Kern: kernel.Clone(e.kern), NoiseV: fixedNoise(e.lastLogNoise, e.exactNoise), PriorMean: e.mu, X: e.xI.Subset(e.seq), InputNames: inputNames(e.x),
		w: make([]float64, m*m), r: make([]float64, m*m), a: append([]float64(nil), e.vecM[0]...)}
	p.trainMean, p.trainVar = meanVar(e.yorig)
	for i := 0; i < m; i++ {
		for j := 0; j <= i; j++ {
			p.w[i*m+j] = e.lmm[i*m+j]
		}
		for j := i; j < m; j++ {
			p.r[i*m+j] = e.rkeep[i*m+j]
		}
	}
	p.prepare()
	return p
}

// WithRestarts makes Fit fit n more times from other starting
// hyperparameters and keep the fit with the lowest objective, as
// scikit-learn's n_restarts_optimizer does (default 0): the first start
// is the kernel's values and the starting noise, the others are drawn
// around it from the seed (WithSeed), the periods of a periodic kernel
// from the periodogram's next peaks (see Model.WithRestarts for the
// draws). Every start begins at the same inducing inputs. The result is
// the best fit's, its predictor and inducing inputs included;
// ContinuousResult.Starts lists every start and where it ended (its
// Restarts, distinct, counts the optimiser's restarts within the kept
// fit). A time budget is the whole fit's, shared by the starts in equal
// parts of what is left. It is ignored with fixed hyperparameters.
func (c *Continuous) WithRestarts(n int) *Continuous {
	if n < 0 {
		return c.setErr(fmt.Errorf("sgp: %d restarts must be ≥ 0", n))
	}
	c.restarts = n
	return c
}

// fitStarts is FitContext with restarts: a fit from each start of the
// plan, the lowest objective kept.
func (cf *Continuous) fitStarts(ctx context.Context) (*ContinuousResult, error) {
	start := time.Now()
	if err := cf.Err(); err != nil {
		return nil, err
	}
	noise := cf.noise
	if noise == 0 {
		noise = startNoise(cf.y)
	}
	floor := noiseFloor(cf.x, cf.y, cf.noiseFloor)
	rs, theta0, _, err := cf.cons.setup(kernelNames(cf.kern), append(cf.kern.Params(nil), math.Log(noise)), floor, false)
	if err != nil {
		return nil, err
	}
	plan := startPlan(cf.x, cf.y, cf.kern, theta0, floor, cf.restarts, cf.seed, rs)
	np := cf.kern.NumParams()
	return keepBestStart(ctx, start, cf.kern, plan, cf.budget, cf.progress, func(ctx context.Context, st startPoint, budget time.Duration, w io.Writer) (*ContinuousResult, *FitSummary, error) {
		c := *cf
		c.restarts, c.budget, c.progress = 0, budget, w
		c.kern = kernel.Clone(cf.kern)
		c.kern.SetParams(st.theta[:np])
		c.noise = math.Exp(st.theta[np])
		if rs != nil && rs.noiseFixed() {
			c.noise = cf.noise // exactly, as exp(log σ²) need not give it
		}
		res, err := c.FitContext(ctx)
		if res == nil {
			return nil, nil, err
		}
		return res, &res.FitSummary, err
	})
}

// continuousNames lists the kernels continuous SGPR takes, for messages
// (kernel.Capabilities).
func continuousNames() string {
	return kernel.ListNames(kernel.NamesWith(func(c kernel.Caps) bool { return c.Continuous }))
}
