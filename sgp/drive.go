package sgp

import (
	"context"
	"errors"
	"fmt"
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
	return md.swapPoint(order[0]), nil
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
	return md.swapPoint(j), nil
}

func (md *Model) swapPoint(j int) SwapResult {
	md.refined = nil // a hybrid fit's refinement no longer describes the model
	md.counter++
	md.visited[j] = md.counter
	res := md.f.Swap(md.f.pos[j], md.obj, md.rng.IntN)
	if res.Accepted {
		md.visited[res.Proposed] = md.counter
		// The swap was decided at a fixed mean; re-estimating it can only
		// lower F further.
		md.profile()
		res.After = md.f.Value(md.obj)
	}
	return res
}

// visitOrder returns up to count inducing points, those not proposed for
// removal for longest first, ties in random order.
func (md *Model) visitOrder(count int) []int {
	active := md.f.Active(nil)
	md.rng.Shuffle(len(active), func(a, b int) { active[a], active[b] = active[b], active[a] })
	// Stable insertion sort by last visit (m is small).
	for a := 1; a < len(active); a++ {
		for b := a; b > 0 && md.visited[active[b]] < md.visited[active[b-1]]; b-- {
			active[b], active[b-1] = active[b-1], active[b]
		}
	}
	return active[:min(count, len(active))]
}

// EpochRecord summarises one epoch.
type EpochRecord struct {
	Epoch       int
	Objective   float64   // after the epoch, including n/2·log 2π
	Kind        Objective // the objective of this epoch: MLE in a VAR fit's restart (WithMLERestart)
	Parts       Parts
	Params      []float64 // θ after the epoch
	Grown       int       // inducing points added because the set was below m
	Scored      int       // exact candidate scores made by a baseline's re-selection
	Swaps       int
	Accepted    int
	CGEvals     int
	CGObjective float64 // after the continuous phase
	CGStatus    CGStop  // how the continuous phase ended: CGBudget, CGConverged, CGLineSearch, …
	CGGradient  float64 // max |∂F/∂θ| where the continuous phase ended (+Inf if unknown)
	Mean        float64 // the prior mean μ after the epoch
	Drift       float64 // relative difference between the updated factor and a fresh evaluation
	Elapsed     time.Duration
	SwapTime    time.Duration // of Elapsed, the discrete pass (swaps and information-pivot refreshes)
	Total       time.Duration
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
	md.interruptPanic = nil
	if err := md.build(); err != nil {
		return EpochRecord{}, err
	}
	return md.epochStep(ctx)
}

// Result summarises a Fit.
type Result struct {
	Objective float64
	Parts     Parts
	Epochs    int
	Elapsed   time.Duration
	// Status says why Fit stopped: Converged, MaxEpochs, TimeBudget,
	// Cancelled, Failed (with an error), or Stalled when the objective
	// stopped decreasing because the gradient phase failed (a line search
	// that found no decrease, non-finite objective values) while the
	// gradient was not small; Reason then says how.
	Status Status
	Reason string
	// Converged is true only when the relative decrease of the objective
	// over the last epoch fell below the tolerance and the gradient phase
	// ended normally or at a small gradient.
	Converged bool
	Inducing  []int
	Params    []float64
	// Mean is the prior mean μ the model predicts with: for a hybrid fit
	// that kept its refinement, the refinement's (Refined.Mean), as
	// Objective and Params are.
	Mean float64
	// M is the number of inducing points asked for; len(Inducing) can be
	// smaller (see Model.WithM).
	M int
	// Warnings lists what the user should know about the result: fewer
	// inducing points than asked for, a fit that did not converge, the
	// noise-only optimum.
	Warnings []string
	// NoiseOnly is true when the model explains less than 1% of the
	// training targets' variance around the prior mean: the trivial
	// optimum where everything is noise.
	NoiseOnly bool
	// Restarted is true when a VAR fit reached the noise-only optimum and
	// a restart from an MLE warm start (WithMLERestart) found a lower
	// VAR objective, which the model keeps.
	Restarted bool
	// SwitchedOn lists the inputs, in order, whose lengthscales the fit
	// set back after its gradient phases had switched them off (grown
	// far beyond the inputs' spread, where no gradient step brings them
	// back) because the objective was lower there; the epochs that
	// followed are part of the fit (kernels with lengthscales only,
	// kernel.Lengthscaled). nil when none was.
	SwitchedOn []int
	// Refined is, for the hybrid selector, the continuous refinement
	// that the model predicts with (its inducing
	// inputs Z and θ; Objective and Params are then its own); nil when the
	// refinement did not lower the objective, and for other selectors.
	Refined *ContinuousResult
	// RefinedFrom says where the kept refinement started: "the k-means
	// centres", "the k-means++ seeds", "CholQR's set", "a random subset"
	// (each at the starting
	// hyperparameters) or "CholQR's fit" (its set and θ), followed by
	// ", then lengthscale[j] switched back on" (or "lengthscales[j, k]")
	// when the refinement went on from bringing back inputs it had switched
	// off (see fitHybrid); "" without one.
	RefinedFrom string
	// NoiseFloor is the least noise variance the fit could reach
	// (WithNoiseFloor, or its default); AtNoiseFloor is true when σ²
	// ended there (within 5%), so that the floor rather than the data
	// decided σ² and the predictive variances (a warning says so too).
	// Both are zero for fixed hyperparameters.
	NoiseFloor   float64
	AtNoiseFloor bool
	// Resumed is true when CholQR had the rest of a hybrid fit's time
	// budget after the refinements: they were all behind CholQR's objective
	// after as long as its phase took (at least its tenth of the budget),
	// or all ended with time left (Epochs and Status then describe all of
	// CholQR's epochs).
	Resumed bool
	Stats
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
// optimised), by default 10⁻⁹ of the targets' variance (WithNoiseFloor),
// as in FitContinuous and FitExact: without a floor, targets with little
// or no noise drive σ² towards 0, where the objective is decided by
// rounding. A fit that ends at the floor says so (Result.AtNoiseFloor).
func (md *Model) Fit() (*Result, error) { return md.FitContext(context.Background()) }

// FitContext is Fit with cancellation: it stops at the next swap or CG
// evaluation once ctx is done, returning the model as it then is together
// with ctx's error.
func (md *Model) FitContext(ctx context.Context) (res *Result, err error) {
	defer md.recoverPanic(&err)
	md.interruptPanic = nil
	// A model not yet built chooses its starting set here (InitForward
	// scores candidates exactly): that time counts against the budget and
	// in Result.Elapsed like the epochs'.
	start := time.Now()
	if err := md.build(); err != nil {
		return nil, err
	}
	if !md.fixHyper {
		if err := constantTargets(md.y); err != nil {
			return nil, err
		}
	}
	if md.selector.kind == selHybrid {
		res, err = md.fitHybrid(ctx, start)
	} else {
		res, err = md.fitSubset(ctx, start)
	}
	md.noteNoiseFloor(res)
	return res, err
}

// noteNoiseFloor records in res the noise floor of a fit of the
// hyperparameters and whether σ² (of the model the predictions use, a
// hybrid fit's refinement included) ended at it, with a warning then.
func (md *Model) noteNoiseFloor(res *Result) {
	if res == nil || md.fixHyper || len(res.Params) == 0 {
		return
	}
	res.NoiseFloor = md.floor()
	s2 := math.Exp(res.Params[len(res.Params)-1])
	if res.AtNoiseFloor = atNoiseFloor(s2, res.NoiseFloor); res.AtNoiseFloor {
		w := noiseFloorWarning(s2, res.NoiseFloor, md.noiseFloor > 0)
		res.Warnings = append(res.Warnings, w)
		md.announce([]string{w})
	}
}

// fitSubset is Fit for inducing points chosen among the training data,
// with the time budget and Result.Elapsed counted from start.
func (md *Model) fitSubset(ctx context.Context, start time.Time) (res *Result, err error) {
	md.refined = nil
	theta0 := md.Params()
	first, leftOut := len(md.trace), md.f.stats.LeftOut
	stopped, converged, runErr := md.runEpochs(ctx, start)
	restarted := false
	if runErr == nil && md.restartWanted(start) {
		stopped, converged, restarted, runErr = md.restartFromMLE(ctx, start, theta0, stopped, converged)
	}
	var on []int
	if lk, ok := md.kern.(kernel.Lengthscaled); ok && runErr == nil && !md.fixHyper {
		ls0 := make([]float64, len(lk.Lengthscales()))
		for j := range ls0 {
			ls0[j] = math.Exp(theta0[1+j])
		}
		stopped, converged, on, runErr = md.switchBackSubset(ctx, start, math.Exp(theta0[0]), ls0, stopped, converged)
	}
	res = &Result{
		Objective:  md.f.Value(md.obj),
		Parts:      md.f.Parts(),
		Epochs:     len(md.trace),
		Elapsed:    time.Since(start),
		Status:     stopped.status,
		Reason:     stopped.reason,
		Converged:  converged,
		Inducing:   md.f.Active(nil),
		Params:     md.Params(),
		Mean:       md.f.mu,
		M:          md.m,
		Restarted:  restarted,
		SwitchedOn: on,
		Stats:      md.f.stats,
	}
	res.Warnings = md.warnings(res, md.rose(first, leftOut))
	md.announce(res.Warnings)
	return res, runErr
}

// rose returns a warning when the objective ends above the lowest value an
// epoch of this fit (md.trace[first:]) reached, or "". Swaps and gradient
// phases never raise it, but a rebuild of the factor at new
// hyperparameters can leave out inducing points that are numerically in
// the span of the others (Factor.factorizeSkipping, Stats.LeftOut): on a
// 26-input set with discrete inputs, where the signal variance grew to
// about 10⁴ times the targets' variance, the residuals of members fell
// below 1e-8 of it.
func (md *Model) rose(first, leftOut int) string {
	best, at := math.Inf(1), 0
	for _, r := range md.trace[first:] {
		if r.Kind == md.obj && r.Objective < best {
			best, at = r.Objective, r.Epoch
		}
	}
	end := md.f.Value(md.obj)
	if !(end > best+md.riseTol()*md.f.valueScale(best)) {
		return ""
	}
	if k := md.f.stats.LeftOut - leftOut; k > 0 {
		return fmt.Sprintf("the objective rose from %.6g (epoch %d) to %.6g: rebuilding the factor at new hyperparameters left out %d inducing points that were numerically in the span of the others; the model is the last state",
			best, at, end, k)
	}
	return fmt.Sprintf("the objective rose from %.6g (epoch %d) to %.6g; the model is the last state", best, at, end)
}

// announce passes warnings to the progress writer and the warning hook.
func (md *Model) announce(ws []string) {
	for _, w := range ws {
		if md.progress != nil {
			fmt.Fprintf(md.progress, "warning: %s\n", w)
		}
		if md.onWarning != nil {
			md.onWarning(w)
		}
	}
}

// runEpochs runs epochs of the model's objective until convergence, the
// maximum number of epochs, the time budget (counted from start), a
// stall, cancellation or an error, and says why it stopped.
//
// The time budget is checked between epochs, unless md.hardEnd is set:
// then it also stops an epoch at its next swap or gradient evaluation,
// which leaves the model in the state reached, as a cancellation does.
func (md *Model) runEpochs(ctx context.Context, start time.Time) (stopped stop, converged bool, err error) {
	user := ctx
	if md.hardEnd && md.budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, start.Add(md.budget))
		defer cancel()
	}
	prev, leftOut := md.f.Value(md.obj), md.f.stats.LeftOut
	stopped = stop{status: MaxEpochs}
	stalls := 0
	for e := 0; e < md.maxEpochs; e++ {
		theta := md.Params()
		rec, err := md.epochStep(ctx)
		if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil && user.Err() == nil {
			return stop{status: TimeBudget}, false, nil
		}
		if err != nil {
			stopped = stop{status: Failed}
			if md.stopErr(ctx) != nil {
				stopped = stop{status: Cancelled}
			}
			return stopped, false, err
		}
		if md.f.stats.LeftOut > leftOut && rec.Objective > prev+md.riseTol()*md.f.valueScale(prev) {
			// The gradient phase went where the set cannot be held (see
			// rose); from there each further phase did the same (a 26-input
			// set: −3854.6 to −3789.4 over 12 more epochs).
			return stop{Stalled, "the inducing set is at the kernel's numerical rank (points left out by a rebuild)"}, false, nil
		}
		leftOut = md.f.stats.LeftOut
		if md.tol > 0 && prev-rec.Objective < md.tol*md.f.valueScale(prev) {
			moved := !slices.Equal(theta, md.Params())
			if md.cgHealthy(rec, moved) {
				return stop{status: Converged}, true, nil
			}
			if stalls++; stalls >= 2 {
				reason := rec.CGStatus.String()
				if !moved && (rec.CGStatus == CGBudget || rec.CGStatus == CGConverged) {
					reason = fmt.Sprintf("no step of the gradient phase lowered the objective, max |∂F/∂θ| = %.3g", rec.CGGradient)
				}
				return stop{Stalled, reason}, false, nil
			}
		} else {
			stalls = 0
		}
		prev = rec.Objective
		if md.budget > 0 && time.Since(start) >= md.budget {
			return stop{status: TimeBudget}, false, nil
		}
	}
	return stopped, false, nil
}

// riseTol is the relative rise of the objective that counts as one (a
// warning, a stall at the numerical rank): the tolerance, and never less
// than rounding where the convergence test is off.
func (md *Model) riseTol() float64 { return max(md.tol, 1e-9) }

// noiseOnlyFraction is the share of the targets' variance below which a
// fit is taken to explain everything as noise (Result.NoiseOnly).
const noiseOnlyFraction = 0.01

// restartWanted reports whether a VAR fit that has just ended should be
// restarted from an MLE warm start: it ended at the noise-only optimum,
// its hyperparameters are free, the restart is enabled and time is left.
func (md *Model) restartWanted(start time.Time) bool {
	return md.obj == VAR && !md.fixHyper && md.warm > 0 && md.explained() < noiseOnlyFraction &&
		(md.budget <= 0 || time.Since(start) < md.budget)
}

// restartFromMLE restarts a VAR fit that reached the noise-only optimum:
// from the starting hyperparameters theta0 and the current inducing set,
// it runs md.warm epochs of MLE, one pass of swaps on VAR at the
// hyperparameters MLE reached, then VAR epochs as Fit does, and keeps
// the result only if its VAR objective is lower than the noise-only one;
// otherwise the model returns to the noise-only state and the restart's
// epochs are dropped from the trace. The MLE objective has no trace term
// (Titsias 2009, eq. 9; Cao et al. 2013, §2) that penalises a signal the
// inducing set cannot yet represent, so from the same start it finds the
// signal where VAR settles on σ² ≈ var(y).
func (md *Model) restartFromMLE(ctx context.Context, start time.Time, theta0 []float64, stopped0 stop, converged0 bool) (stopped stop, converged, kept bool, err error) {
	keepTheta, keepActive := md.Params(), md.f.Active(nil)
	keepF, keepTrace, keepEpoch := md.f.Value(VAR), len(md.trace), md.epoch
	restore := func() {
		md.trace, md.epoch = md.trace[:keepTrace], keepEpoch
		md.restore(keepTheta, keepActive)
	}
	if md.refactor(theta0, keepActive) != nil {
		restore()
		return stopped0, converged0, false, nil
	}
	if md.progress != nil {
		fmt.Fprintf(md.progress, "restart: the VAR fit explains everything as noise; %d MLE epochs from the start, then VAR\n", md.warm)
	}
	md.obj = MLE
	for e := 0; e < md.warm; e++ {
		if _, err = md.epochStep(ctx); err != nil {
			break
		}
	}
	md.obj = VAR
	if err == nil && !md.fixHyper && (md.selector.kind == selCholQR || md.selector.kind == selHybrid) {
		// One pass of swaps on VAR at the MLE hyperparameters before
		// VAR's first gradient phase. The set MLE chose leaves VAR's trace
		// term large at MLE's short lengthscales, and from there the first
		// gradient phase tended to lengthen them until inputs that matter
		// were switched off; a set chosen for VAR first keeps them.
		// Measured on SyntheticARD(1000, 500, 32, s) for s = 1, 2, 3, m = 32,
		// 25 epochs, seeds 1–14: 6 of 42 restarts ended at test SMSE
		// 0.18–0.22 (MLE 0.05–0.06) without this pass, 1 of 42 with it; the
		// other fits ended at the same F.
		md.fixHyper = true
		_, err = md.epochStep(ctx)
		md.fixHyper = false
	}
	if err != nil {
		stopped = stop{status: Failed}
		if md.stopErr(ctx) != nil {
			stopped = stop{status: Cancelled}
		}
		md.profile()
	} else {
		stopped, converged, err = md.runEpochs(ctx, start)
	}
	if f := md.f.Value(VAR); !(f < keepF) {
		restore()
		return stopped0, converged0, false, err
	}
	return stopped, converged, true, err
}

// cgHealthy reports whether an epoch's gradient phase ended normally, or
// at a gradient small enough that a failed line search means a flat
// objective rather than a stuck optimiser: max |∂F/∂θ| below the
// tolerance times the objective's scale, so that a unit change of any log
// hyperparameter would change F by less than the tolerance. moved says
// whether the phase changed θ: one that used its budget, or saw the
// objective stop changing, without moving θ (every step failed: values
// that turn NaN off the start, a gradient pointing uphill) ended normally
// only at a small gradient. Non-finite values near the start are never
// healthy: the gradient reported then was not evaluated.
func (md *Model) cgHealthy(rec EpochRecord, moved bool) bool {
	switch rec.CGStatus {
	case CGSkipped:
		return true
	case CGBudget, CGConverged:
		if moved {
			return true
		}
	case CGNonFinite, CGUndone:
		return false
	case CGLineSearch, CGNoDescent:
		// At the noise floor the objective is as precise as the floor
		// lets it be, and its gradient in the optimiser's noise
		// coordinate vanishes (noiseMap): line searches there fail on
		// rounding while other components of the gradient stay a little
		// above the small-gradient rule. On sin x sampled exactly
		// (n = 300, m = 20, VAR) two phases in a row failed at
		// max |∂F/∂θ| = 0.227 against a threshold of 0.2, with F equal
		// to 10⁻⁹ over the two epochs. Fit reports the floor instead
		// (Result.AtNoiseFloor and its warning).
		// Only where the fit explains all but 10⁻³ of the targets'
		// variance: a fit pressed to the floor from a poor start (a
		// start noise far too small) is stuck, not done.
		if atNoiseFloor(md.f.noise, md.floor()) && md.explained() > 1-1e-3 {
			return true
		}
	}
	return rec.CGGradient <= md.tol*md.f.valueScale(rec.Objective)
}

// warnings returns the notes a user must see about a fit.
func (md *Model) warnings(res *Result, rose string) []string {
	var w []string
	if k := len(res.Inducing); k < md.m {
		w = append(w, fmt.Sprintf("only %d of the m=%d inducing points asked for: the kernel cannot tell more training points apart at these hyperparameters (see WithM)", k, md.m))
	}
	if frac := md.explained(); frac < noiseOnlyFraction {
		try := "try WithObjective(MLE), more inducing points or another kernel"
		if md.obj == MLE {
			try = "try more inducing points or another kernel"
		}
		w = append(w, fmt.Sprintf("the model explains %.2g%% of the training targets' variance: everything is fitted as noise (the noise-only optimum); %s, or check that the inputs can predict the target", 100*frac, try))
		res.NoiseOnly = true
	}
	switch {
	case res.Status == Cancelled:
		w = append(w, fmt.Sprintf("interrupted at epoch %d, F = %.6g; the model keeps this state", res.Epochs, res.Objective))
	case !res.Converged && rose != "":
		w = append(w, fmt.Sprintf("the fit did not converge (%s)", stopText(res.Status, res.Reason)))
	case !res.Converged:
		w = append(w, notConverged(stopText(res.Status, res.Reason)))
	}
	if rose != "" {
		w = append(w, rose)
	}
	if md.replaced > 0 && md.inducing != nil && len(md.trace) == res.Epochs {
		// The model's first fit: its start was changed when it was built.
		w = append(w, fmt.Sprintf("%d of the %d points of the initial inducing set (WithInducing) had a negligible residual variance given the points before them (duplicate inputs, or a kernel that cannot tell them apart) and were replaced by random points", md.replaced, len(md.inducing)))
	}
	return w
}

// notConverged is the warning for a fit that did not converge and kept its
// best state.
func notConverged(stopped string) string {
	return fmt.Sprintf("the fit did not converge (%s); the model is the best state reached", stopped)
}

// recoverPanic turns a panic during a Model method (a user's kernel
// failing, on any goroutine sgp evaluates it on) into *err, and marks the
// factorisation stale: the next use refactorises from scratch at the
// current inducing set and hyperparameters, so nothing half-updated is
// kept.
func (md *Model) recoverPanic(err *error) {
	if r := recover(); r != nil {
		*err = newPanicError(r, -1, -1)
		md.stale = true
	}
}

// explained returns the fraction of the training targets' sum of squares
// around the prior mean that the model's fit explains, ‖a‖²/‖y − μ‖²
// with a = Q[:n,:]ᵀ(y − μ) (Cao et al. 2013, §3): 0 for the noise-only
// optimum, near 1 for a signal fitted well above the noise.
func (md *Model) explained() float64 {
	var yy, aa float64
	for _, v := range md.y {
		d := v - md.f.mu
		yy += d * d
	}
	for _, v := range md.f.a[:md.f.k] {
		aa += v * v
	}
	if !(yy > 0) {
		return 1
	}
	return aa / yy
}

// progressEvery is how often a long phase without epochs (the forward
// start, the hybrid's refinement) writes a progress line: a phase shorter
// than that says nothing.
const progressEvery = 5 * time.Second

// progressTicker says when a phase that started at start is due to write
// its next progress line: every md.every (progressEvery by default), and
// never without a progress writer.
type progressTicker struct {
	on          bool
	every       time.Duration
	start, last time.Time
}

func (md *Model) ticker() *progressTicker {
	every := md.every
	if every == 0 {
		every = progressEvery
	}
	now := time.Now()
	return &progressTicker{on: md.progress != nil, every: every, start: now, last: now}
}

// due reports whether a line is due now, and if so starts the next period.
func (t *progressTicker) due() bool {
	if !t.on {
		return false
	}
	if now := time.Now(); now.Sub(t.last) >= t.every {
		t.last = now
		return true
	}
	return false
}

// elapsed returns the time since the phase started.
func (t *progressTicker) elapsed() time.Duration { return time.Since(t.start) }
