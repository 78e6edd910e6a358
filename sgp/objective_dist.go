package sgp

import (
	"fmt"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/kernel"
)

// newActiveEvaluatorOn is newActiveEvaluator for one rank of c in a
// distributed fit: x and y are the rank's rows, [lo, lo+x.Len()) of nAll
// rows in all, laid out as comm.Span lays them out in blocks of
// comm.BlockRows (lo a multiple of it); active are the inducing points'
// global rows and xI their inputs, the same on every rank
// (inducingInputsOn gathers them). gt and kval
// are, as for newActiveEvaluator, storage of at least m·x.Len() values
// (the rank's part of the factor's G and Q), or nil.
//
// Every rank holds the m×m quantities (K_mm, its factor L, R, S, the
// weights of K_mm) and computes them alike; the sums over rows are
// reduced over the ranks in global block order (rowSums), so that F and
// its gradient are the same bit for bit on every rank and for every
// number of ranks, and equal to newActiveEvaluator's in one process.
// Each FuncGrad is
// collective: three reductions (comm.OrderedSum) of m(m+1)/2 + m + 1
// numbers (2m + 1 for an estimated mean), of m + 1 and of the kernel's
// NumParams; F alone (a nil gradient) takes the first only. SetMean is
// collective too: it sums the targets.
//
// K_mm must carry the bits of the rows of K_mn at the inducing points,
// as in one process. For the kernels whose CrossT forms each entry from
// its two inputs alone (crossExact) every rank forms it from xI; for the
// others the owners of those rows send them, one more reduction of m²
// numbers per evaluation (comm.SumFloat64s, exact: each entry is added to
// zeros). A kernel.ScaledSum kernel's blocks are kept as in one process
// (for the same nAll), the blocks' rows at the inducing points sent by
// their owners once, at the first evaluation (np·m² numbers).
func newActiveEvaluatorOn(c *comm.Comm, x kernel.Inputs, y []float64, lo, nAll int, k kernel.Kernel, o Objective, active []int, xI kernel.Inputs, gt, kval []float64) *Evaluator {
	if lo%comm.BlockRows != 0 || lo < 0 || lo+x.Len() > nAll || len(y) != x.Len() || len(active) != xI.Len() {
		panic(fmt.Sprintf("sgp: a rank's rows [%d, %d) of %d with %d targets are not in comm.Span's blocks, or %d inducing points have %d inputs",
			lo, lo+x.Len(), nAll, len(y), len(active), xI.Len()))
	}
	_, block := k.(kernel.BlockEvaluator)
	e := newEvaluatorOn(c, nAll, x, y, k, o, xI, gradBlock, gt, kval, block && crossExact(k))
	if !e.kmmCross {
		e.kmmOwn = [][2]int{}
		for a, i := range active {
			if i >= lo && i < lo+x.Len() {
				e.kmmOwn = append(e.kmmOwn, [2]int{a, i - lo})
			}
		}
	}
	e.keepBasis()
	e.SetMean(MeanZero)
	return e
}

// crossExact reports whether kernel k's CrossT forms each entry from its
// two inputs alone, so that an entry of K_mm formed from the inducing
// inputs has the bits of the same entry of K_mn (TestEvaluatorOnKernels):
// the stationary kernels and their sums and products.
func crossExact(k kernel.Kernel) bool {
	switch k := k.(type) {
	case *kernel.RBF, *kernel.Matern, *kernel.RQ, *kernel.Periodic:
		return true
	case *kernel.Sum:
		return allCrossExact(k.Components())
	case *kernel.Product:
		return allCrossExact(k.Components())
	}
	return false
}

// allCrossExact reports whether every kernel of ks is crossExact.
func allCrossExact(ks []kernel.Kernel) bool {
	for _, c := range ks {
		if !crossExact(c) {
			return false
		}
	}
	return true
}

// inducingInputsOn returns, on every rank of c, the inputs of the global
// rows active, each from the rank that holds it: x holds this rank's
// rows, from global row lo. It is collective, one sum of m·d numbers
// (each entry added to zeros, so exact) for inputs that are vectors;
// other inputs (graphs, strings, …) cannot be sent as numbers, and it
// panics for them.
func inducingInputsOn(c *comm.Comm, x kernel.Inputs, lo int, active []int) *kernel.Vectors {
	xv, ok := x.(*kernel.Vectors)
	if !ok {
		panic(fmt.Sprintf("sgp: the inducing inputs of %T cannot be gathered from the ranks", x))
	}
	d := xv.Dim()
	data := make([]float64, len(active)*d)
	for a, i := range active {
		if i >= lo && i < lo+xv.Len() {
			copy(data[a*d:(a+1)*d], xv.Row(i-lo))
		}
	}
	c.SumFloat64s(data)
	z, err := kernel.NewVectors(len(active), d, data)
	if err != nil {
		panic(err)
	}
	return z
}
