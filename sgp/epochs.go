package sgp

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// runEpochs runs epochs of r's objective until convergence, the maximum
// number of epochs, r's time budget, a stall, cancellation or an error,
// and says how it ended.
//
// The time budget is checked between epochs, unless r.hardEnd is set:
// then it also stops an epoch at its next swap or gradient evaluation,
// which leaves the model in the state reached, as a cancellation does.
func (md *Model) runEpochs(r *run) (outcome, error) {
	user := r.ctx
	if r.hardEnd && r.budget > 0 {
		ctx, cancel := context.WithDeadline(user, r.start.Add(r.budget))
		defer cancel()
		r = r.with(func(c *run) { c.ctx = ctx })
	}
	prev, leftOut := md.f.Value(r.obj), md.f.Stats().LeftOut
	stalls := 0
	for e := 0; e < md.maxEpochs; e++ {
		theta := md.Params()
		rec, err := md.epochStep(r)
		if err != nil && errors.Is(err, context.DeadlineExceeded) && r.ctx.Err() != nil && user.Err() == nil {
			return outcome{stop: stop{status: TimeBudget}}, nil
		}
		if err != nil {
			return md.epochFailed(r, err)
		}
		if md.f.Stats().LeftOut > leftOut && rec.Objective > prev+md.riseTol()*md.f.ValueScale(prev) {
			// The gradient phase went where the set cannot be held (see
			// rose), from where each further phase does the same.
			return outcome{stop: stop{Stalled, "the inducing set is at the kernel's numerical rank (points left out by a rebuild)"}}, nil
		}
		leftOut = md.f.Stats().LeftOut
		if md.tol > 0 && prev-rec.Objective < md.tol*md.f.ValueScale(prev) {
			moved := !slices.Equal(theta, md.Params())
			if md.cgHealthy(rec, moved) {
				return outcome{stop: stop{status: Converged}, converged: true}, nil
			}
			if stalls++; stalls >= 2 {
				reason := rec.CGStatus.String()
				if !moved && (rec.CGStatus == CGBudget || rec.CGStatus == CGConverged) {
					reason = fmt.Sprintf("no step of the gradient phase lowered the objective, max |∂F/∂θ| = %.3g", rec.CGGradient)
				}
				return outcome{stop: stop{Stalled, reason}}, nil
			}
		} else {
			stalls = 0
		}
		prev = rec.Objective
		if !r.timeLeft() {
			return outcome{stop: stop{status: TimeBudget}}, nil
		}
	}
	return outcome{stop: stop{status: MaxEpochs}}, nil
}

// epochFailed returns how a phase ended on the error err of an epoch:
// cancelled when a stop check (the context, the interrupt) ended it,
// failed otherwise.
func (md *Model) epochFailed(r *run, err error) (outcome, error) {
	if r.stopErr() != nil {
		return outcome{stop: stop{status: Cancelled}}, err
	}
	return outcome{stop: stop{status: Failed}}, err
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
func (md *Model) restartWanted(r *run) bool {
	return r.obj == VAR && !r.fixHyper && md.warm > 0 && md.explained() < noiseOnlyFraction && r.timeLeft()
}

// restartFromMLE restarts a VAR fit that reached the noise-only optimum:
// from the starting hyperparameters theta0 and the current inducing set,
// it runs md.warm epochs of MLE, one pass of swaps on VAR at the
// hyperparameters MLE reached, then VAR epochs as Fit does, and keeps
// the result only if its VAR objective is lower than the noise-only one
// (kept reports it); otherwise the model returns to the noise-only state,
// the restart's epochs are dropped from the trace and the outcome is
// ended0, the noise-only fit's. The MLE objective has no trace term
// (Titsias 2009, eq. 9; Cao et al. 2013, §2) that penalises a signal the
// inducing set cannot yet represent, so from the same start it finds the
// signal where VAR settles on σ² ≈ var(y).
//
// The MLE epochs and the pass of swaps run on copies of r, so the
// objective and the fixed hyperparameters of the fit are those of r
// however the restart ends, a panic of the kernel included.
func (md *Model) restartFromMLE(r *run, theta0 []float64, ended0 outcome) (ended outcome, kept bool, err error) {
	keepTheta, keepActive := md.Params(), md.f.Active(nil)
	keepF, keepTrace, keepEpoch := md.f.Value(VAR), len(md.trace), md.epoch
	restore := func() {
		md.trace, md.epoch = md.trace[:keepTrace], keepEpoch
		md.restore(keepTheta, keepActive, VAR)
	}
	if md.refactor(theta0, keepActive) != nil {
		restore()
		return ended0, false, nil
	}
	if md.progress != nil {
		fmt.Fprintf(md.progress, "restart: the VAR fit explains everything as noise; %d MLE epochs from the start, then VAR\n", md.warm)
	}
	mle := r.with(func(c *run) { c.obj = MLE })
	for e := 0; e < md.warm; e++ {
		if _, err = md.epochStep(mle); err != nil {
			break
		}
	}
	if err == nil && (md.selector.kind == selCholQR || md.selector.kind == selHybrid) {
		// One pass of swaps on VAR at the MLE hyperparameters before
		// VAR's first gradient phase. The set MLE chose leaves VAR's trace
		// term large at MLE's short lengthscales, from where the first
		// gradient phase tends to lengthen them until inputs that matter
		// are switched off; a set chosen for VAR first keeps them.
		_, err = md.epochStep(r.with(func(c *run) { c.fixHyper = true }))
	}
	if err != nil {
		ended, err = md.epochFailed(r, err)
		md.profile()
	} else {
		ended, err = md.runEpochs(r)
	}
	if f := md.f.Value(VAR); !(f < keepF) {
		restore()
		return ended0, false, err
	}
	return ended, true, err
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
		// coordinate vanishes (paramMap): line searches there fail on
		// rounding while other components of the gradient stay a little
		// above the small-gradient rule (a smooth function sampled
		// exactly). Fit reports the floor instead (Result.AtNoiseFloor
		// and its warning).
		// Only where the fit explains all but 10⁻³ of the targets'
		// variance: a fit pressed to the floor from a poor start (a
		// start noise far too small) is stuck, not done.
		if atNoiseFloor(md.f.Noise(), md.floor()) && md.explained() > 1-1e-3 {
			return true
		}
	}
	return rec.CGGradient <= md.tol*md.f.ValueScale(rec.Objective)
}

// explained returns the fraction of the training targets' sum of squares
// around the prior mean that the model's fit explains, ‖a‖²/‖y − μ‖²
// with a = Q[:n,:]ᵀ(y − μ) (Cao et al. 2013, §3): 0 for the noise-only
// optimum, near 1 for a signal fitted well above the noise.
func (md *Model) explained() float64 {
	var yy, aa float64
	wt := md.f.RowWeights() // with known noise, of Λ^{-1/2}(y − μ)
	for i, v := range md.y {
		d := v - md.f.Mean()
		if wt != nil {
			d *= wt[i]
		}
		yy += d * d
	}
	for _, v := range md.f.QtY() {
		aa += v * v
	}
	if !(yy > 0) {
		return 1
	}
	return aa / yy
}
