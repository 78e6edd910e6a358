package sgp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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

// kmeansStream is the second word of the seed of the k-means start's
// random stream, apart from the fit's own so that the hybrid's CholQR
// phase makes the same draws as a CholQR fit with the same seed.
const kmeansStream = 0x6b6d65616e73

// subsetStream is the second word of the seed of the random subset the
// hybrid's third refinement starts from.
const subsetStream = 0x737562736574

// Refined returns the continuous refinement a hybrid fit (SelectHybrid)
// predicts with, or nil: for other selectors, when the refinement did not
// lower the objective, and after any later change to the model (Swap,
// Step, SetParams, another Fit).
func (md *Model) Refined() *ContinuousResult { return md.refined }

// fitHybrid fits with the hybrid selector: CholQR's epochs (Cao et al.
// 2013, §3–4) from the fit's starting set (CholQR's forward start unless
// WithInit says otherwise) with hybridShare of the time budget, then
// FitContinuous moves the inducing inputs and θ (Titsias 2009) in the rest
// of it, starting from the k-means centres of the inputs (kmeansCentres,
// in units of the starting lengthscales) and the starting hyperparameters
// θ₀ (then, while time is left, from CholQR's set and from a random
// subset; see below). The refinement is kept, and used for prediction and
// saving, only if its objective is lower than CholQR's; the factor, Swap
// and Value go on describing the CholQR selection.
//
// Why the refinement starts from the centres: measured on KIN40K (VAR,
// FitContinuous from θ₀, F after a fixed number of evaluations, medians of
// 3 seeds; 1500 evaluations at m = 64, 250 at m = 256), the k-means
// centres reached 5700.4 and 3107.4, a random subset 5702.0 and 3142.1
// and the forward start's set 5712.7 and 3122.3 (the centres were ahead of
// the random subset on every seed at m = 256, and cost 0.19 s against the
// forward start's 1.9 s). Earlier, with a 30 s budget, CholQR's set and θ
// reached 6284 and 3276 — at small m the subset-of-data optimum can switch
// inputs off (ℓ₀ ≈ 337 at m = 64) and moving inducing inputs from there
// stays in that basin — and CholQR's set at θ₀ 5730 and 3256: swaps choose
// points for a subset-of-data model, not a start for inducing inputs that
// are free to move.
func (md *Model) fitHybrid(ctx context.Context, start time.Time) (*Result, error) {
	kern, ok := md.kern.(*RBF)
	if !ok {
		return nil, errors.New("sgp: the hybrid selector refines inducing inputs continuously, which needs the RBF kernel on vector inputs; use cholqr for other kernels")
	}
	xv, ok := md.x.(*Vectors)
	if !ok {
		return nil, errors.New("sgp: the hybrid selector needs vector inputs; use cholqr for discrete inputs")
	}
	theta0, v0 := md.Params(), kern.Variance()
	// As many centres as the starting set has points: fewer than m when
	// the kernel cannot tell m inputs apart.
	centres := kmeansCentres(xv, kern.Lengthscales(), len(md.f.Active(nil)), rand.New(rand.NewPCG(md.seed, kmeansStream)))
	budget := md.budget
	defer func() { md.budget, md.hardEnd = budget, false }() // also when a kernel panics
	if budget > 0 {
		md.budget = time.Duration(hybridShare * float64(budget))
		md.hardEnd = true // not "at least one epoch": 3 s at m = 256 on KIN40K
	}
	res, err := md.fitSubset(ctx, start)
	md.budget, md.hardEnd = budget, false
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
	// The jitter keeps K[Z,Z] factorable when inducing inputs meet; see
	// hybridJitter.
	opts.Jitter = hybridJitter * v0
	// Continuous inducing inputs have local optima, and the one found from
	// the centres can be the worse one (SnelsonLike(200), m = 10: 100.7 from
	// the forward start's set, 85.2 from CholQR's). A refinement that ended
	// — converged, stalled or failed — before its time or evaluations were
	// up leaves time for the next start: CholQR's own set, then a random
	// subset of the inputs (continuous SGPR's usual start). The lowest
	// objective is kept; a refinement cut by the time limit counts with the
	// best point it reached.
	k := len(md.f.Active(nil))
	starts := []struct {
		name string
		z    func() *Vectors
	}{
		{"the k-means centres", func() *Vectors { return centres }},
		{"CholQR's set", func() *Vectors { return xv.Rows(md.f.Active(nil)) }},
		{"a random subset", func() *Vectors {
			return xv.Rows(rand.New(rand.NewPCG(md.seed, subsetStream)).Perm(xv.Len())[:k])
		}},
	}
	var cr *ContinuousResult
	err = nil
	for _, st := range starts {
		c, e := md.refineFrom(cctx, opts, theta0, st.z())
		md.reportRefinement(res.Objective, c, st.name)
		usable := c != nil && (e == nil || (cctx.Err() != nil && ctx.Err() == nil))
		if usable && e != nil {
			c.Stopped = "time limit" // the refinement's share of the time, not a cancellation
		}
		if usable && (cr == nil || c.Objective < cr.Objective) {
			cr, err = c, nil
		} else if cr == nil && err == nil {
			err = e
		}
		if cctx.Err() != nil || (usable && c.Stopped == "max evaluations") {
			break
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

// hybridJitter is the refinement's jitter, relative to the starting signal
// variance: K[Z,Z] + jitter·I is the covariance of inducing variables
// observed with that much noise, so F stays a bound on the same model's
// evidence, a little looser. Measured on KIN40K (VAR, from the k-means
// centres at θ₀, 27 s, seeds 1–3), 1e-6 against 1e-8: F 5668.9, 5673.9,
// 5668.4 against 5676.4, 5683.5, 5668.3 at m = 64 (two of the 1e-6 fits
// converged in about 2760 evaluations, none of the 1e-8 fits in 3400), and
// 2990.5, 2981.8, 2981.6 against 2993.3, 2992.4, 2982.0 at m = 256: a
// smaller jitter lets inducing inputs come closer, and K[Z,Z]'s worse
// conditioning slows L-BFGS more than the tighter bound gains. On
// TestHybridNoWorseThanParents's small sets, which converge either way,
// the looser bound costs 0.01 nats (ARD, 6 inputs: −42.585 against −42.598).
const hybridJitter = 1e-6
