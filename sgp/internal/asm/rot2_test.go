package asm

import (
	"math/rand/v2"
	"testing"
)

// TestRot2MatchesScalar checks the kernel of the move rotations against
// the scalar expressions, bit for bit, at every length of the unrolled
// loop's tail.
func TestRot2MatchesScalar(t *testing.T) {
	checkRot2(t, "Rot2", Rot2, 12)
}

// checkRot2 checks a rotation kernel with Rot2's contract against the
// scalar expressions, bit for bit, for every length below maxLen, and
// that it writes nothing past len(u).
func checkRot2(t *testing.T, name string, kern func(u, v []float64, a, b, c, d float64), maxLen int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 3))
	for n := 0; n < maxLen; n++ {
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
