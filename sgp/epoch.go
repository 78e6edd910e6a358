package sgp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"time"

	"gonum.org/v1/gonum/optimize"
)

// epochStep runs one epoch (Cao et al. 2013, §4): the continuous phase,
// then a discrete pass of k swaps (WithSwapsPerEpoch) visiting the
// inducing points not visited for longest, from the last position in the
// factor to the first, with ⌈swaps/5⌉ random
// information-pivot refreshes. The objective never increases across the
// discrete pass.
//
// k swaps cost O(n·k·(k+z)), the order of one gradient evaluation, so the
// two phases take comparable time at every n and m (KIN40K, n = 10⁴,
// m = 256: 1.6 s for 20 evaluations, 2 s for 256 swaps). The paper's
// min(60, m) swaps spent most of each epoch on the gradient phase at large
// m: on KIN40K (VAR, m = 256, 30 s) F = 5127 after 8 epochs with 60 swaps,
// 4847 after 6 with 256.
func (md *Model) epochStep(ctx context.Context) (EpochRecord, error) {
	if err := md.stopErr(ctx); err != nil {
		return EpochRecord{}, err
	}
	start := time.Now()
	md.refined = nil
	rec := EpochRecord{Epoch: md.epoch + 1, Kind: md.obj}
	if md.epoch > 0 {
		rec.Scored = md.reselect() // baselines that re-select each epoch
	}
	if !md.fixHyper {
		cg, err := md.continuous(ctx)
		rec.CGEvals, rec.Drift, rec.CGObjective, rec.CGStatus, rec.CGGradient = cg.evals, cg.drift, cg.value, cg.status, cg.grad
		if err != nil {
			return rec, err
		}
	} else {
		rec.CGObjective = md.f.Value(md.obj)
		rec.CGStatus = CGSkipped
	}
	rec.Grown = md.grow()
	if rec.Grown > 0 {
		md.profile()
	}
	swaps := md.swaps
	if swaps == 0 {
		swaps = md.f.k
	}
	if md.selector.kind != selCholQR && md.selector.kind != selHybrid { // the hybrid's first phase is CholQR
		swaps = 0
	}
	order := md.visitOrder(swaps)
	// Visit the chosen points from the last position to the first.
	// Removing the point at position p rotates the k−1−p columns after
	// it (factor.move), and a swapped point, kept or replaced, ends last:
	// in this order the i-th swap rotates i columns, k/2 on average over a
	// full pass, where the oldest-first order removed the first position
	// every time once the positions followed the visits (k−1 columns).
	slices.SortFunc(order, func(a, b int) int { return md.f.pos[b] - md.f.pos[a] })
	swapStart := time.Now()
	for i, j := range order {
		if err := md.stopErr(ctx); err != nil {
			rec.SwapTime = time.Since(swapStart)
			return rec, err
		}
		res := md.swapPoint(j)
		rec.Swaps++
		if res.Accepted {
			rec.Accepted++
		}
		if (i+1)%5 == 0 || i == len(order)-1 {
			md.f.RefreshInfo(md.rng.IntN)
		}
	}
	if len(order) > 0 && md.f.ok {
		// The pass leaves the information pivots chosen greedily for the
		// inducing set it ends with, as a fresh Factorize of that set
		// chooses them. The random refreshes serve the swaps of the pass
		// (and the last one keeps the random stream of the epochs that
		// follow as it is); kept after it, they are points drawn against
		// earlier sets, whose residuals given the final set are small,
		// and the approximate scores made from them (the next Swap, or
		// CostRanking after a fit) rank candidates poorly.
		md.f.RefreshInfoGreedy()
	}
	rec.SwapTime = time.Since(swapStart)
	md.epoch++
	rec.Parts = md.f.Parts()
	rec.Objective = rec.Parts.Value(md.obj)
	rec.Params = md.Params()
	rec.Mean = md.f.mu
	rec.Elapsed = time.Since(start)
	if len(md.trace) > 0 {
		rec.Total = md.trace[len(md.trace)-1].Total
	}
	rec.Total += rec.Elapsed
	md.trace = append(md.trace, rec)
	if md.progress != nil {
		fmt.Fprintf(md.progress, "epoch %3d  %v %.6g  (after CG %.6g; data %.4g, complexity %.4g, trace %.4g)  swaps %d/%d  CG %d evals (%s)  %.2fs (swaps %.2fs)\n",
			rec.Epoch, md.obj, rec.Objective, rec.CGObjective, rec.Parts.DataFit, rec.Parts.Complexity, rec.Parts.Trace,
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

// cgProblem adapts an Evaluator to gonum/optimize with a value+gradient
// cache, remembering the best point seen.
type cgProblem struct {
	stop      func() error
	ev        *Evaluator
	x, g      []float64 // the optimiser's point (noiseMap coordinates), ∂F there
	th        []float64 // x as log hyperparameters
	nm        noiseMap
	f         float64
	valid     bool
	best      []float64
	bestG     []float64
	bestF     float64
	evals     int
	calls     int // objective requests, cached and capped ones included
	nonFinite int // evaluations that gave no finite value
	budget    int
	firstF    float64
	firstErr  error
	cap       *stepCap // points beyond it are not evaluated
}

func (p *cgProblem) eval(x []float64) {
	p.calls++
	if p.valid && equalSlices(x, p.x) {
		return
	}
	copy(p.x, x)
	p.valid = true
	if p.stop() != nil || p.evals >= p.budget || p.cap.beyond(x) {
		p.f = math.Inf(1)
		for i := range p.g {
			p.g[i] = 0
		}
		return
	}
	f, err := p.ev.FuncGrad(p.g, p.nm.toTheta(p.th, p.x))
	p.nm.grad(p.g, p.x)
	p.evals++
	if p.evals == 1 {
		p.firstF, p.firstErr = f, err
	}
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || !finiteSlice(p.g) {
		p.nonFinite++
		f = math.Inf(1)
		for i := range p.g {
			p.g[i] = 0
		}
	}
	p.f = f
	if f < p.bestF {
		p.bestF = f
		copy(p.best, x)
		copy(p.bestG, p.g)
	}
}

// ctxRecorder stops gonum/optimize when a context is done.
type ctxRecorder struct {
	p      *cgProblem
	budget int
}

func (r ctxRecorder) Init() error { return nil }
func (r ctxRecorder) Record(*optimize.Location, optimize.Operation, *optimize.Stats) error {
	// Requests for a point already evaluated, or beyond the step cap, are
	// answered without an evaluation; a line search that keeps asking for
	// them would otherwise never reach the evaluation budget.
	if r.p.evals >= r.budget || r.p.calls >= maxCallsPerEval*r.budget {
		return errBudget
	}
	return r.p.stop()
}

// maxCallsPerEval bounds the objective requests of one gradient phase, as
// a multiple of its evaluation budget.
const maxCallsPerEval = 20

// maxLogStep bounds how far one line search may move any log
// hyperparameter: a factor of e³ ≈ 20. Far from an optimum, in particular
// from a noise variance orders of magnitude too small, the gradient is
// dominated by one term and steepest descent would jump straight to the
// degenerate region where everything is noise (a tiny lengthscale, a huge
// noise variance), whose objective is lower than an absurd start's but
// from which no gradient leads back. Bounded steps follow the valley
// instead; normal steps are far shorter than the bound.
const maxLogStep = 3.0

// stepCap holds the longest step along the current search direction that
// keeps every log hyperparameter within maxLogStep of the line search's
// start.
type stepCap struct {
	anchor []float64 // the start of the current line search
	step   float64   // maxLogStep / ‖dir‖∞
}

// capStepSizer is gonum's first-order initial step bounded by the cap,
// recording the cap for the line search and the problem.
type capStepSizer struct {
	inner optimize.FirstOrderStepSize
	cap   *stepCap
}

func (c *capStepSizer) set(loc *optimize.Location, dir []float64) {
	c.cap.anchor = append(c.cap.anchor[:0], loc.X...)
	c.cap.step = maxLogStep / math.Max(maxAbs(dir), math.SmallestNonzeroFloat64)
}

func (c *capStepSizer) Init(loc *optimize.Location, dir []float64) float64 {
	c.set(loc, dir)
	return math.Min(c.inner.Init(loc, dir), c.cap.step)
}

func (c *capStepSizer) StepSize(loc *optimize.Location, dir []float64) float64 {
	c.set(loc, dir)
	return math.Min(c.inner.StepSize(loc, dir), c.cap.step)
}

// beyond reports whether x is further than maxLogStep from the anchor in
// some coordinate (conjugate gradients restart with a unit step, which
// can be); such points are not evaluated.
func (c *stepCap) beyond(x []float64) bool {
	if c == nil || c.anchor == nil {
		return false
	}
	for i, v := range x {
		if math.Abs(v-c.anchor[i]) > maxLogStep*(1+1e-9) {
			return true
		}
	}
	return false
}

// guardedLinesearch is a Moré–Thuente line search (strong Wolfe
// conditions, as conjugate gradients need) bounded by the step cap, that
// survives trial steps whose objective is not finite. Far from the start
// a step of the log hyperparameters can overflow the kernel or noise, or
// make K[I,I] numerically indefinite; the inner search assumes finite
// values. Such a step (or one beyond the cap, which is not evaluated) is
// retried at a tenth of its length with the search capped at half of it,
// up to maxShrinks times; a search that is still decreasing at its cap
// ends there.
type guardedLinesearch struct {
	mt         optimize.MoreThuente
	cap        *stepCap
	f0, g0     float64 // φ(0), φ′(0)
	step       float64 // the step being evaluated
	shrinks    int
	maxShrinks int
}

func (ls *guardedLinesearch) Init(f, g, step float64) optimize.Operation {
	ls.f0, ls.g0, ls.step, ls.shrinks = f, g, step, 0
	ls.mt.MaximumStep = ls.cap.step
	return ls.mt.Init(f, g, step)
}

func (ls *guardedLinesearch) Iterate(f, g float64) (optimize.Operation, float64, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) || math.IsNaN(g) || math.IsInf(g, 0) {
		if ls.shrinks >= ls.maxShrinks {
			return optimize.NoOperation, 0, errNonFinite
		}
		ls.shrinks++
		ls.mt.MaximumStep = math.Min(ls.step/2, ls.cap.step)
		ls.step = math.Min(ls.step/10, ls.cap.step)
		op := ls.mt.Init(ls.f0, ls.g0, ls.step)
		return op, ls.step, nil
	}
	op, step, err := ls.mt.Iterate(f, g)
	if errors.Is(err, optimize.ErrLinesearcherBound) && f < ls.f0 {
		// Still decreasing at the cap: take the step reached.
		return optimize.MajorIteration, ls.step, nil
	}
	if err == nil {
		ls.step = step
	}
	return op, step, err
}

var errNonFinite = errors.New("sgp: the objective is not finite along the search direction")

// cgOutcome summarises a continuous phase.
type cgOutcome struct {
	evals  int
	drift  float64 // relative difference of the updated factor and a fresh evaluation at the start
	value  float64 // the objective at the end of the phase
	status CGStop
	grad   float64 // max |∂F/∂θ| at the end point
}

// continuous runs Polak–Ribière CG on θ with the inducing set fixed and
// moves to the best point seen, which is never worse than the start.
func (md *Model) continuous(ctx context.Context) (cgOutcome, error) {
	active := md.f.Active(nil)
	np := md.kern.NumParams()
	theta0 := md.Params()
	before := md.f.Value(md.obj)
	// The factor is rebuilt from scratch at the end of the phase (refactor
	// below), so meanwhile the Evaluator keeps Gᵀ = L⁻¹K_mn in G's storage
	// and K_mn in Q's instead of allocating two more n×m matrices: a fit
	// peaks at about G + Q, and the row blocks of the gradient read their
	// kernel values instead of evaluating them again. Until the rebuild the
	// factor is invalid; should the phase end early by a panic (a kernel or
	// an interrupt function failing), the model is stale, at θ0: its next
	// use refactorises (Model.build).
	gt, kval := md.f.lend()
	md.stale = true
	defer func() {
		if md.stale {
			md.kern.SetParams(theta0[:np])
			md.f.noise = math.Exp(theta0[np])
		}
	}()
	ev := newActiveEvaluator(md.x, md.y, md.kern, md.obj, active, gt, kval)
	if md.mean.Estimated() {
		ev.SetMean(md.mean)
	} else {
		ev.SetMean(MeanFixed(md.mean.fixedValue()))
	}
	// The optimiser works in noiseMap's coordinates: σ² stays above the
	// noise floor.
	nm := noiseMap{floor: md.floor()}
	x0 := nm.toX(make([]float64, np+1), theta0)
	p := &cgProblem{
		stop: func() error { return md.stopErr(ctx) }, ev: ev, nm: nm,
		x: make([]float64, np+1), g: make([]float64, np+1), th: make([]float64, np+1),
		best: append([]float64(nil), x0...), bestG: make([]float64, np+1),
		bestF: math.Inf(1), budget: md.cgBudget(),
	}
	problem := optimize.Problem{
		Func: func(x []float64) float64 { p.eval(x); return p.f },
		Grad: func(grad, x []float64) { p.eval(x); copy(grad, p.g) },
	}
	settings := &optimize.Settings{
		Recorder:  ctxRecorder{p, md.cgBudget()},
		Converger: &optimize.FunctionConverge{Relative: 1e-9, Iterations: 3},
	}
	sc := &stepCap{}
	p.cap = sc
	ls := &guardedLinesearch{mt: optimize.MoreThuente{CurvatureFactor: 0.1}, cap: sc, maxShrinks: 30}
	res, optErr := optimize.Minimize(problem, x0, settings, &optimize.CG{
		Variant: &optimize.PolakRibierePolyak{}, Linesearcher: ls, InitialStep: &capStepSizer{cap: sc}})
	out := cgOutcome{evals: p.evals}
	if p.firstErr == nil && p.evals > 0 && !math.IsInf(p.firstF, 0) {
		out.drift = math.Abs(p.firstF-before) / math.Max(1, math.Abs(p.firstF))
		md.f.stats.LastDrift = out.drift
		md.f.stats.MaxDrift = math.Max(md.f.stats.MaxDrift, out.drift)
	}
	switch {
	case md.stopErr(ctx) != nil:
		out.status = CGCancelled
	case p.evals > 0 && p.nonFinite == p.evals, errors.Is(optErr, errNonFinite):
		out.status = CGNonFinite
	case errors.Is(optErr, errBudget):
		out.status = CGBudget
	case errors.Is(optErr, optimize.ErrNonDescentDirection):
		out.status = CGNoDescent
	case optErr != nil:
		out.status = CGLineSearch
	case res != nil && (res.Status == optimize.FunctionConvergence || res.Status == optimize.GradientThreshold):
		out.status = CGConverged
	default:
		out.status = CGBudget
	}
	// Move to the best point (theta0 if nothing improved).
	// Compare with the fresh value at the start, not the updated one,
	// which carries the drift.
	start := before
	if p.firstErr == nil && p.evals > 0 && !math.IsInf(p.firstF, 0) {
		start = p.firstF
	}
	best := theta0
	if p.bestF < math.Inf(1) && p.bestF <= start {
		if !slices.Equal(p.best, x0) {
			best = nm.toTheta(make([]float64, np+1), p.best)
		}
		out.grad = maxAbs(p.bestG)
	} else {
		out.grad = math.Inf(1)
		if p.firstErr == nil && p.evals > 0 && !math.IsInf(p.firstF, 0) {
			out.grad = maxAbs(p.bestG)
		}
	}
	// keepAt rebuilds the set at theta keeping the members the kernel can
	// still tell apart, refilled by score (Model.refactorKeeping).
	keepAt := func(theta []float64) float64 {
		md.kern.SetParams(theta[:np])
		md.f.noise = math.Exp(theta[np])
		md.refactorKeeping(active)
		return md.f.Value(md.obj)
	}
	if err := md.refactor(best, active); err != nil || md.f.Value(md.obj) > start+1e-9*math.Abs(start) {
		bestFailed := err != nil && !slices.Equal(best, theta0)
		if err := md.refactor(theta0, active); err != nil {
			// The set cannot be rebuilt even at the old hyperparameters
			// (members at the edge of numerical rank): keep what can be
			// kept and refill by score, at θ0 or at the best point,
			// whichever leaves the lower objective.
			if f0 := keepAt(theta0); !slices.Equal(best, theta0) && !(keepAt(best) < f0) {
				keepAt(theta0)
			}
		} else if bestFailed {
			// The best point cannot hold the whole set: a lengthscale grew
			// past what its members need. Once, the phase is undone and
			// the swaps get a pass to adapt the set; when the next phase
			// ends the same way, its best point keeps what it can hold,
			// refilled by score, if that is below the whole set at θ0. On
			// targets that are pure noise every phase found F 906 → 583,
			// was undone, and the fit stalled at its start; taking the
			// first such point instead sent signal fits towards the
			// noise-only optimum (SnelsonLike(60, 1), m = 5: F 73.2
			// against 58.2).
			md.undone++
			if md.undone == 1 {
				out.status = CGUndone
			}
			if f0 := md.f.Value(md.obj); md.undone > 1 && !(keepAt(best) < f0) {
				out.status = CGUndone
				if err := md.refactor(theta0, active); err != nil {
					keepAt(theta0)
				}
			}
		}
	}
	// A phase that went back to its start stays counted even where the
	// rebuild there reads a little below the Evaluator's value at the
	// start (rounding, relative 1e-9 at F ≈ 10⁸).
	if out.status != CGUndone && md.f.Value(md.obj) < start-1e-9*math.Abs(start) {
		md.undone = 0
	}
	md.stale = false
	out.value = md.f.Value(md.obj)
	if err := md.stopErr(ctx); err != nil {
		return out, err
	}
	return out, nil
}

// refactor sets θ and rebuilds the factor for active, in its order or,
// failing that, reordered by pivoting.
func (md *Model) refactor(theta []float64, active []int) error {
	np := md.kern.NumParams()
	md.kern.SetParams(theta[:np])
	md.f.noise = math.Exp(theta[np])
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
func (md *Model) restore(theta []float64, active []int) {
	if md.refactor(theta, active) != nil {
		md.refactorKeeping(active)
	}
}

// stopErr returns ctx's error or, failing that, the interrupt's (see
// WithInterrupt).
func (md *Model) stopErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if md.interruptPanic != nil {
		return md.interruptPanic
	}
	if md.interrupt != nil {
		return md.callInterrupt()
	}
	return nil
}

// callInterrupt calls the interrupt function, turning a panic into a
// *PanicError: it runs between swaps and also inside the gradient phase,
// on gonum/optimize's goroutine, where a panic would end the process. The
// error is kept (interruptPanic) so that every later check of the same
// Fit or Step stops too, until the next one starts.
func (md *Model) callInterrupt() (err error) {
	defer func() {
		if v := recover(); v != nil {
			md.interruptPanic = &PanicError{Value: v, Lo: -1, Hi: -1, Stack: debug.Stack()}
			err = md.interruptPanic
		}
	}()
	return md.interrupt()
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

// reselect runs a baseline's selection step at the current hyperparameters
// and returns the number of exact candidate scores it made. The new set
// replaces the old one only if it does not raise the objective, so that an
// epoch never makes the model worse.
func (md *Model) reselect() int {
	f := md.f
	old := f.Active(nil)
	before := f.Value(md.obj)
	var scored int
	switch md.selector.kind {
	case selGreedyVariance:
		active := greedyVariance(f, md.m)
		if err := f.Factorize(active); err != nil {
			md.rebuildRobust(active, true)
		}
	case selTitsias:
		scored = md.forwardSelect(md.selector.s)
	default:
		return 0
	}
	md.profile()
	if !(f.Value(md.obj) <= before) {
		if err := f.Factorize(old); err != nil {
			md.refactorKeeping(old)
		} else {
			md.profile()
		}
	}
	return scored
}
