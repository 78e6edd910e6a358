package asm

import (
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestRowKernelsAgree checks the AVX2 logarithm and Matérn values against
// their Go loops bit for bit: random squared distances over the whole
// range, zeros, huge values, infinities and NaNs, at every length that
// Log1pRow and MaternRow split between the two.
func TestRowKernelsAgree(t *testing.T) {
	if !cpu.X86.HasAVX2 {
		t.Skip("no AVX2 here: Log1pRow and MaternRow run the Go loops")
	}
	rng := rand.New(rand.NewPCG(8, 1))
	special := []float64{0, math.Copysign(0, -1), 1e-300, 2, 1e300, math.MaxFloat64, math.Inf(1), math.NaN(), -2 * expMin, 1e5, 2e5}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
	}
	for _, n := range []int{0, 1, 3, 4, 5, 8, 12, 256, 1001} {
		s := make([]float64, n)
		for i := range s {
			switch rng.IntN(3) {
			case 0:
				s[i] = special[rng.IntN(len(special))]
			case 1:
				s[i] = math.Pow(10, 40*rng.Float64()-20)
			default:
				s[i] = rng.ExpFloat64()
			}
		}
		for _, ab := range [][2]float64{{1, 1}, {0.37, 2.5}, {1e-3, 1e4}} {
			want, got := make([]float64, n), make([]float64, n)
			log1pRowGo(want, s, ab[0], ab[1])
			Log1pRow(got, s, ab[0], ab[1])
			for i := range want {
				if !same(got[i], want[i]) {
					t.Fatalf("Log1pRow n=%d, a, b = %v, s=%v: AVX2 %v (%#x), Go %v (%#x)", n, ab, s[i], got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
				}
			}
		}
		for _, nu := range [][3]float64{{1, 0, 0}, {3, 1, 0}, {5, 1, 1.0 / 3}} {
			want, got := make([]float64, n), make([]float64, n)
			maternRowGo(want, s, 1.3, nu[0], nu[1], nu[2])
			MaternRow(got, s, 1.3, nu[0], nu[1], nu[2])
			for i := range want {
				if !same(got[i], want[i]) {
					t.Fatalf("MaternRow n=%d, ν coefficients %v, s=%v: AVX2 %v (%#x), Go %v (%#x)", n, nu, s[i], got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
				}
			}
		}
	}
}
