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

// fitHybrid fits with the hybrid selector. Both phases start from the
// inducing set the fit starts with — CholQR's forward start unless
// WithInit says otherwise: greedy selection by exact scores at the
// starting hyperparameters θ₀, built by FitContext — CholQR's epochs (Cao
// et al. 2013, §3–4) run with hybridShare of the time budget, then
// FitContinuous moves the inducing inputs and θ from the forward start's
// set and θ₀ (Titsias 2009) in the rest of it. The refinement is kept,
// and used for prediction and saving, only if its objective is lower than
// CholQR's; the factor, Swap and Value go on describing the CholQR
// selection.
//
// Why the refinement does not start from CholQR's result, measured on
// KIN40K (VAR, 30 s budget, F; continuous SGPR from a random subset:
// 5687 at m = 64, 3079 at m = 256): from CholQR's set and θ 6284 and
// 3276 — at small m the subset-of-data optimum can switch inputs off
// (ℓ₀ ≈ 337 at m = 64) and moving inducing inputs from there stays in
// that basin; from CholQR's set at θ₀ 5730 and 3256; from the forward
// start's set at θ₀ 5700 and 3076. CholQR's swaps at the moved θ, or even
// at θ₀, choose points for a subset-of-data model, a worse start for
// inducing inputs that are free to move than the greedy set.
func (md *Model) fitHybrid(ctx context.Context, start time.Time) (*Result, error) {
	if _, ok := md.kern.(*RBF); !ok {
		return nil, errors.New("sgp: the hybrid selector refines inducing inputs continuously, which needs the RBF kernel on vector inputs; use cholqr for other kernels")
	}
	if _, ok := md.x.(*Vectors); !ok {
		return nil, errors.New("sgp: the hybrid selector needs vector inputs; use cholqr for discrete inputs")
	}
	startSet := md.f.Active(nil)
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
	cr, err := md.refineFrom(cctx, opts, theta0, startSet)
	md.reportRefinement(res.Objective, cr, "the starting set")
	// Continuous inducing inputs have local optima, and on small problems
	// the starting set's can be the worse one (SnelsonLike(200), m = 10:
	// 100.7 from the forward start, 85.2 from CholQR's set). A refinement
	// that converged before its time was up leaves time to refine from
	// CholQR's own set as well; the lower objective is kept.
	if err == nil && cr != nil && cr.Stopped == "converged" && cctx.Err() == nil {
		if set := md.f.Active(nil); !sameSet(set, startSet) {
			cr2, err2 := md.refineFrom(cctx, opts, theta0, set)
			md.reportRefinement(res.Objective, cr2, "CholQR's set")
			if err2 == nil && cr2 != nil && cr2.Objective < cr.Objective {
				cr = cr2
			}
		}
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

// reportRefinement writes a refinement's outcome to the progress writer.
func (md *Model) reportRefinement(before float64, cr *ContinuousResult, from string) {
	if md.progress != nil && cr != nil {
		fmt.Fprintf(md.progress, "hybrid: continuous refinement from %s: %v %.6g → %.6g after %d evaluations (%s)\n",
			from, md.obj, before, cr.Objective, cr.Evals, cr.Stopped)
	}
}

// sameSet reports whether a and b hold the same indices in any order.
func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	in := make(map[int]bool, len(a))
	for _, i := range a {
		in[i] = true
	}
	for _, i := range b {
		if !in[i] {
			return false
		}
	}
	return true
}
