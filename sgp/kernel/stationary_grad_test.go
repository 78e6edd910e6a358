package kernel

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestStationaryGradBlock checks the gradient blocks of the Matérn and RQ
// kernels at n = 600 (two full tiles of rows and a partial one) and
// m = 66 inducing points (groups of four and points left over): the same
// bits on one core and on two, where the points split into different
// groups; the per-pair sums of AddGrad to 1e-12 of the terms' scale; and
// no n×m block allocated (ψ is formed tile by tile), measured as the bytes
// allocated by one call.
func TestStationaryGradBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 23))
	const n, d, m = 600, 3, 66
	data := make([]float64, n*d)
	for i := range data {
		data[i] = rng.NormFloat64()
	}
	x, _ := NewVectors(n, d, data)
	cols := make([]int, m)
	for c := range cols {
		cols[c] = rng.IntN(n)
	}
	ls := []float64{0.7, 1.1, 2}
	for _, k := range []BlockEvaluator{NewMatern(0.5, 1.4, ls), NewMatern(1.5, 1.4, ls), NewMatern(2.5, 1.4, ls), NewRQ(1.4, ls, 0.6)} {
		t.Run(specOf(k), func(t *testing.T) {
			kv := make([]float64, m*n)
			k.CrossT(kv, x, x, cols)
			w := make([]float64, m*n)
			for i := range w {
				w[i] = rng.NormFloat64()
			}
			np := k.NumParams()
			grad := func(procs int) []float64 {
				prev := runtime.GOMAXPROCS(procs)
				defer runtime.GOMAXPROCS(prev)
				g := make([]float64, np)
				k.AddGradBlockT(g, w, kv, x, x, cols)
				return g
			}
			one, two := grad(1), grad(2)
			for p := range one {
				if math.Float64bits(one[p]) != math.Float64bits(two[p]) {
					t.Fatalf("parameter %d: %v on one core, %v on two", p, one[p], two[p])
				}
			}
			// AddGrad takes w row-major (n×m), one pair at a time.
			wr := make([]float64, n*m)
			for c := range m {
				for i := range n {
					wr[i*m+c] = w[c*n+i]
				}
			}
			want := make([]float64, np)
			k.AddGrad(want, wr, x, 0, n, x, cols)
			abs := make([]float64, len(wr))
			for i, v := range wr {
				abs[i] = math.Abs(v)
			}
			scale := make([]float64, np)
			k.AddGrad(scale, abs, x, 0, n, x, cols)
			for p := range want {
				if tol := 1e-12 * math.Max(math.Abs(scale[p]), math.Abs(want[p])); math.Abs(one[p]-want[p]) > tol {
					t.Errorf("parameter %d: block %.17g, per pair %.17g", p, one[p], want[p])
				}
			}
			var before, after runtime.MemStats
			g := make([]float64, np)
			runtime.ReadMemStats(&before)
			k.AddGradBlockT(g, w, kv, x, x, cols)
			runtime.ReadMemStats(&after)
			if bytes := after.TotalAlloc - before.TotalAlloc; bytes >= uint64(n*m*8/2) {
				t.Errorf("AddGradBlockT allocated %d bytes; an n×m block is %d", bytes, n*m*8)
			}
		})
	}
}
