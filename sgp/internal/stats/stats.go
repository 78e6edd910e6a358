// Package stats holds the moments of the targets that packages sgp and
// sgp/kernel both take their starting values from, so that the two agree
// on them.
package stats

import "math"

// Variance returns the population variance of v (NaN for an empty v).
func Variance(v []float64) float64 {
	var mean float64
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	var s float64
	for _, x := range v {
		s += (x - mean) * (x - mean)
	}
	return s / float64(len(v))
}

// TargetScale returns var(y) if it is positive and finite, otherwise 1:
// the scale the starting hyperparameters take from the targets (the
// kernels' signal variance, the noise variance a quarter of it). Targets
// that are all equal, or none, have no spread to take a scale from, and
// targets whose variance overflows have no finite one; 1 is the scale of
// standardised targets.
func TargetScale(y []float64) float64 {
	if len(y) == 0 {
		return 1
	}
	if v := Variance(y); v > 0 && !math.IsInf(v, 0) {
		return v
	}
	return 1
}
