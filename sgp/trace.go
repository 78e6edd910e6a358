package sgp

import (
	"strconv"
	"time"
)

// EpochRecord summarises one epoch.
type EpochRecord struct {
	Epoch       int
	Objective   float64   // after the epoch, including n/2·log 2π
	Kind        Objective // the objective of this epoch: MLE in a VAR fit's restart (WithMLERestart)
	Parts       Parts
	Params      []float64 // θ after the epoch
	Grown       int       // inducing points added because the set was below m
	Scored      int       // exact candidate scores made by a baseline's re-selection
	Swaps       int
	Accepted    int
	CGEvals     int
	CGObjective float64 // after the continuous phase
	CGStatus    CGStop  // how the continuous phase ended: CGBudget, CGConverged, CGLineSearch, …
	CGGradient  float64 // max |∂F/∂θ| where the continuous phase ended (+Inf if unknown)
	Mean        float64 // the prior mean μ after the epoch
	Drift       float64 // relative difference between the updated factor and a fresh evaluation
	Elapsed     time.Duration
	SwapTime    time.Duration // of Elapsed, the discrete pass (swaps and information-pivot refreshes)
	Total       time.Duration
}

// Trace is the per-epoch record of a fit, oldest first: a slice, indexed,
// ranged over and passed to figure.Trace as one, that displays as a table
// (String in a terminal, HTML in a notebook).
type Trace []EpochRecord

// CGStop is how a continuous (conjugate-gradient) phase ended, in
// EpochRecord.CGStatus; String gives it in words.
type CGStop int

// The ways a continuous phase ends.
const (
	cgNone       CGStop = iota // no phase (the zero EpochRecord)
	CGBudget                   // the evaluation budget was used up (the normal end)
	CGConverged                // the objective or gradient stopped changing
	CGLineSearch               // no step along the search direction decreased F
	CGNonFinite                // no finite objective value near the start (overflow or loss of positive definiteness)
	CGNoDescent                // the search direction was not downhill (rounding)
	CGCancelled
	CGSkipped // fixed hyperparameters
	// CGUndone: the phase found lower values only at hyperparameters
	// where the inducing set cannot be factorised whole, and went back to
	// its start so that the swaps can adapt the set first.
	CGUndone
)

// cgWords are the CGStops' Strings.
var cgWords = [...]string{
	cgNone:       "",
	CGBudget:     "budget",
	CGConverged:  "converged",
	CGLineSearch: "line search failed",
	CGNonFinite:  "non-finite",
	CGNoDescent:  "no descent",
	CGCancelled:  "cancelled",
	CGSkipped:    "skipped",
	CGUndone:     "undone: the inducing set cannot be held at the best point",
}

// String returns how the phase ended in words: "budget", "converged",
// "line search failed", ….
func (s CGStop) String() string {
	if s < 0 || int(s) >= len(cgWords) {
		return "CGStop(" + strconv.Itoa(int(s)) + ")"
	}
	return cgWords[s]
}
