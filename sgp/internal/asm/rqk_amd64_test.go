package asm

import (
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestRQRowAgrees checks the AVX2 rational quadratic values against their
// Go loop bit for bit: random squared distances over the whole range,
// zeros, huge values, infinities and NaNs, at every length that RQRow
// splits between the two.
func TestRQRowAgrees(t *testing.T) {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		t.Skip("no AVX2 and FMA here: RQRow runs the Go loop")
	}
	rng := rand.New(rand.NewPCG(8, 2))
	special := []float64{0, math.Copysign(0, -1), 1e-300, 2, 1e300, math.MaxFloat64, math.Inf(1), math.NaN(), 1e5, 2e5}
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
		for _, alpha := range []float64{0.05, 0.7, 1, 40, 1e4} {
			want, got := make([]float64, n), make([]float64, n)
			rqRowGo(want, s, 1.3, 0.5/alpha, alpha)
			RQRow(got, s, 1.3, 0.5/alpha, alpha)
			for i := range want {
				if !same(got[i], want[i]) {
					t.Fatalf("RQRow n=%d, α=%v, s=%v: AVX2 %v (%#x), Go %v (%#x)", n, alpha, s[i], got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
				}
			}
		}
	}
}
