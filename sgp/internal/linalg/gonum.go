package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gonumBackend is gonum's pure-Go BLAS.
func gonumBackend() *backend {
	return &backend{
		name: "go (gonum)",
		dgemm: func(ta, tb bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
			if m == 0 || n == 0 {
				return
			}
			tA, tB := blas.NoTrans, blas.NoTrans
			ar, ac, br, bc := m, k, k, n
			if ta {
				tA, ar, ac = blas.Trans, k, m
			}
			if tb {
				tB, br, bc = blas.Trans, n, k
			}
			blas64.Gemm(tA, tB, 1,
				blas64.General{Rows: ar, Cols: ac, Stride: lda, Data: a},
				blas64.General{Rows: br, Cols: bc, Stride: ldb, Data: b}, 0,
				blas64.General{Rows: m, Cols: n, Stride: ldc, Data: c})
		},
		dsyrk: func(m, k int, a []float64, lda int, c []float64, ldc int) {
			if m == 0 {
				return
			}
			blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: m, Cols: k, Stride: lda, Data: a}, 0,
				blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: ldc, Data: c})
		},
		dtrsm: func(side blas.Side, uplo blas.Uplo, trans blas.Transpose, m, n int, a []float64, lda int, b []float64, ldb int) {
			if m == 0 || n == 0 {
				return
			}
			na := m
			if side == blas.Right {
				na = n
			}
			blas64.Trsm(side, trans, 1, blas64.Triangular{Uplo: uplo, Diag: blas.NonUnit, N: na, Stride: lda, Data: a},
				blas64.General{Rows: m, Cols: n, Stride: ldb, Data: b})
		},
	}
}
