package sgp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/optimize"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/linalg"
	"github.com/cholqr/sgp/sgp/internal/par"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// MaxExactN is the largest number of training points the exact GP
// accepts. It holds one n×n matrix of float64, 8n² bytes: 32 MB at
// n = 2,000, 800 MB at 10,000 and 3.2 GB at this limit, where one
// objective evaluation (a Cholesky factorisation, its inverse and the
// gradient, ≈ n³ flops) takes minutes. The sparse model never forms it.
const MaxExactN = 20000

// Exact is the full Gaussian process with a constant (or zero, or fixed)
// prior mean on n ≤ MaxExactN points: the model that the sparse one
// approximates, as a reference for what sparsity costs. It forms the n×n
// matrix Σ = K + σ²I, which the rest of the package never does. It is
// configured fluently with the options of Model and Continuous that apply
// to it, and fitted by Fit:
//
//	res, err := sgp.NewExact(x, y, kernel.NewRBFFromData(x, y)).WithMaxEvals(200).Fit()
//	mean, variance, err := res.Predictor.Predict(xTest)
//
// The objective is the negative log marginal likelihood (Rasmussen &
// Williams 2006, eq. 2.30), profiled over the constant mean as the sparse
// model is (the estimate of Mean at each θ):
//
//	F = ½(y − μ)ᵀΣ⁻¹(y − μ) + ½ log|Σ| + n/2 log 2π  [+ ½(μ − ȳ)²/τ²],
//
// the last term for MeanConstant's prior on μ.
//
// computed from the Cholesky factor LLᵀ = Σ (R&W Algorithm 2.1). Its
// gradient in the log hyperparameters is (R&W eq. 5.9)
//
//	∂F/∂θ_p = ½ tr((Σ⁻¹ − ααᵀ) ∂K/∂θ_p),   α = Σ⁻¹(y − μ),
//
// with Σ⁻¹ from the factor (LAPACK dpotri) and the sums Σ_ij W_ij ∂K_ij/∂θ
// by the kernel's own AddGrad, and ∂F/∂log σ² = ½σ² tr(Σ⁻¹ − ααᵀ). θ
// (the kernel's, then log σ²) is minimised by L-BFGS from the kernel's
// values and the starting noise; after a failed line search it restarts
// from the best point, up to three times; σ² stays above the noise floor
// (WithNoiseFloor), as in Model.Fit. Each evaluation costs about n³ flops
// and 8n² bytes.
//
// With known per-point noise variances (WithNoiseVariances), Σ is
// K + diag(s²) + σ²I throughout: objective, gradient and predictions.
//
// Jitter: Σ is factorised as it is; only if the Cholesky factorisation
// fails (σ² negligible against K's scale, duplicated inputs) is ε added to
// its diagonal, ε = 10⁻¹⁰, 10⁻⁹, …, 10⁻⁴ times the mean of diag K, the
// first that succeeds (ExactResult.Jitter, MaxJitter; a warning when the
// final factor needed it). The objective and the predictions are then
// those of noise σ² + ε. A pivoted Cholesky is not needed: σ² > 0 makes Σ
// positive definite in exact arithmetic.
//
// The kernel is not modified: the fit works on a copy of a built-in
// kernel (a kernel.Func or user type is used as it is, and its
// hyperparameters are left at the fitted values). The n×n Cholesky
// factorisation and inverse (dpotrf, dpotri) run on the SGP_BLAS backend
// through sgp/internal/linalg: OpenBLAS's LAPACK when it is loaded,
// gonum's LAPACK in Go otherwise; the triangular solves, O(n²) an
// evaluation, are gonum's.
type Exact struct {
	x          kernel.Inputs
	y          []float64
	kern       kernel.Kernel
	mean       Mean
	noise      float64 // the starting σ²; 0: var(y)/4
	noiseFloor float64
	maxEvals   int
	budget     time.Duration
	fixed      bool
	cons       constraints // WithFixed, WithFixedAt, WithBounds
	progress   io.Writer
	restarts   int       // WithRestarts
	seed       uint64    // of the restarts' draws; 0: 1
	s2         []float64 // WithNoiseVariances: known per-point noise variances, nil for none
	err        error
}

// NewExact returns the exact GP for inputs x, targets y and kernel k,
// to be configured with the With methods and fitted by Fit. By default
// it estimates a constant mean, starts the noise at var(y)/4 and allows
// 1000 evaluations without a time limit.
func NewExact(x kernel.Inputs, y []float64, k kernel.Kernel) *Exact {
	return &Exact{x: x, y: y, kern: k, maxEvals: 1000}
}

// setErr keeps the first configuration error.
func (e *Exact) setErr(err error) *Exact {
	if e.err == nil {
		e.err = err
	}
	return e
}

// WithMean sets the prior mean (default MeanConstant, estimated under a
// prior at every evaluation, as the sparse model does; see Mean).
func (e *Exact) WithMean(mn Mean) *Exact { e.mean = mn; return e }

// WithNoise sets the starting noise variance σ² (default var(y)/4, or 1/4
// for targets that are all equal: the sparse model's).
func (e *Exact) WithNoise(noise float64) *Exact {
	if err := checkNoise(noise); err != nil {
		return e.setErr(err)
	}
	e.noise = noise
	return e
}

// WithNoiseFloor sets the least noise variance σ² the fit may reach, as
// Model.WithNoiseFloor does (0: the default, 10⁻⁹ of the targets'
// variance).
func (e *Exact) WithNoiseFloor(floor float64) *Exact {
	if err := checkNoiseFloor(floor); err != nil {
		return e.setErr(err)
	}
	e.noiseFloor = floor
	return e
}

// WithMaxEvals bounds the objective-and-gradient evaluations (default
// 1000).
func (e *Exact) WithMaxEvals(n int) *Exact {
	if err := checkMaxEvals(n); err != nil {
		return e.setErr(err)
	}
	e.maxEvals = n
	return e
}

// WithTimeBudget stops the fit at the first evaluation after d has passed
// (0: no limit), with Status = TimeBudget and the best state reached.
func (e *Exact) WithTimeBudget(d time.Duration) *Exact {
	if err := checkTimeBudget(d); err != nil {
		return e.setErr(err)
	}
	e.budget = d
	return e
}

// WithFixedHyperparameters keeps the kernel's hyperparameters and the
// noise at their starting values: the fit then only evaluates the
// objective and factorises (an estimated mean is still estimated), with
// Status = Fixed. WithFixed fixes them one by one.
func (e *Exact) WithFixedHyperparameters(fixed bool) *Exact { e.fixed = fixed; return e }

// WithProgress writes one line per evaluation to w.
func (e *Exact) WithProgress(w io.Writer) *Exact { e.progress = w; return e }

// Err returns the first configuration error, or nil.
func (e *Exact) Err() error {
	if e.err != nil {
		return e.err
	}
	if err := checkExact(e.x, e.y, e.kern, e.fixed); err != nil {
		return err
	}
	if e.s2 != nil && len(e.s2) != len(e.y) {
		return fmt.Errorf("sgp: %d noise variances for %d training points", len(e.s2), len(e.y))
	}
	_, err := e.cons.resolve(kernelNames(e.kern))
	return err
}

// ExactResult reports a fit of the exact (full) Gaussian process. Its
// FitSummary's Objective is the exact negative log marginal likelihood at
// the end, including n/2·log 2π (Rasmussen & Williams 2006, eq. 2.30), at
// the prior mean Mean: the value the sparse VAR and MLE objectives reach
// when every training point is inducing. Status is Converged (small
// gradient or no decrease over several iterations), MaxEvaluations,
// TimeBudget, Cancelled, Fixed (WithFixedHyperparameters), or Stalled or
// Failed with the optimiser's failure in Reason. Converged is true when
// the optimiser converged, or stopped on a failed line search at a
// gradient small enough that the objective is flat there (max |∂F/∂θ| ≤
// 10⁻⁴ times its scale, the sparse fit's rule).
type ExactResult struct {
	FitSummary
	Start    float64 // the objective at the starting hyperparameters
	Evals    int     // objective-and-gradient evaluations
	Restarts int     // L-BFGS restarts from the best point after a failed line search
	// Gradient is max |∂F/∂u| at the end point over the optimiser's
	// coordinates u of the free hyperparameters (0 when every one is
	// fixed).
	Gradient float64
	// Jitter is what was added to the diagonal of K + σ²I for its
	// Cholesky factorisation to succeed at the end point (0: none was
	// needed); MaxJitter is the largest added at any evaluation.
	Jitter, MaxJitter float64
	N                 int
	Predictor         *ExactPredictor
}

// Fit fits the exact GP. See FitContext.
func (e *Exact) Fit() (*ExactResult, error) { return e.FitContext(context.Background()) }

// FitContext is Fit with cancellation: it stops at the next evaluation
// once ctx is done, returning the best state reached and ctx's error.
func (e *Exact) FitContext(ctx context.Context) (res *ExactResult, err error) {
	defer base.RecoverTo(&err)
	if e.restarts > 0 && !e.fixed && !e.cons.fixesAll(kernelNames(e.kern)) {
		return e.fitStarts(ctx)
	}
	start := time.Now()
	if err := e.Err(); err != nil {
		return nil, err
	}
	x, y := e.x, e.y
	n := x.Len()
	k := kernel.Clone(e.kern)
	noise := e.startNoise()
	user := ctx
	if e.budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, start.Add(e.budget))
		defer cancel()
	}
	np := k.NumParams()
	// A fit works in paramMap's coordinates: the free hyperparameters, a
	// bounded one within its bounds, σ² above the noise floor. Fixed
	// hyperparameters are evaluated as given.
	floor := 0.0
	if !e.fixed {
		floor = noiseFloor(x, y, e.noiseFloor)
	}
	rs, theta0, nm, err := e.cons.setup(kernelNames(k), append(k.Params(nil), math.Log(noise)), floor, e.fixed)
	if err != nil {
		return nil, err
	}
	fixed := rs != nil && rs.allFixed()
	k.SetParams(theta0[:np])
	if err := checkStart(x, k, math.Exp(theta0[np]), y, e.mean); err != nil {
		return nil, err
	}
	ex := newExactEval(x, y, k, e.mean)
	ex.s2 = e.s2
	ex.exactNoise = rs.withStartNoise(noise).exactNoise()
	p0 := nm.toX(make([]float64, nm.dim()), theta0)
	r := &exactRun{ex: ex, ctx: ctx, maxEvals: e.maxEvals, progress: e.progress, np: np, nm: nm, th: make([]float64, np+1), gθ: make([]float64, np+1),
		best: append([]float64(nil), p0...), bestF: math.Inf(1), bestG: make([]float64, len(p0)),
		lastG: make([]float64, len(p0)), startF: math.NaN()}
	stopped, restarts := stop{status: Fixed}, 0
	if fixed {
		r.evaluate(p0)
	} else {
		stopped, restarts = r.minimize(p0)
	}
	if stopped.status == Cancelled && user.Err() == nil {
		stopped = stop{status: TimeBudget}
	}
	if math.IsInf(r.bestF, 1) {
		if user.Err() != nil {
			return nil, user.Err()
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("sgp: the time budget of %v ended before the exact GP's first evaluation; allow more time", e.budget)
		}
		if r.evalErr != nil {
			return nil, r.evalErr
		}
		return nil, errors.New("sgp: the exact GP objective is not finite at the starting hyperparameters")
	}
	// Factorise at the best point for prediction (the last evaluation
	// need not have been there).
	best := nm.toTheta(make([]float64, np+1), r.best)
	if _, err := ex.factor(best); err != nil {
		return nil, err
	}
	g := maxAbs(r.bestG)
	converged := stopped.status == Converged ||
		(!fixed && stopped.status != Cancelled && stopped.status != MaxEvaluations && stopped.status != TimeBudget && g <= 1e-4*ex.scale(r.bestF))
	res = &ExactResult{
		FitSummary: FitSummary{
			Objective: r.bestF, Status: stopped.status, Reason: stopped.reason, Converged: converged,
			Params: best, Names: append(k.ParamNames(), "noise"), Mean: ex.mu,
		},
		Start: r.startF, Evals: r.evals, Restarts: restarts, Gradient: g,
		Jitter: ex.jitter, MaxJitter: r.maxJit, N: n,
	}
	res.Predictor = ex.predictor()
	e.note(res, r.evals, stopped, fixed, rs, floor)
	res.Elapsed = time.Since(start)
	return res, user.Err()
}

// note completes res, a fit that made evals evaluations and ended as
// stopped (with every hyperparameter fixed: fixed), under the
// constraints rs with noise floor floor: its warnings, its noise floor
// and its fixed and bounded hyperparameters, its predictor's too.
func (e *Exact) note(res *ExactResult, evals int, stopped stop, fixed bool, rs *resolved, floor float64) {
	s2 := math.Exp(res.Params[len(res.Params)-1])
	rs.summarise(&res.FitSummary, floor, e.fixed)
	res.Predictor.Fixed, res.Predictor.Bounds = res.Fixed, res.Bounds
	if res.Jitter > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("K + σ²I needed jitter %.3g on its diagonal to factorise at the fitted hyperparameters (σ² = %.3g)", res.Jitter, s2))
	}
	switch {
	case stopped.status == Cancelled:
		res.Warnings = append(res.Warnings, fmt.Sprintf("interrupted after %d evaluations, F = %.6g; the result is the best state reached", evals, res.Objective))
	case !res.Converged && !fixed:
		res.Warnings = append(res.Warnings, fmt.Sprintf("the exact fit did not converge (%s); the result is the best state reached", stopped))
	}
	if !fixed && (rs == nil || !rs.noiseFixed()) {
		res.NoiseFloor = floor
		if atNoiseFloor(s2, floor) {
			res.AtNoiseFloor = true
			res.Warnings = append(res.Warnings, noiseFloorWarning(s2, floor, e.noiseFloor > 0))
		}
	}
}

// checkExact validates the exact GP's data and kernel.
func checkExact(x kernel.Inputs, y []float64, k kernel.Kernel, fixed bool) error {
	switch {
	case x == nil || x.Len() == 0 || len(y) == 0:
		return ErrEmpty
	case len(y) != x.Len():
		return fmt.Errorf("sgp: %d inputs but %d targets", x.Len(), len(y))
	case k == nil:
		return errors.New("sgp: no kernel")
	case x.Len() > MaxExactN:
		return fmt.Errorf("sgp: the exact GP is limited to n ≤ %d training points (it holds an n×n matrix, %.3g GB here, and costs ≈ n³ flops per evaluation); got n = %d: use the sparse model", MaxExactN, 8*float64(x.Len())*float64(x.Len())/1e9, x.Len())
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("sgp: target %d is %v; remove or impute non-finite targets", i, v)
		}
	}
	if !fixed {
		if err := constantTargets(y); err != nil {
			return err
		}
	}
	return k.Accepts(x)
}

// exactRun is the optimiser's view of the exact objective: it caches the
// last evaluation (gonum asks for the value and the gradient at one point
// separately), keeps the best point and counts evaluations.
type exactRun struct {
	ex       *exactEval
	ctx      context.Context
	maxEvals int
	progress io.Writer
	np       int
	nm       paramMap  // the optimiser's coordinates: the free hyperparameters
	th, gθ   []float64 // the point being evaluated, as log hyperparameters, and ∂F/∂θ there

	evals        int
	best, bestG  []float64
	bestF        float64
	lastX, lastG []float64
	lastF        float64
	startF       float64
	evalErr      error
	maxJit       float64
}

// evaluate sets lastF and lastG to the objective and gradient at p, +Inf
// (and a zero gradient) when cancelled, over budget or not finite.
func (r *exactRun) evaluate(p []float64) {
	if r.lastX != nil && equalSlices(p, r.lastX) {
		return
	}
	r.lastX = append(r.lastX[:0], p...)
	if r.ctx.Err() != nil || r.evals >= r.maxEvals {
		r.lastF = math.Inf(1)
		clear(r.lastG)
		return
	}
	th := r.nm.toTheta(r.th, p)
	f, err := r.ex.funcGrad(r.gθ, th)
	r.nm.grad(r.lastG, r.gθ, p)
	r.evals++
	r.maxJit = math.Max(r.maxJit, r.ex.jitter)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		if r.evalErr == nil && err != nil {
			r.evalErr = err
		}
		r.lastF = math.Inf(1)
		clear(r.lastG)
		return
	}
	r.lastF = f
	if r.evals == 1 {
		r.startF = f
	}
	if r.progress != nil {
		fmt.Fprintf(r.progress, "exact: evaluation %d  F = %.10g  max|∂F/∂θ| = %.3g  σ² = %.4g\n", r.evals, f, maxAbs(r.lastG), math.Exp(th[r.np]))
	}
	if f < r.bestF {
		r.bestF = f
		copy(r.best, p)
		copy(r.bestG, r.lastG)
	}
}

// exactRestarts bounds the L-BFGS restarts after failed line searches.
const exactRestarts = 3

// minimize runs L-BFGS from p0, restarting from the best point after a
// failed line search as long as the run before it lowered the best
// objective, and says why it stopped. Convergence is a gradient below
// 10⁻⁶ of the objective's scale, or a decrease below 10⁻⁸ of it over five
// iterations.
func (r *exactRun) minimize(p0 []float64) (stopped stop, restarts int) {
	problem := optimize.Problem{
		Func: func(p []float64) float64 { r.evaluate(p); return r.lastF },
		Grad: func(g, p []float64) { r.evaluate(p); copy(g, r.lastG) },
	}
	r.evaluate(p0)
	if math.IsInf(r.lastF, 1) {
		return stop{status: Failed}, 0
	}
	scale := r.ex.scale(r.lastF)
	x0 := append([]float64(nil), p0...)
	for {
		before := r.bestF
		settings := &optimize.Settings{
			GradientThreshold: 1e-6 * scale,
			Converger:         &optimize.FunctionConverge{Absolute: 1e-8 * scale, Iterations: 5},
			Recorder: funcRecorder(func() error {
				if r.evals >= r.maxEvals {
					return errBudget
				}
				return r.ctx.Err()
			}),
		}
		res, err := optimize.Minimize(problem, x0, settings, &optimize.LBFGS{})
		switch {
		case r.ctx.Err() != nil:
			return stop{status: Cancelled}, restarts
		case r.evals >= r.maxEvals:
			return stop{status: MaxEvaluations}, restarts
		case err == nil && res != nil && (res.Status == optimize.GradientThreshold || res.Status == optimize.FunctionConvergence):
			return stop{status: Converged}, restarts
		case err == nil && res != nil:
			return stop{Failed, res.Status.String()}, restarts
		}
		stopped = stop{Stalled, err.Error()}
		if restarts >= exactRestarts || !(r.bestF < before) {
			return stopped, restarts
		}
		restarts++
		copy(x0, r.best)
		// A fresh run must re-evaluate its start.
		r.lastX = nil
	}
}

// exactEval evaluates the exact GP objective and gradient in one n×n
// buffer: K (lower triangle, with a copy above the diagonal for jittered
// retries), then its Cholesky factor, then Σ⁻¹ − ααᵀ.
type exactEval struct {
	x     kernel.Inputs
	yc    []float64 // y − ȳ: ȳ the sample mean (estimated mean) or the fixed mean
	ybar  float64
	mean  Mean
	prior base.MeanPrior // the prior on an estimated μ (Mean)
	kern  kernel.Kernel
	n, np int
	// exactNoise, if positive, is a fixed noise variance as given, σ²
	// where θ holds its log (fixedNoise).
	exactNoise float64
	// s2 holds the known per-point noise variances s_i² added to Σ's
	// diagonal (WithNoiseVariances), nil for none.
	s2 []float64

	a      []float64 // n×n row-major
	diag   []float64 // K_ii
	u, v   []float64 // L⁻¹1, L⁻¹(y − ȳ)
	alpha  []float64 // Σ⁻¹(y − μ)
	cols   []int     // 0 … n−1
	noise  float64   // σ² of the last factorisation
	mu     float64   // μ of the last factorisation
	jitter float64   // ε added at the last factorisation
	// logScale is ½n·log var(y): the objective of standardised targets is
	// F − logScale, whose magnitude (at least n/100) scales tolerances so
	// that they do not depend on the units of y, as in the sparse fit.
	logScale  float64
	trainMean float64
	trainVar  float64
}

func newExactEval(x kernel.Inputs, y []float64, k kernel.Kernel, mn Mean) *exactEval {
	n := x.Len()
	e := &exactEval{x: x, mean: mn, kern: k, n: n, np: k.NumParams(),
		a: make([]float64, n*n), diag: make([]float64, n), u: make([]float64, n), v: make([]float64, n),
		alpha: make([]float64, n), cols: make([]int, n), yc: make([]float64, n)}
	for i := range e.cols {
		e.cols[i] = i
	}
	e.trainMean, e.trainVar = meanVar(y)
	e.ybar = mn.startValue(y)
	e.prior = mn.prior(y)
	for i, v := range y {
		e.yc[i] = v - e.ybar
	}
	if e.trainVar > 0 {
		e.logScale = 0.5 * float64(n) * math.Log(e.trainVar)
	}
	return e
}

// scale is the magnitude against which tolerances on F are relative.
func (e *exactEval) scale(v float64) float64 {
	return math.Max(math.Abs(v-e.logScale), float64(e.n)/100)
}

// buildK sets the hyperparameters from p and fills the lower triangle of
// e.a with K, mirrored above the diagonal, and e.diag with its diagonal
// (fillKernelMatrix).
func (e *exactEval) buildK(p []float64) error {
	if err := logParamsInRange(p[:e.np]); err != nil {
		return err
	}
	e.kern.SetParams(p[:e.np])
	e.noise = fixedNoise(p[e.np], e.exactNoise)
	if !(e.noise > 0) || math.IsInf(e.noise, 0) {
		return fmt.Errorf("%w, got %v", ErrNoise, e.noise)
	}
	return fillKernelMatrix(e.a, e.diag, e.kern, e.x)
}

// fillKernelMatrix fills the lower triangle of a (n×n row-major) with
// K(x, x), mirrored above the diagonal, and diag with its diagonal, and
// fails on a non-finite value. Rows are paired (j, n−1−j) so that the
// triangle splits evenly across goroutines.
func fillKernelMatrix(a, diag []float64, k kernel.Kernel, x kernel.Inputs) error {
	n := x.Len()
	row := func(j int) {
		k.Column(a[j*n:j*n+j+1], x, 0, j+1, x, j)
	}
	par.For((n+1)/2, max(1, par.MinRows*4/max(1, n)), func(t0, t1 int) {
		for t := t0; t < t1; t++ {
			row(t)
			if j := n - 1 - t; j != t {
				row(j)
			}
		}
	})
	for i := 0; i < n; i++ {
		ri := a[i*n : i*n+i+1]
		for j, v := range ri {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("sgp: the kernel is %v at points %d and %d (hyperparameters out of range?)", v, i, j)
			}
			a[j*n+i] = v
		}
		diag[i] = ri[i]
	}
	return nil
}

// exactJitters are the jitters tried, relative to the mean of diag K,
// when K + σ²I does not factorise.
var exactJitters = []float64{0, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4}

// factor builds K at p, factorises Σ = K + σ²I (+ jitter) into LLᵀ in
// the lower triangle of e.a, sets μ (estimated as in Mean, or fixed) and
// α = Σ⁻¹(y − μ), and returns the objective F (R&W Algorithm 2.1, with
// the mean profiled out: with u = L⁻¹1 and v = L⁻¹(y − ȳ), μ̂ − ȳ =
// uᵀv/(uᵀu + 1/τ²), uᵀv/uᵀu without a prior, (y − μ̂)ᵀΣ⁻¹(y − μ̂) =
// ‖v − (μ̂ − ȳ)u‖², and F gains the prior's ½(μ̂ − ȳ)²/τ²).
func (e *exactEval) factor(p []float64) (float64, error) {
	if err := e.buildK(p); err != nil {
		return math.NaN(), err
	}
	n := e.n
	var md float64
	for _, v := range e.diag {
		md += v
	}
	md /= float64(n)
	if !(md > 0) {
		md = e.noise
	}
	ok := false
	for t, rel := range exactJitters {
		if t > 0 {
			// Restore the lower triangle from the copy above it.
			for i := 0; i < n; i++ {
				for j := 0; j < i; j++ {
					e.a[i*n+j] = e.a[j*n+i]
				}
			}
		}
		e.jitter = rel * md
		for i := 0; i < n; i++ {
			e.a[i*n+i] = e.diag[i] + knownNoise(e.s2, i) + e.noise + e.jitter
		}
		if ok = linalg.Potrf(blas.Lower, n, e.a, n); ok {
			break
		}
	}
	if !ok {
		return math.NaN(), fmt.Errorf("sgp: K + σ²I is not positive definite even with jitter %.3g (σ² = %.3g): the kernel is not positive semi-definite on these inputs?", e.jitter, e.noise)
	}
	lt := e.tri()
	for i := range e.u {
		e.u[i] = 1
	}
	copy(e.v, e.yc)
	blas64.Trsv(blas.NoTrans, lt, blas64.Vector{N: n, Data: e.u, Inc: 1})
	blas64.Trsv(blas.NoTrans, lt, blas64.Vector{N: n, Data: e.v, Inc: 1})
	delta := 0.0
	if e.mean.Estimated() {
		var uv, uu float64
		for i := range e.u {
			uv += e.u[i] * e.v[i]
			uu += e.u[i] * e.u[i]
		}
		delta = e.prior.Step(uv, uu, e.ybar-e.prior.Ybar, 1)
	}
	e.mu = e.ybar + delta
	var quad, logdet float64
	for i := range e.v {
		r := e.v[i] - delta*e.u[i]
		e.alpha[i] = r
		quad += r * r
		logdet += math.Log(e.a[i*n+i])
	}
	blas64.Trsv(blas.Trans, lt, blas64.Vector{N: n, Data: e.alpha, Inc: 1})
	return 0.5*(quad+e.prior.Penalty(e.mu)) + logdet + 0.5*float64(n)*math.Log(2*math.Pi), nil
}

func (e *exactEval) sym() blas64.Symmetric {
	return blas64.Symmetric{Uplo: blas.Lower, N: e.n, Stride: e.n, Data: e.a}
}

func (e *exactEval) tri() blas64.Triangular {
	return blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: e.n, Stride: e.n, Data: e.a}
}

// funcGrad returns F at p and, if grad is not nil, stores ∂F/∂p in it
// (R&W eq. 5.9): with W = Σ⁻¹ − ααᵀ, ∂F/∂θ = ½Σ_ij W_ij ∂K_ij/∂θ by the
// kernel's AddGrad over all n×n pairs, and ∂F/∂log σ² = ½σ² tr W. It
// overwrites the factor with W.
func (e *exactEval) funcGrad(grad, p []float64) (float64, error) {
	f, err := e.factor(p)
	if err != nil || grad == nil {
		return f, err
	}
	n := e.n
	if !linalg.Potri(blas.Lower, n, e.a, n) {
		return math.NaN(), ErrNotPD
	}
	var trW float64
	for i := 0; i < n; i++ {
		ai := e.alpha[i]
		for j := 0; j < i; j++ {
			w := e.a[i*n+j] - ai*e.alpha[j]
			e.a[i*n+j] = w
			e.a[j*n+i] = w
		}
		e.a[i*n+i] -= ai * ai
		trW += e.a[i*n+i]
	}
	clear(grad)
	base.KernelAddGrad(e.kern, grad[:e.np], e.a, e.x, e.x, e.cols)
	for i := range grad[:e.np] {
		grad[i] *= 0.5
	}
	grad[e.np] = 0.5 * e.noise * trW
	return f, nil
}

// predictor returns the prediction state of the last factor call; e must
// not be used afterwards.
func (e *exactEval) predictor() *ExactPredictor {
	n := e.n
	for i := 0; i < n; i++ {
		clear(e.a[i*n+i+1 : (i+1)*n])
	}
	return &ExactPredictor{Kern: kernel.Clone(e.kern), NoiseV: e.noise, PriorMean: e.mu, Jitter: e.jitter, X: e.x, InputNames: inputNames(e.x),
		l: e.a, alpha: append([]float64(nil), e.alpha...), trainMean: e.trainMean, trainVar: e.trainVar, s2: e.s2}
}

// ExactPredictor predicts with the exact GP (Rasmussen & Williams 2006,
// Algorithm 2.1): for a test input x* with k* = K[X, x*],
//
//	mean* = μ + k*ᵀα,   v* = κ(x*, x*) − ‖L⁻¹k*‖²   (latent f*),
//
// with LLᵀ = K + (σ² + ε)I (ε the jitter, usually 0) and α = (LLᵀ)⁻¹(y − μ);
// a noisy observation adds σ². Cost O(n²) per test point and n kernel
// evaluations. It holds the training inputs (shared, not copied) and the
// n×n factor.
type ExactPredictor struct {
	Kern      kernel.Kernel
	NoiseV    float64       // σ²
	PriorMean float64       // μ
	Jitter    float64       // ε
	X         kernel.Inputs // the training inputs
	// InputNames and TargetName name the columns the model was fit on,
	// as for Predictor.
	InputNames []string
	TargetName string
	// Fixed and Bounds are the hyperparameters the fit held fixed and
	// the bounds it kept, as for Predictor.
	Fixed  map[string]float64
	Bounds []Bound

	l         []float64 // n×n row-major, lower triangular
	alpha     []float64
	trainMean float64
	trainVar  float64
	s2        []float64 // the known training noise variances (Exact.WithNoiseVariances), nil for none
}

// N returns the number of training points.
func (p *ExactPredictor) N() int { return len(p.alpha) }

// Noise returns σ².
func (p *ExactPredictor) Noise() float64 { return p.NoiseV }

// Alpha returns a copy of α = (K + σ²I)⁻¹(y − μ), the weights of the
// predictive mean.
func (p *ExactPredictor) Alpha() []float64 { return append([]float64(nil), p.alpha...) }

// PredictTo stores the predictive mean and latent variance at the s inputs
// xs in mean and variance (each of length s, allocated if nil) and returns
// them. It returns an error if the kernel does not accept xs, or if xs
// name their columns otherwise than InputNames (see Predictor.PredictTo).
func (p *ExactPredictor) PredictTo(mean, variance []float64, xs kernel.Inputs) (_, _ []float64, err error) {
	defer base.RecoverTo(&err)
	if err := checkInputNames(p.InputNames, xs); err != nil {
		return nil, nil, err
	}
	if err := p.Kern.Accepts(xs); err != nil {
		return nil, nil, err
	}
	s, n := xs.Len(), len(p.alpha)
	if mean, variance, err = predictBuffers(mean, variance, s); err != nil {
		return nil, nil, err
	}
	// Blocks of test points bound memory to 16 MB of cross-covariances.
	block := max(1, min(s, (1<<21)/max(1, n)))
	ks := make([]float64, block*n)
	kss := make([]float64, block)
	lt := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: n, Data: p.l}
	for lo := 0; lo < s; lo += block {
		hi := min(s, lo+block)
		b := hi - lo
		// Row c of ks = K[X, xs_{lo+c}]ᵀ, then L⁻¹ of it (B ← B·L⁻ᵀ).
		par.For(b, max(1, par.MinRows/max(1, n)), func(c0, c1 int) {
			for c := c0; c < c1; c++ {
				row := ks[c*n : (c+1)*n]
				p.Kern.Column(row, p.X, 0, n, xs, lo+c)
				var m float64
				for i, v := range row {
					m += v * p.alpha[i]
				}
				mean[lo+c] = p.PriorMean + m
			}
			blas64.Trsm(blas.Right, blas.Trans, 1, lt, blas64.General{Rows: c1 - c0, Cols: n, Stride: n, Data: ks[c0*n : c1*n]})
		})
		p.Kern.Diag(kss[:b], xs, lo, hi)
		for c := 0; c < b; c++ {
			var q float64
			for _, v := range ks[c*n : (c+1)*n] {
				q += v * v
			}
			variance[lo+c] = math.Max(kss[c]-q, 0)
		}
	}
	return mean, variance, nil
}

// Predict returns the predictive mean and latent variance at xs.
func (p *ExactPredictor) Predict(xs kernel.Inputs) (mean, variance []float64, err error) {
	return p.PredictTo(nil, nil, xs)
}

// PredictNoisy returns the predictive mean and the variance of a noisy
// observation y* = f* + ε at xs.
func (p *ExactPredictor) PredictNoisy(xs kernel.Inputs) (mean, variance []float64, err error) {
	mean, variance, err = p.PredictTo(nil, nil, xs)
	return withNoise(mean, variance, err, p.NoiseV)
}

// Evaluate predicts at test.X with noisy variances and scores the
// predictions against test.Y, with the training targets as the trivial
// model, as Model.Evaluate does; a model loaded from a file without the
// training targets' mean and variance gives SNLP = NaN (see
// Predictor.Evaluate).
func (p *ExactPredictor) Evaluate(test *data.Dataset) (*Evaluation, error) {
	if test == nil || test.Len() == 0 {
		return nil, fmt.Errorf("sgp: no test data")
	}
	return p.EvaluateInputs(test.X, test.Y)
}

// EvaluateInputs is Evaluate for test inputs of any kind (graphs,
// strings) and their targets y.
func (p *ExactPredictor) EvaluateInputs(x kernel.Inputs, y []float64) (*Evaluation, error) {
	if x == nil || x.Len() == 0 || len(y) == 0 {
		return nil, fmt.Errorf("sgp: no test data")
	}
	if x.Len() != len(y) {
		return nil, fmt.Errorf("sgp: %d test inputs but %d targets", x.Len(), len(y))
	}
	mean, vr, err := p.PredictNoisy(x)
	if err != nil {
		return nil, err
	}
	return evaluationKnown(mean, vr, y, p.trainMean, p.trainVar)
}

// InputColumns returns the columns of the model's numeric inputs, for
// data.ReadPredictCSV; Dim is 0 when the model's inputs are not vectors.
func (p *ExactPredictor) InputColumns() data.InputColumns {
	return inputColumns(p.X, p.InputNames, p.TargetName)
}

// startNoise returns the starting σ²: WithNoise's, or the package's
// startNoise of the targets.
func (e *Exact) startNoise() float64 {
	if e.noise != 0 {
		return e.noise
	}
	return startNoise(e.y)
}

// WithRestarts makes Fit fit n more times from other starting
// hyperparameters and keep the fit with the lowest objective, as
// scikit-learn's n_restarts_optimizer does (default 0): the first start
// is the kernel's values and the starting noise, the others are drawn
// around it, the periods of a periodic kernel from the periodogram's next
// peaks (see Model.WithRestarts for the draws). The result is the best
// fit's, its predictor included; ExactResult.Starts lists every start and
// where it ended (its Restarts, distinct, counts the optimiser's restarts
// within the kept fit). A time budget is the whole fit's, shared by the
// starts in equal parts of what is left. It is ignored with fixed
// hyperparameters.
func (e *Exact) WithRestarts(n int) *Exact {
	if n < 0 {
		return e.setErr(fmt.Errorf("sgp: %d restarts must be ≥ 0", n))
	}
	e.restarts = n
	return e
}

// WithSeed sets the seed of the restarts' draws (default 1; see
// WithRestarts). The fit itself is deterministic.
func (e *Exact) WithSeed(seed uint64) *Exact { e.seed = seed; return e }

// fitStarts is FitContext with restarts: a fit from each start of the
// plan, the lowest objective kept.
func (e *Exact) fitStarts(ctx context.Context) (*ExactResult, error) {
	start := time.Now()
	if err := e.Err(); err != nil {
		return nil, err
	}
	seed := e.seed
	if seed == 0 {
		seed = 1
	}
	floor := noiseFloor(e.x, e.y, e.noiseFloor)
	rs, theta0, _, err := e.cons.setup(kernelNames(e.kern), append(e.kern.Params(nil), math.Log(e.startNoise())), floor, false)
	if err != nil {
		return nil, err
	}
	plan := startPlan(e.x, e.y, e.kern, theta0, floor, e.restarts, seed, rs)
	np := e.kern.NumParams()
	return keepBestStart(ctx, start, e.kern, plan, e.budget, e.progress, func(ctx context.Context, st startPoint, budget time.Duration, w io.Writer) (*ExactResult, *FitSummary, error) {
		c := *e
		c.restarts, c.budget, c.progress = 0, budget, w
		c.kern = kernel.Clone(e.kern)
		c.kern.SetParams(st.theta[:np])
		c.noise = math.Exp(st.theta[np])
		if rs != nil && rs.noiseFixed() {
			c.noise = e.noise // exactly, as exp(log σ²) need not give it
		}
		res, err := c.FitContext(ctx)
		if res == nil {
			return nil, nil, err
		}
		return res, &res.FitSummary, err
	})
}
