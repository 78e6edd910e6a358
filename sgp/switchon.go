package sgp

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// switchBackSubset brings back inputs that a subset-of-data fit with the
// RBF kernel has switched off, where that lowers the objective: the
// subset counterpart of the hybrid's reactivate. An ARD lengthscale that
// the gradient phases have grown far beyond the inputs' spread sits on a
// plateau where ∂F/∂log ℓ vanishes, so later epochs never bring it back,
// even where the target depends on the input. This happens where an
// input's effect is invisible at the starting lengthscales, e.g. a
// symmetric one (y = ½x₁² with x₁ standard normal): VAR then explains it
// as noise, while F with the lengthscale set back to its start is far
// lower before any step.
//
// For every switched-off input (switchOnCandidates: the lengthscale above
// offFactor times its start, scaled by √(V/v0) when the signal variance V
// has grown past its start v0) it evaluates F at the current inducing set
// with the lengthscale set back to 1, 3 and 10 times the scaled start,
// the rest of θ unchanged; from the lowest point below the current F it
// runs epochs as Fit does, and keeps the result if F ends lower, trying
// the next input's lowest point otherwise. A kept result that ended on its own
// (converged or stalled) is searched again. Inputs the target does not
// depend on raise F at every point and stay off. Each point costs a
// factorisation at the current set, about one gradient evaluation. It
// stops at r's time budget and on cancellation, and returns the inputs
// switched back on, in order, with the outcome of the last epochs kept
// (ended0 when none were).
func (md *Model) switchBackSubset(r *run, v0 float64, ls0 []float64, ended0 outcome) (ended outcome, on []int, err error) {
	ended = ended0
	for r.ctx.Err() == nil && r.timeLeft() && endedOnItsOwn(ended.status) {
		keepTheta, keepActive := md.Params(), md.f.Active(nil)
		keepF, keepTrace, keepEpoch := md.f.Value(r.obj), len(md.trace), md.epoch
		restore := func() {
			md.trace, md.epoch = md.trace[:keepTrace], keepEpoch
			md.restore(keepTheta, keepActive, r.obj)
		}
		cands := md.constrainCandidates(switchOnCandidates(keepTheta, v0, ls0))
		if len(cands) == 0 {
			break
		}
		var pts []switchOn
		for _, p := range cands {
			if md.refactor(p.theta, keepActive) != nil {
				continue
			}
			if p.f = md.f.Value(r.obj); p.f < keepF {
				pts = append(pts, p)
			}
			if r.ctx.Err() != nil || !r.timeLeft() {
				break // each point costs a factorisation, O(n·m²)
			}
		}
		sort.SliceStable(pts, func(a, b int) bool { return pts[a].f < pts[b].f })
		kept := false
		for i, p := range pts {
			if r.ctx.Err() != nil {
				break
			}
			if slices.ContainsFunc(pts[:i], func(q switchOn) bool { return q.j == p.j }) {
				continue // the input's best point was tried
			}
			if md.refactor(p.theta, keepActive) != nil {
				continue
			}
			st, e := md.runEpochs(r)
			f := md.f.Value(r.obj)
			if md.progress != nil {
				fmt.Fprintf(md.progress, "switch-on: lengthscale[%d] %.3g → %.3g: %v %.6g → %.6g (%.6g before any step; %s)\n",
					p.j, math.Exp(keepTheta[1+p.j]), math.Exp(p.theta[1+p.j]), r.obj, keepF, f, p.f, st.stop)
			}
			if f < keepF {
				ended, err, kept = st, e, true
				on = append(on, p.j)
				break
			}
			restore()
			if e != nil && r.stopErr() == nil {
				return ended, on, e
			}
		}
		if !kept {
			restore()
			return ended, on, nil
		}
		if err != nil {
			return ended, on, err
		}
	}
	return ended, on, err
}

// switchOn is a point at which to evaluate F with input j switched back on:
// theta with j's lengthscale set back, and F there once evaluated.
type switchOn struct {
	j     int
	theta []float64
	f     float64
}

// switchOnCandidates returns, for every input that the RBF kernel's log
// parameters theta ([log V, log ℓ₁ … log ℓ_d, …]) have switched off —
// ℓ_j above offFactor·√(max(1, V/v0)) times its start ls0[j] — a point for
// each multiple in reactivateMults of that start times √(max(1, V/v0)),
// with the rest of theta unchanged (see Model.reactivate).
func switchOnCandidates(theta []float64, v0 float64, ls0 []float64) []switchOn {
	var pts []switchOn
	scale := max(1, math.Sqrt(math.Exp(theta[0])/v0))
	for j, l0 := range ls0 {
		if !(theta[1+j] > math.Log(offFactor*l0*scale)) {
			continue
		}
		for _, k := range reactivateMults {
			th := append([]float64(nil), theta...)
			th[1+j] = math.Log(k * l0 * scale)
			pts = append(pts, switchOn{j: j, theta: th})
		}
	}
	return pts
}

// endedOnItsOwn reports whether a continuous fit that stopped with reason
// stopped ended at a local optimum (converged, or stalled by its stop
// rule) rather than on a limit.
func endedOnItsOwn(s Status) bool {
	return s == Converged || s == Stalled
}

// offFactor is how many times its starting lengthscale an input's
// lengthscale must exceed for reactivate to count the input as switched
// off: the kernel then varies along it by less than about 1/(2·30²) of its
// variance over the half range the start assumes.
const offFactor = 30

// reactivateMults are the multiples of a switched-off input's starting
// lengthscale at which reactivate evaluates F.
var reactivateMults = [...]float64{1, 3, 10}

// constrainCandidates drops the points of pts that move a fixed
// hyperparameter and moves those outside a bound inside it: the points
// at which switching an input back on is tried.
func (md *Model) constrainCandidates(pts []switchOn) []switchOn {
	r := md.resolved()
	if r == nil {
		return pts
	}
	out := pts[:0]
	for _, p := range pts {
		if r.fixed[1+p.j] {
			continue
		}
		p.theta = r.start(p.theta, md.floor())
		out = append(out, p)
	}
	return out
}
