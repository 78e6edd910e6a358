package sgp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/optimize"
)

// epochStep runs one epoch (DESIGN §6): the continuous phase, then a
// discrete pass of min(60, m) swaps visiting the inducing points not
// visited for longest first, with ⌈swaps/5⌉ random information-pivot
// refreshes. The objective never increases across the discrete pass.
func (md *Model) epochStep(ctx context.Context) (EpochRecord, error) {
	if err := md.stopErr(ctx); err != nil {
		return EpochRecord{}, err
	}
	start := time.Now()
	rec := EpochRecord{Epoch: md.epoch + 1}
	if md.epoch > 0 {
		rec.Scored = md.reselect() // baselines that re-select each epoch
	}
	if !md.fixHyper {
		evals, drift, cgValue, err := md.continuous(ctx)
		rec.CGEvals, rec.Drift, rec.CGObjective = evals, drift, cgValue
		if err != nil {
			return rec, err
		}
	} else {
		rec.CGObjective = md.f.Value(md.obj)
	}
	rec.Grown = md.grow()
	swaps := md.swaps
	if swaps == 0 {
		swaps = min(60, md.f.k)
	}
	if md.selector.kind != selCholQR {
		swaps = 0
	}
	order := md.visitOrder(swaps)
	for i, j := range order {
		if err := md.stopErr(ctx); err != nil {
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
	md.epoch++
	rec.Parts = md.f.Parts()
	rec.Objective = rec.Parts.Value(md.obj)
	rec.Params = md.Params()
	rec.Elapsed = time.Since(start)
	if len(md.trace) > 0 {
		rec.Total = md.trace[len(md.trace)-1].Total
	}
	rec.Total += rec.Elapsed
	md.trace = append(md.trace, rec)
	if md.progress != nil {
		fmt.Fprintf(md.progress, "epoch %3d  %v %.6g  (after CG %.6g; data %.4g, complexity %.4g, trace %.4g)  swaps %d/%d  CG %d evals  %.2fs\n",
			rec.Epoch, md.obj, rec.Objective, rec.CGObjective, rec.Parts.DataFit, rec.Parts.Complexity, rec.Parts.Trace,
			rec.Accepted, rec.Swaps, rec.CGEvals, rec.Elapsed.Seconds())
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
	stop     func() error
	ev       *Evaluator
	x, g     []float64
	f        float64
	valid    bool
	best     []float64
	bestF    float64
	evals    int
	budget   int
	firstF   float64
	firstErr error
}

func (p *cgProblem) eval(x []float64) {
	if p.valid && equalSlices(x, p.x) {
		return
	}
	copy(p.x, x)
	p.valid = true
	if p.stop() != nil || p.evals >= p.budget {
		p.f = math.Inf(1)
		for i := range p.g {
			p.g[i] = 0
		}
		return
	}
	f, err := p.ev.FuncGrad(p.g, p.x)
	p.evals++
	if p.evals == 1 {
		p.firstF, p.firstErr = f, err
	}
	if err != nil || math.IsNaN(f) {
		f = math.Inf(1)
		for i := range p.g {
			p.g[i] = 0
		}
	}
	p.f = f
	if f < p.bestF {
		p.bestF = f
		copy(p.best, x)
	}
}

func equalSlices(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ctxRecorder stops gonum/optimize when a context is done.
type ctxRecorder struct {
	p      *cgProblem
	budget int
}

func (r ctxRecorder) Init() error { return nil }
func (r ctxRecorder) Record(*optimize.Location, optimize.Operation, *optimize.Stats) error {
	if r.p.evals >= r.budget {
		return errBudget
	}
	return r.p.stop()
}

var errBudget = errors.New("sgp: evaluation budget reached")

// continuous runs Polak–Ribière CG on θ with the inducing set fixed and
// moves to the best point seen, which is never worse than the start. It
// returns the number of evaluations, the relative drift between the
// updated factor and a fresh evaluation at the start, and the objective at
// the end of the phase.
func (md *Model) continuous(ctx context.Context) (int, float64, float64, error) {
	active := md.f.Active(nil)
	np := md.kern.NumParams()
	theta0 := md.Params()
	before := md.f.Value(md.obj)
	p := &cgProblem{
		stop: func() error { return md.stopErr(ctx) }, ev: NewEvaluator(md.x, md.y, md.kern, md.obj, active),
		x: make([]float64, np+1), g: make([]float64, np+1),
		best: append([]float64(nil), theta0...), bestF: math.Inf(1), budget: md.cgBudget(),
	}
	problem := optimize.Problem{
		Func: func(x []float64) float64 { p.eval(x); return p.f },
		Grad: func(grad, x []float64) { p.eval(x); copy(grad, p.g) },
	}
	settings := &optimize.Settings{
		Recorder:  ctxRecorder{p, md.cgBudget()},
		Converger: &optimize.FunctionConverge{Relative: 1e-9, Iterations: 3},
	}
	_, optErr := optimize.Minimize(problem, theta0, settings, &optimize.CG{Variant: &optimize.PolakRibierePolyak{}})
	drift := 0.0
	if p.firstErr == nil && p.evals > 0 {
		drift = math.Abs(p.firstF-before) / math.Max(1, math.Abs(p.firstF))
		md.f.stats.LastDrift = drift
		md.f.stats.MaxDrift = math.Max(md.f.stats.MaxDrift, drift)
	}
	// Move to the best point (theta0 if nothing improved).
	// Compare with the fresh value at the start, not the updated one,
	// which carries the drift.
	start := before
	if p.firstErr == nil && p.evals > 0 {
		start = p.firstF
	}
	best := theta0
	if p.bestF < math.Inf(1) && p.bestF <= start {
		best = p.best
	}
	if err := md.refactor(best, active); err != nil || md.f.Value(md.obj) > start+1e-9*math.Abs(start) {
		if err := md.refactor(theta0, active); err != nil {
			// The set cannot be rebuilt even at the old hyperparameters
			// (members at the edge of numerical rank): keep what can be
			// kept and refill by score.
			md.rebuildRobust(active, false)
		}
	}
	if err := md.stopErr(ctx); err != nil {
		return p.evals, drift, md.f.Value(md.obj), err
	}
	_ = optErr // a line-search failure just ends the phase early
	return p.evals, drift, md.f.Value(md.obj), nil
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
	return err
}

// grow adds inducing points while there are fewer than m, each time the
// candidate with the best approximate score, and returns how many it
// added. The set is below m only when the kernel could not tell m points
// apart at earlier hyperparameters.
func (md *Model) grow() int {
	added := 0
	for md.f.k < md.f.mcap {
		best, _ := md.f.bestApprox(md.obj)
		if best < 0 || md.f.Add(best) != nil {
			break
		}
		md.visited[best] = md.counter
		added++
	}
	return added
}

// stopErr returns ctx's error or, failing that, the interrupt's (see
// WithInterrupt).
func (md *Model) stopErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if md.interrupt != nil {
		return md.interrupt()
	}
	return nil
}
