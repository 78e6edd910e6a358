package sgp

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/cholqr/sgp/sgp/kernel"
)

// Swap performs one swap: it removes the inducing point that has gone
// longest without being proposed for removal, proposes the best
// replacement by approximate score, checks it exactly and keeps it if the
// objective decreases (Cao et al. 2013, Alg. 1).
func (md *Model) Swap() (sr SwapResult, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return SwapResult{}, err
	}
	order := md.visitOrder(1)
	return md.swapPoint(order[0], md.obj), nil
}

// SwapPoint proposes to replace inducing point j (a data index).
func (md *Model) SwapPoint(j int) (sr SwapResult, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return SwapResult{}, err
	}
	if j < 0 || j >= md.x.Len() || !md.f.IsActive(j) {
		return SwapResult{}, fmt.Errorf("sgp: point %d is not an inducing point", j)
	}
	return md.swapPoint(j, md.obj), nil
}

// Step runs one epoch: the continuous phase (CG on θ with the inducing set
// fixed) followed by a discrete pass of swaps.
func (md *Model) Step() (EpochRecord, error) {
	return md.StepContext(context.Background())
}

// StepContext is Step with cancellation, checked between swaps and CG
// evaluations.
func (md *Model) StepContext(ctx context.Context) (rec EpochRecord, err error) {
	defer md.recoverPanic(&err)
	r := md.newRun(ctx)
	if err := md.buildContext(ctx); err != nil {
		return EpochRecord{}, err
	}
	return md.epochStep(r)
}

// Fit runs epochs until the objective's relative decrease over an epoch is
// below the tolerance, the maximum number of epochs or the time budget is
// reached. The decrease is measured relative to the objective of the
// standardised targets, F − n·log sd(y) (at least n/100 in magnitude), so
// that the rule does not depend on the units of y.
//
// A gradient phase that fails (see EpochRecord.CGStatus) while its
// gradient is not small does not count as convergence: Fit goes on, and
// after two such epochs in a row it stops with Status = Stalled and
// Converged = false.
//
// The noise variance stays above a floor (σ² = floor + exp u, with u
// optimised), by default 10⁻⁶ of the targets' variance around a quadratic
// trend in the inputs and at least 10⁻⁹ of their variance
// (WithNoiseFloor), as in Continuous and Exact: without a floor, targets with little
// or no noise drive σ² towards 0, where the objective is decided by
// rounding. A fit that ends at the floor says so (Result.AtNoiseFloor).
func (md *Model) Fit() (*Result, error) { return md.FitContext(context.Background()) }

// FitContext is Fit with cancellation: it stops at the next swap or CG
// evaluation once ctx is done, returning the model as it then is together
// with ctx's error.
func (md *Model) FitContext(ctx context.Context) (res *Result, err error) {
	defer md.recoverPanic(&err)
	if md.restarts > 0 && !md.allFixed() {
		return md.fitStarts(ctx)
	}
	// A model not yet built chooses its starting set here (InitForward
	// scores candidates exactly): that time counts against the budget and
	// in Result.Elapsed like the epochs'.
	r := md.newRun(ctx)
	if err := md.buildContext(ctx); err != nil {
		return nil, err
	}
	if !r.fixHyper {
		if err := constantTargets(md.y); err != nil {
			return nil, err
		}
	}
	if v := md.f.Value(r.obj); math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, md.nonFinite("at the start", v, r.obj)
	}
	if md.selector.kind == selHybrid {
		res, err = md.fitHybrid(r)
	} else {
		res, err = md.fitSubset(r)
	}
	if res != nil && (math.IsNaN(res.Objective) || math.IsInf(res.Objective, 0)) {
		return nil, md.nonFinite("at the end of the fit", res.Objective, r.obj)
	}
	md.noteNoiseFloor(res)
	md.noteConstraints(res)
	return res, err
}

// nonFinite is the error of a fit whose objective obj is v, not finite,
// when (at the start or the end).
func (md *Model) nonFinite(when string, v float64, obj Objective) error {
	return fmt.Errorf("sgp: the %v objective is %v %s, with kernel %s and noise variance %.4g: the targets, the inputs or the values set are too large or too small for it; scale them",
		obj, v, when, kernel.Text(md.kern), md.f.Noise())
}

// noteNoiseFloor records in res the noise floor of a fit of the
// hyperparameters and whether σ² (of the model the predictions use, a
// hybrid fit's refinement included) ended at it, with a warning then.
func (md *Model) noteNoiseFloor(res *Result) {
	if res == nil || md.noiseFixed() || len(res.Params) == 0 {
		return
	}
	res.NoiseFloor = md.floor()
	s2 := math.Exp(res.Params[len(res.Params)-1])
	// A hybrid fit's refinement at the floor has said so already.
	if res.AtNoiseFloor = atNoiseFloor(s2, res.NoiseFloor); res.AtNoiseFloor {
		if w := noiseFloorWarning(s2, res.NoiseFloor, md.noiseFloor > 0); !slices.Contains(res.Warnings, w) {
			res.Warnings = append(res.Warnings, w)
			md.announce([]string{w})
		}
	}
}

// noteConstraints records in res the model's fixed and bounded
// hyperparameters, where the bounded ones ended, and a warning for each
// at a bound; nothing with WithFixedHyperparameters, which fixes all.
func (md *Model) noteConstraints(res *Result) {
	r := md.resolved()
	if res == nil || r == nil || md.fixHyper || len(res.Params) != len(r.names) {
		return
	}
	var ws []string
	res.Fixed, res.Bounds, ws = r.report(res.Params, md.floor())
	if c := res.CholQR; c != nil && len(c.Params) == len(r.names) {
		c.Fixed, c.Bounds, _ = r.report(c.Params, md.floor()) // a hybrid fit's CholQR parent
	}
	for _, w := range ws {
		if !slices.Contains(res.Warnings, w) {
			res.Warnings = append(res.Warnings, w)
			md.announce([]string{w})
		}
	}
}

// WithRestarts makes Fit fit n more times from other starting
// hyperparameters and keep the fit with the lowest objective, as
// scikit-learn's n_restarts_optimizer does (default 0; sgprepl fit makes
// DefaultRestarts for a kernel with a periodic component, RestartsFor).
// The first start is the model as it is, at its current hyperparameters
// (the kernel's values and the starting noise for a model not yet
// fitted); each restart is a new model of the same configuration, its
// inducing set chosen afresh, at hyperparameters drawn around the first
// start's from the model's seed: every log hyperparameter of the kernel
// moves by a normal draw of standard deviation 1 (a factor e), σ² is
// drawn log-uniformly from 10⁻⁴ of its start up to its start (not below
// the noise floor), and a period (period[t]) takes the periodogram's next
// peaks (kernel.PeriodPeaks), restart k the (k+1)-th, while there are
// such peaks, and is otherwise drawn around its start within the
// periodogram's resolution (a standard deviation of log p of p over the
// inputs' span). The same seed gives the same starts and the same fit.
//
// Whatever the selector, each start runs the whole fit (the hybrid's
// CholQR and continuous parents included), and the objectives compared
// are the fits' own (Result.Objective). The model keeps the state of the
// best fit, its inducing set, hyperparameters, trace and refinement, so
// that it predicts as that fit; Kernel then returns that fit's kernel
// (a copy of the model's for a restart, of which a kernel that cannot be
// copied is left at its hyperparameters). Result.Starts lists every
// start and where it ended, and BestStart the one kept; progress lines
// are prefixed "restart k/n: ". A time budget is the whole fit's, shared
// by the starts in equal parts of what is left. Restarts are ignored with
// fixed hyperparameters.
func (md *Model) WithRestarts(n int) *Model {
	if n < 0 {
		return md.setErr(fmt.Errorf("sgp: %d restarts must be ≥ 0", n))
	}
	md.restarts = n
	return md
}

// fitStarts is FitContext with restarts: the first start on the model
// itself, the others on fresh copies, the best fit's state kept.
func (md *Model) fitStarts(ctx context.Context) (*Result, error) {
	start := time.Now()
	if err := md.validate(); err != nil {
		return nil, err
	}
	if err := constantTargets(md.y); err != nil {
		return nil, err
	}
	cfg := *md // the configuration the starts change and the model keeps
	np := md.kern.NumParams()
	theta0 := md.Params()
	rs := md.resolved()
	if rs != nil {
		if err := rs.checkFloor(md.floor()); err != nil {
			return nil, err
		}
		theta0 = rs.start(theta0, md.floor())
	}
	plan := startPlan(md.x, md.y, md.kern, theta0, md.floor(), md.restarts, md.seed, rs)
	runs, results := make([]*Model, len(plan)), make([]*Result, len(plan))
	ends := make([][]float64, len(plan)) // each fit's kernel hyperparameters
	sums, best, errs := runStarts(ctx, plan, md.budget, md.progress, func(ctx context.Context, k int, st startPoint, budget time.Duration, w io.Writer) (*FitSummary, error) {
		c := md
		if k > 0 {
			c = md.startCopy(st.theta)
		}
		c.restarts, c.budget, c.progress, c.onWarning = 0, budget, w, nil
		res, err := c.FitContext(ctx)
		runs[k], results[k], ends[k] = c, res, c.kern.Params(nil)
		if res == nil {
			return nil, err
		}
		return &res.FitSummary, err
	})
	if best > 0 {
		*md = *runs[best]
	}
	md.restarts, md.budget, md.progress, md.onWarning = cfg.restarts, cfg.budget, cfg.progress, cfg.onWarning
	if best < 0 {
		return nil, firstErr(errs)
	}
	// A kernel that cannot be copied is shared by the starts: set it back
	// to the kept fit's hyperparameters, at which its state was built.
	md.kern.SetParams(ends[best][:np])
	res := results[best]
	res.md, res.Starts, res.BestStart = md, sums, best
	res.Elapsed = time.Since(start)
	if note := startsNote(sums, len(plan)); note != "" {
		res.Warnings = append(res.Warnings, note)
		if md.progress != nil {
			fmt.Fprintf(md.progress, "warning: %s\n", note)
		}
	}
	if md.onWarning != nil {
		for _, w := range res.Warnings {
			md.onWarning(w)
		}
	}
	if errs[best] != nil {
		return res, errs[best]
	}
	return res, ctx.Err()
}

// startCopy returns a new, unbuilt model of md's configuration whose
// kernel (a copy of md's where it can be copied) and starting noise are
// at theta: a restart of WithRestarts.
func (md *Model) startCopy(theta []float64) *Model {
	c := *md
	np := md.kern.NumParams()
	c.kern = kernel.Clone(md.kern)
	c.kern.SetParams(theta[:np])
	c.noise = math.Exp(theta[np])
	if md.noiseFixed() {
		c.noise = md.noise // exactly, as exp(log σ²) need not give it
	}
	c.f, c.refined, c.from, c.stale = nil, nil, "", false
	c.rng, c.visits, c.trace, c.epoch = nil, nil, nil, 0
	c.undone, c.replaced = 0, 0
	return &c
}
