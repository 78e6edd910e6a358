package sgp

import (
	"fmt"
	"math"
)

// checkNoiseVariances validates known per-point noise variances.
func checkNoiseVariances(s2 []float64) error {
	if len(s2) == 0 {
		return fmt.Errorf("sgp: no noise variances")
	}
	for i, v := range s2 {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("sgp: noise variance %d is %v; known noise variances must be finite and ≥ 0", i, v)
		}
	}
	return nil
}

// knownNoise returns s2[i], 0 for no known noise variances.
func knownNoise(s2 []float64, i int) float64 {
	if s2 == nil {
		return 0
	}
	return s2[i]
}
