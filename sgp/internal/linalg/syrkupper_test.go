package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSyrkUpper checks SyrkUpper's upper triangle against the sums of
// products of the rows, on a sub-block of columns with a row stride, and
// that it leaves the strict lower triangle as it was.
func TestSyrkUpper(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const m, n, lo, k = 37, 300, 40, 211
	a := make([]float64, m*n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	c := make([]float64, m*m)
	for i := range c {
		c[i] = -7
	}
	SyrkUpper(m, k, a[lo:], n, c, m)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			if j < i {
				if c[i*m+j] != -7 {
					t.Fatalf("(%d,%d) below the diagonal = %v, want it left as -7", i, j, c[i*m+j])
				}
				continue
			}
			var s float64
			for p := lo; p < lo+k; p++ {
				s += a[i*n+p] * a[j*n+p]
			}
			if math.Abs(c[i*m+j]-s) > 1e-12*float64(k) {
				t.Fatalf("(%d,%d) = %v, want %v", i, j, c[i*m+j], s)
			}
		}
	}
}
