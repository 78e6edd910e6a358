package asm

import (
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// gradRowInputs returns squared distances for the bit-for-bit tests:
// random over the whole range, zeros, the cut-offs, huge values,
// infinities and NaNs.
func gradRowInputs(rng *rand.Rand, n int) []float64 {
	special := []float64{0, math.Copysign(0, -1), 1e-300, 2, expMin * expMin, math.Nextafter(expMin*expMin, 0),
		math.Nextafter(expMin*expMin, math.Inf(1)), 1e300, math.MaxFloat64, math.Inf(1), math.NaN(), 1e5, 2e5}
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
	return s
}

// TestMaternPsiRowAgrees checks the AVX2 Matérn values and ψ against their
// Go loop bit for bit, for the three smoothnesses' constants, at every
// length that MaternPsiRow splits between the two.
func TestMaternPsiRowAgrees(t *testing.T) {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		t.Skip("no AVX2 and FMA here: MaternPsiRow runs the Go loop")
	}
	rng := rand.New(rand.NewPCG(3, 33))
	type nu struct{ c, c1, c2, pv, p1 float64 }
	for _, n := range []int{0, 1, 3, 4, 5, 8, 12, 256, 1001} {
		s := gradRowInputs(rng, n)
		for _, k := range []nu{{1, 0, 0, 1.3, 0}, {3, 1, 0, 3 * 1.3, 0}, {5, 1, 1.0 / 3, (5.0 / 3) * 1.3, 1}} {
			for _, cusp := range []bool{false, true} {
				want, got := make([]float64, n), make([]float64, n)
				wpsi, gpsi := make([]float64, n), make([]float64, n)
				maternPsiRowGo(want, wpsi, s, 1.3, k.c, k.c1, k.c2, k.pv, k.p1, cusp)
				MaternPsiRow(got, gpsi, s, 1.3, k.c, k.c1, k.c2, k.pv, k.p1, cusp)
				for i := range want {
					if !sameBits(got[i], want[i]) || !sameBits(gpsi[i], wpsi[i]) {
						t.Fatalf("n=%d, c=%v, cusp=%v, s=%v: AVX2 κ %v ψ %v, Go κ %v ψ %v", n, k.c, cusp, s[i], got[i], gpsi[i], want[i], wpsi[i])
					}
				}
			}
		}
	}
}

// TestRQGradRowAgrees checks the AVX2 rational quadratic values, ψ and
// ∂κ/∂log α factors against their Go loop bit for bit, at every length
// that RQGradRow splits between the two.
func TestRQGradRowAgrees(t *testing.T) {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		t.Skip("no AVX2 and FMA here: RQGradRow runs the Go loop")
	}
	rng := rand.New(rand.NewPCG(8, 22))
	for _, n := range []int{0, 1, 3, 4, 5, 8, 12, 256, 1001} {
		s := gradRowInputs(rng, n)
		for _, alpha := range []float64{0.05, 0.7, 1, 40, 1e4} {
			want, got := make([]float64, n), make([]float64, n)
			wpsi, gpsi := make([]float64, n), make([]float64, n)
			wdk, gdk := make([]float64, n), make([]float64, n)
			rqGradRowGo(want, wpsi, wdk, s, 1.3, 0.5/alpha, alpha)
			RQGradRow(got, gpsi, gdk, s, 1.3, 0.5/alpha, alpha)
			for i := range want {
				if !sameBits(got[i], want[i]) || !sameBits(gpsi[i], wpsi[i]) || !sameBits(gdk[i], wdk[i]) {
					t.Fatalf("n=%d, α=%v, s=%v: AVX2 (%v, %v, %v), Go (%v, %v, %v)", n, alpha, s[i], got[i], gpsi[i], gdk[i], want[i], wpsi[i], wdk[i])
				}
			}
		}
	}
}
