package sgp

import "strconv"

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
	// (ExactOptions.MaxEvals, ContinuousOptions.MaxEvals) ran.
	MaxEvaluations
	// TimeBudget: the time budget, or a hybrid refinement's share of
	// it, ran out.
	TimeBudget
	// Cancelled: the context was cancelled, or the interrupt function
	// (Model.WithInterrupt) returned an error.
	Cancelled
	// Stalled: the objective stopped decreasing while the gradient was
	// not small; Reason says what the stop rule saw.
	Stalled
	// Abandoned: a hybrid fit's continuous refinement, behind CholQR's
	// objective, was given up.
	Abandoned
	// Fixed: the hyperparameters were fixed (ExactOptions.Fixed), so
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
	Abandoned:      "abandoned",
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
