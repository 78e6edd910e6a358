package sgp

import (
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestRot2KernelsAgree checks the SSE2 and AVX rotation kernels against
// the scalar expressions, bit for bit, at every length of both unrolled
// loops' tails, whichever one rot2 picks on this CPU.
func TestRot2KernelsAgree(t *testing.T) {
	kernels := map[string]func(u, v []float64, a, b, c, d float64){"sse2": rot2sse2}
	if cpu.X86.HasAVX {
		kernels["avx"] = rot2avx
	} else {
		t.Log("no AVX here: only the SSE2 kernel is checked")
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for name, kern := range kernels {
		for n := 0; n < 20; n++ {
			u, v := make([]float64, n), make([]float64, n+1)
			for i := range u {
				u[i], v[i] = rng.NormFloat64(), rng.NormFloat64()
			}
			v[n] = 7 // beyond len(u): must stay
			a, b, c, d := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
			wu, wv := make([]float64, n), make([]float64, n)
			for i := range u {
				wu[i] = float64(a*u[i]) + float64(b*v[i])
				wv[i] = float64(c*u[i]) + float64(d*v[i])
			}
			kern(u, v, a, b, c, d)
			for i := range u {
				if u[i] != wu[i] || v[i] != wv[i] {
					t.Fatalf("%s n=%d i=%d: (%v, %v), want (%v, %v)", name, n, i, u[i], v[i], wu[i], wv[i])
				}
			}
			if v[n] != 7 {
				t.Fatalf("%s n=%d: wrote past len(u)", name, n)
			}
		}
	}
}
