package base

import (
	"errors"
	"fmt"

	"github.com/cholqr/sgp/sgp/internal/par"
)

// ErrShortBuffer is the panic message for a destination slice of the
// wrong length.
const ErrShortBuffer = "sgp: destination slice has the wrong length"

// Sentinel errors returned at the user-facing boundary (sgp names them
// too).
var (
	// ErrEmpty is returned for an empty data set.
	ErrEmpty = errors.New("sgp: no training data")
	// ErrNoise is returned for a noise variance that is not positive and finite.
	ErrNoise = errors.New("sgp: noise variance must be positive and finite")
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

// RecoverTo turns a panic of the current call into *err, as a *par.Panic
// (one that package par raised again from one of its goroutines is kept
// as it is, with its rows and stack).
// Use it as `defer base.RecoverTo(&err)` in methods whose result is an error.
func RecoverTo(err *error) {
	if r := recover(); r != nil {
		*err = par.Capture(r, -1, -1)
	}
}
