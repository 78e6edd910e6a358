package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpNegAccuracy checks expNeg against math.Exp: relative error within
// 4.5·10⁻¹⁶ (about 3 units in the last place at worst; both functions
// round) on [expMin, 0] (random points, small and round values, the
// reduction's boundaries ±ln 2/2 and the ends), 0 below expMin and a NaN
// kept.
func TestExpNegAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	xs := []float64{0, math.Copysign(0, -1), -1e-300, -1e-17, -1e-9, -0.5, -1, -2, -10, -100, -700, expMin,
		-math.Ln2 / 2, math.Nextafter(-math.Ln2/2, 0), math.Nextafter(-math.Ln2/2, -1), -1.5 * math.Ln2}
	for range 200000 {
		xs = append(xs, expMin*rng.Float64(), -rng.ExpFloat64(), -math.Pow(10, 6*rng.Float64()-5))
	}
	worst := 0.0
	for _, x := range xs {
		got, want := expNeg(x), math.Exp(x)
		if e := math.Abs(got-want) / want; e > worst {
			worst = e
			if e > 4.5e-16 {
				t.Fatalf("expNeg(%v) = %v, math.Exp %v: relative error %.3g", x, got, want, e)
			}
		}
	}
	t.Logf("largest relative error %.3g over %d points", worst, len(xs))
	for _, x := range []float64{math.Nextafter(expMin, -1000), -1000, math.Inf(-1)} {
		if got := expNeg(x); got != 0 {
			t.Errorf("expNeg(%v) = %v, want 0", x, got)
		}
	}
	if got := expNeg(math.NaN()); !math.IsNaN(got) {
		t.Errorf("expNeg(NaN) = %v, want NaN", got)
	}
	dst := make([]float64, 3)
	ExpRow(dst, []float64{0, 2, 4}, 1.5)
	for i, s := range []float64{0, 2, 4} {
		if want := 1.5 * math.Exp(-s/2); math.Abs(dst[i]-want) > 3e-16*want {
			t.Errorf("ExpRow: %v at s = %v, want %v", dst[i], s, want)
		}
	}
}
