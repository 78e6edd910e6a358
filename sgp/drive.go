package sgp

import (
	"context"
	"fmt"
	"time"
)

// Swap performs one swap: it removes the inducing point that has gone
// longest without being proposed for removal, proposes the best
// replacement by approximate score, checks it exactly and keeps it if the
// objective decreases (Cao et al. 2013, Alg. 1).
func (md *Model) Swap() (sr SwapResult, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return SwapResult{}, err
	}
	order := md.visitOrder(1)
	return md.swapPoint(order[0]), nil
}

// SwapPoint proposes to replace inducing point j (a data index).
func (md *Model) SwapPoint(j int) (sr SwapResult, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return SwapResult{}, err
	}
	if j < 0 || j >= md.x.Len() || !md.f.IsActive(j) {
		return SwapResult{}, fmt.Errorf("sgp: point %d is not an inducing point", j)
	}
	return md.swapPoint(j), nil
}

func (md *Model) swapPoint(j int) SwapResult {
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

// EpochRecord summarises one epoch.
type EpochRecord struct {
	Epoch       int
	Objective   float64 // after the epoch, including n/2·log 2π
	Parts       Parts
	Params      []float64 // θ after the epoch
	Grown       int       // inducing points added because the set was below m
	Scored      int       // exact candidate scores made by a baseline's re-selection
	Swaps       int
	Accepted    int
	CGEvals     int
	CGObjective float64 // after the continuous phase
	CGStatus    string  // how the continuous phase ended: CGBudget, CGConverged, CGLineSearch, …
	CGGradient  float64 // max |∂F/∂θ| where the continuous phase ended (+Inf if unknown)
	Mean        float64 // the prior mean μ after the epoch
	Drift       float64 // relative difference between the updated factor and a fresh evaluation
	Elapsed     time.Duration
	Total       time.Duration
}

// Step runs one epoch: the continuous phase (CG on θ with the inducing set
// fixed) followed by a discrete pass of swaps.
func (md *Model) Step() (EpochRecord, error) {
	return md.StepContext(context.Background())
}

// StepContext is Step with cancellation, checked between swaps and CG
// evaluations.
func (md *Model) StepContext(ctx context.Context) (rec EpochRecord, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return EpochRecord{}, err
	}
	return md.epochStep(ctx)
}

// Result summarises a Fit.
type Result struct {
	Objective float64
	Parts     Parts
	Epochs    int
	Elapsed   time.Duration
	// Stopped says why Fit stopped: "converged", "max epochs", "time
	// budget", "cancelled", "error", or "stalled: " and the reason when the
	// objective stopped decreasing because the gradient phase failed (a
	// line search that found no decrease, non-finite objective values)
	// while the gradient was not small.
	Stopped string
	// Converged is true only when the relative decrease of the objective
	// over the last epoch fell below the tolerance and the gradient phase
	// ended normally or at a small gradient.
	Converged bool
	Inducing  []int
	Params    []float64
	Mean      float64 // the prior mean μ
	// M is the number of inducing points asked for; len(Inducing) can be
	// smaller (see Model.WithM).
	M int
	// Warnings lists what the user should know about the result: fewer
	// inducing points than asked for, a fit that did not converge.
	Warnings []string
	Stats
}

// Fit runs epochs until the objective's relative decrease over an epoch is
// below the tolerance, the maximum number of epochs or the time budget is
// reached. The decrease is measured relative to the objective of the
// standardised targets, F − n·log sd(y) (at least n/100 in magnitude), so
// that the rule does not depend on the units of y.
//
// A gradient phase that fails (see EpochRecord.CGStatus) while its
// gradient is not small does not count as convergence: Fit goes on, and
// after two such epochs in a row it stops with Stopped = "stalled: …" and
// Converged = false.
func (md *Model) Fit() (*Result, error) { return md.FitContext(context.Background()) }

// FitContext is Fit with cancellation: it stops at the next swap or CG
// evaluation once ctx is done, returning the model as it then is together
// with ctx's error.
func (md *Model) FitContext(ctx context.Context) (res *Result, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return nil, err
	}
	start := time.Now()
	prev := md.f.Value(md.obj)
	stopped, converged := "max epochs", false
	stalls := 0
	var runErr error
	for e := 0; e < md.maxEpochs; e++ {
		rec, err := md.epochStep(ctx)
		if err != nil {
			runErr = err
			stopped = "error"
			if md.stopErr(ctx) != nil {
				stopped = "cancelled"
			}
			break
		}
		if prev-rec.Objective < md.tol*md.f.valueScale(prev) {
			if md.cgHealthy(rec) {
				stopped, converged = "converged", true
				break
			}
			if stalls++; stalls >= 2 {
				stopped = "stalled: " + rec.CGStatus
				break
			}
		} else {
			stalls = 0
		}
		prev = rec.Objective
		if md.budget > 0 && time.Since(start) >= md.budget {
			stopped = "time budget"
			break
		}
	}
	res = &Result{
		Objective: md.f.Value(md.obj),
		Parts:     md.f.Parts(),
		Epochs:    len(md.trace),
		Elapsed:   time.Since(start),
		Stopped:   stopped,
		Converged: converged,
		Inducing:  md.f.Active(nil),
		Params:    md.Params(),
		Mean:      md.f.mu,
		M:         md.m,
		Stats:     md.f.stats,
	}
	res.Warnings = md.warnings(res)
	for _, w := range res.Warnings {
		if md.progress != nil {
			fmt.Fprintf(md.progress, "warning: %s\n", w)
		}
		if md.onWarning != nil {
			md.onWarning(w)
		}
	}
	return res, runErr
}

// cgHealthy reports whether an epoch's gradient phase ended normally, or
// at a gradient small enough that a failed line search means a flat
// objective rather than a stuck optimiser: max |∂F/∂θ| below the
// tolerance times the objective's scale, so that a unit change of any log
// hyperparameter would change F by less than the tolerance.
func (md *Model) cgHealthy(rec EpochRecord) bool {
	switch rec.CGStatus {
	case CGBudget, CGConverged, CGSkipped:
		return true
	}
	return rec.CGGradient <= md.tol*md.f.valueScale(rec.Objective)
}

// warnings returns the notes a user must see about a fit.
func (md *Model) warnings(res *Result) []string {
	var w []string
	if k := len(res.Inducing); k < md.m {
		w = append(w, fmt.Sprintf("only %d of the m=%d inducing points asked for: the kernel cannot tell more training points apart at these hyperparameters (see WithM)", k, md.m))
	}
	switch {
	case res.Stopped == "cancelled":
		w = append(w, fmt.Sprintf("interrupted at epoch %d, F = %.6g; the model keeps this state", res.Epochs, res.Objective))
	case !res.Converged:
		w = append(w, fmt.Sprintf("the fit did not converge (%s); the model is the best state reached", res.Stopped))
	}
	return w
}

// recoverPanic turns a panic during a Model method (a user's kernel
// failing, on any goroutine sgp evaluates it on) into *err, and marks the
// factorisation stale: the next use refactorises from scratch at the
// current inducing set and hyperparameters, so nothing half-updated is
// kept.
func (md *Model) recoverPanic(err *error) {
	if r := recover(); r != nil {
		*err = newPanicError(r, -1, -1)
		md.stale = true
	}
}
