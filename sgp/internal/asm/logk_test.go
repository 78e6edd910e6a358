package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLogPosAccuracy checks logPos against math.Log on [1, ∞): absolute
// error within 4.5·10⁻¹⁶·max(1, |log x|) (a few units in the last place)
// at random points over the whole range, the mantissa's split at √2 and
// its neighbours, powers of two and the largest double, and +Inf and NaN
// kept.
func TestLogPosAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	xs := []float64{1, math.Nextafter(1, 2), 1 + 1e-15, 1.5, 2, 4, 1024, logSqrt2, math.Nextafter(logSqrt2, 2), math.Nextafter(logSqrt2, 1),
		2 * logSqrt2, math.MaxFloat64, 1e300}
	for range 200000 {
		xs = append(xs, 1+rng.Float64(), 1+rng.ExpFloat64(), math.Pow(10, 300*rng.Float64()), 1+math.Pow(10, -16*rng.Float64()))
	}
	worst := 0.0
	for _, x := range xs {
		got, want := logPos(x), math.Log(x)
		if e := math.Abs(got-want) / math.Max(1, math.Abs(want)); e > worst {
			worst = e
			if e > 4.5e-16 {
				t.Fatalf("logPos(%v) = %v, math.Log %v: error %.3g", x, got, want, e)
			}
		}
	}
	t.Logf("largest error %.3g over %d points", worst, len(xs))
	if got := logPos(math.Inf(1)); !math.IsInf(got, 1) {
		t.Errorf("logPos(+Inf) = %v, want +Inf", got)
	}
	if got := logPos(math.NaN()); !math.IsNaN(got) {
		t.Errorf("logPos(NaN) = %v, want NaN", got)
	}
	dst := make([]float64, 5)
	s := []float64{0, 0.5, 3, 100, 7}
	Log1pRow(dst, s, 0.25, 3)
	for i, v := range s {
		if want := 3 * math.Log1p(0.25*v); math.Abs(dst[i]-want) > 1e-15*math.Max(1, want) {
			t.Errorf("Log1pRow: %v at s = %v, want %v", dst[i], v, want)
		}
	}
}

// TestMaternRowAccuracy checks the Matérn values of MaternRow against
// their formulas in math.Exp and math.Sqrt: relative error within
// 10⁻¹⁵, and 0 where the exponential underflows.
func TestMaternRowAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 2))
	s := []float64{0, 1e-300, 1e-20, 0.5, 1, 3, 100, 1e4, 2e5, 1e300, math.MaxFloat64}
	for range 10000 {
		s = append(s, rng.ExpFloat64(), 200*rng.Float64())
	}
	for _, nu := range []struct{ c, c1, c2 float64 }{{1, 0, 0}, {3, 1, 0}, {5, 1, 1.0 / 3}} {
		dst := make([]float64, len(s))
		MaternRow(dst, s, 1.7, nu.c, nu.c1, nu.c2)
		for i, v := range s {
			a := math.Sqrt(nu.c * v)
			want := 1.7 * math.Exp(-a) * (1 + nu.c1*a + nu.c2*a*a)
			if -a < expMin {
				want = 0
			}
			if !(math.Abs(dst[i]-want) <= 1e-15*want) {
				t.Fatalf("c = %v: MaternRow at s = %v: %v, want %v", nu.c, v, dst[i], want)
			}
		}
	}
}
