package sgp

import (
	"errors"
	"fmt"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/par"
)

// Panic messages for programmer errors.
const (
	errParamLen    = "sgp: wrong number of hyperparameters"
	errBadFactor   = "sgp: use of a Factor without a successful Factorize"
	errIndex       = "sgp: index out of range"
	errFull        = "sgp: inducing set is full"
	errNotActive   = "sgp: point is not in the inducing set"
	errIsActive    = "sgp: point is already in the inducing set"
	errShortBuffer = base.ErrShortBuffer
)

// Sentinel errors returned at the user-facing boundary.
var (
	// ErrEmpty is returned for an empty data set.
	ErrEmpty = base.ErrEmpty
	// ErrNoise is returned for a noise variance that is not positive and finite.
	ErrNoise = base.ErrNoise
	// ErrNoCandidate is returned when no point outside the inducing set has a
	// residual variance above the tolerance (all points are explained).
	ErrNoCandidate = errors.New("sgp: no candidate point has a non-negligible residual variance")
)

// DegenerateError reports a point whose residual variance given the other
// inducing points is negligible: a duplicate input, or a kernel that cannot
// tell it apart from points already chosen. Such a point cannot be inducing.
// Its fields are Index, the data index of the point, and Residual, its
// residual variance κ(x,x) − K̂(x,x).
type DegenerateError = base.DegenerateError

// PanicError reports a panic in code sgp called — typically a user's
// kernel function (kernel.NewFunc) failing on some rows — on the calling
// goroutine or on one of the goroutines sgp evaluates kernels on. The
// public methods return it instead of letting the panic end the process;
// a Model then refactorises from scratch before its next use, so nothing
// half-updated is kept.
//
// Its fields are Value, what the code panicked with; Lo and Hi, the data
// rows [Lo, Hi) the failing goroutine was working on (Lo = Hi = -1 when
// unknown); and Stack, the failing goroutine's stack trace. Unwrap returns
// Value if it is an error. It is the type the row-parallel loops capture
// a panic in, so a panic on any goroutine reaches the caller as it was.
type PanicError = par.Panic

// constantTargets returns an error when every target has the same value:
// the residuals from the fitted constant mean are then zero, and each
// objective falls without bound as the noise variance goes to 0, so there
// are no hyperparameters to fit. Exact equality is the point: targets that
// differ at all have a residual for the noise to explain.
func constantTargets(y []float64) error {
	for _, v := range y {
		if v != y[0] {
			return nil
		}
	}
	if len(y) == 0 {
		return ErrEmpty
	}
	return fmt.Errorf("sgp: all %d training targets equal %g: the objective falls without bound as the noise variance goes to 0, so there are no hyperparameters to fit; check the target column", len(y), y[0])
}
