package sgp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/kernel"
)

// distProblem returns n rows of d inputs and their targets (a smooth
// function plus noise, with an offset so that the mean matters), m
// inducing rows spread over the data, and an ARD RBF kernel with d + 1
// hyperparameters.
func distProblem(n, d, m int, seed uint64) (*kernel.Vectors, []float64, []int, *kernel.RBF) {
	x, y := benchProblem(n, d, seed)
	for i := range y {
		y[i] += 1.5
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	ls := make([]float64, d)
	for t := range ls {
		ls[t] = 0.6 + 0.8*rng.Float64()
	}
	return x, y, rng.Perm(n)[:m], kernel.NewRBF(1.3, ls)
}

// rankRows returns rank r's rows of x and y under comm.Span's layout, and
// its first row.
func rankRows(x *kernel.Vectors, y []float64, r, p int) (*kernel.Vectors, []float64, int) {
	lo, hi := comm.Span(x.Len(), comm.BlockRows, r, p)
	idx := make([]int, hi-lo)
	for i := range idx {
		idx[i] = lo + i
	}
	return x.Rows(idx), y[lo:hi], lo
}

// onEvalRanks runs fn on every rank of comm.Local(p), each on its own
// goroutine, and waits for them.
func onEvalRanks(p int, fn func(c *comm.Comm)) {
	var wg sync.WaitGroup
	for _, c := range comm.Local(p) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(c)
		}()
	}
	wg.Wait()
}

// distEval is one rank's value and gradient at theta, or its error.
type distEval struct {
	f    float64
	g    []float64
	mu   float64
	err  error
	stat comm.Stats
}

// evalOn evaluates F and its gradient at theta on rank c, its rows of x
// and y, as the Model's gradient phase does: the factor's storage lent for
// Gᵀ and K_mn (kval), the inducing inputs gathered from their owners.
func evalOn(c *comm.Comm, x *kernel.Vectors, y []float64, active []int, kern kernel.Kernel, obj Objective, mean Mean, theta []float64, kval bool) distEval {
	xl, yl, lo := rankRows(x, y, c.Rank(), c.Size())
	m, nl := len(active), xl.Len()
	xI := inducingInputsOn(c, xl, lo, active)
	var kv []float64
	if kval {
		kv = make([]float64, m*nl)
	}
	e := newActiveEvaluatorOn(c, xl, yl, lo, x.Len(), kernel.Clone(kern), obj, active, xI, make([]float64, m*nl), kv)
	e.SetMean(mean)
	c.ResetStats()
	g := make([]float64, len(theta))
	f, err := e.FuncGrad(g, theta)
	return distEval{f: f, g: g, mu: e.Mean(), err: err, stat: c.Stats()}
}

// TestEvaluatorOnRanks checks the distributed gradient phase: for P = 1
// to 4 ranks (rows that do not divide evenly, and for P = 4 a rank with
// none), VAR and MLE, an estimated mean and a fixed one, with and
// without the kept kernel values, F, its gradient in every hyperparameter
// of an ARD RBF kernel and the mean are the same bit for bit on every
// rank and equal to the single-process Evaluator's.
func TestEvaluatorOnRanks(t *testing.T) {
	const n, d, m = 2*comm.BlockRows + 517, 6, 24
	x, y, active, kern := distProblem(n, d, m, 5)
	theta := append(kern.Params(nil), math.Log(0.05))
	for _, obj := range []Objective{VAR, MLE} {
		for _, mean := range []Mean{MeanConstant, MeanGLS, MeanFixed(0.7)} {
			for _, kval := range []bool{true, false} {
				name := fmt.Sprintf("%v/%v/kval=%v", obj, mean, kval)
				var kv []float64
				if kval {
					kv = make([]float64, m*n)
				}
				ref := newActiveEvaluator(x, y, kernel.Clone(kern), obj, active, make([]float64, m*n), kv)
				ref.SetMean(mean)
				want := make([]float64, len(theta))
				fw, err := ref.FuncGrad(want, theta)
				if err != nil {
					t.Fatalf("%s: single process: %v", name, err)
				}
				for p := 1; p <= 4; p++ {
					got := make([]distEval, p)
					onEvalRanks(p, func(c *comm.Comm) {
						got[c.Rank()] = evalOn(c, x, y, active, kern, obj, mean, theta, kval)
					})
					for r, ev := range got {
						if ev.err != nil {
							t.Fatalf("%s P=%d rank %d: %v", name, p, r, ev.err)
						}
						if math.Float64bits(ev.f) != math.Float64bits(fw) || math.Float64bits(ev.mu) != math.Float64bits(ref.Mean()) {
							t.Errorf("%s P=%d rank %d: F %v μ %v, single process F %v μ %v", name, p, r, ev.f, ev.mu, fw, ref.Mean())
						}
						for k := range want {
							if math.Float64bits(ev.g[k]) != math.Float64bits(want[k]) {
								t.Errorf("%s P=%d rank %d: ∂F/∂θ_%d = %v, single process %v", name, p, r, k, ev.g[k], want[k])
							}
						}
					}
				}
			}
		}
	}
}

// TestEvaluatorOnGradient checks the distributed evaluator's gradient
// (P = 3) against central differences of its F in every hyperparameter.
func TestEvaluatorOnGradient(t *testing.T) {
	const n, d, m = 2*comm.BlockRows + 300, 4, 16
	x, y, active, kern := distProblem(n, d, m, 9)
	theta := append(kern.Params(nil), math.Log(0.1))
	for _, obj := range []Objective{VAR, MLE} {
		const p = 3
		var g []float64
		fd := make([]float64, len(theta))
		onEvalRanks(p, func(c *comm.Comm) {
			xl, yl, lo := rankRows(x, y, c.Rank(), p)
			e := newActiveEvaluatorOn(c, xl, yl, lo, n, kernel.Clone(kern), obj, active, inducingInputsOn(c, xl, lo, active), nil, nil)
			e.SetMean(MeanConstant)
			gr := make([]float64, len(theta))
			if _, err := e.FuncGrad(gr, theta); err != nil {
				t.Errorf("rank %d: %v", c.Rank(), err)
			}
			th := append([]float64(nil), theta...)
			for k := range th {
				const h = 1e-5
				th[k] = theta[k] + h
				fp, _ := e.FuncGrad(nil, th)
				th[k] = theta[k] - h
				fm, _ := e.FuncGrad(nil, th)
				th[k] = theta[k]
				if c.Rank() == 0 {
					fd[k] = (fp - fm) / (2 * h)
				}
			}
			if c.Rank() == 0 {
				g = gr
			}
		})
		for k := range theta {
			if math.Abs(g[k]-fd[k]) > 1e-5*math.Max(1, math.Abs(fd[k])) {
				t.Errorf("%v: ∂F/∂θ_%d = %v, central difference %v", obj, k, g[k], fd[k])
			}
		}
	}
}

// TestEvaluatorOnMessages checks what one evaluation sends: three
// OrderedSum reductions (the factorisation's O(m²) sums, h = Gᵀα with
// αᵀα, the gradient's row terms) and nothing else, of the widths the
// layout gives: m(m+1)/2 + 2m + 1 with an estimated mean, m + 1 and the
// number of kernel hyperparameters.
func TestEvaluatorOnMessages(t *testing.T) {
	const n, d, m = 3*comm.BlockRows + 11, 3, 12
	x, y, active, kern := distProblem(n, d, m, 2)
	theta := append(kern.Params(nil), math.Log(0.05))
	for p := 1; p <= 3; p++ {
		got := make([]distEval, p)
		onEvalRanks(p, func(c *comm.Comm) {
			got[c.Rank()] = evalOn(c, x, y, active, kern, VAR, MeanConstant, theta, true)
		})
		widths := m*(m+1)/2 + 2*m + 1 + m + 1 + d + 1
		for r, ev := range got {
			// One rank counts nothing. Otherwise each rank sends its
			// running sums on (all but the last) and the last broadcasts
			// the totals: one message each per sum.
			os := ev.stat[comm.KindOrderedSum]
			wantCalls, wantMsgs, wantBytes := int64(0), int64(0), int64(0)
			if p > 1 {
				wantCalls, wantMsgs, wantBytes = 3, 3, int64(8*widths)
			}
			if os.Calls != wantCalls || ev.stat.Total().Calls != wantCalls {
				t.Errorf("P=%d rank %d: %d OrderedSum calls of %d operations, want %d of %d", p, r, os.Calls, ev.stat.Total().Calls, wantCalls, wantCalls)
			}
			if os.Messages != wantMsgs || os.Bytes != wantBytes {
				t.Errorf("P=%d rank %d: %d messages of %d bytes, want %d of %d", p, r, os.Messages, os.Bytes, wantMsgs, wantBytes)
			}
		}
	}
}

// TestInducingInputsOn checks that every rank gathers the inducing inputs
// from the ranks that hold them, in the order of active.
func TestInducingInputsOn(t *testing.T) {
	const n, d = 3*comm.BlockRows + 5, 3
	x, y, _, _ := distProblem(n, d, 1, 4)
	active := []int{n - 1, 0, comm.BlockRows, 2*comm.BlockRows + 7, 17}
	for p := 1; p <= 4; p++ {
		onEvalRanks(p, func(c *comm.Comm) {
			xl, _, lo := rankRows(x, y, c.Rank(), p)
			got := inducingInputsOn(c, xl, lo, active)
			for a, i := range active {
				for k := 0; k < d; k++ {
					if got.At(a, k) != x.At(i, k) {
						t.Errorf("P=%d rank %d: input %d (row %d) dim %d = %v, want %v", p, c.Rank(), a, i, k, got.At(a, k), x.At(i, k))
					}
				}
			}
		})
	}
}

// BenchmarkEvaluatorOn measures one value+gradient evaluation of the
// distributed gradient phase at n = 20000, m = 128 (d = 8, ARD RBF, VAR,
// estimated mean, the kernel values kept as a Model's fit keeps them) on
// P = 1 and 2 ranks of comm.Local, which share the process's cores, and
// reports the bytes and messages rank 0 sends per evaluation.
func BenchmarkEvaluatorOn(b *testing.B) {
	const n, d, m = 20000, 8, 128
	x, y, active, kern := distProblem(n, d, m, 1)
	theta := append(kern.Params(nil), math.Log(0.01))
	for _, p := range []int{1, 2} {
		b.Run(fmt.Sprintf("P=%d", p), func(b *testing.B) {
			var st comm.Stats
			onEvalRanks(p, func(c *comm.Comm) {
				xl, yl, lo := rankRows(x, y, c.Rank(), p)
				nl := xl.Len()
				e := newActiveEvaluatorOn(c, xl, yl, lo, n, kernel.Clone(kern), VAR, active, inducingInputsOn(c, xl, lo, active),
					make([]float64, m*nl), make([]float64, m*nl))
				e.SetMean(MeanConstant)
				g := make([]float64, len(theta))
				if _, err := e.FuncGrad(g, theta); err != nil {
					b.Error(err)
				}
				c.Barrier()
				if c.Rank() == 0 {
					b.ResetTimer()
				}
				c.ResetStats()
				for range b.N {
					f, _ := e.FuncGrad(g, theta)
					GlobalF += f
				}
				if c.Rank() == 0 {
					st = c.Stats()
				}
				c.Barrier()
				if c.Rank() == 0 {
					b.StopTimer()
				}
			})
			tot := st.Total()
			b.ReportMetric(float64(tot.Bytes)/float64(b.N), "bytes/eval")
			b.ReportMetric(float64(tot.Messages)/float64(b.N), "msgs/eval")
		})
	}
}

// TestEvaluatorOnKernels checks the distributed evaluator (P = 1 and 3)
// against the single-process one for other kernels, the same bits: for
// the block kernels, whether their K_mm is formed from the inducing
// inputs (crossExact) or gathered from the rows of K_mn (a sum with a
// linear part: one more reduction), and for a kernel.ScaledSum kernel
// (Linear), whose blocks both keep (newActiveEvaluatorOn).
func TestEvaluatorOnKernels(t *testing.T) {
	const n, d = 2*comm.BlockRows + 517, 3
	ls := []float64{0.7, 1.1, 0.9}
	lin := []float64{0.3, 0.2, 0.1}
	for _, kc := range []struct {
		name string
		kern kernel.Kernel
		m    int
		sums int64 // SumFloat64s of the first evaluation (P > 1)
	}{
		{"matern32", kernel.NewMatern(1.5, 1.2, ls), 20, 0},
		{"matern52", kernel.NewMatern(2.5, 1.2, ls), 20, 0},
		{"rq", kernel.NewRQ(1.2, ls, 0.8), 20, 0},
		{"periodic", kernel.NewPeriodic(1.2, ls, []float64{2, 3, 2.5}), 20, 0},
		{"rbf×matern", kernel.NewProduct(kernel.NewRBF(1, ls), kernel.NewMatern(1.5, 1, ls)), 20, 0},
		{"rbf+linear", kernel.NewSum(kernel.NewRBF(1, ls), kernel.NewLinear(lin)), 20, 1},
		{"linear", kernel.NewLinear(lin), 3, 2}, // K_mm, and the blocks' rows once
	} {
		m := kc.m
		x, y, active, _ := distProblem(n, d, m, 6)
		theta := append(kc.kern.Params(nil), math.Log(0.05))
		ref := newActiveEvaluator(x, y, kernel.Clone(kc.kern), VAR, active, make([]float64, m*n), make([]float64, m*n))
		ref.SetMean(MeanConstant)
		want := make([]float64, len(theta))
		fw, err := ref.FuncGrad(want, theta)
		if err != nil {
			t.Fatalf("%s: single process: %v", kc.name, err)
		}
		for _, p := range []int{1, 3} {
			got := make([]distEval, p)
			onEvalRanks(p, func(c *comm.Comm) {
				got[c.Rank()] = evalOn(c, x, y, active, kc.kern, VAR, MeanConstant, theta, true)
			})
			for r, ev := range got {
				if ev.err != nil {
					t.Fatalf("%s P=%d rank %d: %v", kc.name, p, r, ev.err)
				}
				vals := append([]float64{ev.f}, ev.g...)
				refs := append([]float64{fw}, want...)
				for k := range vals {
					if math.Float64bits(vals[k]) != math.Float64bits(refs[k]) {
						t.Errorf("%s P=%d rank %d: value %d = %v, single process %v", kc.name, p, r, k, vals[k], refs[k])
					}
					if math.Float64bits(vals[k]) != math.Float64bits(got[0].g[max(k, 1)-1]) && k > 0 {
						t.Errorf("%s P=%d: rank %d's ∂F/∂θ_%d %v, rank 0's %v", kc.name, p, r, k-1, vals[k], got[0].g[k-1])
					}
				}
				if math.Float64bits(ev.f) != math.Float64bits(got[0].f) {
					t.Errorf("%s P=%d: rank %d's F %v, rank 0's %v", kc.name, p, r, ev.f, got[0].f)
				}
				if s := ev.stat[comm.KindSum].Calls; p > 1 && s != kc.sums {
					t.Errorf("%s P=%d rank %d: %d sums of K_mm, want %d", kc.name, p, r, s, kc.sums)
				}
			}
		}
	}
}
