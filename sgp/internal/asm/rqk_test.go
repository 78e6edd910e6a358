package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRQRowAccuracy checks RQRow against v·(1 + a·s)^{−α} by math.Pow and
// math.Log1p: relative error within 10⁻¹⁵·max(1, α·log(1 + a·s)) (the
// exponent's own rounding, amplified by the exponential) plus 4·10⁻¹⁶·α
// (1 + a·s is rounded before its logarithm, an absolute error of up to
// 1.1·10⁻¹⁶ that the exponent multiplies by α), 0 where the
// value underflows, at random and extreme squared distances for several
// shapes α, at lengths the AVX2 and Go parts split differently.
func TestRQRowAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 3))
	s := []float64{0, 1e-300, 1e-20, 1e-8, 0.5, 1, 3, 100, 1e4, 1e300, math.MaxFloat64}
	for range 20000 {
		s = append(s, rng.ExpFloat64(), 200*rng.Float64(), math.Pow(10, 40*rng.Float64()-20))
	}
	s = s[:len(s)-1] // not a multiple of 4: the Go loop takes the tail
	for _, alpha := range []float64{0.05, 0.7, 1, 2.5, 40, 1e4} {
		a := 0.5 / alpha
		for _, p := range []float64{alpha, alpha + 1} {
			dst := make([]float64, len(s))
			RQRow(dst, s, 1.3, a, p)
			for i, v := range s {
				ex := p * math.Log1p(a*v)
				want := 1.3 * math.Exp(-ex)
				if -ex < expMin {
					if dst[i] != 0 && !(dst[i] <= 1e-300) {
						t.Fatalf("α = %v, exponent %v: RQRow at s = %v: %v, want 0", alpha, p, v, dst[i])
					}
					continue
				}
				if !(math.Abs(dst[i]-want) <= (1e-15*math.Max(1, ex)+4e-16*p)*want) {
					t.Fatalf("α = %v, exponent %v: RQRow at s = %v: %v, want %v (relative error %.3g)", alpha, p, v, dst[i], want, math.Abs(dst[i]-want)/want)
				}
			}
		}
	}
	dst := []float64{7}
	RQRow(dst, []float64{math.Inf(1)}, 1, 0.5, 1)
	if dst[0] != 0 {
		t.Errorf("RQRow at s = +Inf: %v, want 0", dst[0])
	}
	RQRow(dst, []float64{math.NaN()}, 1, 0.5, 1)
	if !math.IsNaN(dst[0]) {
		t.Errorf("RQRow at s = NaN: %v, want NaN", dst[0])
	}
}
