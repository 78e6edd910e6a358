package kernel

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// BenchmarkStationaryBlock measures the blocks (CrossT) of the kernels of
// a scaled distance against RBF's, as BenchmarkRBFBlock, at n = 10⁴,
// m = 256 for d = 8 and 32. Metric: ns/entry, the time per kernel value.
//
//	go test ./sgp/kernel -run XXX -bench StationaryBlock
func BenchmarkStationaryBlock(b *testing.B) {
	for _, d := range []int{8, 32} {
		ls := make([]float64, d)
		for t := range ls {
			ls[t] = 0.3 * float64(t+1)
		}
		for _, kern := range []BlockEvaluator{NewRBF(1.3, ls), NewMatern(0.5, 1.3, ls), NewMatern(1.5, 1.3, ls), NewMatern(2.5, 1.3, ls), NewRQ(1.3, ls, 0.7)} {
			const n, m = 10000, 256
			b.Run(fmt.Sprintf("%s,n=%d,m=%d,d=%d", specOf(kern), n, m, d), func(b *testing.B) {
				x := benchInputs(n, d, 3)
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

// specOf returns the name of a kernel's specification.
func specOf(k Kernel) string {
	switch kk := k.(type) {
	case *RBF:
		return "rbf"
	case *Matern:
		return kk.specName()
	case *RQ:
		return "rq"
	}
	return typeName(k)
}

// BenchmarkStationaryGradBlock measures the hyperparameter gradient blocks
// (AddGradBlockT, the K_mn part of every gradient-phase evaluation) of the
// kernels of a scaled distance against RBF's, at n = 10⁴, m = 256 for
// d = 8 and 32, with the block's values kv formed once outside the timed
// loop. Metric: ns/entry, the time per kernel value.
//
//	go test ./sgp/kernel -run XXX -bench StationaryGradBlock
func BenchmarkStationaryGradBlock(b *testing.B) {
	for _, d := range []int{8, 32} {
		ls := make([]float64, d)
		for t := range ls {
			ls[t] = 0.3 * float64(t+1)
		}
		for _, kern := range []BlockEvaluator{NewRBF(1.3, ls), NewMatern(0.5, 1.3, ls), NewMatern(1.5, 1.3, ls), NewMatern(2.5, 1.3, ls), NewRQ(1.3, ls, 0.7)} {
			const n, m = 10000, 256
			b.Run(fmt.Sprintf("%s,n=%d,m=%d,d=%d", specOf(kern), n, m, d), func(b *testing.B) {
				x := benchInputs(n, d, 3)
				cols := make([]int, m)
				for c := range cols {
					cols[c] = (c * 7919) % n
				}
				kv := make([]float64, n*m)
				kern.CrossT(kv, x, x, cols)
				w := make([]float64, n*m)
				for i := range w {
					w[i] = float64(i%7) - 3
				}
				grad := make([]float64, kern.NumParams())
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					kern.AddGradBlockT(grad, w, kv, x, x, cols)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*m), "ns/entry")
			})
		}
	}
}

// BenchmarkStationaryRatios measures the blocks (CrossT) and gradient
// blocks (AddGradBlockT) of the Matérn and RQ kernels against RBF's on a
// shared machine: every iteration takes each kernel's block and gradient
// block once, in turn, at n = 2048, m = 64, and each time reported is the
// least over the iterations, the one least disturbed by other processes.
// Metrics: KERNEL-block and KERNEL-grad, ns per kernel value, and their
// ratios to RBF's (KERNEL-block/rbf, KERNEL-grad/rbf). Run on one core,
// with enough iterations for the least to settle:
//
//	go test ./sgp/kernel -run XXX -bench StationaryRatios -cpu 1 -benchtime 60x
func BenchmarkStationaryRatios(b *testing.B) {
	for _, d := range []int{8, 32} {
		b.Run(fmt.Sprintf("n=2048,m=64,d=%d", d), func(b *testing.B) {
			const n, m = 2048, 64
			ls := make([]float64, d)
			for t := range ls {
				ls[t] = 0.3 * float64(t+1)
			}
			ks := []BlockEvaluator{NewRBF(1.3, ls), NewMatern(0.5, 1.3, ls), NewMatern(1.5, 1.3, ls), NewMatern(2.5, 1.3, ls), NewRQ(1.3, ls, 0.7)}
			x := benchInputs(n, d, 3)
			cols := make([]int, m)
			for c := range cols {
				cols[c] = (c * 7919) % n
			}
			w := make([]float64, n*m)
			for i := range w {
				w[i] = float64(i%7) - 3
			}
			kv := make([][]float64, len(ks))
			grads := make([][]float64, len(ks))
			for i, k := range ks {
				kv[i] = make([]float64, n*m)
				k.CrossT(kv[i], x, x, cols)
				grads[i] = make([]float64, k.NumParams())
			}
			dst := make([]float64, n*m)
			block, grad := make([]float64, len(ks)), make([]float64, len(ks))
			for i := range ks {
				block[i], grad[i] = math.Inf(1), math.Inf(1)
			}
			b.ResetTimer()
			for range b.N {
				for i, k := range ks {
					start := time.Now()
					k.CrossT(dst, x, x, cols)
					block[i] = min(block[i], float64(time.Since(start).Nanoseconds())/(n*m))
					start = time.Now()
					k.AddGradBlockT(grads[i], w, kv[i], x, x, cols)
					grad[i] = min(grad[i], float64(time.Since(start).Nanoseconds())/(n*m))
				}
			}
			for i, k := range ks {
				name := specOf(k)
				b.ReportMetric(block[i], name+"-block")
				b.ReportMetric(grad[i], name+"-grad")
				if i > 0 {
					b.ReportMetric(block[i]/block[0], name+"-block/rbf")
					b.ReportMetric(grad[i]/grad[0], name+"-grad/rbf")
				}
			}
		})
	}
}
