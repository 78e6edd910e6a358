package kernel

import (
	"fmt"
	"testing"
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
