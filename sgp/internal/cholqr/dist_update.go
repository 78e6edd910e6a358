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
	f.needQ()
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
	f.parked, f.qStale = -1, false
	f.tent = tentative{}
	for i := range f.lpos {
		f.lpos[i] = -1
	}
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
// indices) by rank-one steps, as Factor's rank-one path, then chooses up
// to z information pivots greedily by largest residual variance
// (fillInfoGreedy). It returns a *DegenerateError, leaving the state
// invalid, for a point whose residual given the earlier ones is at or
// below 1e-8·κ(x, x).
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
	f.fillInfoGreedy()
	f.stats.Factorizations++
	f.lastFactorized = append(f.lastFactorized[:0], active...)
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

// placeCandidate makes global row j (not active) the first non-active
// pivot, at position k, as Factor.placeCandidate: an information pivot
// moves there if its residual given the active set is not negligible
// (read off its replicated row), any other row is appended after the
// pivots (after dropping the last pivot if they are full, and those that
// explain most of j's residual while it is negligible) and moved there.
// It returns false, changing nothing, if j's residual is negligible.
func (f *Dist) placeCandidate(j int) bool {
	p := f.Pos(j)
	tc := f.tcap
	switch {
	case p >= f.k:
		var dI float64 // d_j = 0 at a pivot
		for c := f.k; c < f.t; c++ {
			v := f.pivRows[p*tc+c]
			dI += v * v
		}
		if dI <= 1e-6*f.pivK[p] {
			return false
		}
		f.move(p, f.k)
	case p < 0:
		if f.t >= f.tcap {
			f.dropInfoLast()
		}
		dim := f.dim
		buf := f.fetch(j)
		for buf[dim] <= 1e-6*buf[dim+1] && f.t > f.k {
			best, bv := f.k, -1.0
			for c := f.k; c < f.t; c++ {
				if v := math.Abs(buf[dim+2+c]); v > bv {
					best, bv = c, v
				}
			}
			f.move(best, f.t-1)
			f.dropInfoLast()
			buf = f.fetch(j)
		}
		if !f.appendFetched(j, 1e-6) {
			return false
		}
		f.move(f.t-1, f.k)
	default:
		panic(errIsActive)
	}
	return true
}

// firstProjection is Factor.firstProjection: c₁ = R⁻ᵀA[:k, k] into
// f.cvec and the sums of the candidate at column k, ‖g‖², gᵀ(y − μ), gᵀ1
// (one ordered sum of 3), and ‖c₁‖², c₁ᵀa, c₁ᵀb.
func (f *Dist) firstProjection() projection {
	k, m, tc := f.k, f.mcap, f.tcap
	col := f.gcol(k)
	s := f.reduce(3, func(r0, r1 int, acc []float64) {
		for i, v := range col[r0:r1] {
			acc[0] += v * v
			acc[1] += v * f.y[r0+i]
			acc[2] += v
		}
	})
	pr := projection{gg: s[0], gy: s[1], g1: s[2]}
	c := f.cvec[:k]
	for i := range c {
		c[i] = f.gram[i*tc+k]
	}
	if k > 0 {
		rt := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: k, Stride: m, Data: f.r}
		blas64.Trsv(blas.Trans, rt, blas64.Vector{N: k, Data: c, Inc: 1})
	}
	for i, v := range c {
		pr.cc += v * v
		pr.ca += v * f.a[i]
		pr.cb += v * f.b[i]
	}
	return pr
}

// Add appends global row j to the inducing set, as Factor.Add: it returns
// a *DegenerateError, changing nothing, if j's residual given the active
// set is at or below 1e-6·κ(x_j, x_j), and refills the information pivots
// greedily if j was one. It panics if j is active or the set is full.
func (f *Dist) Add(j int) error {
	f.checkCandidate(j)
	f.needQ()
	wasInfo := f.Pos(j) >= f.k
	if !f.placeCandidate(j) {
		return &base.DegenerateError{Index: j}
	}
	f.gramSchmidt()
	f.commitActive()
	if wasInfo {
		f.fillInfoGreedy()
	}
	return nil
}

// addNoQ is Factor.addNoQ: Add with R's new column, a_new and b_new from
// firstProjection instead of Gram–Schmidt, so that Q is left stale until
// the next Factorize (ForwardSelect's start with pivots), and a rebuild
// where r² < noQRebuild·(‖g‖² + σ²).
func (f *Dist) addNoQ(j int) error {
	f.checkCandidate(j)
	wasInfo := f.Pos(j) >= f.k
	if !f.placeCandidate(j) {
		return &base.DegenerateError{Index: j}
	}
	r2, vv := f.firstProjection().noQColumn(f.r, f.a, f.b, f.cvec, f.mcap, f.k, f.noise)
	f.k++
	f.qStale = true
	f.stats.NoQ++
	tol := noQRebuild
	if f.noQTol > 0 {
		tol = f.noQTol
	}
	if r2 < tol*vv {
		return f.Factorize(f.Active(nil))
	}
	if wasInfo {
		f.fillInfoGreedy()
	}
	return nil
}

// ExactDelta returns the exact decrease of objective o if row j joined
// the inducing set, as Factor.ExactDelta: NaN if j is active, 0 if its
// residual is negligible; the state is left as it was up to the order of
// the information pivots.
func (f *Dist) ExactDelta(j int, o base.Objective) float64 {
	f.checkCandidate(j)
	f.needQ()
	if f.IsActive(j) {
		return math.NaN()
	}
	wasPivot := f.Pos(j) >= 0
	if !f.placeCandidate(j) {
		return 0
	}
	f.gramSchmidt()
	df := gainF(o, f.tent.anew, 2*math.Log(f.tent.r), f.tent.gg, f.noise)
	f.tent = tentative{}
	if !wasPivot {
		f.move(f.k, f.t-1)
		f.dropInfoLast()
		f.fillInfoGreedy()
	}
	return df
}

// Remove removes global row j from the inducing set without messages but
// those of the greedy refill of the information pivots (as
// Factor.Remove). It panics if j is not active.
func (f *Dist) Remove(j int) {
	if !f.ok {
		panic(errBadFactor)
	}
	f.needQ()
	if !f.IsActive(j) {
		panic(errNotActive)
	}
	f.removeToPark(f.Pos(j))
	f.discardPark()
	f.fillInfoGreedy()
}
