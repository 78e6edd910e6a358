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

// fitHybrid fits with the hybrid selector, in phases: CholQR's epochs
// (Cao et al. 2013, §3–4) from the fit's starting set (CholQR's forward
// start unless WithInit says otherwise) with hybridShare of the time
// budget (cholqrPhase); then continuous SGPR (Continuous) moves the
// inducing inputs and θ (Titsias 2009) in the rest of it
// (refinementWindow), starting from the k-means centres of the inputs
// (kmeansCentres, in units of the starting lengthscales) or, when the
// refinement has time to converge, from the k-means++ seeds the centres
// grew from (see spreadStartEvals), at the starting hyperparameters θ₀,
// then, while time is left, from the other of the two, from CholQR's set
// and from a random subset (refineStarts). A refinement that ends at a
// local optimum with inputs switched off (lengthscales far beyond the
// data's spread) goes on from where switching one back on lowers F
// (reactivate). The refinement is kept, and used for prediction and
// saving, only if its objective is lower than CholQR's (result); the
// factor, Swap and Value go on describing the CholQR selection.
//
// The refinement starts from the k-means starts, at θ₀, rather than from
// CholQR's fit: at small m the subset-of-data optimum can switch inputs
// off, and moving inducing inputs from there stays in that basin; swaps
// choose points for a subset-of-data model, not a start for inducing
// inputs that are free to move. The k-means centres descend faster than a
// random subset or the forward start's set, and cost less to find.
//
// Continuous inducing inputs can also be the wrong model: on inputs that
// take a few discrete values, with a step in one of them, refinements from
// θ₀ can stall in a basin that switches off the inputs of an interaction
// or fall to the noise-only optimum, far above CholQR. So when no
// refinement is below CholQR's objective after as long as CholQR's phase
// took (at least its share of the budget), the refinements are abandoned,
// CholQR resumes from where its phase ended for the rest of the budget
// (resume, Result.Resumed), and the refinement then starts from CholQR's
// fit (its set and θ), from which it can only go down.
func (md *Model) fitHybrid(r *run) (*Result, error) {
	h, err := md.newHybrid(r)
	if err != nil {
		return nil, err
	}
	if h.res, err = h.cholqrPhase(); err != nil {
		return h.res, err
	}
	cancel, ok := h.refinementWindow()
	defer cancel()
	if !ok {
		h.res.Warnings = append(h.res.Warnings, "the hybrid fit's time budget ended before the continuous refinement")
		md.announce(h.res.Warnings[len(h.res.Warnings)-1:])
		return h.res, nil
	}
	capped := h.refineStarts()
	if err := h.resume(capped); err != nil {
		return h.res, err
	}
	return h.result()
}

// hybrid is the state of a hybrid fit (fitHybrid) shared by its phases.
type hybrid struct {
	md   *Model
	r    *run
	kern hybridKernel
	xv   *kernel.Vectors
	// theta0, v0 and ls0 are the starting hyperparameters, signal
	// variance and lengthscales; centres and seeds the k-means starts.
	theta0, ls0    []float64
	v0             float64
	centres, seeds *kernel.Vectors
	res            *Result // CholQR's fit
	cctx           context.Context
	opts           Continuous    // the refinements' evaluations, jitter and hooks
	probe, left    time.Duration // see refinementWindow
	refineStart    time.Time
	cr             *ContinuousResult // the lowest refinement so far
	from           string            // where cr started
	err            error             // the first refinement's error while none is usable
}

// newHybrid checks that the model can be fitted by the hybrid selector
// and returns the fit's state at the start.
func (md *Model) newHybrid(r *run) (*hybrid, error) {
	kern, ok := md.kern.(hybridKernel)
	if !ok || kernel.Clone(md.kern) == md.kern {
		return nil, errors.New("sgp: the hybrid selector refines inducing inputs continuously, which needs a built-in kernel with lengthscales and input gradients (RBF, Matern or RQ) on vector inputs; use cholqr for other kernels")
	}
	xv, ok := md.x.(*kernel.Vectors)
	if !ok {
		return nil, errors.New("sgp: the hybrid selector needs vector inputs; use cholqr for discrete inputs")
	}
	h := &hybrid{md: md, r: r, kern: kern, xv: xv, theta0: md.Params(), v0: kern.Variance()}
	h.ls0 = append([]float64(nil), kern.Lengthscales()...)
	// As many centres as the starting set has points: fewer than m when
	// the kernel cannot tell m inputs apart.
	h.centres, h.seeds = kmeansCentres(xv, kern.Lengthscales(), len(md.f.Active(nil)), rand.New(rand.NewPCG(md.seed, kmeansStream)))
	return h, nil
}

// cholqrPhase runs CholQR's epochs with hybridShare of the time budget,
// which also stops an epoch midway: an epoch can take longer than the
// share at large m.
func (h *hybrid) cholqrPhase() (*Result, error) {
	r := h.r
	if r.budget > 0 {
		// At least 1ns: a share that rounds to zero would mean no limit.
		r = r.with(func(c *run) {
			c.budget = max(time.Nanosecond, time.Duration(hybridShare*float64(c.budget)))
			c.hardEnd = true
		})
	}
	return h.md.fitSubset(r)
}

// refinementWindow sets the refinements' time: the rest of the budget,
// or without one as long as the CholQR phase took (at least
// hybridMinRefine), so that a hybrid fit costs at most about twice a
// CholQR fit, also at large n where one evaluation costs O(n·m²). The
// refinements are checked against CholQR after probe: as long as CholQR's
// phase took (its forward start included), and at least its share of the
// budget, which a phase that converged early did not use; without a budget
// half the refinements' time. It returns the function that releases the
// refinements' context, and false when no time is left.
func (h *hybrid) refinementWindow() (context.CancelFunc, bool) {
	r := h.r
	h.opts = Continuous{maxEvals: hybridEvals, jitter: hybridJitter * h.v0}
	phase := time.Since(r.start)
	h.probe = max(phase, time.Duration(hybridShare*float64(r.budget)))
	if r.budget <= 0 {
		limit := max(phase, hybridMinRefine)
		h.probe, h.left = limit/2, limit
	} else {
		h.left = r.budget - time.Since(r.start)
		if h.left <= 0 {
			return func() {}, false
		}
		h.opts.maxEvals = 1 << 30
	}
	var cancel context.CancelFunc
	h.cctx, cancel = context.WithTimeout(r.ctx, h.left)
	return cancel, true
}

// startPoint is where a refinement starts: its inducing inputs, and a
// name for the progress lines and Result.RefinedFrom.
type startPoint struct {
	name string
	z    func() *kernel.Vectors
}

// starts returns the refinements' starts in the order they are tried.
// Continuous inducing inputs have local optima, and the one found from
// the centres can be the worse one. A refinement that ended — converged,
// stalled or failed — before its time or evaluations were up leaves time
// for the next start: the other k-means start, CholQR's own set, then a
// random subset of the inputs (continuous SGPR's usual start).
func (h *hybrid) starts() []startPoint {
	md, xv := h.md, h.xv
	k := len(md.f.Active(nil))
	first := startPoint{"the k-means centres", func() *kernel.Vectors { return h.centres }}
	second := startPoint{"the k-means++ seeds", func() *kernel.Vectors { return h.seeds }}
	n, need := md.refinementEvals(h.left, h.opts.maxEvals, h.centres, h.theta0, h.opts.jitter), spreadStartEvals*float64(k*xv.Dim())
	if float64(n) >= need {
		first, second = second, first
	}
	if md.progress != nil {
		limit := fmt.Sprintf("the rest of the time budget, %.3g s", h.left.Seconds())
		if h.r.budget <= 0 {
			limit = fmt.Sprintf("at most %.3g s (no time budget: as long as CholQR's phase took, at least %.3g s)", h.left.Seconds(), hybridMinRefine.Seconds())
		}
		fmt.Fprintf(md.progress, "hybrid: continuous refinement for %s, time for about %d evaluations of O(n·m²) (%.4g·m·d = %.0f needed to start from the seeds): first from %s\n",
			limit, n, spreadStartEvals, need, first.name)
	}
	return []startPoint{
		first, second,
		{"CholQR's set", func() *kernel.Vectors { return xv.Rows(md.f.Active(nil)) }},
		{"a random subset", func() *kernel.Vectors {
			return xv.Rows(rand.New(rand.NewPCG(md.seed, subsetStream)).Perm(xv.Len())[:k])
		}},
	}
}

// refineStarts runs the refinements from each start in turn, keeping the
// lowest; a refinement cut by the time limit counts with the best point
// it reached. They stop at the end of their time, at a refinement that
// used all its evaluations (capped, which it reports) and once abandoned:
// where no refinement is below CholQR's objective after probe, continuous
// inputs can be the wrong model for the data (see fitHybrid).
func (h *hybrid) refineStarts() (capped bool) {
	md := h.md
	starts := h.starts()
	tick := md.ticker()
	h.opts.onEval = func(evals int, best float64) {
		if tick.due() {
			fmt.Fprintf(md.progress, "hybrid: refinement: %d evaluations, lowest %v %.6g, %.0f s of %.3g s\n", evals, h.r.obj, best, tick.elapsed().Seconds(), h.left.Seconds())
		}
	}
	h.refineStart = time.Now()
	h.opts.behind = func(best float64) bool {
		return time.Since(h.refineStart) >= h.probe && !(best < h.res.Objective) && (h.cr == nil || !(h.cr.Objective < h.res.Objective))
	}
	for _, st := range starts {
		c, usable, e, name := h.refine(h.theta0, st.z(), st.name)
		if usable && (h.cr == nil || c.Objective < h.cr.Objective) {
			h.cr, h.from, h.err = c, name, nil
		} else if h.cr == nil && h.err == nil {
			h.err = e
		}
		capped = usable && c.Status == MaxEvaluations
		if h.cctx.Err() != nil || capped || (usable && c.Status == Abandoned) {
			break
		}
	}
	return capped
}

// runOne runs one refinement from theta and z (the model's own where
// nil); usable says whether its result can be kept.
func (h *hybrid) runOne(theta []float64, z *kernel.Vectors) (c *ContinuousResult, usable bool, err error) {
	c, err = h.md.refineFrom(h.cctx, h.opts, theta, z)
	usable = c != nil && (err == nil || (h.cctx.Err() != nil && h.r.ctx.Err() == nil))
	if usable && err != nil {
		c.Status, c.Reason = TimeBudget, "" // the refinement's share of the time, not a cancellation
	}
	return c, usable, err
}

// refine is runOne that reports the refinement and then brings back
// inputs it switched off, where that lowers F (see reactivate); the name
// it returns says which, after name.
func (h *hybrid) refine(theta []float64, z *kernel.Vectors, name string) (c *ContinuousResult, usable bool, err error, named string) {
	c, usable, err = h.runOne(theta, z)
	h.md.reportRefinement(h.r.obj, h.res.Objective, c, name)
	if usable && err == nil && (endedOnItsOwn(c.Status) || c.Status == Abandoned) {
		var on []int
		c, on = h.md.reactivate(h.cctx, h.r.obj, c, h.v0, h.ls0, h.runOne)
		if len(on) > 0 {
			name = fmt.Sprintf("%s, then %s switched back on", name, inputList(on))
		}
	}
	return c, usable, err, name
}

// resume gives the time the refinements left — they were behind CholQR,
// or all ended early (not capped) — to CholQR, from where its phase
// ended, for the rest of the budget (Result.Resumed), then to the
// refinement from CholQR's fit (its set and θ), which can only go down
// from there. It returns the resumed CholQR phase's error.
func (h *hybrid) resume(capped bool) error {
	md, r := h.md, h.r
	behind := h.cr == nil || !(h.cr.Objective < h.res.Objective)
	if r.ctx.Err() != nil || h.cctx.Err() != nil || !(behind || !capped) {
		return nil
	}
	if r.budget > 0 && time.Since(r.start) < r.budget {
		if md.progress != nil {
			why := fmt.Sprintf("the refinements ended with %.3gs left", (r.budget - time.Since(r.start)).Seconds())
			if behind {
				why = fmt.Sprintf("no refinement below CholQR's %v %.6g after %.3gs", r.obj, h.res.Objective, h.probe.Seconds())
			}
			fmt.Fprintf(md.progress, "hybrid: %s; CholQR resumes\n", why)
		}
		more, err := md.fitSubset(r.with(func(c *run) { c.hardEnd = true }))
		if err != nil {
			h.res = more
			return err
		}
		more.Resumed = true
		h.res = more
	}
	if h.cctx.Err() == nil {
		h.opts.behind = nil
		if c, usable, _, name := h.refine(nil, nil, "CholQR's fit"); usable && (h.cr == nil || c.Objective < h.cr.Objective) {
			h.cr, h.from, h.err = c, name, nil
		}
	}
	return nil
}

// result returns the hybrid fit's result: CholQR's, with the lowest
// refinement where it is below CholQR's objective (the model then
// predicts with it), or the warning of a refinement that failed.
func (h *hybrid) result() (*Result, error) {
	md, res, cr, from := h.md, h.res, h.cr, h.from
	if cr == nil || (h.err != nil && h.r.ctx.Err() != nil) {
		// A refinement that failed leaves the CholQR fit; a cancelled one
		// is reported as such.
		if err := h.r.ctx.Err(); err != nil {
			return res, err
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("the continuous refinement failed (%v); the model is the CholQR fit", h.err))
		md.announce(res.Warnings[len(res.Warnings)-1:])
		return res, nil
	}
	res.Elapsed = time.Since(h.r.start)
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
		if w := refinementWarning(cr, stopText(res.Status, res.Reason), h.cctx.Err() != nil); w != "" {
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
// refinement has time to get there. Near the threshold the two starts end
// about equally low, so a decision that tips with the machine's speed
// costs little.
const spreadStartEvals = 2.5

// refinementEvals estimates how many objective-and-gradient evaluations
// a refinement can make in time left, at most maxEvals: it times one
// evaluation (F, ∂F/∂θ and ∂F/∂Z, as Continuous makes them) at the
// inducing inputs z and the log parameters theta.
func (md *Model) refinementEvals(left time.Duration, maxEvals int, z *kernel.Vectors, theta []float64, jitter float64) int {
	ev := md.refinementEvaluator(md.obj, z, jitter)
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
func (md *Model) refinementEvaluator(obj Objective, z *kernel.Vectors, jitter float64) *Evaluator {
	ev := NewEvaluatorInputs(md.x.(*kernel.Vectors), md.y, kernel.Clone(md.kern), obj, z)
	ev.jitter = jitter
	ev.SetMean(md.mean)
	return ev
}

// reportRefinement writes a refinement's outcome to the progress writer.
func (md *Model) reportRefinement(obj Objective, before float64, cr *ContinuousResult, from string) {
	if md.progress != nil && cr != nil {
		fmt.Fprintf(md.progress, "hybrid: continuous refinement from %s: %v %.6g → %.6g after %d evaluations (%s)\n",
			from, obj, before, cr.Objective, cr.Evals, stopText(cr.Status, cr.Reason))
	}
}

// hybridJitter is the refinement's jitter, relative to the starting signal
// variance: K[Z,Z] + jitter·I is the covariance of inducing variables
// observed with that much noise, so F stays a bound on the same model's
// evidence, a little looser. A smaller jitter lets inducing inputs come
// closer, and K[Z,Z]'s worse conditioning slows L-BFGS more than the
// tighter bound gains.
const hybridJitter = 1e-6

// reactivate brings back inputs that the continuous fit cr switched off,
// where that lowers the objective. With ARD lengthscales, an input whose
// lengthscale has grown far beyond the data's range sits on a plateau:
// ∂F/∂log ℓ vanishes there, so no gradient method turns it back on, even
// where the data depend on it: a refinement can converge with such an
// input switched off while F, with its lengthscale set back to a few
// times its start, is far lower before any step.
//
// Where ℓ far exceeds the inputs' spread, an input's part in the kernel
// goes as V/ℓ², so a fit whose signal variance V has grown beyond its
// start v0 switches an input off, and brings it back, at lengthscales
// √(V/v0) times longer. So an input is switched off when its lengthscale is
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
func (md *Model) reactivate(ctx context.Context, obj Objective, cr *ContinuousResult, v0 float64, ls0 []float64,
	run func(theta []float64, z *kernel.Vectors) (*ContinuousResult, bool, error)) (*ContinuousResult, []int) {
	var on []int
	for ctx.Err() == nil {
		ev := md.refinementEvaluator(obj, cr.Z, cr.Jitter)
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
					p.j, math.Exp(cr.Params[1+p.j]), math.Exp(p.theta[1+p.j]), obj, cr.Objective, c.Objective, p.f, c.Evals, stopText(c.Status, c.Reason))
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

// refineFrom runs a refinement: continuous SGPR (Continuous) configured
// as opts (its evaluations, jitter and hooks), for the model's data,
// objective, prior mean and noise floor, from the hyperparameters theta
// (kernel log parameters, then log σ²) and the inducing inputs z0, or
// from the model's own hyperparameters and inducing set where they are
// nil. The model is not changed.
func (md *Model) refineFrom(ctx context.Context, opts Continuous, theta []float64, z0 *kernel.Vectors) (cr *ContinuousResult, err error) {
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
	k2 := kernel.Clone(md.kern)
	if k2 == md.kern {
		return nil, errors.New("sgp: continuous refinement needs a built-in kernel, which it can copy (kernel.Clone)")
	}
	np := k2.NumParams()
	k2.SetParams(theta[:np])
	if z0 == nil {
		z0 = xv.Rows(md.f.Active(nil))
	}
	c := opts
	c.x, c.y, c.kern, c.obj, c.mean, c.noiseFloor = xv, md.y, k2, md.obj, md.mean, md.noiseFloor
	c.WithInducingInputs(z0).WithNoise(math.Exp(theta[np]))
	if c.err != nil {
		return nil, c.err
	}
	return c.FitContext(ctx)
}
