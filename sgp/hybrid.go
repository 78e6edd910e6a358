package sgp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cholqr/sgp/sgp/kernel"
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

// hybridKernel is what the hybrid selector needs of a kernel: its
// lengthscales, to place the k-means centres and to find inputs switched
// off, and its input gradient, to move the inducing inputs.
type hybridKernel interface {
	kernel.Lengthscaled
	kernel.InputGradient
}

// fitHybrid fits with the hybrid selector: CholQR's epochs (Cao et al.
// 2013, §3–4) from the fit's starting set (CholQR's forward start unless
// WithInit says otherwise) with hybridShare of the time budget, then
// FitContinuous moves the inducing inputs and θ (Titsias 2009) in the rest
// of it, starting from the k-means centres of the inputs (kmeansCentres,
// in units of the starting lengthscales) or, when the refinement has time
// to converge, from the k-means++ seeds the centres grew from (see
// spreadStartEvals), at the starting hyperparameters θ₀ (then, while time
// is left, from the other of the two, from CholQR's set and from a random
// subset; see below). A refinement that ends at a local optimum with
// inputs switched off (lengthscales far beyond the data's spread) goes on
// from where switching one back on lowers F (reactivate). The refinement
// is kept, and used for prediction and saving, only if its objective is
// lower than CholQR's; the factor, Swap and Value go on describing the
// CholQR selection.
//
// Why the refinement starts from the k-means starts: measured on KIN40K (VAR,
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
// are free to move. Given time to converge, the seeds the centres grew
// from end lower than the centres (spreadStartEvals); greedy conditional
// variance at θ₀ (the greedy-variance selector's set) ended at 6909.9 at
// m = 64, in a basin that switches an input off.
//
// Continuous inducing inputs can also be the wrong model: on a 26-input
// set whose last 16 inputs take five values, with a step in one of them
// (n = 10⁴, m = 128, 60 s), every refinement from θ₀ stalled at F = 4198
// within 50 evaluations (a basin that switches off the inputs of an
// interaction) or fell to the noise-only optimum, while CholQR alone
// reached −7894 — and the hybrid, with a tenth of the budget for CholQR,
// kept −3311. So when no refinement is below CholQR's objective after as
// long as CholQR's phase took (at least its tenth of the budget), the
// refinements are abandoned, CholQR resumes from where its phase ended
// for the rest of the budget (Result.Resumed), and the refinement then
// starts from CholQR's fit (its set and θ), from which it can only go
// down: there −8092 and −3867 against CholQR's −7894 and −3849 (seeds 1,
// 2). On KIN40K and kin8nm the
// refinement is far ahead by then (KIN40K, 30 s, after 3 s: 5790 against
// CholQR's 8426 at m = 64, 3617 against 5339 at m = 256), so nothing
// changes there.
func (md *Model) fitHybrid(ctx context.Context, start time.Time) (*Result, error) {
	kern, ok := md.kern.(hybridKernel)
	if !ok || kernel.Clone(md.kern) == md.kern {
		return nil, errors.New("sgp: the hybrid selector refines inducing inputs continuously, which needs a built-in kernel with lengthscales and input gradients (RBF, Matern or RQ) on vector inputs; use cholqr for other kernels")
	}
	xv, ok := md.x.(*kernel.Vectors)
	if !ok {
		return nil, errors.New("sgp: the hybrid selector needs vector inputs; use cholqr for discrete inputs")
	}
	theta0, v0 := md.Params(), kern.Variance()
	ls0 := append([]float64(nil), kern.Lengthscales()...)
	// As many centres as the starting set has points: fewer than m when
	// the kernel cannot tell m inputs apart.
	centres, seeds := kmeansCentres(xv, kern.Lengthscales(), len(md.f.Active(nil)), rand.New(rand.NewPCG(md.seed, kmeansStream)))
	budget := md.budget
	defer func() { md.budget, md.hardEnd = budget, false }() // also when a kernel panics
	if budget > 0 {
		// At least 1ns: a share that rounds to zero would mean no limit.
		md.budget = max(time.Nanosecond, time.Duration(hybridShare*float64(budget)))
		md.hardEnd = true // not "at least one epoch": 3 s at m = 256 on KIN40K
	}
	res, err := md.fitSubset(ctx, start)
	md.budget, md.hardEnd = budget, false
	if err != nil {
		return res, err
	}
	cctx, opts := ctx, ContinuousOptions{MaxEvals: hybridEvals}
	var left time.Duration // the refinements' time
	// The refinements are checked against CholQR after probe: as long as
	// CholQR's phase took (its forward start included), and at least its
	// share of the budget, which a phase that converged early did not use.
	phase := time.Since(start)
	probe := max(phase, time.Duration(hybridShare*float64(budget)))
	if budget <= 0 {
		// Without a budget the refinement may take as long as the CholQR
		// phase did (at least hybridMinRefine): a hybrid fit costs at most
		// about twice a CholQR fit, also at large n where one evaluation
		// costs O(n·m²).
		limit := max(phase, hybridMinRefine)
		probe, left = limit/2, limit
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	} else {
		left = budget - time.Since(start)
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
	// up leaves time for the next start: the other k-means start, CholQR's
	// own set, then a random subset of the inputs (continuous SGPR's usual
	// start). The lowest objective is kept; a refinement cut by the time
	// limit counts with the best point it reached.
	k := len(md.f.Active(nil))
	type startPoint struct {
		name string
		z    func() *kernel.Vectors
	}
	first := startPoint{"the k-means centres", func() *kernel.Vectors { return centres }}
	second := startPoint{"the k-means++ seeds", func() *kernel.Vectors { return seeds }}
	n, need := md.refinementEvals(left, opts.MaxEvals, centres, theta0, opts.Jitter), spreadStartEvals*float64(k*xv.Dim())
	if float64(n) >= need {
		first, second = second, first
	}
	if md.progress != nil {
		limit := fmt.Sprintf("the rest of the time budget, %.3g s", left.Seconds())
		if budget <= 0 {
			limit = fmt.Sprintf("at most %.3g s (no time budget: as long as CholQR's phase took, at least %.3g s)", left.Seconds(), hybridMinRefine.Seconds())
		}
		fmt.Fprintf(md.progress, "hybrid: continuous refinement for %s, time for about %d evaluations of O(n·m²) (%.4g·m·d = %.0f needed to start from the seeds): first from %s\n",
			limit, n, spreadStartEvals, need, first.name)
	}
	tick := md.ticker()
	opts.onEval = func(evals int, best float64) {
		if tick.due() {
			fmt.Fprintf(md.progress, "hybrid: refinement: %d evaluations, lowest %v %.6g, %.0f s of %.3g s\n", evals, md.obj, best, tick.elapsed().Seconds(), left.Seconds())
		}
	}
	starts := []startPoint{
		first, second,
		{"CholQR's set", func() *kernel.Vectors { return xv.Rows(md.f.Active(nil)) }},
		{"a random subset", func() *kernel.Vectors {
			return xv.Rows(rand.New(rand.NewPCG(md.seed, subsetStream)).Perm(xv.Len())[:k])
		}},
	}
	var (
		cr   *ContinuousResult
		from string
	)
	// Where no refinement is below CholQR's objective after probe (half
	// the refinement's time without a budget), they are abandoned:
	// continuous inputs can be the wrong model for the data (see
	// fitHybrid's comment).
	refineStart := time.Now()
	opts.behind = func(best float64) bool {
		return time.Since(refineStart) >= probe && !(best < res.Objective) && (cr == nil || !(cr.Objective < res.Objective))
	}
	// refine runs one refinement from theta and z (the model's own where
	// nil) and reports it; usable says whether its result can be kept.
	run := func(theta []float64, z *kernel.Vectors) (c *ContinuousResult, usable bool, e error) {
		c, e = md.refineFrom(cctx, opts, theta, z)
		usable = c != nil && (e == nil || (cctx.Err() != nil && ctx.Err() == nil))
		if usable && e != nil {
			c.Status, c.Reason = TimeBudget, "" // the refinement's share of the time, not a cancellation
		}
		return c, usable, e
	}
	// refine also brings back inputs the refinement switched off, where
	// that lowers F (see reactivate); name says which, after it.
	refine := func(theta []float64, z *kernel.Vectors, name string) (c *ContinuousResult, usable bool, e error, named string) {
		c, usable, e = run(theta, z)
		md.reportRefinement(res.Objective, c, name)
		if usable && e == nil && (endedOnItsOwn(c.Status) || c.Status == Abandoned) {
			var on []int
			c, on = md.reactivate(cctx, c, v0, ls0, run)
			if len(on) > 0 {
				name = fmt.Sprintf("%s, then %s switched back on", name, inputList(on))
			}
		}
		return c, usable, e, name
	}
	err = nil
	capped := false // a refinement used all its evaluations (no budget)
	for _, st := range starts {
		c, usable, e, name := refine(theta0, st.z(), st.name)
		if usable && (cr == nil || c.Objective < cr.Objective) {
			cr, from, err = c, name, nil
		} else if cr == nil && err == nil {
			err = e
		}
		capped = usable && c.Status == MaxEvaluations
		if cctx.Err() != nil || capped || (usable && c.Status == Abandoned) {
			break
		}
	}
	// Time left — the refinements were behind CholQR, or all ended early —
	// goes to CholQR, from where its phase ended, then to the refinement
	// from CholQR's fit (its set and θ), which can only go down from there.
	// On SyntheticDiscrete (n = 5000, m = 64, 30 s) the refinement from the
	// centres was a little ahead of CholQR's phase and converged at 3243.1
	// after 17 s, where CholQR alone reached 3241.7–3242.9; resumed and
	// refined, 3239.8 (measured before CholQR's fits switched inputs back
	// on, switchBackSubset; CholQR alone now ends near 2088 there).
	behind := cr == nil || !(cr.Objective < res.Objective)
	if ctx.Err() == nil && cctx.Err() == nil && (behind || !capped) {
		if budget > 0 && time.Since(start) < budget {
			if md.progress != nil {
				why := fmt.Sprintf("the refinements ended with %.3gs left", (budget - time.Since(start)).Seconds())
				if behind {
					why = fmt.Sprintf("no refinement below CholQR's %v %.6g after %.3gs", md.obj, res.Objective, probe.Seconds())
				}
				fmt.Fprintf(md.progress, "hybrid: %s; CholQR resumes\n", why)
			}
			md.budget, md.hardEnd = budget, true
			more, e := md.fitSubset(ctx, start)
			md.budget, md.hardEnd = budget, false
			if e != nil {
				return more, e
			}
			more.Resumed = true
			res = more
		}
		if cctx.Err() == nil {
			opts.behind = nil
			if c, usable, _, name := refine(nil, nil, "CholQR's fit"); usable && (cr == nil || c.Objective < cr.Objective) {
				cr, from, err = c, name, nil
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
	if cr.Objective < res.Objective {
		md.refined, md.from = cr, from
		res.Refined, res.RefinedFrom = cr, from
		res.Objective = cr.Objective
		res.Params = append([]float64(nil), cr.Params...)
		res.Mean = cr.Mean
		// The CholQR phase's "best state reached" is not the model the
		// predictions use: say which one is.
		for i, w := range res.Warnings {
			if w == notConverged(stopText(res.Status, res.Reason)) {
				res.Warnings[i] = fmt.Sprintf("CholQR's phase did not converge (%s); the predictions use the continuous refinement from %s (%s)", stopText(res.Status, res.Reason), from, stopText(cr.Status, cr.Reason))
			}
		}
		if w := refinementWarning(cr, stopText(res.Status, res.Reason), cctx.Err() != nil); w != "" {
			res.Warnings = append(res.Warnings, w)
			md.announce([]string{w})
		}
	}
	return res, nil
}

// refinementWarning returns the warning for a kept refinement cr that
// ended on neither of its normal stops, or "". Converged, out of
// evaluations, cut by its time (timeUp) and stalled endings get none: a
// stalled refinement ended where no step lowers the objective at its
// precision, a local optimum like a converged one (its Status says so),
// and the model uses it because its objective is below CholQR's. Any
// other ending is an optimiser failure, said with what to do.
func refinementWarning(cr *ContinuousResult, cholqrStopped string, timeUp bool) string {
	if cr == nil || timeUp || cr.Status == Converged || cr.Status == MaxEvaluations || cr.Status == Stalled {
		return ""
	}
	return fmt.Sprintf("the continuous refinement ended on an optimiser failure (%s); the predictions use the best point it reached, whose objective %.6g is below CholQR's (which %s); if the predictions look poor, compare with the CholQR fit alone (WithSelector(SelectCholQR), sgprepl fit --selector cholqr)",
		stopText(cr.Status, cr.Reason), cr.Objective, cholqrStopped)
}

// spreadStartEvals decides which of the two k-means starts the hybrid's
// refinement tries first: the k-means++ seeds when its time allows at
// least spreadStartEvals·m·d evaluations (refinementEvals), the k-means
// centres otherwise. The centres descend faster; the seeds, data points
// spread over the inputs' extent, can end in lower optima where the
// refinement has time to get there. Measured on KIN40K (VAR, at θ₀, 27 s,
// the hybrid's refinement time in a 30 s budget): at m = 256, where 27 s
// allow about 450 evaluations (0.2·m·d), the centres reached 2988.1
// (median of seeds 1–5), the seeds 2996.6 and a random subset 2999.1; at
// m = 128 (about 1150 evaluations, 1.1·m·d) the centres 4384.6 and the
// seeds 4389.9 (seeds 1–4); at m = 64 (about 2500 evaluations, 4.9·m·d,
// most of them converged or stalled) the seeds 5668.8 (median of seeds
// 6–15), a random subset 5671.0 and the centres 5678.4 — from the
// centres, seeds 7 and 15 both ended at 5679.64, and seeds 2, 10 and 14
// of 1–15 at 5684.5–5684.6.
// On kin8nm (m = 64, all converged in 8–20 s) the three were within noise
// (medians −5903.5, −5904.2, −5902.6, seeds 1–6). The threshold lies
// between the measured points; near it the two starts end about equally
// low, so a decision that tips with the machine's speed costs little.
const spreadStartEvals = 2.5

// refinementEvals estimates how many objective-and-gradient evaluations
// a refinement can make in time left, at most maxEvals: it times one
// evaluation (F, ∂F/∂θ and ∂F/∂Z, as FitContinuous makes them) at the
// inducing inputs z and the log parameters theta.
func (md *Model) refinementEvals(left time.Duration, maxEvals int, z *kernel.Vectors, theta []float64, jitter float64) int {
	ev := md.refinementEvaluator(z, jitter)
	t := time.Now()
	if _, err := ev.FuncGrad(make([]float64, len(theta)), theta); err == nil {
		ev.zGrad(make([]float64, z.Len()*z.Dim()))
	}
	per := max(time.Since(t), time.Microsecond)
	return int(min(float64(maxEvals), float64(left)/float64(per)))
}

// refinementEvaluator returns an evaluator of the refinement's objective
// at inducing inputs z: the model's inputs, targets, objective and prior
// mean, a copy of the model's kernel (its hyperparameters set by each
// evaluation's θ), and jitter on K[Z,Z] (see hybridJitter).
func (md *Model) refinementEvaluator(z *kernel.Vectors, jitter float64) *Evaluator {
	ev := NewEvaluatorInputs(md.x.(*kernel.Vectors), md.y, kernel.Clone(md.kern), md.obj, z)
	ev.jitter = jitter
	ev.SetMean(md.mean)
	return ev
}

// reportRefinement writes a refinement's outcome to the progress writer.
func (md *Model) reportRefinement(before float64, cr *ContinuousResult, from string) {
	if md.progress != nil && cr != nil {
		fmt.Fprintf(md.progress, "hybrid: continuous refinement from %s: %v %.6g → %.6g after %d evaluations (%s)\n",
			from, md.obj, before, cr.Objective, cr.Evals, stopText(cr.Status, cr.Reason))
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

// reactivate brings back inputs that the continuous fit cr switched off,
// where that lowers the objective. With ARD lengthscales, an input whose
// lengthscale has grown far beyond the data's range sits on a plateau:
// ∂F/∂log ℓ vanishes there, so no gradient method turns it back on, even
// where the data depend on it. On SyntheticDiscrete (n = 5000, m = 64,
// seed 1) the refinement from the k-means centres converged at F = 3243.1
// with ℓ ≈ 6·10⁴ on input 10, which carries ½cos(2x₁₀); with ℓ₁₀ set back
// to three times its start, F was 817 lower before any step, and 20
// evaluations later 1151 lower (test SMSE 0.255 → 0.161).
//
// Where ℓ far exceeds the inputs' spread, an input's part in the kernel
// goes as V/ℓ², so a fit whose signal variance V has grown beyond its
// start v0 switches an input off, and brings it back, at lengthscales
// √(V/v0) times longer: on SyntheticDiscrete with n = 1000 and m = 32
// (seed 2), CholQR's fit had V = 3750 from v0 = 0.8, and input 10 at the
// start's lengthscales raised F at every multiple, where √(V/v0) times
// them lowered it. So an input is switched off when its lengthscale is
// above offFactor·√(max(1, V/v0)) times its start ls0, and each round
// evaluates F once for every such input at each multiple in
// reactivateMults of its start times that factor (the rest of θ and Z as
// cr left them), then refines with run from the lowest such
// point that is below cr's objective, trying the next one if that does
// not end lower; a refinement that ends lower is kept and the round
// repeats from it. Inputs on which the target does not depend raise F at
// every multiple and are not tried; an interaction of two switched-off
// inputs with no main effect is not found (each alone raises F). It stops
// when no point is lower, or when ctx ends. It returns the fit, with the
// evaluations and time of every refinement it kept added to cr's, and the
// inputs switched back on, in order.
func (md *Model) reactivate(ctx context.Context, cr *ContinuousResult, v0 float64, ls0 []float64,
	run func(theta []float64, z *kernel.Vectors) (*ContinuousResult, bool, error)) (*ContinuousResult, []int) {
	var on []int
	for ctx.Err() == nil {
		ev := md.refinementEvaluator(cr.Z, cr.Jitter)
		var pts []switchOn
		for _, p := range switchOnCandidates(cr.Params, v0, ls0) {
			if f, err := ev.FuncGrad(nil, p.theta); err == nil && f < cr.Objective {
				p.f = f
				pts = append(pts, p)
			}
			if ctx.Err() != nil {
				return cr, on
			}
		}
		sort.SliceStable(pts, func(a, b int) bool { return pts[a].f < pts[b].f })
		kept := false
		for i, p := range pts {
			if slices.ContainsFunc(pts[:i], func(q switchOn) bool { return q.j == p.j }) {
				continue // the input's best multiple was tried
			}
			c, usable, _ := run(p.theta, cr.Z)
			if md.progress != nil && c != nil {
				fmt.Fprintf(md.progress, "hybrid: lengthscale[%d] %.3g → %.3g: %v %.6g → %.6g (%.6g before any step) after %d evaluations (%s)\n",
					p.j, math.Exp(cr.Params[1+p.j]), math.Exp(p.theta[1+p.j]), md.obj, cr.Objective, c.Objective, p.f, c.Evals, stopText(c.Status, c.Reason))
			}
			if usable && c.Objective < cr.Objective {
				c.Start, c.Evals, c.Restarts = cr.Start, cr.Evals+c.Evals, cr.Restarts+c.Restarts
				c.Elapsed += cr.Elapsed
				cr, kept = c, true
				on = append(on, p.j)
				break
			}
			if ctx.Err() != nil {
				return cr, on
			}
		}
		if !kept || !endedOnItsOwn(cr.Status) {
			return cr, on
		}
	}
	return cr, on
}

// inputList names the inputs js as "lengthscale[3]" or "lengthscales[3,
// 10]".
func inputList(js []int) string {
	if len(js) == 1 {
		return fmt.Sprintf("lengthscale[%d]", js[0])
	}
	s := make([]string, len(js))
	for i, j := range js {
		s[i] = strconv.Itoa(j)
	}
	return "lengthscales[" + strings.Join(s, ", ") + "]"
}

// RefineContinuous starts FitContinuous from the model's inducing points
// and hyperparameters (an RBF kernel on vector inputs): CholQR's selection
// as the initialisation of the continuous optimisation. The model itself
// is not changed.
func (md *Model) RefineContinuous(ctx context.Context, opts ContinuousOptions) (cr *ContinuousResult, err error) {
	return md.refineFrom(ctx, opts, nil, nil)
}

// refineFrom is RefineContinuous from the hyperparameters theta (kernel
// log parameters, then log σ²) and the inducing inputs z0, or from the
// model's own hyperparameters and inducing set where they are nil.
func (md *Model) refineFrom(ctx context.Context, opts ContinuousOptions, theta []float64, z0 *kernel.Vectors) (cr *ContinuousResult, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return nil, err
	}
	_, ok := md.kern.(kernel.InputGradient)
	xv, ok2 := md.x.(*kernel.Vectors)
	if !ok || !ok2 {
		return nil, errors.New("sgp: continuous refinement needs vector inputs and a kernel with input gradients (kernel.InputGradient: RBF, Matern, RQ, Periodic, Linear, Const)")
	}
	if theta == nil {
		theta = md.Params()
	}
	// A copy, so that the model's kernel keeps its hyperparameters.
	k2, ok := kernel.Clone(md.kern).(kernel.InputGradient)
	if !ok || k2 == md.kern {
		return nil, errors.New("sgp: continuous refinement needs a built-in kernel, which it can copy (kernel.Clone)")
	}
	np := k2.NumParams()
	k2.SetParams(theta[:np])
	if z0 == nil {
		z0 = xv.Rows(md.f.Active(nil))
	}
	opts.Mean = md.mean
	if opts.NoiseFloor == 0 {
		opts.NoiseFloor = md.noiseFloor
	}
	return FitContinuous(ctx, xv, md.y, k2, z0, math.Exp(theta[np]), md.obj, opts)
}
