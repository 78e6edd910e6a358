package sgp

import (
	"errors"
	"fmt"
)

// Panic messages for programmer errors.
const (
	errParamLen    = "sgp: wrong number of hyperparameters"
	errBadFactor   = "sgp: use of a Factor without a successful Factorize"
	errIndex       = "sgp: index out of range"
	errFull        = "sgp: inducing set is full"
	errNotActive   = "sgp: point is not in the inducing set"
	errIsActive    = "sgp: point is already in the inducing set"
	errShortBuffer = "sgp: destination slice has the wrong length"
)

// Sentinel errors returned at the user-facing boundary.
var (
	// ErrEmpty is returned for an empty data set.
	ErrEmpty = errors.New("sgp: no training data")
	// ErrNoise is returned for a noise variance that is not positive and finite.
	ErrNoise = errors.New("sgp: noise variance must be positive and finite")
	// ErrNoCandidate is returned when no point outside the inducing set has a
	// residual variance above the tolerance (all points are explained).
	ErrNoCandidate = errors.New("sgp: no candidate point has a non-negligible residual variance")
)

// DegenerateError reports a point whose residual variance given the other
// inducing points is negligible: a duplicate input, or a kernel that cannot
// tell it apart from points already chosen. Such a point cannot be inducing.
type DegenerateError struct {
	Index    int     // the data index of the point
	Residual float64 // its residual variance κ(x,x) − K̂(x,x)
}

func (e *DegenerateError) Error() string {
	return fmt.Sprintf("sgp: point %d has residual variance %.3g given the other inducing points (a duplicate input?); it cannot be inducing", e.Index, e.Residual)
}
