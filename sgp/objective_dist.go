package sgp

import (
	"fmt"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/kernel"
)

// newActiveEvaluatorOn is newActiveEvaluator for one rank of c in a
// distributed fit: x and y are the rank's rows, [lo, lo+x.Len()) of nAll
// rows in all, laid out as comm.Span lays them out in blocks of
// comm.BlockRows (lo a multiple of it), and xI holds the inducing inputs,
// the same on every rank (inducingInputsOn gathers them). gt and kval
// are, as for newActiveEvaluator, storage of at least m·x.Len() values
// (the rank's part of the factor's G and Q), or nil.
//
// Every rank holds the m×m quantities (K_mm, its factor L, R, S, the
// weights of K_mm) and computes them alike; the sums over rows are
// reduced over the ranks in global block order (rowSums), so that F and
// its gradient are the same bit for bit on every rank and for every
// number of ranks, and, for a block kernel (kernel.BlockEvaluator) whose
// CrossT forms each entry alone, equal to newActiveEvaluator's in one
// process. Each FuncGrad is collective: three reductions (comm.OrderedSum)
// of m(m+1)/2 + m + 1 numbers (2m + 1 for an estimated mean), of m + 1
// and of the kernel's NumParams; F alone (a nil gradient) takes the
// first only. SetMean is collective too: it sums the targets.
//
// K_mm is formed from xI by the kernel (CrossT for a block kernel), not
// from the rows of K_mn, which only their owners hold; a kernel.ScaledSum
// kernel's blocks are evaluated at every θ rather than kept (the kept
// blocks read K_mm from the rows of K_mn).
func newActiveEvaluatorOn(c *comm.Comm, x kernel.Inputs, y []float64, lo, nAll int, k kernel.Kernel, o Objective, xI kernel.Inputs, gt, kval []float64) *Evaluator {
	if lo%comm.BlockRows != 0 || lo < 0 || lo+x.Len() > nAll || len(y) != x.Len() {
		panic(fmt.Sprintf("sgp: a rank's rows [%d, %d) of %d with %d targets are not in comm.Span's blocks", lo, lo+x.Len(), nAll, len(y)))
	}
	e := newEvaluatorOn(c, nAll, x, y, k, o, xI, gradBlock, gt, kval, true)
	e.SetMean(MeanZero)
	return e
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
