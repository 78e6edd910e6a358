package cholqr

import (
	"math"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/linalg"
	"github.com/cholqr/sgp/sgp/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// factorizeBlocked builds the active part of the state for the ordered set
// active with level-3 BLAS instead of k rank-one steps (O(n·k²) either way,
// but compute- rather than memory-bound):
//
//	K[I,I] = LLᵀ,  Gᵀ = L⁻¹K[I,:],  d = diag K − rowsum(G∘G),  A = GᵀG,
//
// and the QR factorisation of G̃ = [G; σI] by CholeskyQR2 (Fukaya et al.
// 2014): R₁ = chol(GᵀG + σ²I), Q₁ = G̃R₁⁻¹, R₂ = chol(Q₁ᵀQ₁), Q = Q₁R₂⁻¹,
// R = R₂R₁. The second pass restores orthogonality to rounding as long as
// κ(G̃)² ≪ 1/ε, which σ² > 0 bounds.
//
// The receiver must have been reset. It returns false, leaving the receiver
// to be reset again, if a pivot falls below keepTol or a Cholesky
// factorisation breaks down; the caller then uses the rank-one path, which
// names the degenerate point.
func (f *Factor) factorizeBlocked(active []int) bool {
	n, k, ldq := f.n, len(active), f.ldq
	if k == 0 {
		return true
	}
	gt := f.g[:k*n]
	if !f.choleskyBlocked(active, gt) || !f.residualsBlocked(active, gt) {
		return false
	}
	ata, ok := f.qrBlocked(gt, k)
	if !ok {
		return false
	}
	// a = Q[:n,:]ᵀ(y − μ), b = Q[:n,:]ᵀ1 (Q[:n,:]ᵀwt with known noise).
	blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: k, Cols: n, Stride: ldq, Data: f.q[:(k-1)*ldq+n]},
		blas64.Vector{N: n, Data: f.y, Inc: 1}, 0, blas64.Vector{N: k, Data: f.a[:k], Inc: 1})
	for c := 0; c < k; c++ {
		var s float64
		for i, v := range f.q[c*ldq : c*ldq+n] {
			s += v * f.meanDir(i)
		}
		f.b[c] = s
	}
	// Gram matrix of the active block, pivots and positions.
	tc := f.tcap
	for i := 0; i < k; i++ {
		copy(f.gram[i*tc:i*tc+k], ata[i*k:(i+1)*k])
	}
	for p, j := range active {
		f.perm[p] = j
		f.pos[j] = p
	}
	f.k, f.t = k, k
	return true
}

// choleskyBlocked sets gt (k rows of length n) to Gᵀ = L⁻¹K[I,:] with
// K[I,I] = LLᵀ, with exact zeros above the pivot diagonal and exact
// pivots. It returns false if the Cholesky factorisation breaks down or a
// pivot falls below keepTol.
func (f *Factor) choleskyBlocked(active []int, gt []float64) bool {
	n, k := f.n, len(active)
	if bk, ok := f.kern.(kernel.BlockEvaluator); ok {
		bk.CrossT(gt, f.x, f.x, active)
	} else {
		for c, j := range active {
			base.KernelColumn(f.kern, gt[c*n:(c+1)*n], f.x, f.x, j)
		}
	}
	for c, j := range active {
		f.scaleColumn(gt[c*n:(c+1)*n], 0, j)
	}
	f.stats.KernelEvals += k * n
	// L = chol(K[I,I]) in the Gram scratch (k×k, stride k).
	l := f.gram[:k*k]
	for a, ja := range active {
		for b := 0; b <= a; b++ {
			l[a*k+b] = gt[b*n+ja]
		}
		for b := a + 1; b < k; b++ {
			l[a*k+b] = 0
		}
	}
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: k, Stride: k, Data: l}); !ok {
		return false
	}
	for p, j := range active {
		if v := l[p*k+p]; v*v <= f.keepTol(j) {
			return false
		}
	}
	diagL := make([]float64, k)
	for p := range diagL {
		diagL[p] = l[p*k+p]
	}
	linalg.TrsmLower(k, n, l, gt, n)
	// Exact zeros above the pivot diagonal, exact pivots.
	for p, j := range active {
		for c := p + 1; c < k; c++ {
			gt[c*n+j] = 0
		}
		gt[p*n+j] = diagL[p]
	}
	return true
}

// residualsBlocked sets d = diag K − rowsum(G∘G) from gt = Gᵀ, clamping
// tiny negative residuals to zero (Stats.Clamped) and the pivots' to
// exactly zero. It returns false if a residual is negative beyond
// rounding.
func (f *Factor) residualsBlocked(active []int, gt []float64) bool {
	n, k := f.n, len(active)
	copy(f.d, f.kdiag)
	for c := 0; c < k; c++ {
		for i, v := range gt[c*n : (c+1)*n] {
			f.d[i] -= v * v
		}
	}
	for i, v := range f.d {
		if v < 0 {
			if v < -f.clampTol(i) {
				return false
			}
			f.stats.Clamped++
			f.d[i] = 0
		}
	}
	for _, j := range active {
		f.d[j] = 0
	}
	return true
}

// qrBlocked sets Q and R to the thin QR factorisation of [G; σI] by
// CholeskyQR2 from gt = Gᵀ (k rows) and returns A = GᵀG (k×k, stride k).
// It returns false if a Cholesky factorisation breaks down.
func (f *Factor) qrBlocked(gt []float64, k int) ([]float64, bool) {
	n, mc, ldq := f.n, f.mcap, f.ldq
	// A = GᵀG (k×k, stride k), copied to the Gram matrix (stride tcap)
	// by the caller.
	ata := make([]float64, k*k)
	linalg.SyrkT(k, n, gt, n, ata)
	// R₁ = chol(A + σ²I).
	r1 := make([]float64, k*k)
	copy(r1, ata)
	for i := 0; i < k; i++ {
		r1[i*k+i] += f.noise
	}
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: k, Stride: k, Data: r1}); !ok {
		return nil, false
	}
	zeroLower(r1, k)
	// Q₁ᵀ = R₁⁻ᵀ[Gᵀ | σI], rows of length n+k in Q's storage (stride ldq).
	sigma := math.Sqrt(f.noise)
	rows := n + k
	for c := 0; c < k; c++ {
		qc := f.q[c*ldq : c*ldq+rows]
		copy(qc, gt[c*n:(c+1)*n])
		for i := n; i < rows; i++ {
			qc[i] = 0
		}
		qc[n+c] = sigma
	}
	linalg.Trsm(blas.Left, blas.Upper, blas.Trans, k, rows, r1, k, f.q, ldq)
	// R₂ = chol(Q₁ᵀQ₁), Qᵀ = R₂⁻ᵀQ₁ᵀ.
	r2 := make([]float64, k*k)
	linalg.SyrkT(k, rows, f.q, ldq, r2)
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: k, Stride: k, Data: r2}); !ok {
		return nil, false
	}
	zeroLower(r2, k)
	linalg.Trsm(blas.Left, blas.Upper, blas.Trans, k, rows, r2, k, f.q, ldq)
	// R = R₂R₁.
	blas64.Trmm(blas.Left, blas.NoTrans, 1, blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: k, Stride: k, Data: r2},
		blas64.General{Rows: k, Cols: k, Stride: k, Data: r1})
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			v := 0.0
			if j >= i {
				v = r1[i*k+j]
			}
			f.r[i*mc+j] = v
		}
	}
	return ata, true
}

// zeroLower clears the strictly lower triangle of the k×k matrix a.
func zeroLower(a []float64, k int) {
	for i := 1; i < k; i++ {
		for j := 0; j < i; j++ {
			a[i*k+j] = 0
		}
	}
}
