//go:build openblas

package linalg

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
void openblas_set_num_threads(int num_threads);
*/
import "C"

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
)

const backend = "openblas"

// OpenBLAS runs single-threaded and the calls are split over goroutines:
// its own worker threads spin while waiting for work, which on a small
// machine takes the cores away from the Go code (kernel evaluations) that
// runs between BLAS calls.
func init() { C.openblas_set_num_threads(1) }

func ptr(x []float64) *C.double { return (*C.double)(unsafe.Pointer(&x[0])) }

// syrkRaw sets the upper triangle of c (m×m) to A·Aᵀ for the row-major
// m×n matrix a with row stride lda.
func syrkRaw(m, n int, a []float64, lda int, c []float64) {
	C.cblas_dsyrk(C.CblasRowMajor, C.CblasUpper, C.CblasNoTrans, C.blasint(m), C.blasint(n), 1, ptr(a), C.blasint(lda), 0, ptr(c), C.blasint(m))
}

// TrsmLower sets B ← L⁻¹B for the lower-triangular m×m matrix l (row
// stride m) and the row-major m×n matrix b (row stride ldb).
func TrsmLower(m, n int, l []float64, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	split(n, func(lo, hi int) {
		C.cblas_dtrsm(C.CblasRowMajor, C.CblasLeft, C.CblasLower, C.CblasNoTrans, C.CblasNonUnit, C.blasint(m), C.blasint(hi-lo), 1, ptr(l), C.blasint(m), ptr(b[lo:]), C.blasint(ldb))
	})
}

// GemmTN sets C ← AᵀB with A k×m (stride lda), B k×n (stride ldb) and C m×n
// (stride ldc), all row-major.
func GemmTN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	split(n, func(lo, hi int) {
		C.cblas_dgemm(C.CblasRowMajor, C.CblasTrans, C.CblasNoTrans, C.blasint(m), C.blasint(hi-lo), C.blasint(k), 1, ptr(a), C.blasint(lda), ptr(b[lo:]), C.blasint(ldb), 0, ptr(c[lo:]), C.blasint(ldc))
	})
}

// GemmNT sets C ← A·Bᵀ with A m×k (stride lda), B n×k (stride ldb) and C
// m×n (stride ldc), all row-major.
func GemmNT(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	split(m, func(lo, hi int) {
		C.cblas_dgemm(C.CblasRowMajor, C.CblasNoTrans, C.CblasTrans, C.blasint(hi-lo), C.blasint(n), C.blasint(k), 1, ptr(a[lo*lda:]), C.blasint(lda), ptr(b), C.blasint(ldb), 0, ptr(c[lo*ldc:]), C.blasint(ldc))
	})
}

// Trsm sets B ← op(A)⁻¹B (side Left) or B ← B·op(A)⁻¹ (side Right) for the
// triangular matrix a (row stride lda) and the row-major m×n matrix b.
func Trsm(side blas.Side, uplo blas.Uplo, trans blas.Transpose, m, n int, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	cs, cu, ct := C.enum_CBLAS_SIDE(C.CblasLeft), C.enum_CBLAS_UPLO(C.CblasLower), C.enum_CBLAS_TRANSPOSE(C.CblasNoTrans)
	if side == blas.Right {
		cs = C.CblasRight
	}
	if uplo == blas.Upper {
		cu = C.CblasUpper
	}
	if trans != blas.NoTrans {
		ct = C.CblasTrans
	}
	C.cblas_dtrsm(C.CblasRowMajor, cs, cu, ct, C.CblasNonUnit, C.blasint(m), C.blasint(n), 1, ptr(a), C.blasint(lda), ptr(b), C.blasint(ldb))
}
