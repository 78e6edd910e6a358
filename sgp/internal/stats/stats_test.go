package stats

import (
	"math"
	"testing"
)

// TestVariance checks the population variance against its definition
// and TargetScale's fallback of 1 for targets with no finite spread.
func TestVariance(t *testing.T) {
	t.Parallel()
	y := []float64{1, 2, 3, 4}
	if v := Variance(y); math.Abs(v-1.25) > 1e-15 {
		t.Errorf("Variance(%v) = %v, want 1.25", y, v)
	}
	if v := TargetScale(y); math.Abs(v-1.25) > 1e-15 {
		t.Errorf("TargetScale(%v) = %v, want 1.25", y, v)
	}
	for _, y := range [][]float64{nil, {2.5}, {2.5, 2.5, 2.5}, {-1e300, 1e300}} {
		if v := TargetScale(y); v != 1 {
			t.Errorf("TargetScale(%v) = %v, want the fallback 1", y, v)
		}
	}
}
