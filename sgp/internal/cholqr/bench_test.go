package cholqr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/kernel"
)

// GlobalF keeps benchmark results alive.
var GlobalF float64

// benchProblem is n points in [−1, 1]^dim with targets Σ sin(3x) plus
// noise (package sgp's benchmarks use the same).
func benchProblem(n, dim int, seed uint64) (*kernel.Vectors, []float64) {
	rng := rand.New(rand.NewPCG(seed, seed))
	data := make([]float64, n*dim)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		var s float64
		for t := 0; t < dim; t++ {
			v := 2*rng.Float64() - 1
			data[i*dim+t] = v
			s += math.Sin(3 * v)
		}
		y[i] = s + 0.1*rng.NormFloat64()
	}
	x, err := kernel.NewVectors(n, dim, data)
	if err != nil {
		panic(err)
	}
	return x, y
}

// streamPass reads every value of G and Q once and returns their sum; its
// time is the memory-bandwidth floor of a swap, which touches the same data.
func (f *Factor) streamPass() float64 {
	return sum4(f.g[:f.t*f.n]) + sum4(f.q[:f.k*f.ldq])
}

// sum4 sums with four accumulators so that the loop is bound by memory
// bandwidth, not by floating-point add latency.
func sum4(x []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i]
		s1 += x[i+1]
		s2 += x[i+2]
		s3 += x[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i]
	}
	return s0 + s1 + s2 + s3
}

// BenchmarkSwap measures one CholQR swap (remove, approximate scores of all
// candidates, exact check of the best, accept or roll back) for d = 8 and
// z = 16. Metrics: kernel-evals/op, accepted/op, and passes/op, the swap
// time divided by the time of one streaming read of G and Q.
func BenchmarkSwap(b *testing.B) {
	for _, n := range []int{2500, 5000, 10000, 20000} {
		for _, m := range []int{64, 128, 256, 512} {
			b.Run(fmt.Sprintf("n=%d,m=%d", n, m), func(b *testing.B) {
				x, y := benchProblem(n, 8, 1)
				kern := kernel.NewRBF(1, []float64{0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8})
				f, err := New(x, y, kern, 0.01, m, 16)
				if err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(2, 2))
				if err := f.Factorize(rng.Perm(n)[:m]); err != nil {
					b.Fatal(err)
				}
				pass := time.Duration(math.MaxInt64)
				for range 5 {
					start := time.Now()
					GlobalF += f.streamPass()
					pass = min(pass, time.Since(start))
				}
				// Warm up scratch space.
				f.Swap(0, base.VAR, rng.IntN)
				evals0, acc0 := f.stats.KernelEvals, f.stats.Accepted
				b.ReportAllocs()
				b.ResetTimer()
				start := time.Now()
				for i := 0; i < b.N; i++ {
					res := f.Swap(rng.IntN(m), base.VAR, rng.IntN)
					GlobalF += res.After
				}
				el := time.Since(start)
				b.StopTimer()
				b.ReportMetric(float64(f.stats.KernelEvals-evals0)/float64(b.N), "kernel-evals/op")
				b.ReportMetric(float64(f.stats.Accepted-acc0)/float64(b.N), "accepted/op")
				b.ReportMetric(float64(el)/float64(b.N)/float64(pass), "passes/op")
				b.ReportMetric(float64(pass.Nanoseconds()), "ns/pass")
			})
		}
	}
}
