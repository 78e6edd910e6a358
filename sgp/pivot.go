package sgp

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// appendPivot appends point j (not yet a pivot) as column t of G: the
// Cholesky column of the residual K − G Gᵀ at j,
//
//	g = (K[:, j] − G G[j, :]ᵀ) / √d_j        (Cao et al. 2013, §3)
//
// and updates d ← d − g∘g. It costs one kernel column and O(n·t). It
// returns false, changing nothing, if d_j is below tolerance or if the
// update would drive some residual below −clampTol (a kernel that is not
// positive semi-definite).
func (f *Factor) appendPivot(j int, tol float64) bool {
	if f.t >= f.tcap {
		panic(errFull)
	}
	dj := f.d[j]
	if dj <= tol {
		return false
	}
	n, t := f.n, f.t
	col := f.col(t)
	f.colTask.dst, f.colTask.j = col, j
	f.pool.run(&f.colTask, n)
	f.colTask.dst = nil
	f.stats.KernelEvals += n
	if t > 0 {
		gj := f.gj[:t]
		for c := range gj {
			gj[c] = f.g[c*n+j]
		}
		// col ← col − G[:, :t]·gj. G column-major is Gᵀ row-major.
		blas64.Gemv(blas.Trans, -1, f.gmat(0, t), blas64.Vector{N: t, Data: gj, Inc: 1}, 1, blas64.Vector{N: n, Data: col, Inc: 1})
	}
	inv := 1 / math.Sqrt(dj)
	for i := range col {
		col[i] *= inv
	}
	for _, p := range f.perm[:t] {
		col[p] = 0
	}
	col[j] = math.Sqrt(dj)
	for i, v := range col {
		if f.d[i]-v*v < -f.clampTol(i) {
			return false
		}
	}
	for i, v := range col {
		di := f.d[i] - v*v
		if di < 0 {
			if di < 0 && i != j {
				f.stats.Clamped++
			}
			di = 0
		}
		f.d[i] = di
	}
	f.d[j] = 0
	f.perm[t] = j
	f.pos[j] = t
	f.t++
	f.gramColumn(t)
	return true
}

// gramColumn sets row and column c of A = GᵀG from G: one pass over G.
func (f *Factor) gramColumn(c int) {
	tc := f.tcap
	row := f.gram[c*tc : c*tc+f.t]
	blas64.Gemv(blas.NoTrans, 1, f.gmat(0, f.t), blas64.Vector{N: f.n, Data: f.col(c), Inc: 1}, 0, blas64.Vector{N: f.t, Data: row, Inc: 1})
	for i, v := range row {
		f.gram[i*tc+c] = v
	}
}

// dropLast removes the last pivot column of G (which must not be active),
// restoring its contribution to d, and parks it.
func (f *Factor) dropLast() {
	f.t--
	c := f.t
	col := f.col(c)
	for i, v := range col {
		f.d[i] += v * v
	}
	j := f.perm[c]
	f.d[j] = math.Max(f.d[j], 0)
	f.pos[j] = -1
	f.parked = j
	f.parkStale = false
	copy(f.parkedCol, col)
}

// unpark puts the parked point back as the last pivot column of G.
func (f *Factor) unpark() {
	j := f.parked
	c := f.t
	col := f.col(c)
	copy(col, f.parkedCol)
	for i, v := range col {
		di := f.d[i] - v*v
		if di < 0 {
			di = 0
		}
		f.d[i] = di
	}
	f.d[j] = 0
	f.perm[c] = j
	f.pos[j] = c
	f.t++
	f.parked = -1
	f.gramColumn(c)
}

// gmat returns columns [c0, c1) of G as a row-major (c1−c0)×n matrix Gᵀ.
func (f *Factor) gmat(c0, c1 int) blas64.General {
	return blas64.General{Rows: c1 - c0, Cols: f.n, Stride: f.n, Data: f.g[c0*f.n : c1*f.n]}
}

// qmat returns columns [0, c) of Q, rows [0, rows), as a row-major c×rows matrix Qᵀ.
func (f *Factor) qmat(c, rows int) blas64.General {
	if c == 0 {
		return blas64.General{Rows: 0, Cols: rows, Stride: f.ldq, Data: nil}
	}
	return blas64.General{Rows: c, Cols: rows, Stride: f.ldq, Data: f.q[:(c-1)*f.ldq+rows]}
}

// deltaFromTentative returns the exact decrease of the objective o if the
// tentative column joins the active set (Cao et al. 2013, §3):
//
//	ΔE_D = σ⁻² a_new²,  ΔE_C = log σ² − log r²,  ΔE_V = σ⁻² ‖g‖²
//	ΔF = ½(ΔE_D + ΔE_C [+ ΔE_V])
//
// Here r is the norm of the Gram–Schmidt remainder of [g; 0; σ], so
// r² = ‖g‖² + σ² − ‖c‖² including the σ² term.
func (f *Factor) deltaFromTentative(o Objective) float64 {
	s2 := f.noise
	t := f.tent
	df := 0.5 * (t.anew*t.anew/s2 + math.Log(s2) - 2*math.Log(t.r))
	if o == VAR {
		df += 0.5 * t.gg / s2
	}
	return df
}

// dropActive removes the last active column from the QR factorisation:
// k ← k−1. The point stays as the first non-active pivot column of G.
func (f *Factor) dropActive() {
	f.k--
	k := f.k
	// Row n+k of Q belonged to the dropped point's augmentation; in the
	// remaining columns it is zero up to rounding.
	for c := 0; c < k; c++ {
		f.q[c*f.ldq+f.n+k] = 0
	}
	for i := 0; i <= k; i++ {
		f.r[i*f.mcap+k] = 0
	}
	f.a[k] = 0
	f.b[k] = 0
}

// fillInfoGreedy appends information pivots by largest residual variance
// until there are zcap of them or no point has a residual above keepTol.
// Information pivots only feed the approximate scores, so they may go
// below the admission tolerance of the inducing set.
func (f *Factor) fillInfoGreedy() {
	for f.t-f.k < f.zcap {
		best, bd := -1, 0.0
		for i, v := range f.d {
			if f.pos[i] == -1 && v > f.keepTol(i) && v > bd {
				best, bd = i, v
			}
		}
		if best < 0 || !f.appendPivot(best, f.keepTol(best)) {
			return
		}
	}
}
