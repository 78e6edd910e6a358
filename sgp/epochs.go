package sgp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

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
