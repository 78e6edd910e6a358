package sgp

import (
	"context"
	"fmt"
	"math"

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
	return res, err
}

// nonFinite is the error of a fit whose objective obj is v, not finite,
// when (at the start or the end).
func (md *Model) nonFinite(when string, v float64, obj Objective) error {
	return fmt.Errorf("sgp: the %v objective is %v %s, with kernel %s and noise variance %.4g: the targets, the inputs or the values set are too large or too small for it; scale them",
		obj, v, when, kernel.Text(md.kern), md.f.noise)
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
