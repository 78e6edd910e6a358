package sgp

import (
	"fmt"
	"math"
	"time"

	"github.com/cholqr/sgp/sgp/internal/stats"
)

// startNoise returns the starting noise variance σ² of a fit of targets y
// that is not given one (WithNoise): var(y)/4, a quarter of the kernels'
// starting signal variance, so that the start explains most of the
// targets' spread by the function. Targets that are all equal (or whose
// variance overflows) have no spread to take it from; they start at 1/4,
// a quarter of the signal variance 1 the kernels start at then
// (stats.TargetScale), so that the two keep their usual ratio and σ² is
// finite and positive. Model, Exact and Continuous all start here.
func startNoise(y []float64) float64 { return stats.TargetScale(y) / 4 }

// The validators of the options that Model, Exact and Continuous share:
// each With method with one of these options checks its value here, so
// that the three builders refuse the same values with the same message
// (Err returns it). The noise floor's is checkNoiseFloor, the number of
// inducing points' checkM.

// checkNoise returns an error unless noise is a valid noise variance σ²:
// positive and finite.
func checkNoise(noise float64) error {
	if !(noise > 0) || math.IsInf(noise, 0) {
		return fmt.Errorf("%w, got %v", ErrNoise, noise)
	}
	return nil
}

// checkTimeBudget returns an error unless d is a valid time budget: 0 (no
// limit) or positive.
func checkTimeBudget(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("sgp: time budget %v must be ≥ 0 (0: no limit)", d)
	}
	return nil
}

// checkMaxEvals returns an error unless n is a valid bound on the
// objective-and-gradient evaluations: at least 1.
func checkMaxEvals(n int) error {
	if n < 1 {
		return fmt.Errorf("sgp: %d maximum evaluations must be ≥ 1", n)
	}
	return nil
}

// checkMaxEpochs returns an error unless n is a valid bound on the
// epochs: at least 1.
func checkMaxEpochs(n int) error {
	if n < 1 {
		return fmt.Errorf("sgp: max epochs %d must be ≥ 1", n)
	}
	return nil
}

// checkObjective returns an error unless o is VAR or MLE.
func checkObjective(o Objective) error {
	if o != VAR && o != MLE {
		return fmt.Errorf("sgp: unknown objective %v", o)
	}
	return nil
}

// checkJitter returns an error unless jitter is a valid diagonal jitter:
// finite and ≥ 0.
func checkJitter(jitter float64) error {
	if !(jitter >= 0) || math.IsInf(jitter, 0) {
		return fmt.Errorf("sgp: jitter %v must be finite and ≥ 0", jitter)
	}
	return nil
}

// checkM checks the number m of inducing points chosen among n training
// points: 1 ≤ m < n, the one rule of the model's configuration
// (Model.Err). With every point inducing the sparse
// model is the exact GP, which NewExact fits directly.
func checkM(m, n int) error {
	switch {
	case m < 1:
		return fmt.Errorf("sgp: m=%d inducing points must satisfy 1 ≤ m < n=%d", m, n)
	case m >= n:
		return fmt.Errorf("sgp: m=%d inducing points must satisfy 1 ≤ m < n=%d; to use all %d training points, fit the exact GP (NewExact; sgprepl fit --selector exact)", m, n, n)
	}
	return nil
}
