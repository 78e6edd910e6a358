package asm

import (
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestSqacc4Agree checks the AVX squared-distance kernel against the Go
// loop bit for bit, at every length of the unrolled loop's tail and at a
// tile's length, with accumulators that already hold sums (as the RBF kernel's CrossT's do
// after the first input dimension) and inputs of mixed scales and signs.
func TestSqacc4Agree(t *testing.T) {
	if !cpu.X86.HasAVX {
		t.Skip("no AVX here: SqAcc4 runs the Go loop")
	}
	rng := rand.New(rand.NewPCG(5, 9))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 256, 259} {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
		}
		z := [4]float64{rng.NormFloat64(), -1e3 * rng.Float64(), 0, 1e-7}
		var want, got [4][]float64
		for q := range want {
			want[q] = make([]float64, n+1) // longer than x: the extra entry stays
			for i := range want[q] {
				want[q][i] = rng.Float64()
			}
			got[q] = append([]float64(nil), want[q]...)
		}
		for range 3 { // accumulate, as over the input dimensions
			sqacc4Go(x, z[0], z[1], z[2], z[3], want[0], want[1], want[2], want[3])
			sqacc4avx(x, z[0], z[1], z[2], z[3], got[0], got[1], got[2], got[3])
		}
		for q := range want {
			for i := range want[q] {
				if math.Float64bits(got[q][i]) != math.Float64bits(want[q][i]) {
					t.Fatalf("n=%d, centre %d, element %d: AVX %v, Go %v", n, q, i, got[q][i], want[q][i])
				}
			}
		}
	}
}

// TestWsqdot4Agree checks the AVX weighted sums of squared differences
// against the Go loops bit for bit at every tail length, with weights of
// both signs, and against a plain sum to rounding.
func TestWsqdot4Agree(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 256, 1001} {
		x := make([]float64, n)
		var h [4][]float64
		for i := range x {
			x[i] = 3 * rng.NormFloat64()
		}
		for q := range h {
			h[q] = make([]float64, n)
			for i := range h[q] {
				h[q][i] = rng.NormFloat64()
			}
		}
		z := [4]float64{0.3, -2, 0, 7}
		w0, w1, w2, w3 := wsqdot4Go(x, h[0], h[1], h[2], h[3], z[0], z[1], z[2], z[3])
		g0, g1, g2, g3 := WSqDot4(x, h[0], h[1], h[2], h[3], z[0], z[1], z[2], z[3])
		want, got := [4]float64{w0, w1, w2, w3}, [4]float64{g0, g1, g2, g3}
		for q := range want {
			if math.Float64bits(got[q]) != math.Float64bits(want[q]) {
				t.Fatalf("n=%d, centre %d: WSqDot4 %v, Go loops %v", n, q, got[q], want[q])
			}
			var plain, scale float64
			for i, v := range x {
				d := v - z[q]
				plain += h[q][i] * d * d
				scale += math.Abs(h[q][i] * d * d)
			}
			if math.Abs(got[q]-plain) > 1e-14*scale {
				t.Errorf("n=%d, centre %d: %v, plain sum %v", n, q, got[q], plain)
			}
		}
	}
	if !cpu.X86.HasAVX {
		t.Log("no AVX here: WSqDot4 ran the Go loops")
	}
}
