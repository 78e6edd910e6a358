package sgp

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// approxWork is the scratch space of the information-pivot scores.
type approxWork struct {
	b     []float64 // B = Q[:n,:]ᵀ L_z, k×z row-major
	u, w  []float64 // u = L_zᵀ y, w = Bᵀ a
	mc    []float64 // [M | C], z×2z row-major: M = L_zᵀL_z, C = BᵀB
	lrow  []float64 // L_z row-major n×z
	lmc   []float64 // L_z·[M | C], n×2z
	dI    []float64 // residual variances given the active set
	dIOld []float64
}

func (w *approxWork) init(n, m, z int) {
	w.b = make([]float64, m*z)
	w.u = make([]float64, z)
	w.w = make([]float64, z)
	w.mc = make([]float64, 2*z*z)
	w.lrow = make([]float64, n*z)
	w.lmc = make([]float64, 2*n*z)
	w.dI = make([]float64, n)
	w.dIOld = make([]float64, n)
}

// ApproxDeltasTo stores in dst (length n, allocated if nil) the approximate
// decrease of objective o if each point joined the inducing set, computed
// from the information pivots alone (Cao et al. 2013, §4; DESIGN §5). With
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
func (f *Factor) ApproxDeltasTo(dst []float64, o Objective) []float64 {
	f.check()
	if dst == nil {
		dst = make([]float64, f.n)
	}
	if len(dst) != f.n {
		panic(errShortBuffer)
	}
	f.approxScores(dst, o)
	return dst
}

// bestApprox returns the candidate with the largest approximate score, or
// −1 if no candidate has a non-negligible residual.
func (f *Factor) bestApprox(o Objective) (int, float64) {
	scores := f.approx.dIOld // reused as the score buffer
	f.approxScores(scores, o)
	best, bv := -1, math.Inf(-1)
	for j, v := range scores {
		if v > bv && j != f.parked {
			best, bv = j, v
		}
	}
	return best, bv
}

// approxScores implements ApproxDeltasTo into dst.
func (f *Factor) approxScores(dst []float64, o Objective) {
	n, k, z := f.n, f.k, f.t-f.k
	aw := &f.approx
	s2 := f.noise
	dI := f.residualActive(aw.dI)
	if z == 0 {
		for j := range dst {
			dst[j] = math.Inf(-1)
			if f.IsActive(j) {
				dst[j] = math.NaN()
			}
		}
		return
	}
	lt := f.gmat(k, k+z) // L_zᵀ, z×n row-major
	// L_z row-major (n×z) for the per-candidate products.
	lrow := aw.lrow[:n*z]
	for c := 0; c < z; c++ {
		col := f.col(k + c)
		for i, v := range col {
			lrow[i*z+c] = v
		}
	}
	// u = L_zᵀ y.
	u := aw.u[:z]
	blas64.Gemv(blas.NoTrans, 1, lt, blas64.Vector{N: n, Data: f.y, Inc: 1}, 0, blas64.Vector{N: z, Data: u, Inc: 1})
	// [M | C], z×2z.
	mc := blas64.General{Rows: z, Cols: 2 * z, Stride: 2 * z, Data: aw.mc[:2*z*z]}
	mView := blas64.General{Rows: z, Cols: z, Stride: 2 * z, Data: mc.Data}
	cView := blas64.General{Rows: z, Cols: z, Stride: 2 * z, Data: mc.Data[z:]}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, lt, lt, 0, mView)
	w := aw.w[:z]
	if k > 0 {
		// B = Q[:n,:]ᵀ L_z (k×z); C = BᵀB; w = Bᵀa.
		b := blas64.General{Rows: k, Cols: z, Stride: z, Data: aw.b[:k*z]}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, f.qmat(k, n), lt, 0, b)
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, b, b, 0, cView)
		blas64.Gemv(blas.Trans, 1, b, blas64.Vector{N: k, Data: f.a[:k], Inc: 1}, 0, blas64.Vector{N: z, Data: w, Inc: 1})
	} else {
		for i := range w {
			w[i] = 0
		}
		for i := 0; i < z; i++ {
			for j := 0; j < z; j++ {
				cView.Data[i*2*z+j] = 0
			}
		}
	}
	// L_z·[M | C], n×2z.
	lmc := blas64.General{Rows: n, Cols: 2 * z, Stride: 2 * z, Data: aw.lmc[:2*n*z]}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, blas64.General{Rows: n, Cols: z, Stride: z, Data: lrow}, mc, 0, lmc)
	logS2 := math.Log(s2)
	for j := 0; j < n; j++ {
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
		lm := lmc.Data[j*2*z : j*2*z+z]
		lc := lmc.Data[j*2*z+z : (j+1)*2*z]
		var yg, ac, gg, cc float64
		for c, v := range l {
			yg += u[c] * v
			ac += w[c] * v
			gg += lm[c] * v
			cc += lc[c] * v
		}
		inv := 1 / dj
		num := (yg - ac)
		gg *= inv
		cc *= inv
		r2 := gg + s2 - cc
		if r2 < s2 {
			r2 = s2
		}
		df := 0.5 * (num*num*inv/(s2*r2) + logS2 - math.Log(r2))
		if o == VAR {
			df += 0.5 * gg / s2
		}
		dst[j] = df
	}
}
