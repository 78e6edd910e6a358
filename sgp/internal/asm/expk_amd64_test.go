package asm

import (
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestExpRowKernelsAgree checks the AVX2 exponential against the Go loop
// bit for bit: random squared distances over the whole range, the cut-off
// expMin and its neighbours, zeros, infinities and NaNs, at every length
// that ExpRow splits between the two.
func TestExpRowKernelsAgree(t *testing.T) {
	if !cpu.X86.HasAVX2 {
		t.Skip("no AVX2 here: ExpRow runs the Go loop")
	}
	rng := rand.New(rand.NewPCG(4, 7))
	special := []float64{0, math.Copysign(0, -1), 1e-300, 2, -2 * expMin, math.Nextafter(-2*expMin, 0), math.Nextafter(-2*expMin, 2000),
		5000, math.Inf(1), math.NaN(), math.Ln2, 3 * math.Ln2}
	for _, n := range []int{0, 1, 3, 4, 5, 8, 12, 256, 1001} {
		s := make([]float64, n)
		for i := range s {
			switch rng.IntN(3) {
			case 0:
				s[i] = special[rng.IntN(len(special))]
			case 1:
				s[i] = -2 * expMin * rng.Float64()
			default:
				s[i] = rng.ExpFloat64()
			}
		}
		for _, v := range []float64{1, 0.37, 1e5} {
			want, got := make([]float64, n), make([]float64, n)
			expRowGo(want, s, v)
			ExpRow(got, s, v)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
					t.Fatalf("n=%d, v=%v, s=%v: AVX2 %v (%#x), Go %v (%#x)", n, v, s[i], got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
				}
			}
		}
	}
}
