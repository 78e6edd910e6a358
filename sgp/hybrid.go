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
	"sync"
	"time"

	"github.com/cholqr/sgp/sgp/kernel"
)

// hybridEvalsPerEpoch is how many objective-and-gradient evaluations each
// continuous fit of a hybrid fit may make per epoch the model allows
// (WithMaxEpochs): 1000 at the default 50 epochs, as NewContinuous allows
// and as sgprepl's sgpr-continuous allows per --max-epochs.
const hybridEvalsPerEpoch = 20

// hybridSlices is the number of turns into which a hybrid fit's time
// budget is cut while both parents still run: they alternate turns of
// budget/hybridSlices until one ends or is parked (see turns), and the
// other has the rest of the budget.
const hybridSlices = 20

// kmeansStream is the second word of the seed of the k-means starts'
// random stream, apart from the fit's own so that the hybrid's CholQR
// parent makes the same draws as a CholQR fit with the same seed.
const kmeansStream = 0x6b6d65616e73

// Refined returns the continuous fit a hybrid fit (SelectHybrid) predicts
// with, or nil: for other selectors, when no continuous fit ended below
// CholQR's objective, and after any later change to the model (Swap,
// Step, SetParams, another Fit).
func (md *Model) Refined() *ContinuousResult { return md.refined }

// hybridKernel is what the hybrid selector needs of a kernel: its
// lengthscales, to place the k-means centres and to find inputs switched
// off, and its input gradient, to move the inducing inputs.
type hybridKernel interface {
	kernel.Lengthscaled
	kernel.InputGradient
}

// fitHybrid fits with the hybrid selector: it runs both of its parents
// and keeps the lower objective, so that without a time budget it ends
// no higher than either of them; with one, the parents share it (below).
//
// The parents are CholQR (Cao et al. 2013, §3–4), run exactly as
// WithSelector(SelectCholQR) runs it with the same seed, and continuous
// SGPR (Continuous; Titsias 2009), run exactly as NewContinuous runs it
// with the same seed: from m training inputs drawn at random
// (subsetStream), at the model's starting hyperparameters θ₀ and
// σ² = var(y)/4, with hybridEvalsPerEpoch·WithMaxEpochs evaluations and
// jitter hybridJitter on K[Z,Z], as sgprepl's sgpr-continuous (see parents).
// Then, while time is left, continuous fits from further starts, each
// kept only if it ends lower (see extras): from CholQR's fit (its set and
// θ), which can only go down from CholQR's objective, and with a time
// budget from the k-means centres and k-means++ seeds of the inputs and
// from CholQR's set at θ₀. A continuous fit that ends at a local optimum
// with inputs switched off goes on from where switching one back on
// lowers F (reactivate).
//
// Without a time budget each parent runs to its own end, one after the
// other, so the hybrid's time is the sum of its parents' and of the
// refinement from CholQR's fit. With a budget B the parents share it in
// alternate turns (hybridSlices), each paused between its swaps or
// evaluations while the other runs; a parent that ends early hands the
// rest of the budget to the other, and a parent that cannot catch up with
// the other even at its own recent rate of progress is parked and its
// turns go to the other (turns): each runs at least until its rate is
// measured, and the leader gets the time the other could not use. Both
// parents' states are held at once: CholQR's factor and the continuous
// evaluator, each O(n·m) floats.
//
// The continuous fit with the lowest objective is kept, and used for
// prediction and saving, only if it is below CholQR's (result); the
// factor, Swap and Value go on describing the CholQR selection.
func (md *Model) fitHybrid(r *run) (*Result, error) {
	h, err := md.newHybrid(r)
	if err != nil {
		return nil, err
	}
	defer h.cancel()
	if err := h.parents(); err != nil {
		return h.res, err
	}
	h.extras()
	return h.result()
}

// hybrid is the state of a hybrid fit (fitHybrid) shared by its phases.
type hybrid struct {
	md   *Model
	r    *run
	kern hybridKernel
	xv   *kernel.Vectors
	// theta0, v0 and ls0 are the starting hyperparameters, signal
	// variance and lengthscales.
	theta0, ls0 []float64
	v0          float64
	res         *Result // CholQR's fit
	// cctx ends the continuous fits: the caller's context, with the
	// budget's deadline when there is one.
	cctx   context.Context
	cancel context.CancelFunc
	opts   Continuous        // the continuous fits' evaluations, jitter and hooks
	tick   *progressTicker   // the continuous fits' progress lines
	cr     *ContinuousResult // the lowest continuous fit so far
	from   string            // where cr started
	err    error             // the first continuous fit's error while none is usable
	// running names the phase under way after CholQR's fit, for a
	// cancellation's status (cancelled).
	running string
	// interrupted is the error of the model's interrupt function
	// (WithInterrupt) once a continuous fit's check saw one, which then
	// cancelled cctx (see stopped); stopMu guards it, as the continuous
	// parent checks on a goroutine of its own.
	stopMu      sync.Mutex
	interrupted error
	// setup, if set, is applied to the parents' turns before they start
	// (tests replace the parking rule with it).
	setup func(*turns)
}

// newHybrid checks that the model can be fitted by the hybrid selector
// and returns the fit's state at the start.
func (md *Model) newHybrid(r *run) (*hybrid, error) {
	kern, ok := md.kern.(hybridKernel)
	if !ok || !kernel.Capabilities(md.kern).Hybrid {
		return nil, fmt.Errorf("sgp: the hybrid selector refines inducing inputs continuously, which needs a built-in kernel with lengthscales and input gradients (%s) on vector inputs, not %s; use cholqr for other kernels", kernel.ListNames(kernel.NamesWith(func(c kernel.Caps) bool { return c.Hybrid })), kernel.Text(md.kern))
	}
	if kernel.Clone(md.kern) == md.kern {
		return nil, errCannotCopy("the hybrid selector", md.kern)
	}
	xv, ok := md.x.(*kernel.Vectors)
	if !ok {
		return nil, errors.New("sgp: the hybrid selector needs vector inputs; use cholqr for discrete inputs")
	}
	h := &hybrid{md: md, r: r, kern: kern, xv: xv, theta0: md.Params(), v0: kern.Variance(), tick: md.ticker()}
	h.ls0 = append([]float64(nil), kern.Lengthscales()...)
	h.opts = Continuous{maxEvals: hybridEvalsPerEpoch * md.maxEpochs, jitter: hybridJitter}
	if r.budget > 0 {
		h.cctx, h.cancel = context.WithDeadline(r.ctx, r.start.Add(r.budget))
	} else {
		h.cctx, h.cancel = context.WithCancel(r.ctx)
	}
	h.opts.onEval = func(evals int, best float64) {
		if h.tick.due() {
			fmt.Fprintf(md.progress, "hybrid: continuous: %d evaluations (at most %d a fit), lowest %v %.6g, %.0f s\n", evals, h.opts.maxEvals, r.obj, best, h.tick.elapsed().Seconds())
		}
		h.checkInterrupt()
	}
	return h, nil
}

// checkInterrupt calls the model's interrupt function (WithInterrupt), as
// CholQR's epochs do between swaps, after each evaluation of a continuous
// fit; an error stops the continuous fits (cctx) as a cancellation of the
// caller's context does.
func (h *hybrid) checkInterrupt() {
	if err := h.r.stop.check(); err != nil {
		h.stopMu.Lock()
		if h.interrupted == nil {
			h.interrupted = err
		}
		h.stopMu.Unlock()
		h.cancel()
	}
}

// stopped returns the caller's context's error or, failing that, the
// interrupt's that stopped a continuous fit (checkInterrupt): the fit was
// stopped by its caller, not by its time budget.
func (h *hybrid) stopped() error {
	if err := h.r.ctx.Err(); err != nil {
		return err
	}
	h.stopMu.Lock()
	defer h.stopMu.Unlock()
	return h.interrupted
}

// randomSubset returns continuous SGPR's own start: m training inputs
// drawn at random with the model's seed, as NewContinuous draws them
// (randomRows).
func (h *hybrid) randomSubset() *kernel.Vectors {
	return randomRows(h.xv, h.md.y, h.md.m, h.md.seed)
}

// parents runs CholQR on the model and continuous SGPR from its own start
// (randomSubset, θ₀). Without a time budget CholQR runs to its end, then
// the continuous fit. With one they take turns (inTurns). It returns
// CholQR's error.
func (h *hybrid) parents() error {
	md := h.md
	h.running = "the continuous fit from a random subset"
	cont, cerr := md.continuousFrom(h.opts, nil, h.randomSubset())
	var (
		c   *ContinuousResult
		err error
		t   *turns
	)
	if h.r.budget <= 0 || cerr != nil {
		if h.res, err = md.fitSubset(h.r); err != nil {
			return err
		}
		if cerr == nil {
			c, err = cont.FitContext(h.cctx)
		}
	} else {
		var cholqrErr error
		t, c, err, cholqrErr = h.inTurns(cont)
		if cholqrErr != nil {
			return cholqrErr
		}
		if t.parked[continuousTurn] && c != nil && c.Evals > 0 && err != nil && h.cctx.Err() == nil && h.stopped() == nil {
			err = nil // stopped by turns.finish, with the best point it reached
		}
	}
	if cerr != nil {
		err = cerr
	}
	c, usable := h.usable(c, err)
	if t != nil && t.parked[cholqrTurn] && h.res.Status == TimeBudget {
		was := notConverged(stopText(h.res.Status, h.res.Reason))
		h.res.Reason = t.why[cholqrTurn]
		for i, w := range h.res.Warnings {
			if w == was {
				h.res.Warnings[i] = notConverged(stopText(h.res.Status, h.res.Reason))
			}
		}
	}
	if t != nil && t.parked[continuousTurn] && usable {
		c.Status, c.Reason = TimeBudget, t.why[continuousTurn]
	}
	stopped := h.stopped() != nil // the continuous parent was cancelled
	h.keep(c, usable, err, "a random subset")
	if !stopped {
		h.running = "the hybrid's continuous refinements"
	}
	return nil
}

// inTurns runs the parents under a time budget: the continuous fit cont
// on its own goroutine, CholQR on this one, taking turns (turns) of
// hybridSlices of the budget. Only one computes at a time, so each follows
// exactly the path it follows alone, paused; a parent that cannot catch up
// with the other is parked, and a parked continuous fit is stopped when
// CholQR ends. It returns the turns, the continuous fit's result and
// error, and CholQR's error.
func (h *hybrid) inTurns(cont *Continuous) (t *turns, c *ContinuousResult, err, cholqrErr error) {
	t = newTurns(h.r.budget/hybridSlices, h.r.start.Add(h.r.budget))
	if h.setup != nil {
		h.setup(t)
	}
	if h.md.progress != nil {
		t.onPark = func(why string) { fmt.Fprintf(h.md.progress, "hybrid: %s\n", why) }
	}
	ctx, stop := context.WithCancel(h.cctx)
	defer stop()
	t.stop[continuousTurn] = stop
	cont.pause = func() { t.pause(continuousTurn) }
	onEval := cont.onEval
	cont.onEval = func(evals int, best float64) {
		t.report(continuousTurn, best)
		if onEval != nil {
			onEval(evals, best)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer t.finish(continuousTurn)
		c, err = cont.FitContext(ctx)
	}()
	r := h.r.with(func(c *run) {
		c.hardEnd, c.pause = true, func() { t.pause(cholqrTurn) }
		c.onValue = func(obj Objective, v float64) {
			if obj == h.r.obj {
				t.report(cholqrTurn, v)
			}
		}
	})
	func() {
		defer t.finish(cholqrTurn)
		h.res, cholqrErr = h.md.fitSubset(r)
	}()
	<-done
	return t, c, err, cholqrErr
}

// extras runs the continuous fits beyond the parents while time is left,
// each kept if it ends lower than the lowest so far: the continuous
// parent's own fit goes on from inputs it switched off (reactivate); a
// refinement starts from CholQR's fit (its set and θ), which can only go
// down from CholQR's objective; and with a time budget, from the k-means
// centres and the k-means++ seeds of the inputs (kmeansCentres, in units
// of the starting lengthscales) and from CholQR's set, at θ₀. Continuous
// inducing inputs have local optima, and these starts can find lower
// ones than a random subset.
func (h *hybrid) extras() {
	md := h.md
	if h.cctx.Err() != nil {
		return
	}
	if h.cr != nil && h.from == "a random subset" && endedOnItsOwn(h.cr.Status) {
		h.running = "the continuous parent's fit from switched-off inputs"
		if c, on := md.reactivate(h.cctx, h.r.obj, h.cr, h.v0, h.ls0, h.runOne); len(on) > 0 {
			h.cr, h.from = c, fmt.Sprintf("%s, then %s switched back on", h.from, inputList(on))
		}
	}
	if h.cctx.Err() != nil {
		return
	}
	h.refine(nil, nil, "CholQR's fit")
	if h.r.budget <= 0 || h.cctx.Err() != nil {
		return
	}
	k := len(md.f.Active(nil))
	// k-means draws its rows from the inputs in their canonical order
	// (canonicalRows), so that it draws the same ones in any row order.
	xc := h.xv
	if md.f.Order() != nil {
		xc = h.xv.Rows(md.f.Order())
	}
	centres, seeds := kmeansCentres(xc, h.ls0, k, rand.New(rand.NewPCG(md.seed, kmeansStream)))
	for _, st := range []struct {
		name string
		z    *kernel.Vectors
	}{{"the k-means centres", centres}, {"the k-means++ seeds", seeds}, {"CholQR's set", h.xv.Rows(md.f.Active(nil))}} {
		if h.cctx.Err() != nil {
			return
		}
		h.refine(h.theta0, st.z, st.name)
	}
}

// keep records a continuous fit c that started from name: the lowest so
// far, or the first error while none is usable.
func (h *hybrid) keep(c *ContinuousResult, usable bool, err error, name string) {
	h.md.reportRefinement(h.r.obj, h.res.Objective, c, name)
	if usable && (h.cr == nil || c.Objective < h.cr.Objective) {
		h.cr, h.from, h.err = c, name, nil
	} else if h.cr == nil && h.err == nil {
		h.err = err
	}
}

// usable says whether a continuous fit that returned c and err can be
// kept: it ended normally, on the hybrid's deadline (then its Status says
// TimeBudget) or by the caller's cancellation (its Status says Cancelled)
// with the best point it reached.
func (h *hybrid) usable(c *ContinuousResult, err error) (*ContinuousResult, bool) {
	usable := c != nil && (err == nil || h.cctx.Err() != nil)
	if usable && err != nil && h.stopped() == nil {
		c.Status, c.Reason = TimeBudget, "" // the hybrid's time budget, not a cancellation
	}
	return c, usable
}

// runOne runs one continuous fit from theta and z (the model's own where
// nil); usable says whether its result can be kept.
func (h *hybrid) runOne(theta []float64, z *kernel.Vectors) (c *ContinuousResult, usable bool, err error) {
	c, err = h.md.refineFrom(h.cctx, h.opts, theta, z)
	c, usable = h.usable(c, err)
	return c, usable, err
}

// refine runs a continuous fit from theta and z (see runOne), brings back
// inputs it switched off where that lowers F (see reactivate), and keeps
// it if it is the lowest so far.
func (h *hybrid) refine(theta []float64, z *kernel.Vectors, name string) {
	h.running = "the continuous refinement from " + name
	c, usable, err := h.runOne(theta, z)
	if usable && err == nil && endedOnItsOwn(c.Status) {
		var on []int
		c, on = h.md.reactivate(h.cctx, h.r.obj, c, h.v0, h.ls0, h.runOne)
		if len(on) > 0 {
			name = fmt.Sprintf("%s, then %s switched back on", name, inputList(on))
		}
	}
	h.keep(c, usable, err, name)
}

// The two workers of a hybrid fit's turns.
const (
	cholqrTurn = iota
	continuousTurn
)

// turns lets two workers take alternate turns of at most slice each: a
// worker calls pause between its steps, which returns at once while its
// turn lasts (or the other has finished) and otherwise hands the turn over
// and waits for its next one; finish hands the turn over for good.
//
// A worker that cannot catch up is parked: it gets no more turns while
// the other runs. Each worker reports the objectives it reaches (report),
// and at the end of the leader's turn the other is parked when, even at
// the rate at which its lowest objective fell over its recent compute
// time, it could not get below the leader's lowest in all the time left
// to the deadline (cannotCatchUp). The rule assumes only diminishing
// returns — that an optimiser's lowest objective does not fall faster
// later than it fell on average over a stretch it has already run — and
// has no threshold tuned to data. A parked worker resumes when the other
// finishes (converged, out of epochs or evaluations, or at the
// deadline), after being stopped with its stop function when it has one.
type turns struct {
	mu    sync.Mutex
	cond  *sync.Cond
	slice time.Duration
	end   time.Time // the deadline
	owner int
	since time.Time // when the owner's turn began
	done  [2]bool
	// used is each worker's compute time in its turns that ended.
	used [2]time.Duration
	// path is each worker's lowest objective so far, each point when
	// it fell, against the worker's compute time.
	path [2][]progressPoint
	// parked says which worker gets no more turns while the other runs;
	// why says why, in a sentence.
	parked [2]bool
	why    [2]string
	// stop, where set, stops a parked worker when it gets the turn back.
	stop [2]func()
	// names are the workers' names in why.
	names [2]string
	// onPark, if set, is told why when a worker is parked.
	onPark func(why string)
	// parks is the parking rule: cannotCatchUp.
	parks func(lag, lead int, left time.Duration) (bool, string)
}

// progressPoint is a worker's lowest objective f after compute time at.
type progressPoint struct {
	at time.Duration
	f  float64
}

// newTurns returns turns of slice each until end, the first to worker 0.
func newTurns(slice time.Duration, end time.Time) *turns {
	t := &turns{slice: slice, end: end, since: time.Now(), names: [2]string{"CholQR", "continuous SGPR"}}
	t.cond = sync.NewCond(&t.mu)
	t.parks = t.cannotCatchUp
	return t
}

// report records that worker w, whose turn it is, has reached objective f.
func (t *turns) report(w int, f float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.path[w]
	if len(p) > 0 && !(f < p[len(p)-1].f) || math.IsNaN(f) || math.IsInf(f, 0) {
		return
	}
	at := t.used[w]
	if t.owner == w {
		at += time.Since(t.since)
	}
	t.path[w] = append(p, progressPoint{at, f})
}

// pause is called by worker w between its steps; see turns.
func (t *turns) pause(w int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.owner == w {
		if t.done[1-w] || time.Since(t.since) < t.slice {
			return
		}
		now := time.Now()
		t.used[w] += now.Sub(t.since)
		t.since = now
		if !t.parked[1-w] {
			if ok, why := t.parks(1-w, w, t.end.Sub(now)); ok {
				t.parked[1-w], t.why[1-w] = true, why
				if t.onPark != nil {
					t.onPark(why)
				}
			}
		}
		if t.parked[1-w] {
			return
		}
		t.owner = 1 - w
		t.cond.Broadcast()
	}
	for t.owner != w {
		t.cond.Wait()
	}
}

// cannotCatchUp reports whether worker lag, its lowest objective above
// worker lead's, could not get below lead's lowest in the time left even
// at the average rate at which its lowest fell over the last half of its
// compute time, or since its first objective where that came later, and
// over at least two turns: by diminishing returns its lowest falls no
// faster from now on. Until lag has run two turns past its first
// objective, its rate is not known and it is not parked. why says so in a
// sentence when it is.
func (t *turns) cannotCatchUp(lag, lead int, left time.Duration) (ok bool, why string) {
	pl, pd := t.path[lag], t.path[lead]
	if len(pl) == 0 || len(pd) == 0 {
		return false, ""
	}
	fl, fd := pl[len(pl)-1].f, pd[len(pd)-1].f
	if !(fl > fd) {
		return false, ""
	}
	now := t.used[lag]
	window := max(2*t.slice, now/2)
	if from := now - window; from < pl[0].at {
		window = now - pl[0].at // since its first objective
	}
	if window <= 0 || window < 2*t.slice {
		return false, ""
	}
	from := now - window
	i := sort.Search(len(pl), func(i int) bool { return pl[i].at > from }) - 1
	rate := (pl[i].f - fl) / window.Seconds()
	left = max(left, 0)
	if fl-rate*left.Seconds() <= fd {
		return false, ""
	}
	return true, fmt.Sprintf("%s's turns went to %s after %.3g s of its own: its objective %.6g was above %.6g, and at the rate it fell over its last %.3g s (%.3g a second) it could not reach it in the %.3g s left",
		t.names[lag], t.names[lead], now.Seconds(), fl, fd, window.Seconds(), rate, left.Seconds())
}

// finish records that worker w has ended and gives the other every turn
// from now on, stopping it first if it was parked and has a stop function.
func (t *turns) finish(w int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done[w] = true
	if t.owner == w {
		t.used[w] += time.Since(t.since)
		if t.parked[1-w] && t.stop[1-w] != nil {
			t.stop[1-w]()
		}
		t.owner, t.since = 1-w, time.Now()
		t.cond.Broadcast()
	}
}

// result returns the hybrid fit's result: CholQR's, with the lowest
// continuous fit where it is below CholQR's objective (the model then
// predicts with it), or a warning when no continuous fit could be kept.
func (h *hybrid) result() (*Result, error) {
	md, res, cr, from := h.md, h.res, h.cr, h.from
	if cr == nil {
		if err := h.stopped(); err != nil {
			h.cancelled(res)
			return res, err
		}
		w := fmt.Sprintf("the continuous fit failed (%v); the model is the CholQR fit", h.err)
		if h.cctx.Err() != nil {
			w = "the hybrid fit's time budget ended before the continuous fit's first evaluation; the model is the CholQR fit (allow more time to compare it with continuous SGPR)"
		}
		res.Warnings = append(res.Warnings, w)
		md.announce(res.Warnings[len(res.Warnings)-1:])
		return res, nil
	}
	res.Elapsed = time.Since(h.r.start)
	res.Continuous, res.ContinuousFrom = cr, from
	if cr.Objective < res.Objective {
		md.refined, md.from = cr, from
		res.Refined, res.RefinedFrom = cr, from
		res.CholQR, res.FitSummary = cholqrParent(res.FitSummary, cr, from), refinedSummary(res.FitSummary, cr)
		if w := refinementWarning(cr, res.CholQR.Stopped(), h.cctx.Err() != nil); w != "" {
			res.Warnings = append(res.Warnings, w)
			md.announce([]string{w})
		}
	}
	if err := h.stopped(); err != nil {
		h.cancelled(res)
		return res, err
	}
	return res, nil
}

// cholqrParent returns the summary of a hybrid fit's CholQR parent, s,
// when the model predicts with the continuous fit cr (from where it
// started): its own copy, with its "best state reached" warning saying
// which model the predictions use instead.
func cholqrParent(s FitSummary, cr *ContinuousResult, from string) *FitSummary {
	s.Params = slices.Clone(s.Params)
	s.Warnings = slices.Clone(s.Warnings)
	for i, w := range s.Warnings {
		if w == notConverged(s.Stopped()) {
			s.Warnings[i] = fmt.Sprintf("CholQR did not converge (%s); the predictions use the continuous fit from %s (%s)", s.Stopped(), from, cr.Stopped())
		}
	}
	return &s
}

// refinedSummary returns the summary of the model a hybrid fit predicts
// with, its continuous fit cr: cr's objective, θ, μ, stop, noise floor
// and warnings, in the hybrid fit's time (chol's Elapsed).
func refinedSummary(chol FitSummary, cr *ContinuousResult) FitSummary {
	return FitSummary{Objective: cr.Objective, Elapsed: chol.Elapsed, Status: cr.Status, Reason: cr.Reason, Converged: cr.Converged,
		Params: slices.Clone(cr.Params), Names: slices.Clone(chol.Names), Mean: cr.Mean,
		NoiseFloor: cr.NoiseFloor, AtNoiseFloor: cr.AtNoiseFloor, Warnings: slices.Clone(cr.Warnings)}
}

// cancelled marks res, the result of a hybrid fit whose context was
// cancelled after CholQR's fit had ended, as cancelled: its Status says
// Cancelled, its Reason which phase was under way and how CholQR had
// ended, and a warning says which model it keeps (the lowest fit so far,
// as result chose it), so that a caller that stops on a cancelled status
// saves and reports it as the interrupted fit it is.
func (h *hybrid) cancelled(res *Result) {
	chol := &res.FitSummary // CholQR's summary, the parent's where the refinement is kept
	if res.CholQR != nil {
		chol = res.CholQR
	}
	if chol.Status == Cancelled {
		return // CholQR's own fit was cancelled
	}
	res.Reason = fmt.Sprintf("during %s, after CholQR's fit ended (%s)", h.running, chol.Stopped())
	res.Status, res.Converged = Cancelled, false
	model := "the CholQR fit"
	if res.Refined != nil {
		model = "the continuous fit from " + res.RefinedFrom + " (" + stopText(res.Refined.Status, res.Refined.Reason) + ")"
	}
	w := fmt.Sprintf("interrupted %s, F = %.6g; the model is the lowest fit so far, %s", res.Reason, res.Objective, model)
	res.Warnings = append(res.Warnings, w)
	h.md.announce([]string{w})
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

// refinementEvaluator returns an evaluator of the refinement's objective
// at inducing inputs z: the model's inputs, targets, objective and prior
// mean, a copy of the model's kernel (its hyperparameters set by each
// evaluation's θ), and jitter on K[Z,Z] (see hybridJitter); with known
// noise variances (WithNoiseVariances), the known-noise objective.
func (md *Model) refinementEvaluator(obj Objective, z *kernel.Vectors, jitter float64) funcGrader {
	if md.s2 != nil {
		return newNoiseEval(md.x, md.y, kernel.Clone(md.kern), obj, z, md.s2, md.mean, jitter)
	}
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

// hybridJitter is the relative jitter on K[Z,Z] of the hybrid's
// continuous fits (Continuous.WithJitter), GPflow's default and sgprepl's
// sgpr-continuous's, so that the hybrid's continuous parent is that fit:
// K[Z,Z] + jitter·v·I is the covariance of inducing variables observed
// with that much noise, so F stays a bound on the same model's evidence, a
// little looser. v is the targets' variance around a quadratic trend in
// the inputs, at least 10⁻⁶ of var(y) (jitterScale), so the jitter scales
// with the targets' units, but not with the starting signal variance:
// where a trend makes that variance large and the detail is small (y = 50
// + 3 sin x₀ + x₁²/100 with x₁ up to 1000, signal variance about 9·10⁶,
// noise 0.25), 10⁻⁶ of it adds a variance of 9 to every inducing variable,
// and continuous SGPR ended at F 2424.8 against 1641.9 with an absolute
// 10⁻⁶; v is about 9 there.
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
		for _, p := range md.constrainCandidates(switchOnCandidates(cr.Params, v0, ls0)) {
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
// as opts by continuousFrom, from the hyperparameters theta and the
// inducing inputs z0 (the model's own where nil). The model is not
// changed.
func (md *Model) refineFrom(ctx context.Context, opts Continuous, theta []float64, z0 *kernel.Vectors) (cr *ContinuousResult, err error) {
	defer md.recoverPanic(&err)
	c, err := md.continuousFrom(opts, theta, z0)
	if err != nil {
		return nil, err
	}
	return c.FitContext(ctx)
}

// continuousFrom returns continuous SGPR (Continuous) configured as opts
// (its evaluations, jitter and hooks), for the model's data, objective,
// prior mean and noise floor, from the hyperparameters theta (kernel log
// parameters, then log σ²) and the inducing inputs z0, or from the model's
// own hyperparameters and inducing set where they are nil. The model is
// not changed: the fit works on a copy of its kernel.
func (md *Model) continuousFrom(opts Continuous, theta []float64, z0 *kernel.Vectors) (*Continuous, error) {
	if err := md.build(); err != nil {
		return nil, err
	}
	xv, ok := md.x.(*kernel.Vectors)
	if !ok || !kernel.Capabilities(md.kern).Continuous {
		return nil, fmt.Errorf("sgp: continuous refinement needs vector inputs and a kernel with input gradients (kernel.InputGradient: %s)", continuousNames())
	}
	k2 := kernel.Clone(md.kern)
	if k2 == md.kern {
		return nil, errCannotCopy("continuous refinement", md.kern)
	}
	// The model's own values are copied, not read back from θ, so that a
	// fit from them starts where Continuous given the same kernel starts.
	noise := math.Exp(md.Params()[k2.NumParams()])
	if md.f.Noise() > 0 {
		noise = md.f.Noise()
	}
	if theta != nil {
		k2.SetParams(theta[:k2.NumParams()])
		noise = math.Exp(theta[k2.NumParams()])
	}
	if z0 == nil {
		z0 = xv.Rows(md.f.Active(nil))
	}
	c := opts
	c.x, c.y, c.kern, c.obj, c.mean, c.noiseFloor = xv, md.y, k2, md.obj, md.mean, md.noiseFloor
	c.s2 = md.s2 // the known noise variances, not modified by the fit
	// The model's fixed and bounded hyperparameters are the continuous
	// fit's too; its fixed values are already θ's.
	c.fixed, c.cons = md.fixHyper, md.cons.clone()
	c.WithInducingInputs(z0).WithNoise(noise)
	if c.err != nil {
		return nil, c.err
	}
	return &c, nil
}

// errCannotCopy is the error of what (a fit that works on a copy of the
// kernel) for a kernel kernel.Clone cannot copy.
func errCannotCopy(what string, k kernel.Kernel) error {
	return fmt.Errorf("sgp: %s works on a copy of the kernel, and %T cannot be copied: implement kernel.Cloner, or use cholqr", what, k)
}
