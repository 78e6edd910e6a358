package base

import (
	"github.com/cholqr/sgp/sgp/internal/par"
	"github.com/cholqr/sgp/sgp/kernel"
)

// The engine and the models read a kernel through these helpers, which split the rows
// of x across goroutines (package par): a column, the diagonal and the
// gradient sums, each over all of x.

// KernelColumn sets dst[i] = κ(x_i, y_j) for all i, in parallel.
func KernelColumn(k kernel.Kernel, dst []float64, x, y kernel.Inputs, j int) {
	par.Rows(x.Len(), func(lo, hi int) {
		k.Column(dst[lo:hi], x, lo, hi, y, j)
	})
}

// KernelDiag sets dst[i] = κ(x_i, x_i) for all i, in parallel.
func KernelDiag(k kernel.Kernel, dst []float64, x kernel.Inputs) {
	par.Rows(x.Len(), func(lo, hi int) {
		k.Diag(dst[lo:hi], x, lo, hi)
	})
}

// KernelAddGrad adds Σ_{i,c} w[i·len(cols)+c] ∂κ(x_i, y_cols[c])/∂θ to
// grad, splitting the rows of x across goroutines.
func KernelAddGrad(k kernel.Kernel, grad, w []float64, x, y kernel.Inputs, cols []int) {
	par.Reduce(x.Len(), k.NumParams(), grad, func(lo, hi int, acc []float64) {
		k.AddGrad(acc, w[lo*len(cols):hi*len(cols)], x, lo, hi, y, cols)
	})
}

// KernelAddDiagGrad adds Σ_i w[i] ∂κ(x_i, x_i)/∂θ to grad.
func KernelAddDiagGrad(k kernel.Kernel, grad, w []float64, x kernel.Inputs) {
	par.Reduce(x.Len(), k.NumParams(), grad, func(lo, hi int, acc []float64) {
		k.AddDiagGrad(acc, w[lo:hi], x, lo, hi)
	})
}
