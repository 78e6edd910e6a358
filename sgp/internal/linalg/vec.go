package linalg

import (
	"gonum.org/v1/gonum/blas/blas64"
)

// Level-2 products with a wide row-major matrix (m×n, n ≫ m, such as Gᵀ
// of the gradient phase) are bound by memory bandwidth: one read of the
// matrix each. These split the work over the cores and, for several
// vectors, read the matrix once for all of them. Every output value is
// formed by the same operations in the same order whatever the split.

// MulRows sets dst[q][r] = Σ_i a[r·lda+i]·xs[q][i] for r < m, i < n and
// every q: the products of the m×n matrix a with the vectors xs, the rows
// of a split over the cores and each row read once for all vectors.
func MulRows(m, n int, a []float64, lda int, xs [][]float64, dst [][]float64) {
	if len(xs) != len(dst) {
		panic("linalg: MulRows: vector and result counts differ")
	}
	splitMin(m, 16, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row := blas64.Vector{N: n, Data: a[r*lda : r*lda+n], Inc: 1}
			for q, x := range xs {
				dst[q][r] = blas64.Dot(row, blas64.Vector{N: n, Data: x[:n], Inc: 1})
			}
		}
	})
}

// SubColumns sets y[i] −= Σ_r a[r·lda+i]·x[r] for i < n, r < m: y less
// the product of the transpose of the m×n matrix a with x, the columns of
// a split over the cores.
func SubColumns(m, n int, a []float64, lda int, x, y []float64) {
	splitMin(n, 2048, func(lo, hi int) {
		yv := blas64.Vector{N: hi - lo, Data: y[lo:hi], Inc: 1}
		for r := 0; r < m; r++ {
			blas64.Axpy(-x[r], blas64.Vector{N: hi - lo, Data: a[r*lda+lo : r*lda+hi], Inc: 1}, yv)
		}
	})
}
