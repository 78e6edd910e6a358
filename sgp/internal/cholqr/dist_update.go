package cholqr

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// gramSchmidt orthogonalises the candidate's augmented column
// w = [G[:, k]; σe_k] against Q[:, :k] (as Factor.gramSchmidt): the first
// coefficients c₁ = R⁻ᵀA[:k, k] need no pass over the rows; w₁ = w − Qc₁
// is formed on each rank's rows and on the replicated σI rows, and one
// ordered sum of k+3 numbers gives c₂ = Qᵀw₁, ‖w₁‖², w₁ᵀ(y − μ) and w₁ᵀ1.
// Where c₂ is small (‖c₂‖² ≤ gsLazyRatio·‖w₁‖²) the second projection
// follows algebraically; otherwise w₁ ← w₁ − Qc₂ is formed and the sum
// repeated. The tentative column is left pending in Q[:, k] (its rows on
// each rank, its σI rows replicated) for commitActive.
func (f *Dist) gramSchmidt() {
	k, m, nl := f.k, f.mcap, f.nl
	c := f.cvec[:k]
	tc := f.tcap
	for i := range c {
		c[i] = f.gram[i*tc+k]
	}
	if k > 0 {
		rt := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: k, Stride: m, Data: f.r}
		blas64.Trsv(blas.Trans, rt, blas64.Vector{N: k, Data: c, Inc: 1})
	}
	gg := f.gram[k*tc+k]
	w := f.qcol(k)
	copy(w, f.gcol(k))
	ws := f.qs[k*m : k*m+k+1] // rows n … n+k of column k
	clear(ws)
	ws[k] = math.Sqrt(f.noise)
	f.project(c)
	c2 := f.c2[:k]
	var ww, wy, w1 float64
	for pass := 0; ; pass++ {
		s := f.reduce(k+3, func(r0, r1 int, acc []float64) {
			if k > 0 {
				q := blas64.General{Rows: k, Cols: r1 - r0, Stride: nl, Data: f.q[r0 : (k-1)*nl+r1]}
				blas64.Gemv(blas.NoTrans, 1, q, blas64.Vector{N: r1 - r0, Data: w[r0:r1], Inc: 1}, 0, blas64.Vector{N: k, Data: acc[:k], Inc: 1})
			}
			for i, v := range w[r0:r1] {
				acc[k] += v * v
				acc[k+1] += v * f.y[r0+i]
				acc[k+2] += v
			}
		})
		copy(c2, s[:k])
		ww, wy, w1 = s[k], s[k+1], s[k+2]
		for col := 0; col < k; col++ {
			var v float64
			for i, qv := range f.qs[col*m : col*m+k+1] {
				v += qv * ws[i]
			}
			c2[col] += v
		}
		ww += sumSquares(ws)
		if sumSquares(c2) <= gsLazyRatio*ww || pass == 2 {
			break
		}
		f.stats.Reorthogonalize++
		f.project(c2)
		for i, v := range c2 {
			c[i] += v
		}
	}
	var cc, ca, cb float64
	for i, v := range c2 {
		cc += v * v
		ca += v * f.a[i]
		cb += v * f.b[i]
	}
	r := math.Sqrt(ww - cc)
	for i, v := range c2 {
		c[i] += v
	}
	f.tent = tentative{valid: true, pending: true, r: r, anew: (wy - ca) / r, bnew: (w1 - cb) / r, gg: gg}
}

// project forms w ← w − Q[:, :k]·coef on this rank's rows of column k of
// Q and on its replicated σI rows: no messages.
func (f *Dist) project(coef []float64) {
	k, m, nl := f.k, f.mcap, f.nl
	if k == 0 {
		return
	}
	w := f.qcol(k)
	if nl > 0 {
		q := blas64.General{Rows: k, Cols: nl, Stride: nl, Data: f.q[:k*nl]}
		blas64.Gemv(blas.Trans, -1, q, blas64.Vector{N: k, Data: coef, Inc: 1}, 1, blas64.Vector{N: nl, Data: w, Inc: 1})
	}
	ws := f.qs[k*m : k*m+k+1]
	for col, cv := range coef {
		for i, qv := range f.qs[col*m : col*m+k+1] {
			ws[i] -= cv * qv
		}
	}
}

// commitActive makes the tentative column the k-th active one:
// q = (w₁ − Qc₂)/r, R's column [c; r], a_k and b_k. No messages.
func (f *Dist) commitActive() {
	if !f.tent.valid {
		panic("sgp: internal error: no tentative column")
	}
	k, m := f.k, f.mcap
	f.project(f.c2[:k])
	inv := 1 / f.tent.r
	for i := range f.qcol(k) {
		f.q[k*f.nl+i] *= inv
	}
	for i := range f.qs[k*m : k*m+k+1] {
		f.qs[k*m+i] *= inv
	}
	for i := 0; i < k; i++ {
		f.r[i*m+k] = f.cvec[i]
	}
	f.r[k*m+k] = f.tent.r
	f.a[k], f.b[k] = f.tent.anew, f.tent.bnew
	f.k++
	f.tent = tentative{}
}

// reset empties the state.
func (f *Dist) reset() {
	f.k, f.t, f.ok = 0, 0, true
	copy(f.d, f.kdiag)
	clear(f.g)
	clear(f.q)
	clear(f.qs)
	clear(f.r)
	clear(f.a)
	clear(f.b)
	clear(f.gram)
	clear(f.pivRows)
}

// Factorize builds the state for the ordered inducing set active (global
// indices) by rank-one steps, as Factor's rank-one path. It returns a
// *DegenerateError, leaving the state invalid, for a point whose residual
// given the earlier ones is at or below 1e-8·κ(x, x).
func (f *Dist) Factorize(active []int) error {
	if len(active) > f.mcap {
		panic(errFull)
	}
	f.reset()
	for _, j := range active {
		if j < 0 || j >= f.n {
			panic(errIndex)
		}
		if f.IsActive(j) {
			panic("sgp: inducing index repeated")
		}
		if !f.appendPivot(j, 1e-8) {
			f.ok = false
			return &base.DegenerateError{Index: j}
		}
		f.gramSchmidt()
		f.commitActive()
	}
	f.stats.Factorizations++
	return nil
}

// SetNoise changes σ² and refactorises the inducing set (as
// Factor.SetNoise); SetParams changes the kernel's hyperparameters too.
func (f *Dist) SetNoise(noise float64) error {
	if !(noise > 0) || math.IsInf(noise, 0) {
		return fmt.Errorf("%w, got %v", base.ErrNoise, noise)
	}
	f.noise = noise
	return f.Factorize(f.Active(nil))
}

// checkCandidate panics unless j can join the inducing set.
func (f *Dist) checkCandidate(j int) {
	if !f.ok {
		panic(errBadFactor)
	}
	if j < 0 || j >= f.n {
		panic(errIndex)
	}
	if f.k >= f.mcap {
		panic(errFull)
	}
}

// Add appends global row j to the inducing set; it returns a
// *DegenerateError, changing nothing, if j's residual is at or below
// 1e-6·κ(x_j, x_j).
func (f *Dist) Add(j int) error {
	f.checkCandidate(j)
	if f.IsActive(j) {
		panic(errIsActive)
	}
	if !f.appendPivot(j, 1e-6) {
		return &base.DegenerateError{Index: j}
	}
	f.gramSchmidt()
	f.commitActive()
	return nil
}

// ExactDelta returns the exact decrease of objective o if row j joined
// the inducing set (as Factor.ExactDelta): NaN if j is active, 0 if its
// residual is negligible. The state is left as it was.
func (f *Dist) ExactDelta(j int, o base.Objective) float64 {
	f.checkCandidate(j)
	if f.IsActive(j) {
		return math.NaN()
	}
	if !f.appendPivot(j, 1e-6) {
		return 0
	}
	f.gramSchmidt()
	df := gainF(o, f.tent.anew, 2*math.Log(f.tent.r), f.tent.gg, f.noise)
	f.tent = tentative{}
	f.dropLast()
	return df
}
