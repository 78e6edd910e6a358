package sgp

import "github.com/cholqr/sgp/sgp/internal/par"

// Kernel is a positive semi-definite covariance function κ(x, x′) with
// positive hyperparameters, seen through their logarithms θ.
//
// A Kernel is read by column and by diagonal only: package sgp never asks it
// for an n×n matrix. Column, Diag, AddGrad and AddDiagGrad each work on a
// half-open row range [lo, hi) of x so that callers can split the rows
// across goroutines; they must therefore be safe for concurrent use as long
// as SetParams is not called at the same time.
type Kernel interface {
	// NumParams returns the number of hyperparameters.
	NumParams() int
	// ParamNames returns a name for each hyperparameter, in θ order.
	ParamNames() []string
	// Params stores θ, the log hyperparameters, in dst and returns it. If
	// dst is nil a new slice is allocated.
	Params(dst []float64) []float64
	// SetParams sets the hyperparameters from θ. It panics if
	// len(theta) != NumParams().
	SetParams(theta []float64)
	// Accepts returns nil if the kernel can evaluate inputs of x's kind and
	// shape, and otherwise an error saying why not.
	Accepts(x Inputs) error

	// Column sets dst[i−lo] = κ(x_i, y_j) for i in [lo, hi).
	Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int)
	// Diag sets dst[i−lo] = κ(x_i, x_i) for i in [lo, hi).
	Diag(dst []float64, x Inputs, lo, hi int)
	// AddGrad adds to grad[p], for every hyperparameter p,
	//	Σ_{i∈[lo,hi)} Σ_c w[(i−lo)·len(cols)+c] · ∂κ(x_i, y_cols[c])/∂θ_p
	// where w is (hi−lo)×len(cols) row-major.
	AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int)
	// AddDiagGrad adds to grad[p] Σ_{i∈[lo,hi)} w[i−lo] · ∂κ(x_i, x_i)/∂θ_p.
	AddDiagGrad(grad, w []float64, x Inputs, lo, hi int)
}

// kernelColumn sets dst[i] = κ(x_i, y_j) for all i, in parallel.
func kernelColumn(k Kernel, dst []float64, x Inputs, y Inputs, j int) {
	par.Rows(x.Len(), func(lo, hi int) {
		k.Column(dst[lo:hi], x, lo, hi, y, j)
	})
}

// kernelDiag sets dst[i] = κ(x_i, x_i) for all i, in parallel.
func kernelDiag(k Kernel, dst []float64, x Inputs) {
	par.Rows(x.Len(), func(lo, hi int) {
		k.Diag(dst[lo:hi], x, lo, hi)
	})
}

// kernelAddGrad adds Σ_{i,c} w[i·len(cols)+c] ∂κ(x_i, y_cols[c])/∂θ to
// grad, splitting the rows of x across goroutines.
func kernelAddGrad(k Kernel, grad, w []float64, x Inputs, y Inputs, cols []int) {
	par.Reduce(x.Len(), k.NumParams(), grad, func(lo, hi int, acc []float64) {
		k.AddGrad(acc, w[lo*len(cols):hi*len(cols)], x, lo, hi, y, cols)
	})
}

// kernelAddDiagGrad adds Σ_i w[i] ∂κ(x_i, x_i)/∂θ to grad.
func kernelAddDiagGrad(k Kernel, grad, w []float64, x Inputs) {
	par.Reduce(x.Len(), k.NumParams(), grad, func(lo, hi int, acc []float64) {
		k.AddDiagGrad(acc, w[lo:hi], x, lo, hi)
	})
}

// blockKernel is implemented by built-in kernels that evaluate a whole
// n×m cross-covariance block faster than column by column (for RBF, by a
// matrix product of scaled inputs) and whose derivatives follow from their
// values, so that the gradient phase needs one kernel evaluation per entry.
type blockKernel interface {
	// crossT sets dst[c·n+i] = κ(x_i, y_cols[c]) for the n = x.Len()
	// inputs x and every c.
	crossT(dst []float64, x Inputs, y Inputs, cols []int)
	// addGradBlockT adds to grad Σ_c Σ_i w[c·n+i]·∂κ(x_i, y_cols[c])/∂θ
	// given kv[c·n+i] = κ(x_i, y_cols[c]). It may overwrite w.
	addGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int)
}
