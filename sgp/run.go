package sgp

import (
	"context"
	"runtime/debug"
	"time"
)

// run is the state of one Fit or Step, apart from the model's
// configuration, which stays as the With methods set it: the objective the
// phase optimises, whether it moves the hyperparameters, its time budget
// and its stop checks. Fit and Step create one from the configuration
// (Model.newRun) and pass it down; a phase that changes one of these (the
// restart's MLE epochs, its pass of swaps at fixed hyperparameters, the
// hybrid's CholQR phase with its share of the budget) runs on a copy, so
// nothing it sets outlives it, whichever way it ends.
type run struct {
	ctx   context.Context
	start time.Time // the budget and Result.Elapsed count from here
	// obj is the objective this phase optimises: the model's, or MLE
	// during the restart of a VAR fit (restartFromMLE).
	obj Objective
	// fixHyper turns the gradient phase off: the model's
	// WithFixedHyperparameters or every hyperparameter fixed
	// (Model.allFixed), or the restart's pass of swaps.
	fixHyper bool
	budget   time.Duration // 0: no limit
	// hardEnd makes the budget also stop an epoch at its next swap or
	// gradient evaluation, not only between epochs.
	hardEnd bool
	stop    *stopCheck
	// pause, if set, is called at every stop check: a hybrid fit's CholQR
	// parent waits there while the continuous parent has its turn (see
	// Model.fitHybrid).
	pause func()
	// onValue, if set, is told the objective of each state the phases
	// reach (after a gradient evaluation that lowers the phase's best, a
	// swap that is accepted, an epoch's end) with the objective it is of:
	// a hybrid fit compares its parents' progress with it (see turns).
	onValue func(obj Objective, v float64)
}

// stopCheck is what a run's phases check between swaps and gradient
// evaluations, shared by the copies of one run: the interrupt function
// (WithInterrupt) and its panic, kept once raised so that every later
// check of the same Fit or Step stops too.
type stopCheck struct {
	interrupt func() error
	panicked  error
}

// newRun returns the state of a Fit or Step started now under ctx, from
// the model's configuration.
func (md *Model) newRun(ctx context.Context) *run {
	return &run{ctx: ctx, start: time.Now(), obj: md.obj, fixHyper: md.allFixed(), budget: md.budget,
		stop: &stopCheck{interrupt: md.interrupt}}
}

// with returns a copy of r for a phase that changes some of its state.
func (r *run) with(change func(*run)) *run {
	c := *r
	change(&c)
	return &c
}

// timeLeft reports whether the run's budget, if any, has time left.
func (r *run) timeLeft() bool { return r.budget <= 0 || time.Since(r.start) < r.budget }

// report passes the objective v of a state the run reached to onValue.
func (r *run) report(v float64) {
	if r.onValue != nil {
		r.onValue(r.obj, v)
	}
}

// stopErr returns the context's error or, failing that, the interrupt's
// (see WithInterrupt).
func (r *run) stopErr() error {
	if r.pause != nil {
		r.pause()
	}
	if err := r.ctx.Err(); err != nil {
		return err
	}
	return r.stop.check()
}

// check calls the interrupt function, turning a panic into a *PanicError:
// it runs between swaps and also inside the gradient phase, on
// gonum/optimize's goroutine, where a panic would end the process.
func (s *stopCheck) check() (err error) {
	if s == nil || s.interrupt == nil {
		return nil
	}
	if s.panicked != nil {
		return s.panicked
	}
	defer func() {
		if v := recover(); v != nil {
			s.panicked = &PanicError{Value: v, Lo: -1, Hi: -1, Stack: debug.Stack()}
			err = s.panicked
		}
	}()
	return s.interrupt()
}

// outcome is how a run of epochs ended: its status, the detail for
// Stalled and Failed, and whether it converged.
type outcome struct {
	stop
	converged bool
}
