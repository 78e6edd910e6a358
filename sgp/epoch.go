package sgp

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// epochStep runs one epoch of r's objective (Cao et al. 2013, §4): the
// continuous phase, then a discrete pass of k swaps (WithSwapsPerEpoch)
// visiting the inducing points not visited for longest, from the last
// position in the factor to the first, with a random information-pivot
// refresh after every fifth swap and a greedy one at the end. The
// objective never increases across the discrete pass.
//
// k swaps cost O(n·k·(k+z)), the order of one gradient evaluation, so the
// two phases take comparable time at every n and m.
func (md *Model) epochStep(r *run) (EpochRecord, error) {
	if err := r.stopErr(); err != nil {
		return EpochRecord{}, err
	}
	start := time.Now()
	md.refined = nil
	rec := EpochRecord{Epoch: md.epoch + 1, Kind: r.obj}
	if md.epoch > 0 {
		rec.Scored = md.reselect(r.obj) // baselines that re-select each epoch
	}
	if !r.fixHyper {
		cg, err := md.continuous(r)
		rec.CGEvals, rec.Drift, rec.CGObjective, rec.CGStatus, rec.CGGradient = cg.evals, cg.drift, cg.value, cg.status, cg.grad
		if err != nil {
			return rec, err
		}
	} else {
		rec.CGObjective = md.f.Value(r.obj)
		rec.CGStatus = CGSkipped
	}
	rec.Grown = md.grow(r.obj)
	if rec.Grown > 0 {
		md.profile()
	}
	swaps := md.swaps
	if swaps == 0 {
		swaps = md.f.NumActive()
	}
	if md.selector.kind != selCholQR && md.selector.kind != selHybrid { // the hybrid's first phase is CholQR
		swaps = 0
	}
	order := md.visitOrder(swaps)
	swapStart := time.Now()
	var err error
	rec.Swaps, rec.Accepted, err = swapPass(md.f, order, r.obj, md.rng, md.visits, r.stopErr, md.profile, func(res SwapResult) {
		if res.Accepted {
			r.report(res.After)
		}
	})
	rec.SwapTime = time.Since(swapStart)
	if err != nil {
		return rec, err
	}
	md.epoch++
	rec.Parts = md.f.Parts()
	rec.Objective = rec.Parts.Value(r.obj)
	rec.Params = md.Params()
	rec.Mean = md.f.Mean()
	rec.Elapsed = time.Since(start)
	if len(md.trace) > 0 {
		rec.Total = md.trace[len(md.trace)-1].Total
	}
	rec.Total += rec.Elapsed
	md.trace = append(md.trace, rec)
	r.report(rec.Objective)
	if md.progress != nil {
		fmt.Fprintf(md.progress, "epoch %3d  %v %.6g  (after CG %.6g; data %.4g, complexity %.4g, trace %.4g)  swaps %d/%d  CG %d evals (%s)  %.2fs (swaps %.2fs)\n",
			rec.Epoch, r.obj, rec.Objective, rec.CGObjective, rec.Parts.DataFit, rec.Parts.Complexity, rec.Parts.Trace,
			rec.Accepted, rec.Swaps, rec.CGEvals, rec.CGStatus, rec.Elapsed.Seconds(), rec.SwapTime.Seconds())
	}
	if md.onEpoch != nil {
		md.onEpoch(rec)
	}
	return rec, nil
}

// cgBudget returns the number of function evaluations of one continuous
// phase: min(20, max(15, 2·#θ)) unless set.
func (md *Model) cgBudget() int {
	if md.cgEvals > 0 {
		return md.cgEvals
	}
	return min(20, max(15, 2*(md.kern.NumParams()+1)))
}

// cgOutcome summarises a continuous phase.
type cgOutcome struct {
	evals  int
	drift  float64 // relative difference of the updated factor and a fresh evaluation at the start
	value  float64 // the objective at the end of the phase
	status CGStop
	grad   float64 // max |∂F/∂θ| at the end point
}

// continuous runs Polak–Ribière CG on θ with the inducing set fixed and
// moves to the best point seen, which is never worse than the start: it
// sets the problem up on the factor's storage (cgSetup), runs the
// optimiser (cgProblem.minimize), reads how it ended (cgProblem.status),
// and rebuilds the factor at the best point (settle).
func (md *Model) continuous(r *run) (cgOutcome, error) {
	active := md.f.Active(nil)
	np := md.kern.NumParams()
	theta0 := md.Params()
	before := md.f.Value(r.obj)
	// Until the rebuild at the end the factor is invalid (see cgSetup);
	// should the phase end early by a panic (a kernel or an interrupt
	// function failing), the model is stale, at θ0: its next use
	// refactorises (Model.build).
	md.stale = true
	defer func() {
		if md.stale {
			md.kern.SetParams(theta0[:np])
			md.setLogNoise(theta0[np])
		}
	}()
	p, x0 := md.cgSetup(r, active, theta0)
	res, optErr := p.minimize(x0)
	out := cgOutcome{evals: p.evals, status: p.status(res, optErr, r.stopErr() != nil)}
	// start is the fresh value at the start where there is one, not the
	// updated one, which carries the drift.
	start := before
	if p.startValid() {
		start = p.firstF
		out.drift = math.Abs(p.firstF-before) / math.Max(1, math.Abs(p.firstF))
		md.f.RecordDrift(out.drift)
	}
	best := theta0
	switch {
	case p.bestF < math.Inf(1) && p.bestF <= start:
		if !slices.Equal(p.best, x0) {
			best = p.nm.toTheta(make([]float64, np+1), p.best)
		}
		out.grad = maxAbs(p.bestG)
	case p.startValid():
		out.grad = maxAbs(p.bestG)
	default:
		out.grad = math.Inf(1)
	}
	if md.settle(r.obj, active, theta0, best, start) {
		out.status = CGUndone
	}
	// A phase that went back to its start stays counted even where the
	// rebuild there reads a little below the Evaluator's value at the
	// start (rounding, relative 1e-9 at F ≈ 10⁸).
	if out.status != CGUndone && md.f.Value(r.obj) < start-1e-9*md.f.ValueScale(start) {
		md.undone = 0
	}
	md.stale = false
	out.value = md.f.Value(r.obj)
	if err := r.stopErr(); err != nil {
		return out, err
	}
	return out, nil
}

// cgSetup returns the gradient phase's problem for the inducing set
// active at theta0, and its starting point in the optimiser's
// coordinates. The factor is rebuilt from scratch at the end of the phase
// (settle), so meanwhile the Evaluator keeps Gᵀ = L⁻¹K_mn in G's storage
// and K_mn in Q's instead of allocating two more n×m matrices: a fit
// peaks at about G + Q, and the row blocks of the gradient read their
// kernel values instead of evaluating them again. The optimiser works in
// paramMap's coordinates: only the free hyperparameters, a bounded one
// within its bounds, σ² above the noise floor.
func (md *Model) cgSetup(r *run, active []int, theta0 []float64) (*cgProblem, []float64) {
	nθ := len(theta0)
	gt, kval := md.f.Lend()
	mn := md.mean
	if !mn.Estimated() {
		mn = MeanFixed(mn.fixedValue())
	}
	rs := md.resolved()
	var ev funcGrader
	if md.s2 != nil {
		// Continuous SGPR's objective with known noise at Z = x_I, Z
		// fixed: the same objective as the factor's (see
		// Model.WithNoiseVariances).
		ne := newNoiseEval(md.x, md.y, md.kern, r.obj, md.x.Subset(active), md.s2, mn, 0)
		ne.exactNoise = rs.exactNoise()
		ev = ne
	} else {
		he := newActiveEvaluator(md.x, md.y, md.kern, r.obj, active, gt, kval)
		he.SetMean(mn)
		he.exactNoise = rs.exactNoise()
		ev = he
	}
	nm := newParamMap(rs, theta0, md.floor())
	nx := nm.dim()
	x0 := nm.toX(make([]float64, nx), theta0)
	return &cgProblem{
		stop: r.stopErr, report: r.report, ev: ev, nm: nm,
		x: make([]float64, nx), g: make([]float64, nx), th: make([]float64, nθ), gθ: make([]float64, nθ),
		best: append([]float64(nil), x0...), bestG: make([]float64, nx),
		bestF: math.Inf(1), budget: md.cgBudget(), cap: &stepCap{}, logScale: md.f.LogScale(), n: md.f.N(),
	}, x0
}

// settle rebuilds the factor for active at the gradient phase's best
// point best, or at its start theta0 where best does not hold the set or
// leaves the objective above start, its value at theta0. It reports
// whether the phase was undone: its best point could not hold the whole
// set and the model went back to theta0.
func (md *Model) settle(obj Objective, active []int, theta0, best []float64, start float64) (undone bool) {
	np := len(theta0) - 1
	// keepAt rebuilds the set at theta keeping the members the kernel can
	// still tell apart, refilled by score (Model.refactorKeeping).
	keepAt := func(theta []float64) float64 {
		md.kern.SetParams(theta[:np])
		md.setLogNoise(theta[np])
		md.refactorKeeping(active, obj)
		return md.f.Value(obj)
	}
	err := md.refactor(best, active)
	if err == nil && !(md.f.Value(obj) > start+1e-9*md.f.ValueScale(start)) {
		return false
	}
	bestFailed := err != nil && !slices.Equal(best, theta0)
	if err := md.refactor(theta0, active); err != nil {
		// The set cannot be rebuilt even at the old hyperparameters
		// (members at the edge of numerical rank): keep what can be
		// kept and refill by score, at θ0 or at the best point,
		// whichever leaves the lower objective.
		if f0 := keepAt(theta0); !slices.Equal(best, theta0) && !(keepAt(best) < f0) {
			keepAt(theta0)
		}
		return false
	}
	if !bestFailed {
		return false
	}
	// The best point cannot hold the whole set: a lengthscale grew past
	// what its members need. Once, the phase is undone and the swaps get a
	// pass to adapt the set; when the next phase ends the same way, its
	// best point keeps what it can hold, refilled by score, if that is
	// below the whole set at θ0. Undoing every such phase stalls a fit on
	// targets that are pure noise at its start; taking the first such
	// point sends signal fits towards the noise-only optimum.
	md.undone++
	if md.undone == 1 {
		return true
	}
	if f0 := md.f.Value(obj); !(keepAt(best) < f0) {
		if err := md.refactor(theta0, active); err != nil {
			keepAt(theta0)
		}
		return true
	}
	return false
}

// refactor sets θ and rebuilds the factor for active, in its order or,
// failing that, reordered by pivoting.
func (md *Model) refactor(theta []float64, active []int) error {
	np := md.kern.NumParams()
	md.kern.SetParams(theta[:np])
	md.setLogNoise(theta[np])
	err := md.f.Factorize(active)
	if err != nil {
		err = md.f.FactorizePivoted(active)
	}
	md.profile()
	return err
}

// restore sets θ and rebuilds the factor for active, as refactor does;
// where the set can no longer be factorised whole at θ (members at the
// edge of numerical rank, whose residuals computed afresh fall below the
// rebuild tolerance although the updates that admitted them did not), it
// keeps what it can and refills by score (refactorKeeping). Unlike
// refactor it always leaves a valid factor, so a phase that tried other
// hyperparameters can always go back.
func (md *Model) restore(theta []float64, active []int, obj Objective) {
	if md.refactor(theta, active) != nil {
		md.refactorKeeping(active, obj)
	}
}

// swapPoint proposes to replace inducing point j, scoring for obj.
func (md *Model) swapPoint(j int, obj Objective) SwapResult {
	md.refined = nil // a hybrid fit's refinement no longer describes the model
	return swapOne(md.f, j, obj, md.rng, md.visits, md.profile)
}

// visitOrder returns up to count inducing points, those not proposed for
// removal for longest first, ties in random order.
func (md *Model) visitOrder(count int) []int {
	return md.visits.order(md.f.Active(nil), md.rng, count)
}

// reselect runs a baseline's selection step for obj at the current
// hyperparameters and returns the number of exact candidate scores it made. The new set
// replaces the old one only if it does not raise the objective, so that an
// epoch never makes the model worse.
func (md *Model) reselect(obj Objective) int {
	f := md.f
	old := f.Active(nil)
	before := f.Value(obj)
	var scored int
	switch md.selector.kind {
	case selGreedyVariance:
		active := f.GreedyVariance(md.m)
		if err := f.Factorize(active); err != nil {
			md.rebuildRobust(active, true, obj)
		}
	case selTitsias:
		scored = md.forwardSelect(md.selector.s, obj)
	default:
		return 0
	}
	md.profile()
	if !(f.Value(obj) <= before) {
		if err := f.Factorize(old); err != nil {
			md.refactorKeeping(old, obj)
		} else {
			md.profile()
		}
	}
	return scored
}
