package kernel

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// BenchmarkStationaryBlock measures the blocks (CrossT) of the kernels of
// a scaled distance against RBF's, as BenchmarkRBFBlock, at n = 10⁴,
// m = 256 for d = 8 and 32, and for Matérn and RQ their blocks with the
// auxiliary values of the gradient (CrossAuxT, KERNEL+aux). Metric:
// ns/entry, the time per kernel value.
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
			x := benchInputs(n, d, 3)
			cols := make([]int, m)
			for c := range cols {
				cols[c] = (c * 7919) % n
			}
			dst := make([]float64, n*m)
			run := func(name string, block func()) {
				b.Run(fmt.Sprintf("%s,n=%d,m=%d,d=%d", name, n, m, d), func(b *testing.B) {
					b.ReportAllocs()
					for range b.N {
						block()
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*m), "ns/entry")
				})
			}
			run(specOf(kern), func() { kern.CrossT(dst, x, x, cols) })
			if ak, ok := kern.(AuxBlockEvaluator); ok {
				aux := make([]float64, ak.NumAux()*n*m)
				run(specOf(kern)+"+aux", func() { ak.CrossAuxT(dst, aux, x, x, cols) })
			}
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
// (the K_mn part of every gradient-phase evaluation) of the kernels of a
// scaled distance against RBF's, at n = 10⁴, m = 256 for d = 8 and 32,
// with the block's values kv (and auxiliary values) formed once outside
// the timed loop: AddGradBlockT, and for Matérn and RQ AddGradAuxT
// (KERNEL+aux), the one the engine takes. Metric: ns/entry, the time per
// kernel value.
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
			run := func(name string, block func()) {
				b.Run(fmt.Sprintf("%s,n=%d,m=%d,d=%d", name, n, m, d), func(b *testing.B) {
					b.ReportAllocs()
					for range b.N {
						block()
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*m), "ns/entry")
				})
			}
			run(specOf(kern), func() { kern.AddGradBlockT(grad, w, kv, x, x, cols) })
			if ak, ok := kern.(AuxBlockEvaluator); ok {
				aux := make([]float64, ak.NumAux()*n*m)
				ak.CrossAuxT(kv, aux, x, x, cols)
				run(specOf(kern)+"+aux", func() { ak.AddGradAuxT(grad, w, kv, aux, x, x, cols) })
			}
		}
	}
}

// BenchmarkStationaryRatios measures the blocks (CrossT) and gradient
// blocks of the Matérn and RQ kernels against RBF's on a shared machine:
// every iteration takes each kernel's blocks once, in turn, at n = 2048,
// m = 64, and each time reported is the least over the iterations, the one
// least disturbed by other processes. Metrics, in ns per kernel value:
// KERNEL-block (CrossT); for Matérn and RQ KERNEL-auxblock (CrossAuxT, the
// values with the auxiliary values the gradient reads), KERNEL-grad (the
// gradient block the engine takes, AddGradAuxT) and KERNEL-gradin
// (AddGradBlockT, which forms ψ again from the inputs); RBF's grad is its
// AddGradBlockT. Each has its ratio to RBF's block or grad (KERNEL-block/rbf,
// KERNEL-grad/rbf, …), and KERNEL-eval/rbf is a gradient evaluation's
// auxblock + grad against RBF's block + grad. Run on one core, with enough
// iterations for the least to settle:
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
			aux := make([][]float64, len(ks))
			grads := make([][]float64, len(ks))
			for i, k := range ks {
				kv[i] = make([]float64, n*m)
				k.CrossT(kv[i], x, x, cols)
				if ak, ok := k.(AuxBlockEvaluator); ok {
					aux[i] = make([]float64, ak.NumAux()*n*m)
					ak.CrossAuxT(kv[i], aux[i], x, x, cols)
				}
				grads[i] = make([]float64, k.NumParams())
			}
			dst := make([]float64, n*m)
			const nt = 5 // block, auxblock, grad, gradin, and a spare
			times := make([][nt]float64, len(ks))
			for i := range times {
				for j := range nt {
					times[i][j] = math.Inf(1)
				}
			}
			timed := func(i, j int, f func()) {
				start := time.Now()
				f()
				times[i][j] = min(times[i][j], float64(time.Since(start).Nanoseconds())/(n*m))
			}
			b.ResetTimer()
			for range b.N {
				for i, k := range ks {
					timed(i, 0, func() { k.CrossT(dst, x, x, cols) })
					ak, ok := k.(AuxBlockEvaluator)
					if !ok {
						timed(i, 2, func() { k.AddGradBlockT(grads[i], w, kv[i], x, x, cols) })
						continue
					}
					timed(i, 1, func() { ak.CrossAuxT(dst, aux[i], x, x, cols) })
					timed(i, 2, func() { ak.AddGradAuxT(grads[i], w, kv[i], aux[i], x, x, cols) })
					timed(i, 3, func() { k.AddGradBlockT(grads[i], w, kv[i], x, x, cols) })
				}
			}
			rb, rg := times[0][0], times[0][2]
			b.ReportMetric(rb, "rbf-block")
			b.ReportMetric(rg, "rbf-grad")
			for i, k := range ks[1:] {
				tm, name := times[i+1], specOf(k)
				for j, what := range []string{"block", "auxblock", "grad", "gradin"} {
					ref := rb
					if j >= 2 {
						ref = rg
					}
					b.ReportMetric(tm[j], name+"-"+what)
					b.ReportMetric(tm[j]/ref, name+"-"+what+"/rbf")
				}
				b.ReportMetric((tm[1]+tm[2])/(rb+rg), name+"-eval/rbf")
			}
		})
	}
}
