package linalg

import (
	"github.com/viterin/vek"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The pure-Go backend routes every level-3 operation through one blocked
// GEMM whose inner product is github.com/viterin/vek's SIMD MatMul (Go
// assembly, no cgo), several times faster than gonum's Dgemm on one core.
// Syrk and Trsm are blocked into
// GEMM updates; only the nb×nb diagonal blocks of Trsm use gonum.

// Panel sizes: gemmCols columns of B and C are packed at a time (memory
// O((m+k)·gemmCols) whatever n is); trsmBlock is the diagonal block of a
// triangular solve and syrkBlock the row block of a Gram matrix.
const (
	gemmCols  = 512
	trsmBlock = 64
	syrkBlock = 128
)

// smallWork is the flop count (m·n·k) below which an operation goes to
// gonum directly: packing panels does not pay for small matrices, and
// small problems then round exactly as gonum does.
const smallWork = 1 << 16

// goBackend is the pure-Go backend.
func goBackend() *backend {
	ref := gonumBackend()
	return &backend{
		name: "go (vek GEMM, blocked)",
		dgemm: func(ta, tb bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
			if m*n*k < smallWork {
				ref.dgemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc)
				return
			}
			goGemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, false)
		},
		dsyrk: func(m, k int, a []float64, lda int, c []float64, ldc int) {
			if m*m*k < smallWork {
				ref.dsyrk(m, k, a, lda, c, ldc)
				return
			}
			goSyrk(m, k, a, lda, c, ldc)
		},
		dtrsm: goTrsm,
	}
}

// goGemm sets C ← op(A)·op(B) or, with sub, C ← C − op(A)·op(B). op(A) and
// op(B) are packed into contiguous row-major panels for vek.MatMul_Into.
func goGemm(ta, tb bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, sub bool) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		if !sub {
			for i := 0; i < m; i++ {
				clear(c[i*ldc : i*ldc+n])
			}
		}
		return
	}
	pa := make([]float64, m*k)
	for i := 0; i < m; i++ {
		row := pa[i*k : (i+1)*k]
		if ta {
			for p := range row {
				row[p] = a[p*lda+i]
			}
		} else {
			copy(row, a[i*lda:i*lda+k])
		}
	}
	nb := min(n, gemmCols)
	pb := make([]float64, k*nb)
	pc := make([]float64, m*nb)
	for j0 := 0; j0 < n; j0 += nb {
		w := min(nb, n-j0)
		bp, cp := pb[:k*w], pc[:m*w]
		for p := 0; p < k; p++ {
			row := bp[p*w : (p+1)*w]
			if tb {
				for j := range row {
					row[j] = b[(j0+j)*ldb+p]
				}
			} else {
				copy(row, b[p*ldb+j0:p*ldb+j0+w])
			}
		}
		vek.MatMul_Into(cp, pa, bp, k)
		for i := 0; i < m; i++ {
			dst, src := c[i*ldc+j0:i*ldc+j0+w], cp[i*w:(i+1)*w]
			if sub {
				for j, v := range src {
					dst[j] -= v
				}
			} else {
				copy(dst, src)
			}
		}
	}
}

// goSyrk sets the upper triangle of C (m×m) ← A·Aᵀ, A m×k, by row blocks:
// C[I, I:] = A_I·A_{I:}ᵀ, one GEMM each.
func goSyrk(m, k int, a []float64, lda int, c []float64, ldc int) {
	for i0 := 0; i0 < m; i0 += syrkBlock {
		h := min(syrkBlock, m-i0)
		// The diagonal block's strict lower part is computed too; save and
		// restore it so that only the upper triangle is written.
		low := make([]float64, h*h)
		for i := 0; i < h; i++ {
			copy(low[i*h:i*h+i], c[(i0+i)*ldc+i0:(i0+i)*ldc+i0+i])
		}
		goGemm(false, true, h, m-i0, k, a[i0*lda:], lda, a[i0*lda:], lda, c[i0*ldc+i0:], ldc, false)
		for i := 0; i < h; i++ {
			copy(c[(i0+i)*ldc+i0:(i0+i)*ldc+i0+i], low[i*h:i*h+i])
		}
	}
}

// goTrsm sets B ← op(A)⁻¹B (left) or B·op(A)⁻¹ (right) by blocks of
// trsmBlock: each diagonal block is solved with gonum's Trsm, and the rest
// of B is updated with one GEMM per block (block forward or backward
// substitution, by whether op(A) is lower or upper triangular).
func goTrsm(side blas.Side, uplo blas.Uplo, trans blas.Transpose, m, n int, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	tr := trans != blas.NoTrans
	// opLower: op(A) is lower triangular.
	opLower := (uplo == blas.Lower) != tr
	na := m
	if side == blas.Right {
		na = n
	}
	// opBlock returns the top-left element offset of block (I, J) of op(A)
	// in a, as read by goGemm with transpose flag tr.
	opBlock := func(i0, j0 int) []float64 {
		if tr {
			return a[j0*lda+i0:]
		}
		return a[i0*lda+j0:]
	}
	diag := func(i0, h int, bb []float64, rows, cols int) {
		blas64.Trsm(side, trans, 1,
			blas64.Triangular{Uplo: uplo, Diag: blas.NonUnit, N: h, Stride: lda, Data: a[i0*lda+i0:]},
			blas64.General{Rows: rows, Cols: cols, Stride: ldb, Data: bb})
	}
	nblk := (na + trsmBlock - 1) / trsmBlock
	for s := 0; s < nblk; s++ {
		// Forward order when solving L·X = B (left, lower) or X·U = B
		// (right, upper); backward otherwise.
		bi := s
		if (side == blas.Left) != opLower {
			bi = nblk - 1 - s
		}
		i0 := bi * trsmBlock
		h := min(trsmBlock, na-i0)
		if side == blas.Left {
			// X_I = op(A)_II⁻¹ B_I, then B_J −= op(A)_JI X_I for the blocks
			// J still to solve.
			diag(i0, h, b[i0*ldb:], h, n)
			if opLower && i0+h < m {
				goGemm(tr, false, m-i0-h, n, h, opBlock(i0+h, i0), lda, b[i0*ldb:], ldb, b[(i0+h)*ldb:], ldb, true)
			} else if !opLower && i0 > 0 {
				goGemm(tr, false, i0, n, h, opBlock(0, i0), lda, b[i0*ldb:], ldb, b, ldb, true)
			}
		} else {
			// X_J = B_J op(A)_JJ⁻¹, then B_K −= X_J op(A)_JK.
			diag(i0, h, b[i0:], m, h)
			if !opLower && i0+h < n {
				goGemm(false, tr, m, n-i0-h, h, b[i0:], ldb, opBlock(i0, i0+h), lda, b[i0+h:], ldb, true)
			} else if opLower && i0 > 0 {
				goGemm(false, tr, m, i0, h, b[i0:], ldb, opBlock(i0, 0), lda, b, ldb, true)
			}
		}
	}
}

// gonumBackend is gonum's BLAS unchanged, kept as the reference the tests
// compare the pure-Go backend with.
func gonumBackend() *backend {
	return &backend{
		name: "gonum",
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
