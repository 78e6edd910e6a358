package kernel

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestRBFGradBlockCoreCountInvariant: the lengthscale gradient's sums are
// the same bits on one core and on two, where the inducing points split
// into different groups of four (one core: 0–3, 4–7 and 8, 9 alone; two:
// 0–3 and 4 alone, 5–8 and 9 alone), and agree with plain sums.
func TestRBFGradBlockCoreCountInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	const n, d, m = 4096, 3, 10
	data := make([]float64, n*d)
	for i := range data {
		data[i] = rng.NormFloat64()
	}
	x, _ := NewVectors(n, d, data)
	k := NewRBF(1.4, []float64{0.7, 1.1, 2})
	cols := make([]int, m)
	for c := range cols {
		cols[c] = rng.IntN(n)
	}
	w, kv := make([]float64, m*n), make([]float64, m*n)
	for i := range w {
		w[i], kv[i] = rng.NormFloat64(), rng.Float64()
	}
	grad := func(procs int) []float64 {
		prev := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
		g := make([]float64, 1+d)
		k.AddGradBlockT(g, w, kv, x, x, cols)
		return g
	}
	one, two := grad(1), grad(2)
	for p := range one {
		if math.Float64bits(one[p]) != math.Float64bits(two[p]) {
			t.Fatalf("parameter %d: %v on one core, %v on two", p, one[p], two[p])
		}
	}
	ls := k.Lengthscales()
	for tt := 0; tt < d; tt++ {
		var want, scale float64
		for c, j := range cols {
			for i := 0; i < n; i++ {
				diff := (x.At(i, tt) - x.At(j, tt)) / ls[tt]
				v := w[c*n+i] * kv[c*n+i] * diff * diff
				want += v
				scale += math.Abs(v)
			}
		}
		if math.Abs(one[1+tt]-want) > 1e-12*scale {
			t.Errorf("∂/∂log ℓ_%d: %v, plain sum %v", tt, one[1+tt], want)
		}
	}
}
