package cholqr

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// ApproxDeltasTo stores in dst (length n, allocated if nil) the approximate
// decrease of objective o if each point joined the inducing set, computed
// from the information pivots alone (Cao et al. 2013, §4). With
// L_z the partial Cholesky factor of the residual at the z pivots and
// ℓ = L_z[j, :], the new column of candidate j is approximated by
//
//	g_j ≈ L_z ℓᵀ / √d_j,   d_j = κ(x_j, x_j) − K̂(x_j, x_j)
//
// (normalising by the true residual d_j, as the authors' code does, so that
// an information pivot itself is scored exactly). With B = Q[:n,:]ᵀL_z,
// M = L_zᵀL_z, C = BᵀB, u = L_zᵀy and w = Bᵀa, every term of the exact
// score becomes a z-sized product:
//
//	yᵀg ≈ uᵀℓ/√d_j   aᵀc ≈ wᵀℓ/√d_j   ‖g‖² ≈ ℓᵀMℓ/d_j   ‖c‖² ≈ ℓᵀCℓ/d_j
//
// With z = n−k information pivots the scores are exact. Active points get
// NaN and points with negligible residual (duplicates of active points) get
// −Inf. Cost O(n·z·(k+z)).
func (f *Factor) ApproxDeltasTo(dst []float64, o base.Objective) []float64 {
	f.check()
	if dst == nil {
		dst = make([]float64, f.n)
	}
	if len(dst) != f.n {
		panic(base.ErrShortBuffer)
	}
	f.approxScores(dst, o)
	return dst
}

// bestApprox returns the candidate with the largest approximate score, or
// −1 if no candidate has a non-negligible residual.
func (f *Factor) bestApprox(o base.Objective) (int, float64) {
	scores := f.approx.dIOld // reused as the score buffer
	f.approxScores(scores, o)
	best, bv := -1, math.Inf(-1)
	for j, v := range scores {
		if j != f.parked && f.first(j, best, v, bv) {
			best, bv = j, v
		}
	}
	return best, bv
}

// approxScores implements ApproxDeltasTo into dst.
//
// Instead of forming B = Q[:n,:]ᵀL_z, an O(n·k·z) product, it uses the
// Gram matrix A = GᵀG that the Factor keeps up to date at O(t) per
// transposition: since G_I = Q[:n,:]R,  B = R⁻ᵀ G_Iᵀ L_z = R⁻ᵀ A[:k, k:t],
// an O(k²·z) triangular solve, and M = A[k:t, k:t].
func (f *Factor) approxScores(dst []float64, o base.Objective) {
	n, k, z := f.n, f.k, f.t-f.k
	aw := &f.approx
	f.residualActive(aw.dI)
	if z == 0 {
		for j := range dst {
			dst[j] = math.Inf(-1)
			if f.IsActive(j) {
				dst[j] = math.NaN()
			}
		}
		return
	}
	// u = L_zᵀ y.
	u := aw.u[:z]
	blas64.Gemv(blas.NoTrans, 1, f.gmat(k, k+z), blas64.Vector{N: n, Data: f.y, Inc: 1}, 0, blas64.Vector{N: z, Data: u, Inc: 1})
	pivotTerms(f.gram, f.tcap, f.r, f.mcap, f.a, k, z, aw.mm[:z*z], aw.dd[:z*z], aw.w[:z], aw.b[:z*k])
	aw.task.dst, aw.task.o = dst, o
	f.pool.Run(&aw.task, n)
	aw.task.dst = nil
}

// RunRange scores candidates lo..hi−1.
func (t *scoreTask) RunRange(_, lo, hi int) {
	f := t.f
	n, k, z := f.n, f.k, f.t-f.k
	aw := &f.approx
	lrow := aw.lrow[:n*z]
	for c := 0; c < z; c++ {
		col := f.col(k + c)
		for j := lo; j < hi; j++ {
			lrow[j*z+c] = col[j]
		}
	}
	u, w, mm, dd := aw.u[:z], aw.w[:z], aw.mm[:z*z], aw.dd[:z*z]
	s2 := f.noise
	logS2 := math.Log(s2)
	dst, dI := t.dst, aw.dI
	for j := lo; j < hi; j++ {
		p := f.pos[j]
		if p >= 0 && p < k {
			dst[j] = math.NaN()
			continue
		}
		dj := dI[j]
		if dj <= f.pivotTol(j) {
			dst[j] = math.Inf(-1)
			continue
		}
		l := lrow[j*z : (j+1)*z]
		var yg, ac, gg float64
		for c, v := range l {
			yg += u[c] * v
			ac += w[c] * v
		}
		var rr float64
		if t.o == base.VAR {
			rr, gg = symQuad2(dd, mm, l)
		} else {
			rr = symQuad(dd, l)
		}
		inv := 1 / dj
		num := yg - ac
		r2 := s2 + rr*inv // ‖g‖² + σ² − ‖c‖²
		if r2 < s2 {
			r2 = s2
		}
		df := 0.5 * (num*num*inv/(s2*r2) + logS2 - math.Log(r2))
		if t.o == base.VAR {
			df += 0.5 * gg * inv / s2
		}
		dst[j] = df
	}
}

// symQuad returns ℓᵀSℓ for a symmetric z×z row-major S, reading only its
// upper triangle: z(z+1)/2 multiply-adds.
func symQuad(s, l []float64) float64 {
	z := len(l)
	var q float64
	for c := 0; c < z; c++ {
		row := s[c*z+c : c*z+z]
		lt := l[c:z]
		lt = lt[:len(row)]
		acc := 0.5 * row[0] * lt[0]
		for e := 1; e < len(row); e++ {
			acc += row[e] * lt[e]
		}
		q += lt[0] * acc
	}
	return 2 * q
}

// symQuad2 returns (ℓᵀSℓ, ℓᵀTℓ) for symmetric z×z row-major S and T, as
// symQuad does for each, in one loop whose two dependency chains overlap.
func symQuad2(s, t, l []float64) (float64, float64) {
	z := len(l)
	var qs, qt float64
	for c := 0; c < z; c++ {
		rs := s[c*z+c : c*z+z]
		rt := t[c*z+c : c*z+z]
		lt := l[c:z]
		rs, rt = rs[:len(lt)], rt[:len(lt)]
		as, at := 0.5*rs[0]*lt[0], 0.5*rt[0]*lt[0]
		for e := 1; e < len(lt); e++ {
			as += rs[e] * lt[e]
			at += rt[e] * lt[e]
		}
		qs += lt[0] * as
		qt += lt[0] * at
	}
	return 2 * qs, 2 * qt
}

// pivotTerms sets the z-sized terms of the approximate scores from the
// replicated state (Factor.approxScores; Dist's are the same): mm =
// M = A[k:t, k:t], dd = M − BᵀB and w = Bᵀa, where B = R⁻ᵀA[:k, k:t],
// A is gram (tc columns a row), R is r (mcap columns a row) and bt is
// z×k scratch for Bᵀ.
func pivotTerms(gram []float64, tc int, r []float64, mcap int, a []float64, k, z int, mm, dd, w, bt []float64) {
	for c := 0; c < z; c++ {
		copy(mm[c*z:(c+1)*z], gram[(k+c)*tc+k:(k+c)*tc+k+z])
	}
	copy(dd, mm)
	clear(w)
	if k == 0 {
		return
	}
	// Bᵀ (z×k): the z triangular solves Rᵀx = A[:k, k+c] together, row i
	// of R (read once) updating every right-hand side with a vectorised
	// axpy. blas64.Trsm of the k×z B would run one z-long axpy per entry
	// of R, and Trsv is not vectorised.
	b := blas64.General{Rows: z, Cols: k, Stride: k, Data: bt[:z*k]}
	for i := 0; i < k; i++ {
		for c, v := range gram[i*tc+k : i*tc+k+z] {
			b.Data[c*k+i] = v
		}
	}
	for i := 0; i < k; i++ {
		ri := r[i*mcap : i*mcap+k]
		inv := 1 / ri[i]
		rest := blas64.Vector{N: k - i - 1, Data: ri[i+1:], Inc: 1}
		for c := 0; c < z; c++ {
			row := b.Data[c*k : (c+1)*k]
			row[i] *= inv
			if rest.N > 0 {
				blas64.Axpy(-row[i], rest, blas64.Vector{N: rest.N, Data: row[i+1:], Inc: 1})
			}
		}
	}
	blas64.Gemm(blas.NoTrans, blas.Trans, -1, b, b, 1, blas64.General{Rows: z, Cols: z, Stride: z, Data: dd})
	blas64.Gemv(blas.NoTrans, 1, b, blas64.Vector{N: k, Data: a[:k], Inc: 1}, 0, blas64.Vector{N: z, Data: w, Inc: 1})
}
