package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkRBFBlock measures the RBF kernel's n×m cross block (CrossT: the
// K_mn of every gradient-phase and continuous-fit evaluation, and the
// candidates' columns of the forward start) at n = 10⁴ for d = 8 and 32.
// Metric: ns/entry, the time per kernel value.
func BenchmarkRBFBlock(b *testing.B) {
	for _, d := range []int{8, 32} {
		for _, m := range []int{64, 256} {
			b.Run(fmt.Sprintf("n=10000,m=%d,d=%d", m, d), func(b *testing.B) {
				const n = 10000
				x := benchInputs(n, d, 3)
				ls := make([]float64, d)
				for t := range ls {
					ls[t] = 0.3 * float64(t+1)
				}
				kern := NewRBF(1.3, ls)
				cols := make([]int, m)
				for c := range cols {
					cols[c] = (c * 7919) % n
				}
				dst := make([]float64, n*m)
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					kern.CrossT(dst, x, x, cols)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*m), "ns/entry")
			})
		}
	}
}

// benchInputs returns n points uniform in [−1, 1]ᵈ.
func benchInputs(n, dim int, seed uint64) *Vectors {
	rng := rand.New(rand.NewPCG(seed, seed))
	v := make([]float64, n*dim)
	for i := range v {
		v[i] = 2*rng.Float64() - 1
	}
	x, err := NewVectors(n, dim, v)
	if err != nil {
		panic(err)
	}
	return x
}
