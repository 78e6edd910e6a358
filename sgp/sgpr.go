package sgp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/optimize"

	"github.com/cholqr/sgp/sgp/kernel"
)

// ContinuousResult reports a fit of the sparse GP whose inducing inputs
// move continuously in ℝᵈ.
type ContinuousResult struct {
	Objective float64         // final objective, including n/2·log 2π
	Start     float64         // objective at the start
	Evals     int             // objective and gradient evaluations
	Elapsed   time.Duration   // wall time
	Params    []float64       // θ: kernel log hyperparameters, then log σ²
	Mean      float64         // the prior mean μ at the final θ and Z (Predictor.PriorMean)
	Z         *kernel.Vectors // the inducing inputs
	Predictor *Predictor      // for prediction
	Status    Status          // Converged, MaxEvaluations, Cancelled, Stalled (converged at a gradient that is not small), Abandoned (a hybrid fit's refinement behind CholQR), TimeBudget (a hybrid refinement's share of the time) or Failed
	Reason    string          // for Stalled, what the stop rule saw; for Failed, the optimiser's reason
	Restarts  int             // L-BFGS restarts from the best point after a failed line search
	Gradient  float64         // max |∂F/∂p| over θ and Z where the fit ended
	Jitter    float64         // added to K[Z,Z]'s diagonal (ContinuousOptions.Jitter): Objective is the bound of that model
	// NoiseFloor is the least noise variance the fit could reach
	// (ContinuousOptions.NoiseFloor or the default); AtNoiseFloor is true
	// when σ² ended there, so that the floor, not the data, decided it.
	NoiseFloor   float64
	AtNoiseFloor bool
}

// FitContinuous fits SGPR with free inducing inputs, the method of GPflow
// and GPyTorch (Titsias 2009; Snelson & Ghahramani 2006 for MLE): θ and the
// m×d inducing inputs Z are optimised jointly by L-BFGS from z0 and the
// kernel's and noise's current values, for the same objective o, with
// analytic gradients; σ² stays above the noise floor (opts.NoiseFloor, by
// default that of Model.WithNoiseFloor), as in Model.Fit.
// kern is updated to the final hyperparameters; x, z0 are not modified. It is
// the continuous baseline of Cao et al. (2013) and, started from a CholQR
// selection (Model.RefineContinuous), a hybrid of the two.
//
// Each evaluation costs O(n·m² + n·m·d).
func FitContinuous(ctx context.Context, x *kernel.Vectors, y []float64, kern kernel.InputGradient, z0 *kernel.Vectors, noise float64, o Objective, opts ContinuousOptions) (cr *ContinuousResult, err error) {
	defer recoverTo(&err)
	maxEvals := opts.MaxEvals
	if x == nil || z0 == nil || x.Len() == 0 || z0.Len() == 0 || len(y) != x.Len() {
		return nil, errors.New("sgp: FitContinuous needs inputs, matching targets and at least one inducing input")
	}
	if err := constantTargets(y); err != nil {
		return nil, err
	}
	if err := kern.Accepts(x); err != nil {
		return nil, err
	}
	if err := kern.Accepts(z0); err != nil {
		return nil, err
	}
	if !(noise > 0) || math.IsInf(noise, 0) {
		return nil, fmt.Errorf("%w, got %v", ErrNoise, noise)
	}
	if maxEvals <= 0 {
		maxEvals = 1000
	}
	if err := checkNoiseFloor(opts.NoiseFloor); err != nil {
		return nil, err
	}
	start := time.Now()
	m, d, np := z0.Len(), z0.Dim(), kern.NumParams()
	zdata := append([]float64(nil), z0.RawData()...)
	z, err := kernel.NewVectors(m, d, zdata)
	if err != nil {
		return nil, err
	}
	ev := NewEvaluatorInputs(x, y, kern, o, z)
	ev.jitter = opts.Jitter
	ev.SetMean(opts.Mean)
	nθ := np + 1
	// L-BFGS works in noiseMap's coordinates for θ (σ² stays above the
	// noise floor), then Z.
	nm := newNoiseMap(x, y, opts.NoiseFloor)
	theta := append(kern.Params(nil), math.Log(noise))
	p0 := append(nm.toX(make([]float64, nθ), theta), zdata...)
	gθ := make([]float64, nθ)
	var (
		evals    int
		best     = append([]float64(nil), p0...)
		bestF    = math.Inf(1)
		lastX    []float64
		lastF    float64
		lastG    = make([]float64, len(p0))
		startF   = math.NaN()
		stopErr  error
		evaluate = func(p []float64) {
			if lastX != nil && equalSlices(p, lastX) {
				return
			}
			lastX = append(lastX[:0], p...)
			if stopErr = ctx.Err(); stopErr != nil || evals >= maxEvals {
				lastF = math.Inf(1)
				clear(lastG)
				return
			}
			copy(zdata, p[nθ:])
			f, err := ev.FuncGrad(gθ, nm.toTheta(theta, p[:nθ]))
			evals++
			if err != nil || math.IsNaN(f) {
				lastF = math.Inf(1)
				clear(lastG)
				return
			}
			nm.grad(gθ, p[:nθ])
			copy(lastG, gθ)
			ev.zGrad(lastG[nθ:])
			lastF = f
			if evals == 1 {
				startF = f
			}
			if f < bestF {
				bestF = f
				copy(best, p)
			}
			if opts.onEval != nil {
				opts.onEval(evals, bestF)
			}
		}
	)
	problem := optimize.Problem{
		Func: func(p []float64) float64 { evaluate(p); return lastF },
		Grad: func(g, p []float64) { evaluate(p); copy(g, lastG) },
	}
	abandoned := false
	rec := funcRecorder(func() error {
		if evals >= maxEvals {
			return errBudget
		}
		// behind is asked once a point has been evaluated: gonum records
		// the start before evaluating it.
		if opts.behind != nil && !math.IsInf(bestF, 1) && opts.behind(bestF) {
			abandoned = true
			return errAbandoned
		}
		return ctx.Err()
	})
	// L-BFGS stops on a line search that finds no acceptable step, which
	// near an optimum often means rounding in F rather than a minimum, and
	// far from it means a stale curvature model. Either way it restarts from
	// the best point with its memory cleared; a restart that lowers F by
	// less than a relative 1e-9 shows a minimum to the precision of F.
	var stopped stop
	restarts := 0
	why := "" // what a converged fit's stop rule saw, for a large gradient
	cur := append([]float64(nil), p0...)
	for {
		before := bestF
		res, optErr := optimize.Minimize(problem, cur, &optimize.Settings{Recorder: rec,
			Converger: &optimize.FunctionConverge{Relative: contRelTol, Iterations: contIters}}, &optimize.LBFGS{Store: lbfgsMemory})
		switch {
		case ctx.Err() != nil:
			stopped = stop{status: Cancelled}
		case evals >= maxEvals:
			stopped = stop{status: MaxEvaluations}
		case abandoned:
			stopped = stop{status: Abandoned}
		case optErr != nil && restarts < maxRestarts && !math.IsInf(bestF, 1):
			if before-bestF > 1e-9*math.Abs(bestF) || math.IsInf(before, 1) {
				restarts++
				copy(cur, best)
				continue
			}
			stopped, why = stop{status: Converged}, "no decrease along the search direction, also after a restart from the best point"
		case optErr != nil:
			stopped = stop{Failed, optErr.Error()}
		case res != nil && res.Status == optimize.FunctionConvergence:
			stopped, why = stop{status: Converged}, fmt.Sprintf("F changed by less than a relative %g over %d iterations", contRelTol, contIters)
		case res != nil && res.Status == optimize.GradientThreshold:
			stopped = stop{status: Converged}
		case res != nil:
			stopped = stop{Failed, res.Status.String()}
		}
		break
	}
	if math.IsInf(bestF, 1) {
		if err := ctx.Err(); err != nil {
			// Cancelled before any evaluation succeeded: say so, rather
			// than blame the kernel matrix.
			return nil, err
		}
		return nil, fmt.Errorf("sgp: continuous fit failed: %v", ErrNotPD)
	}
	// Evaluate once more at the best point to leave the factors there, and
	// to report the gradient where the fit ended.
	copy(zdata, best[nθ:])
	f, err := ev.FuncGrad(gθ, nm.toTheta(theta, best[:nθ]))
	if err != nil {
		return nil, err
	}
	gz := make([]float64, len(best)-nθ)
	ev.zGrad(gz)
	nm.grad(gθ, best[:nθ])
	grad := max(maxAbs(gθ), maxAbs(gz))
	stopped = stallLabel(stopped, why, grad, f)
	p := ev.predictor()
	return &ContinuousResult{Objective: f, Start: startF, Evals: evals, Elapsed: time.Since(start),
		Params: append([]float64(nil), theta...), Mean: p.PriorMean, Z: z, Predictor: p, Status: stopped.status, Reason: stopped.reason, Restarts: restarts, Gradient: grad,
		Jitter: opts.Jitter, NoiseFloor: nm.floor, AtNoiseFloor: atNoiseFloor(math.Exp(theta[np]), nm.floor)}, ctx.Err()
}

// FitContinuous counts as converged a fit whose objective changed by less
// than a relative contRelTol over contIters iterations (gonum's
// FunctionConverge). Where the gradient is then not small, it is a flat
// region or a local optimum at the precision of F: on KIN40K (m = 64, seed
// 1, from a random subset) 100 iterations, or a tolerance of 1e-12, left F
// at 5680.7387 with max |∂F| = 0.047.
const (
	contRelTol = 1e-9
	contIters  = 20
)

// lbfgsMemory is the number of past steps from which FitContinuous's
// L-BFGS builds its curvature model (gonum's default is 15). The joint
// problem in θ and Z has m·d + d + 2 parameters whose curvature a short
// memory models poorly. Measured on KIN40K (VAR, from the k-means centres
// at θ₀, seeds 1–3, F after a fixed number of evaluations): at m = 256
// and 300 evaluations the memories 15, 50, 100 and 200 reached a mean of
// 3073.9, 3041.8, 3025.1 and 3021.5 (every seed lower with 200 than with
// 15); at m = 64 and 1500 evaluations 5722.1, 5699.4, 5697.6 and 5693.7.
// Its cost, O(memory·(m·d)) per iteration and 2·memory·(m·d) floats, is
// small beside an evaluation's O(n·m²).
const lbfgsMemory = 200

// stallLabel returns FitContinuous's stop: a fit that its stop rule
// counted as converged while max |∂F| = grad is not small at F = f is
// Stalled, with what the rule saw (why).
func stallLabel(stopped stop, why string, grad, f float64) stop {
	if stopped.status == Converged && grad > gradTol*max(1, math.Abs(f)) {
		return stop{Stalled, fmt.Sprintf("%s, at max |∂F| = %.3g", why, grad)}
	}
	return stopped
}

// maxRestarts bounds the L-BFGS restarts of FitContinuous after line-search
// failures that still lowered the objective.
const maxRestarts = 50

// gradTol is the largest gradient, relative to max(1, |F|), at which a
// continuous fit whose line search finds no further decrease counts as
// converged: a unit step in any parameter would change F by less than a
// millionth of it.
const gradTol = 1e-6

// ContinuousOptions configures FitContinuous.
type ContinuousOptions struct {
	// MaxEvals bounds the objective-and-gradient evaluations; if 0 it
	// defaults to 1000.
	MaxEvals int
	// Jitter is added to the diagonal of K[Z,Z] before its Cholesky
	// factorisation, as GPflow does by default (1e-6): the objective is then
	// that of the jittered model. Continuous inducing inputs can collide,
	// which jitter tolerates; 0 adds none.
	Jitter float64
	// Mean is the prior mean; the zero value estimates a constant (see
	// Mean).
	Mean Mean
	// NoiseFloor is the least noise variance σ² the fit may reach, in the
	// targets' units squared; 0 means the default (see Model.WithNoiseFloor).
	NoiseFloor float64

	// behind, if set, is asked after each step of the optimiser, with the
	// lowest objective reached so far, whether to give up; the fit then
	// ends at its best point with Status = Abandoned. The hybrid
	// selector uses it to hand the time back to CholQR (see fitHybrid).
	behind func(best float64) bool
	// onEval, if set, is called after each evaluation with the number of
	// evaluations and the lowest objective so far (the hybrid selector's
	// progress lines).
	onEval func(evals int, best float64)
}

// errAbandoned stops FitContinuous when ContinuousOptions.behind says so.
var errAbandoned = errors.New("sgp: continuous fit abandoned")

// zGrad stores ∂F/∂Z (m×d, row-major) after a FuncGrad call with a
// gradient: with W_mn and W_mm the weights of dK_mn and dK_mm in F's
// differential (see Evaluator), the kernel's input gradient of
// Σ W_mn∘K_mn + Σ W_mm∘K_mm.
func (e *Evaluator) zGrad(gz []float64) {
	k := e.kern.(kernel.InputGradient)
	k.InputGradT(gz, e.wmn, e.kraw, e.tmat, e.kmm, e.x.(*kernel.Vectors), e.xI.(*kernel.Vectors))
}

// predictor returns a Predictor for the state of the last FuncGrad call.
func (e *Evaluator) predictor() *Predictor {
	m := e.m
	p := &Predictor{Kern: kernel.Clone(e.kern), NoiseV: math.Exp(e.lastLogNoise), PriorMean: e.mu, X: e.xI.Subset(e.seq), InputNames: inputNames(e.x),
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
