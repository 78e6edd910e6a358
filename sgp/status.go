package sgp

import (
	"fmt"
	"strconv"
	"time"
)

// Status is how a fit ended, shared by Result, ExactResult and
// ContinuousResult, as gonum/optimize's Status is for Minimize. String
// gives the words the displays and the command line's JSON ("stopped")
// show; the results' Reason holds the detail of a Stalled or Failed fit.
type Status int

// The ways a fit ends.
const (
	// NotStopped is the zero Status, of no fit (a ComparisonRow without
	// a Result); its String is "".
	NotStopped Status = iota
	// Converged: the stop rule saw the objective stop decreasing, at a
	// small gradient.
	Converged
	// MaxEpochs: the epochs allowed (Model.WithMaxEpochs) ran.
	MaxEpochs
	// MaxEvaluations: the objective-and-gradient evaluations allowed
	// (Exact.WithMaxEvals, Continuous.WithMaxEvals) ran.
	MaxEvaluations
	// TimeBudget: the time budget (WithTimeBudget) ran out.
	TimeBudget
	// Cancelled: the context was cancelled, or the interrupt function
	// (Model.WithInterrupt) returned an error.
	Cancelled
	// Stalled: the objective stopped decreasing while the gradient was
	// not small; Reason says what the stop rule saw.
	Stalled
	// Fixed: the hyperparameters were fixed
	// (Exact.WithFixedHyperparameters, or WithFixed of every one), so
	// nothing was optimised.
	Fixed
	// Failed: the optimiser or the fit failed; Reason, or the error the
	// fit returned, says how.
	Failed
)

// statusWords are the Statuses' Strings.
var statusWords = [...]string{
	NotStopped:     "",
	Converged:      "converged",
	MaxEpochs:      "max epochs",
	MaxEvaluations: "max evaluations",
	TimeBudget:     "time budget",
	Cancelled:      "cancelled",
	Stalled:        "stalled",
	Fixed:          "fixed",
	Failed:         "failed",
}

// String returns the status in words: "converged", "max epochs", "time
// budget", ….
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusWords) {
		return "Status(" + strconv.Itoa(int(s)) + ")"
	}
	return statusWords[s]
}

// stop is how a fit or a run of epochs ended: its status and, for Stalled
// and Failed, the detail.
type stop struct {
	status Status
	reason string
}

// String returns the stop as the displays show it: the status, then
// ": " and the reason when there is one ("stalled: …").
func (s stop) String() string { return stopText(s.status, s.reason) }

// stopText returns a status and its reason as the displays show them.
func stopText(s Status, reason string) string {
	if reason == "" {
		return s.String()
	}
	return s.String() + ": " + reason
}

// FitSummary is what every fit reports, the part that Result,
// ExactResult and ContinuousResult share (each embeds it): the objective
// reached, how long it took, how and why it ended, the hyperparameters,
// the prior mean, the noise floor and the warnings. The displays and the
// command line's JSON read it from here.
type FitSummary struct {
	// Objective is the objective at the end, including n/2·log 2π:
	// VAR's or MLE's for the sparse models, the exact negative log
	// marginal likelihood for the exact GP.
	Objective float64
	Elapsed   time.Duration // the fit's wall time, building the model included
	// Status says how the fit ended; Reason holds the detail of a
	// Stalled or Failed fit.
	Status Status
	Reason string
	// Converged is true when the fit's stop rule saw the objective stop
	// decreasing at a small gradient (see each fit's rule).
	Converged bool
	Params    []float64 // θ: the kernel's log hyperparameters, then log σ²
	Names     []string  // the names of Params: the kernel's, then "noise"
	Mean      float64   // the prior mean μ the model predicts with
	// NoiseFloor is the least noise variance the fit could reach
	// (WithNoiseFloor, or its default); AtNoiseFloor is true when σ²
	// ended there (within 5%), so that the floor rather than the data
	// decided σ² and the predictive variances (a warning says so too).
	// Both are zero for fixed hyperparameters.
	NoiseFloor   float64
	AtNoiseFloor bool
	// Fixed holds the hyperparameters held fixed (WithFixed, WithFixedAt)
	// by name, with their values (a value given exactly as given);
	// Bounds the bounded ones (WithBounds), in θ order, with where each
	// ended (Bound.At; a warning names those at a bound). Both are nil
	// when nothing is fixed or bounded.
	Fixed  map[string]float64
	Bounds []Bound
	// Warnings lists what the user should know about the result: a fit
	// that did not converge, fewer inducing points than asked for, the
	// noise at its floor, ….
	Warnings []string
	// Starts lists, for a fit restarted from several starting
	// hyperparameters (WithRestarts), every start and where its fit
	// ended, the data-driven start first; BestStart indexes the start
	// whose fit, the lowest objective, the result and the model are.
	// Starts is nil for a fit from one start. Elapsed is then the time of
	// all the starts, each start's own in its StartSummary.
	Starts    []StartSummary
	BestStart int
}

// Bound is a bounded hyperparameter (WithBounds) as a fit reports it: its
// name, the bounds in force, inclusive, as positive values (a noise
// bound below the noise floor is raised to it), and At, where the fit
// ended: "lower" or "upper" at that bound (within a factor 1.05, or 1%
// of the log width for narrower bounds), "" inside them.
type Bound struct {
	Name   string
	Lo, Hi float64
	At     string
}

// StartSummary is one start of a fit restarted from several (the
// WithRestarts of Model, Exact and Continuous): where it began, how it
// was chosen and where its fit ended. The spread of the objectives over
// the starts shows how many optima the fits found.
type StartSummary struct {
	// From says how the start was chosen: "the data" (the kernel's
	// starting values and the starting noise), "a draw around it", or
	// "periodogram peak k, period p" for a start whose periods are the
	// periodogram's k-th peak.
	From string
	// Start is θ where the fit began, End where it ended: the kernel's
	// log hyperparameters, then log σ² (nil for a fit that failed).
	Start, End []float64
	// Objective is F where the fit ended (+Inf when it failed), Status
	// how it ended; Err is the error it returned, "" for none.
	Objective float64
	Status    Status
	Err       string
	Elapsed   time.Duration
}

// Stopped returns how the fit ended as the displays show it: the status,
// then ": " and the reason when there is one ("stalled: …").
func (s *FitSummary) Stopped() string { return stopText(s.Status, s.Reason) }

// notConverged is the warning for a fit that did not converge and kept its
// best state.
func notConverged(stopped string) string {
	return fmt.Sprintf("the fit did not converge (%s); the model is the best state reached", stopped)
}
