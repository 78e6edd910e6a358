//go:build !openblas

package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

const backend = "gonum"

// syrkRaw sets the upper triangle of c (m×m) to A·Aᵀ for the row-major
// m×n matrix a with row stride lda.
func syrkRaw(m, n int, a []float64, lda int, c []float64) {
	blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: m, Cols: n, Stride: lda, Data: a}, 0,
		blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: c})
}

// TrsmLower sets B ← L⁻¹B for the lower-triangular m×m matrix l (row
// stride m) and the row-major m×n matrix b (row stride ldb).
func TrsmLower(m, n int, l []float64, b []float64, ldb int) {
	lt := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: m, Stride: m, Data: l}
	split(n, func(lo, hi int) {
		blas64.Trsm(blas.Left, blas.NoTrans, 1, lt, blas64.General{Rows: m, Cols: hi - lo, Stride: ldb, Data: b[lo:]})
	})
}

// GemmTN sets C ← AᵀB with A k×m (stride lda), B k×n (stride ldb) and C m×n
// (stride ldc), all row-major.
func GemmTN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	split(n, func(lo, hi int) {
		blas64.Gemm(blas.Trans, blas.NoTrans, 1,
			blas64.General{Rows: k, Cols: m, Stride: lda, Data: a},
			blas64.General{Rows: k, Cols: hi - lo, Stride: ldb, Data: b[lo:]}, 0,
			blas64.General{Rows: m, Cols: hi - lo, Stride: ldc, Data: c[lo:]})
	})
}

// GemmNT sets C ← A·Bᵀ with A m×k (stride lda), B n×k (stride ldb) and C
// m×n (stride ldc), all row-major.
func GemmNT(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	split(m, func(lo, hi int) {
		blas64.Gemm(blas.NoTrans, blas.Trans, 1,
			blas64.General{Rows: hi - lo, Cols: k, Stride: lda, Data: a[lo*lda:]},
			blas64.General{Rows: n, Cols: k, Stride: ldb, Data: b}, 0,
			blas64.General{Rows: hi - lo, Cols: n, Stride: ldc, Data: c[lo*ldc:]})
	})
}

// Trsm sets B ← op(A)⁻¹B (side Left) or B ← B·op(A)⁻¹ (side Right) for the
// triangular matrix a (row stride lda) and the row-major m×n matrix b.
func Trsm(side blas.Side, uplo blas.Uplo, trans blas.Transpose, m, n int, a []float64, lda int, b []float64, ldb int) {
	na := m
	if side == blas.Right {
		na = n
	}
	if m == 0 || n == 0 {
		return
	}
	blas64.Trsm(side, trans, 1, blas64.Triangular{Uplo: uplo, Diag: blas.NonUnit, N: na, Stride: lda, Data: a},
		blas64.General{Rows: m, Cols: n, Stride: ldb, Data: b})
}
