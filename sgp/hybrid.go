package sgp

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// hybridShare is the part of a hybrid fit's time budget given to the
// CholQR phase; the continuous refinement has the rest.
const hybridShare = 0.1

// hybridEvals bounds the refinement's objective-and-gradient evaluations
// when the fit has no time budget.
const hybridEvals = 1000

// hybridMinRefine is the least time the refinement of a hybrid fit with no
// time budget is given.
const hybridMinRefine = 5 * time.Second

// Refined returns the continuous refinement a hybrid fit (SelectHybrid)
// predicts with, or nil: for other selectors, when the refinement did not
// lower the objective, and after any later change to the model (Swap,
// Step, SetParams, another Fit).
func (md *Model) Refined() *ContinuousResult { return md.refined }

// fitHybrid fits with the hybrid selector: CholQR chooses the inducing
// points among the training data (Cao et al. 2013, §3), with hybridShare
// of the time budget, then FitContinuous moves them and θ continuously
// from there, θ from the fit's starting values (Titsias 2009), in the rest
// of it. The refinement is kept, and
// used for prediction and saving, only if its objective is lower than
// CholQR's; the factor, Swap and Value go on describing the CholQR
// selection. Each phase starts where the other is strongest: CholQR finds
// a well-spread set fast and needs no inducing-input gradients, and the
// continuous phase then fits the inducing inputs between the data.
func (md *Model) fitHybrid(ctx context.Context, start time.Time) (*Result, error) {
	if _, ok := md.kern.(*RBF); !ok {
		return nil, errors.New("sgp: the hybrid selector refines inducing inputs continuously, which needs the RBF kernel on vector inputs; use cholqr for other kernels")
	}
	if _, ok := md.x.(*Vectors); !ok {
		return nil, errors.New("sgp: the hybrid selector needs vector inputs; use cholqr for discrete inputs")
	}
	theta0 := md.Params()
	budget := md.budget
	defer func() { md.budget = budget }() // also when a kernel panics
	if budget > 0 {
		md.budget = time.Duration(hybridShare * float64(budget))
	}
	res, err := md.fitSubset(ctx, start)
	md.budget = budget
	if err != nil {
		return res, err
	}
	cctx, opts := ctx, ContinuousOptions{MaxEvals: hybridEvals}
	if budget <= 0 {
		// Without a budget the refinement may take as long as the CholQR
		// phase did (at least hybridMinRefine): a hybrid fit costs at most
		// about twice a CholQR fit, also at large n where one evaluation
		// costs O(n·m²).
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, max(time.Since(start), hybridMinRefine))
		defer cancel()
	} else {
		left := budget - time.Since(start)
		if left <= 0 {
			res.Warnings = append(res.Warnings, "the hybrid fit's time budget ended before the continuous refinement")
			md.announce(res.Warnings[len(res.Warnings)-1:])
			return res, nil
		}
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, left)
		defer cancel()
		opts.MaxEvals = 1 << 30
	}
	// A jitter of 1e-8 of the signal variance keeps K[Z,Z] factorable
	// when inducing inputs meet, and changes F by about that fraction.
	opts.Jitter = 1e-8 * md.kern.(*RBF).Variance()
	// The refinement starts from CholQR's inducing set but from the
	// hyperparameters the fit started from, not CholQR's: at small m the
	// subset-of-data VAR optimum can switch inputs off (on KIN40K, m = 64,
	// ℓ₀ ≈ 337 after CholQR), and moving inducing inputs from there stays
	// in that basin (F = 6283 against 5776 from the start's θ in the same
	// 22 s; continuous SGPR from a random subset 5674 in 30 s).
	cr, err := md.refineFrom(cctx, opts, theta0)
	if md.progress != nil && cr != nil {
		fmt.Fprintf(md.progress, "hybrid: continuous refinement %v %.6g → %.6g after %d evaluations (%s)\n",
			md.obj, res.Objective, cr.Objective, cr.Evals, cr.Stopped)
	}
	if cr == nil || (err != nil && ctx.Err() != nil) {
		// A refinement that failed leaves the CholQR fit; a cancelled one
		// is reported as such.
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("the continuous refinement failed (%v); the model is the CholQR fit", err))
		md.announce(res.Warnings[len(res.Warnings)-1:])
		return res, nil
	}
	res.Elapsed = time.Since(start)
	if cctx.Err() != nil && ctx.Err() == nil {
		cr.Stopped = "time limit" // the refinement's share of the time, not a cancellation
	}
	if cr.Objective < res.Objective {
		md.refined = cr
		res.Refined = cr
		res.Objective = cr.Objective
		res.Params = append([]float64(nil), cr.Params...)
		if cr.Stopped != "converged" && cr.Stopped != "max evaluations" && cctx.Err() == nil {
			w := fmt.Sprintf("the continuous refinement stopped: %s", cr.Stopped)
			res.Warnings = append(res.Warnings, w)
			md.announce([]string{w})
		}
	}
	return res, nil
}
