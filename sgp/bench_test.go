package sgp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/internal/linalg"

	"github.com/cholqr/sgp/sgp/kernel"
)

// GlobalF keeps benchmark results alive.
var GlobalF float64

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

// BenchmarkFuncGrad measures one value+gradient evaluation of a Model's
// gradient phase (d = 8) with the BLAS chosen by SGP_BLAS (see BLAS).
// Metrics: GFLOP/s, the level-3 flops of one evaluation (4m²n for the
// triangular solve, Gram matrix and weight product, 11m³/3 for the m×m
// solves and factorisations) per second; peak-GFLOP/s, the DGEMM rate of
// the same backend on the evaluation's largest product (C ← AᵀB, A 512×512,
// B 512×10000, split over the cores like the evaluation), measured in the
// same run; and frac-peak, their ratio.
func BenchmarkFuncGrad(b *testing.B) {
	name, err := BLAS()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("BLAS: %s", name)
	peak := dgemmPeak(512, 10000)
	for _, m := range []int{256, 512} {
		b.Run(fmt.Sprintf("n=10000,m=%d", m), func(b *testing.B) {
			const n = 10000
			x, y := benchProblem(n, 8, 1)
			kern := kernel.NewRBF(1, []float64{0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8})
			rng := rand.New(rand.NewPCG(2, 2))
			// As a Model's gradient phase does (epoch.go): Gᵀ and the kept
			// kernel values live in storage lent by the factor, so the
			// row blocks read K_mn instead of evaluating it again.
			e := newActiveEvaluator(x, y, kern, VAR, rng.Perm(n)[:m], make([]float64, m*n), make([]float64, m*n))
			theta := append(kern.Params(nil), math.Log(0.01))
			grad := make([]float64, len(theta))
			// One evaluation first, as the fit's gradient phase reuses
			// its buffers (the first touches fresh pages).
			if _, err := e.FuncGrad(grad, theta); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				f, err := e.FuncGrad(grad, theta)
				if err != nil {
					b.Fatal(err)
				}
				GlobalF += f
			}
			el := time.Since(start).Seconds() / float64(b.N)
			b.StopTimer()
			mf := float64(m)
			flops := 4*mf*mf*n + 11*mf*mf*mf/3
			b.ReportMetric(flops/el/1e9, "GFLOP/s")
			b.ReportMetric(peak, "peak-GFLOP/s")
			b.ReportMetric(flops/el/1e9/peak, "frac-peak")
		})
	}
}

// BenchmarkFuncGradKernels measures one value+gradient evaluation of a
// Model's gradient phase, as BenchmarkFuncGrad (n = 10⁴, m = 256, d = 8),
// for RBF and the other kernels of a scaled distance, so that their costs
// per evaluation compare in one run. Metric: ns/op.
//
//	go test ./sgp -run XXX -bench FuncGradKernels
func BenchmarkFuncGradKernels(b *testing.B) {
	ls := []float64{0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8}
	for _, kc := range []struct {
		name string
		kern kernel.Kernel
	}{{"rbf", kernel.NewRBF(1, ls)}, {"matern12", kernel.NewMatern(0.5, 1, ls)}, {"matern32", kernel.NewMatern(1.5, 1, ls)},
		{"matern52", kernel.NewMatern(2.5, 1, ls)}, {"rq", kernel.NewRQ(1, ls, 0.7)}} {
		kern := kc.kern
		b.Run(kc.name, func(b *testing.B) {
			const n, m = 10000, 256
			x, y := benchProblem(n, 8, 1)
			rng := rand.New(rand.NewPCG(2, 2))
			e := newActiveEvaluator(x, y, kern, VAR, rng.Perm(n)[:m], make([]float64, m*n), make([]float64, m*n))
			theta := append(kern.Params(nil), math.Log(0.01))
			grad := make([]float64, len(theta))
			if _, err := e.FuncGrad(grad, theta); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				f, err := e.FuncGrad(grad, theta)
				if err != nil {
					b.Fatal(err)
				}
				GlobalF += f
			}
		})
	}
}

// dgemmPeak returns the best of five GFLOP/s rates of linalg.GemmTN with
// C (m×n) ← AᵀB, A m×m, B m×n, on the backend in use.
func dgemmPeak(m, n int) float64 {
	rng := rand.New(rand.NewPCG(7, 7))
	a := make([]float64, m*m)
	bb := make([]float64, m*n)
	c := make([]float64, m*n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	for i := range bb {
		bb[i] = rng.NormFloat64()
	}
	best := math.Inf(1)
	for range 5 {
		start := time.Now()
		linalg.GemmTN(m, n, m, a, m, bb, n, c, n)
		best = min(best, time.Since(start).Seconds())
	}
	GlobalF += c[0]
	return 2 * float64(m) * float64(m) * float64(n) / best / 1e9
}

// BenchmarkScale1M fits one epoch (60 swaps) on 10⁶ points (d = 8, m = 256,
// z = 16; a smooth function of the inputs plus noise) and reports the
// seconds of the fit (epoch-s: the forward start and the epoch; start-s:
// the forward start and the factor built from it), the bytes of the
// factors G and Q, the process's peak resident memory (VmHWM) and its ratio
// to G+Q. It needs about 8 GB and runs only
// when SGP_BENCH_1M=1:
//
//	SGP_BENCH_1M=1 go test ./sgp/ -run XXX -bench Scale1M -benchtime 1x -timeout 1h
//
// SGP_BENCH_N=200000 runs the same fit at another n instead (memory and
// time scale linearly in n).
func BenchmarkScale1M(b *testing.B) {
	n := 1000000
	if s := os.Getenv("SGP_BENCH_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1000 {
			b.Fatalf("SGP_BENCH_N=%q: want an integer ≥ 1000", s)
		}
		n = v
	} else if os.Getenv("SGP_BENCH_1M") != "1" {
		b.Skip("set SGP_BENCH_1M=1 (about 8 GB of memory) or SGP_BENCH_N to run")
	}
	const d, m, z = 8, 256, 16
	// As sgprepl does (cmd/sgprepl/main.go): collect at 20% heap growth.
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	rng := rand.New(rand.NewPCG(1, 1))
	data := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		s := 0.0
		for t := range d {
			v := rng.NormFloat64()
			data[i*d+t] = v
			s += v
		}
		y[i] = math.Sin(s/3) + 0.1*rng.NormFloat64()
	}
	x, err := kernel.NewVectors(n, d, data)
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		// 60 swaps, the epoch of Cao et al. (2013) (BenchmarkEpoch); the
		// default m swaps add about (m − 60) swaps' time.
		md := NewModel(x, y, kernel.NewRBFFromData(x, y)).WithM(m).WithInfoPivots(z).WithSeed(1).WithMaxEpochs(1).WithSwapsPerEpoch(60)
		start := time.Now()
		if _, err := md.Fit(); err != nil {
			b.Fatal(err)
		}
		total := time.Since(start).Seconds()
		b.ReportMetric(total, "epoch-s")
		epochs, swaps := 0.0, 0.0
		for _, r := range md.Trace() {
			b.Logf("n=%d: epoch %d %.1fs after building the factor (%d CG evaluations, %s; %d/%d swaps in %.1fs)",
				n, r.Epoch, r.Elapsed.Seconds(), r.CGEvals, r.CGStatus, r.Accepted, r.Swaps, r.SwapTime.Seconds())
			epochs += r.Elapsed.Seconds()
			swaps += r.SwapTime.Seconds()
		}
		b.ReportMetric(total-epochs, "start-s")
		b.ReportMetric(swaps, "swaps-s")
	}
	gq := float64(8 * n * (2*m + z))
	hwm := peakRSS(b)
	b.ReportMetric(gq/1e9, "GQ-GB")
	b.ReportMetric(hwm/1e9, "peak-GB")
	b.ReportMetric(hwm/gq, "peak/GQ")
}

// peakRSS returns the process's peak resident set size in bytes (VmHWM
// of /proc/self/status), or NaN where that is not available.
func peakRSS(b *testing.B) float64 {
	s, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	for _, line := range strings.Split(string(s), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, err := strconv.ParseFloat(f[0], 64)
				if err == nil {
					return kb * 1024
				}
			}
		}
	}
	return math.NaN()
}
