// Package linalg holds the dense level-3 kernels whose speed decides the
// cost of the gradient phase: C ← AᵀA (Syrk), B ← L⁻¹B (TrsmLower) and
// C ← AᵀB (GemmTN), on row-major matrices.
//
// Two backends implement the same three CBLAS-shaped primitives (dgemm,
// dsyrk, dtrsm; see backend): OpenBLAS, opened at run time with dlopen
// through github.com/ebitengine/purego (no cgo, no build tag), and a pure-Go
// backend in which every operation is a blocked GEMM on vek's SIMD kernel
// (gonum.go). The environment variable SGP_BLAS picks one:
//
//	SGP_BLAS=auto      OpenBLAS when its shared library is installed
//	                   (Debian: libopenblas0), else pure Go (the default)
//	SGP_BLAS=openblas  OpenBLAS, and an error if it cannot be loaded
//	SGP_BLAS=go        pure Go
//
// The choice is made once, on first use. Both run single-threaded per call
// and the calls are split over goroutines (see split), so the results do
// not depend on the backend's own threading.
package linalg

import (
	"os"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// backend is one implementation of the row-major level-3 primitives, all
// with α = 1 (and β = 0 for dgemm and dsyrk).
type backend struct {
	name string // e.g. "openblas 0.3.21 (runtime, libopenblas.so.0)" or "go (vek GEMM, blocked)"
	// dgemm sets C (m×n) ← op(A)·op(B), op(A) m×k, op(B) k×n.
	dgemm func(ta, tb bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int)
	// dgemmSub, if not nil, sets C (m×n) ← C − A·B, A m×k, B k×n; then
	// TrsmLower recurses into it (see trsmLowerRec).
	dgemmSub func(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int)
	// dsyrk sets the upper triangle of C (m×m) ← A·Aᵀ for A m×k.
	dsyrk func(m, k int, a []float64, lda int, c []float64, ldc int)
	// dtrsm sets B ← op(A)⁻¹B (left) or B·op(A)⁻¹ (right), B m×n, A
	// triangular with a non-unit diagonal.
	dtrsm func(side blas.Side, uplo blas.Uplo, trans blas.Transpose, m, n int, a []float64, lda int, b []float64, ldb int)
	// dpotrf and dpotri, if not nil, are the backend's Cholesky
	// factorisation and inverse from it (see Potrf, Potri); nil uses
	// gonum's LAPACK.
	dpotrf, dpotri func(uplo blas.Uplo, n int, a []float64, lda int) bool
}

// active is the backend chosen by SGP_BLAS, selected once on first use.
var active = sync.OnceValues(func() (*backend, error) { return selectBackend(os.Getenv("SGP_BLAS"), openblasNames()) })

// Backend describes the backend in use, or returns the error that keeps
// the backend asked for in SGP_BLAS from loading.
func Backend() (string, error) {
	b, err := active()
	if err != nil {
		return "", err
	}
	return b.name, nil
}

// cur is the backend in use. A backend the user asked for by name that
// cannot be loaded is a configuration error, not a condition to recover
// from silently: the kernels panic with its message (callers that want to
// report it check Backend first).
func cur() *backend {
	b, err := active()
	if err != nil {
		panic(err)
	}
	return b
}

// split runs fn on column ranges of [0, n) concurrently.
func split(n int, fn func(lo, hi int)) {
	splitMin(n, 256, fn)
}

// splitMin is split with at least minPer items per goroutine.
func splitMin(n, minPer int, fn func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if p > n/minPer {
		p = max(1, n/minPer)
	}
	if p <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + p - 1) / p
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// SyrkT sets c (m×m, both triangles) to A·Aᵀ for the row-major m×n matrix
// a with row stride lda. The columns are taken in fixed chunks whose
// products are summed in order, so the result does not depend on the
// number of cores or the scheduling. The chunks are formed a wave of
// GOMAXPROCS at a time, each wave added before the next, so that only
// that many m×m partial products exist at once (all of them would be 256
// MB at n = 10⁶, m = 256).
func SyrkT(m, n int, a []float64, lda int, c []float64) { cur().syrkT(m, n, a, lda, c) }

func (be *backend) syrkT(m, n int, a []float64, lda int, c []float64) {
	if m == 0 {
		return
	}
	const chunk = 2048
	chunks := max(1, (n+chunk-1)/chunk)
	wave := min(chunks, runtime.GOMAXPROCS(0))
	parts := make([][]float64, wave)
	for i := range parts {
		parts[i] = make([]float64, m*m)
	}
	clear(c[:m*m])
	for p0 := 0; p0 < chunks; p0 += wave {
		w := min(wave, chunks-p0)
		splitMin(w, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				c0, c1 := (p0+i)*chunk, min(n, (p0+i+1)*chunk)
				if c1 > c0 {
					be.dsyrk(m, c1-c0, a[c0:], lda, parts[i], m)
				} else {
					clear(parts[i])
				}
			}
		})
		for _, part := range parts[:w] {
			for i, v := range part {
				c[i] += v
			}
		}
	}
	symmetrize(m, c)
}

// SyrkUpper sets the upper triangle of c (m×m, row stride ldc) to A·Aᵀ
// for the row-major m×k matrix a with row stride lda, in one call of the
// backend's dsyrk on the calling goroutine; c's strict lower triangle is
// left as it is. Its bits depend only on A, for a caller that sums the
// products of fixed blocks of columns itself.
func SyrkUpper(m, k int, a []float64, lda int, c []float64, ldc int) {
	if m == 0 {
		return
	}
	cur().dsyrk(m, k, a, lda, c, ldc)
}

// symmetrize copies the upper triangle of the m×m matrix c to the lower.
func symmetrize(m int, c []float64) {
	for i := 0; i < m; i++ {
		for j := 0; j < i; j++ {
			c[i*m+j] = c[j*m+i]
		}
	}
}

// TrsmLower sets B ← L⁻¹B for the lower-triangular m×m matrix l (row
// stride m) and the row-major m×n matrix b (row stride ldb).
func TrsmLower(m, n int, l []float64, b []float64, ldb int) { cur().trsmLower(m, n, l, b, ldb) }

func (be *backend) trsmLower(m, n int, l []float64, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	if be.dgemmSub == nil || m <= trsmLeaf {
		split(n, func(lo, hi int) {
			be.dtrsm(blas.Left, blas.Lower, blas.NoTrans, m, hi-lo, l, m, b[lo:], ldb)
		})
		return
	}
	split(n, func(lo, hi int) {
		for c := lo; c < hi; c += trsmPanel {
			be.trsmLowerRec(m, l, m, b[c:], ldb, min(hi, c+trsmPanel)-c)
		}
	})
}

// trsmLeaf and trsmPanel shape trsmLowerRec on backends with a dgemmSub
// (OpenBLAS): halves of at most trsmLeaf rows go to dtrsm, and the
// columns of B are taken trsmPanel at a time. OpenBLAS's dtrsm reaches
// about half its dgemm's speed on the gradient phase's shape (L m×m, B
// m×n); the recursion moves half or more of the flops into dgemm.
const (
	trsmLeaf  = 64
	trsmPanel = 2048
)

// trsmLowerRec sets B ← L⁻¹B for the lower-triangular m×m matrix l (row
// stride ldl) and the m×ncol matrix b (row stride ldb) by halves: with
// L = [L₁₁ 0; L₂₁ L₂₂] and B = [B₁; B₂], B₁ ← L₁₁⁻¹B₁, B₂ ← B₂ − L₂₁B₁,
// B₂ ← L₂₂⁻¹B₂, as blocked forward substitution does (no inverse is
// formed, so the rounding is that of substitution).
func (be *backend) trsmLowerRec(m int, l []float64, ldl int, b []float64, ldb, ncol int) {
	if m <= trsmLeaf {
		be.dtrsm(blas.Left, blas.Lower, blas.NoTrans, m, ncol, l, ldl, b, ldb)
		return
	}
	h := m / 2
	be.trsmLowerRec(h, l, ldl, b, ldb, ncol)
	be.dgemmSub(m-h, ncol, h, l[h*ldl:], ldl, b, ldb, b[h*ldb:], ldb)
	be.trsmLowerRec(m-h, l[h*ldl+h:], ldl, b[h*ldb:], ldb, ncol)
}

// Gemm sets C ← op(A)·op(B), op(A) m×k and op(B) k×n, on the calling
// goroutine (the other products here split their work over the cores):
// for callers that split a larger pass over the cores themselves. All
// matrices are row-major with the given strides; ta and tb transpose.
func Gemm(ta, tb bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	cur().dgemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc)
}

// GemmTN sets C ← AᵀB with A k×m (stride lda), B k×n (stride ldb) and C m×n
// (stride ldc), all row-major.
func GemmTN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	cur().gemmTN(m, n, k, a, lda, b, ldb, c, ldc)
}

func (be *backend) gemmTN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	split(n, func(lo, hi int) {
		be.dgemm(true, false, m, hi-lo, k, a, lda, b[lo:], ldb, c[lo:], ldc)
	})
}

// GemmNT sets C ← A·Bᵀ with A m×k (stride lda), B n×k (stride ldb) and C
// m×n (stride ldc), all row-major.
func GemmNT(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	cur().gemmNT(m, n, k, a, lda, b, ldb, c, ldc)
}

func (be *backend) gemmNT(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	split(m, func(lo, hi int) {
		be.dgemm(false, true, hi-lo, n, k, a[lo*lda:], lda, b, ldb, c[lo*ldc:], ldc)
	})
}

// Trsm sets B ← op(A)⁻¹B (side Left) or B ← B·op(A)⁻¹ (side Right) for the
// triangular matrix a (row stride lda) and the row-major m×n matrix b.
func Trsm(side blas.Side, uplo blas.Uplo, trans blas.Transpose, m, n int, a []float64, lda int, b []float64, ldb int) {
	cur().trsm(side, uplo, trans, m, n, a, lda, b, ldb)
}

func (be *backend) trsm(side blas.Side, uplo blas.Uplo, trans blas.Transpose, m, n int, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	// The rows of B·op(A)⁻¹ and the columns of op(A)⁻¹B are independent:
	// split them over the cores.
	if side == blas.Right {
		splitMin(m, 64, func(lo, hi int) {
			be.dtrsm(side, uplo, trans, hi-lo, n, a, lda, b[lo*ldb:], ldb)
		})
		return
	}
	splitMin(n, 64, func(lo, hi int) {
		be.dtrsm(side, uplo, trans, m, hi-lo, a, lda, b[lo:], ldb)
	})
}

// Potrf overwrites the uplo triangle of the symmetric positive-definite
// n×n row-major matrix a (row stride lda) with its Cholesky factor: L with
// A = LLᵀ for blas.Lower, U with A = UᵀU for blas.Upper. The other
// triangle is not referenced. It returns false if A is not numerically
// positive definite.
func Potrf(uplo blas.Uplo, n int, a []float64, lda int) bool {
	if n == 0 {
		return true
	}
	if be := cur(); be.dpotrf != nil {
		return be.dpotrf(uplo, n, a, lda)
	}
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: uplo, N: n, Stride: lda, Data: a})
	return ok
}

// Potri overwrites the uplo triangle of the Cholesky factor that Potrf
// left in a with that triangle of A⁻¹. It returns false if the factor is
// singular.
func Potri(uplo blas.Uplo, n int, a []float64, lda int) bool {
	if n == 0 {
		return true
	}
	if be := cur(); be.dpotri != nil {
		return be.dpotri(uplo, n, a, lda)
	}
	_, ok := lapack64.Potri(blas64.Triangular{Uplo: uplo, Diag: blas.NonUnit, N: n, Stride: lda, Data: a})
	return ok
}
