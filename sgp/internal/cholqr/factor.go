package cholqr

import (
	"math"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/par"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/cholqr/sgp/sgp/kernel"
)

// Factor is the CholQR factored state of Cao et al. (2013) for an ordered
// inducing (active) set I of k ≤ m points and z information pivots P:
//
//	G  n×(k+z)  partial Cholesky factor of K with pivots I then P, rows in
//	            data order: K̂ = G[:, :k] G[:, :k]ᵀ, and G[:, k:] = L_z is the
//	            partial Cholesky factor of the residual K − K̂ at P
//	d  n        residual variances diag(K − G Gᵀ) after I and P
//	Q R         thin QR of the augmented matrix [G[:, :k]; σI_k], R upper
//	            triangular with positive diagonal, Q (n+k)×k
//	a  k        Q[:n, :]ᵀ(y − μ), μ the constant prior mean (SetMean)
//	b  k        Q[:n, :]ᵀ1, for the mean's closed-form estimate (MAPMean)
//
// Invariant: after any sequence of Add, Remove and Swap calls the state
// equals a from-scratch Factorize of the same ordered pivots up to column
// signs and rounding; Refactorize measures and removes the drift.
//
// All storage is allocated by newFactor for at most m active points and z
// information pivots; later updates do not allocate. Memory is
// O(n·(m+z) + m²); no n×n matrix is formed.
//
// A Factor is not safe for concurrent use. Its methods panic with an sgp:
// message if called before a successful Factorize.
type Factor struct {
	x    kernel.Inputs
	yraw []float64 // the targets, not modified
	y    []float64 // y − μ
	mu   float64   // μ, the constant prior mean
	// logScale is n·log sd(y) (0 for constant targets), the amount by which
	// changing the units of y shifts the objectives; see valueScale.
	logScale float64
	// order is the canonical order of the rows (canonicalRows), rank its
	// inverse: a random draw of a row picks a position p and reads row
	// order[p] (drawRow), and a choice of the row with the largest score
	// breaks ties by rank (first), so that neither depends on the rows'
	// order in the data; nil for inputs that are not vectors, whose rows
	// are drawn and ranked in their own order.
	order, rank []int
	kern        kernel.Kernel
	noise       float64 // σ², 1 with known per-point noise (SetKnownNoise)
	// With known per-point noise (SetKnownNoise) the state is that of the
	// scaled problem K' = Λ^{-1/2}KΛ^{-1/2}, y' = Λ^{-1/2}(y − μ), noise 1,
	// Λ = diag(λ), λ_i = s_i² + σ² (docs/algorithm.md, "Known per-point
	// noise in CholQR"): every kernel value is scaled by wt_i·wt_j, the
	// mean's direction is wt in place of the ones vector, and the
	// objectives add ½Σ log λ_i. wt is nil without known noise.
	s2     []float64 // the known noise variances s_i², nil for none
	sigma2 float64   // σ² with known noise
	wt     []float64 // wt_i = λ_i^{-1/2}
	wtwt   float64   // ‖wt‖²
	logLam float64   // Σ log λ_i
	n      int
	mcap   int // maximum active points m
	zcap   int // maximum information pivots
	tcap   int // mcap + zcap + 1 columns of G

	perm []int // perm[:k] active, perm[k:t] information pivots, in pivot order
	pos  []int // pos[i] = position of point i in perm, or −1
	k, t int
	ok   bool
	// lastFactorized is the inducing set of the last successful
	// Factorize, to rebuild from when a panic left the state half-updated.
	lastFactorized []int

	g     []float64      // G, column-major: column c is g[c·n : (c+1)·n]
	kdiag []float64      // diag K
	d     []float64      // diag(K − G[:, :t] G[:, :t]ᵀ)
	ldq   int            // n + mcap, rows of Q
	q     []float64      // Q, column-major with ldq rows, mcap columns
	r     []float64      // R, mcap×mcap row-major, upper triangular
	a     []float64      // Q[:n, :]ᵀ(y − μ)
	b     []float64      // Q[:n, :]ᵀ1 (Q[:n, :]ᵀwt with known noise)
	yy    float64        // ‖y − μ‖²
	prior base.MeanPrior // the prior on an estimated μ (Mean)
	gram  []float64      // A = GᵀG, tcap×tcap row-major, kept for the approximate scores

	pool *par.Pool

	// A removed point is parked here until its removal is confirmed, so
	// that a rejected swap can restore it without a kernel evaluation.
	parked    int // data index, or −1
	parkedCol []float64
	parkStale bool      // the information pivots changed after parking
	parkedQ   []float64 // its Q column, R column and a entry when it was
	parkedR   []float64 // the last active point, restored on rollback
	parkedA   float64
	parkedB   float64
	// Row of A = GᵀG of the parked column (its position + 1 entries) and
	// the number of active points when it was parked; see unpark.
	parkedGram []float64
	parkedK    int

	// Scratch space, sized once.
	gj     []float64 // a row of G
	cvec   []float64 // Gram–Schmidt coefficients (mcap)
	c2     []float64 // the second Gram–Schmidt projection (mcap)
	tent   tentative
	approx approxWork
	rot    moveWork
	// gsParts holds the partial sums of the passes over Q of gramSchmidt
	// and over G of appendPivot, a row of partWidth per chunk (see
	// rowChunks); gsTask and appendTask are those passes.
	gsParts    []float64
	gsTask     gsTask
	appendTask appendTask
	minChunk   int               // if > 0, overrides the constant minChunk (tests)
	noPredict  bool              // if set, Swap always runs gramSchmidt (tests)
	qStale     bool              // Q is out of date after addNoQ, until the next Factorize
	noQTol     float64           // if > 0, overrides noQRebuild (tests)
	qSweeps    [gsFinish + 1]int // sweeps over Q by gsPass, by mode, for tests

	stats base.Stats
}

// tentative is a new QR column computed by Gram–Schmidt but not yet
// committed: Q[:, k] holds q, or if pending the first remainder w₁ with
// q = (w₁ − Q c₂)/r (see gramSchmidt); R column k would be [c; r];
// a[k] = qᵀỹ.
type tentative struct {
	valid   bool
	pending bool // Q[:, k] holds w₁, to be finished by commitActive
	// orthogonal: w₁ needs no second projection, q = w₁/r, c = c₁.
	orthogonal bool
	r          float64
	anew       float64
	bnew       float64 // qᵀ[1; 0]
	gg         float64 // ‖g‖²
}

// sumSquares returns Σ v_i².
func sumSquares(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return s
}

// DrawRow returns a row drawn by rnd, a uniform random index source,
// through the canonical order of the rows (order).
func (f *Factor) DrawRow(rnd func(n int) int) int {
	return f.AtPos(rnd(f.n))
}

// AtPos returns the row at position p of the canonical order.
func (f *Factor) AtPos(p int) int {
	if f.order != nil {
		return f.order[p]
	}
	return p
}

// SetOrder sets the canonical order of the rows and its inverse.
func (f *Factor) SetOrder(order []int) {
	f.order, f.rank = order, nil
	if order != nil {
		f.rank = make([]int, len(order))
		for p, i := range order {
			f.rank[i] = p
		}
	}
}

// first reports whether row i beats row j, best, in a choice by largest
// score where their scores v and bv tie or v is larger: the rows' own
// order would let the data's row order decide ties (a stationary kernel's
// equal prior variances at the start), the canonical order does not.
func (f *Factor) first(i, best int, v, bv float64) bool {
	if v != bv || best < 0 {
		return v > bv
	}
	if f.rank != nil {
		return f.rank[i] < f.rank[best]
	}
	return i < best
}

// ValueScale returns the scale against which relative changes of an
// objective value v are measured: |v − n·log sd(y)|, the magnitude of the
// objective of the standardised targets, and at least n/100. Dividing by
// it makes tolerances independent of the units of y.
func (f *Factor) ValueScale(v float64) float64 {
	return math.Max(math.Abs(v-f.logScale), float64(f.n)/100)
}

// N returns the number of training points n.
func (f *Factor) N() int { return f.n }

// MaxActive returns m, the capacity of the inducing set.
func (f *Factor) MaxActive() int { return f.mcap }

// MaxInfo returns the capacity of the information-pivot set.
func (f *Factor) MaxInfo() int { return f.zcap }

// NumActive returns k, the current size of the inducing set.
func (f *Factor) NumActive() int { f.check(); return f.k }

// NumInfo returns the current number of information pivots.
func (f *Factor) NumInfo() int { f.check(); return f.t - f.k }

// Noise returns σ².
func (f *Factor) Noise() float64 {
	if f.wt != nil {
		return f.sigma2
	}
	return f.noise
}

// scaleColumn scales col, rows [r0, r0+len(col)) of kernel column j, to
// the scaled problem's (see Factor.wt): col[i−r0] ·= wt_i·wt_j. It does
// nothing without known noise.
func (f *Factor) scaleColumn(col []float64, r0, j int) {
	if f.wt == nil {
		return
	}
	wj := f.wt[j]
	for i := range col {
		col[i] *= f.wt[r0+i] * wj
	}
}

// meanDir returns the i-th entry of the mean's direction: 1, or wt_i with
// known noise.
func (f *Factor) meanDir(i int) float64 {
	if f.wt == nil {
		return 1
	}
	return f.wt[i]
}

// Kernel returns the kernel.
func (f *Factor) Kernel() kernel.Kernel { return f.kern }

// Stats returns the counters.
func (f *Factor) Stats() base.Stats { return f.stats }

// Active returns the inducing set in pivot order in dst (allocated if nil).
func (f *Factor) Active(dst []int) []int {
	f.check()
	return append(dst[:0], f.perm[:f.k]...)
}

// InfoPivots returns the information pivots in pivot order in dst.
func (f *Factor) InfoPivots(dst []int) []int {
	f.check()
	return append(dst[:0], f.perm[f.k:f.t]...)
}

// IsActive reports whether point i is in the inducing set.
func (f *Factor) IsActive(i int) bool {
	f.check()
	p := f.pos[i]
	return p >= 0 && p < f.k
}

func (f *Factor) check() {
	if !f.ok {
		panic(errBadFactor)
	}
}

// needQ panics if Q is stale (see addNoQ).
func (f *Factor) needQ() {
	if f.qStale {
		panic("sgp: internal error: Q is stale after addNoQ; Factorize first")
	}
}

// Lend returns the storage of G (n·(m+z+1) values) and Q ((n+m)·m) for
// the caller to overwrite, and invalidates the Factor: every method that
// reads the state panics until the next successful Factorize, which
// rebuilds G and Q from scratch (as after a change of hyperparameters).
// The inducing set is kept (LastFactorized), to rebuild from. A Model's
// gradient phase holds its n×m matrices here (see sgp's Model.continuous).
func (f *Factor) Lend() (g, q []float64) {
	f.check()
	f.lastFactorized = append(f.lastFactorized[:0], f.perm[:f.k]...)
	f.ok = false
	return f.g, f.q
}

// col returns column c of G.
func (f *Factor) col(c int) []float64 { return f.g[c*f.n : (c+1)*f.n : (c+1)*f.n] }

// qcol returns column c of Q (ldq rows).
func (f *Factor) qcol(c int) []float64 { return f.q[c*f.ldq : (c+1)*f.ldq : (c+1)*f.ldq] }

// pivotTol returns the residual variance below which point i is treated
// as already explained and cannot join the inducing set: 1e-6·κ(x_i, x_i).
//
// A tolerance of about 1e-10 is the textbook choice; it admits sets whose
// objective is numerically undetermined. The kernel values carry a
// relative rounding error ε, so a pivot (a residual variance r·κ) is known
// to about ε·κ, a relative error ε/r that its Cholesky column passes on to
// every other residual as an absolute error of about (ε/r)·κ. A set is
// self-consistent only if its smallest admitted residual is well above
// that noise: r ≫ ε/r, r ≫ √ε ≈ 1.5e-8. Members admitted near or below
// √ε can have residuals of 0 when the same set is rebuilt, make the
// updated, rebuilt and dense objectives disagree beyond the precision the
// swap decisions need, and leave K[I,I] numerically indefinite under small
// changes of the hyperparameters, which stalls the gradient phase. A point
// whose residual is below 1e-6·κ adds nothing resolvable to the Nyström
// approximation.
func (f *Factor) pivotTol(i int) float64 { return 1e-6 * f.kdiag[i] }

// keepTol is the smaller residual below which a point already in the
// inducing set is declared degenerate when the factor is rebuilt, e.g.
// after a hyperparameter change. The gap to pivotTol is a hysteresis: a
// point admitted just above pivotTol is not thrown out by the rounding of
// a rebuild in another order.
func (f *Factor) keepTol(i int) float64 { return 1e-8 * f.kdiag[i] }

// clampTol returns the negative residual beyond which a factorisation is
// declared broken (a kernel that is not positive semi-definite) rather than
// clamped to zero and counted in Stats.Clamped. A pivot kept down to
// keepTol = 1e-8·κ carries a relative error of about ε/1e-8 ≈ 1e-8, which
// reaches the other residuals as an absolute error of that order times κ;
// the bound leaves a wide margin above it.
func (f *Factor) clampTol(i int) float64 { return 1e-5 * f.kdiag[i] }

// residualActive stores in dst the residual variances given the inducing
// set alone, d_I = diag(K − G[:, :k]G[:, :k]ᵀ) = d + rowsum(L_z∘L_z).
func (f *Factor) residualActive(dst []float64) []float64 {
	copy(dst, f.d)
	for c := f.k; c < f.t; c++ {
		for i, v := range f.col(c) {
			dst[i] += v * v
		}
	}
	return dst
}

// ResidualTo stores in dst (length n, allocated if nil) the residual
// variances of all points given the inducing set, diag(K − K̂).
func (f *Factor) ResidualTo(dst []float64) []float64 {
	f.check()
	if dst == nil {
		dst = make([]float64, f.n)
	}
	if len(dst) != f.n {
		panic(base.ErrShortBuffer)
	}
	return f.residualActive(dst)
}

// Parts returns the objective terms read off the factors in O(n·z + k).
func (f *Factor) Parts() base.Parts {
	f.check()
	n, k := float64(f.n), f.k
	var aa, logR float64
	for i := 0; i < k; i++ {
		aa += f.a[i] * f.a[i]
		logR += math.Log(math.Abs(f.r[i*f.mcap+i]))
	}
	var trace float64
	for _, v := range f.d {
		trace += v
	}
	for c := f.k; c < f.t; c++ {
		for _, v := range f.col(c) {
			trace += v * v
		}
	}
	p := partsOf(f.yy, aa, f.noise, n, k, logR, trace, f.prior.Penalty(f.mu))
	if f.wt != nil {
		// log|Q + Λ| = log|Q' + I| + Σ log λ_i; the data fit and the
		// trace are the scaled problem's.
		p.Complexity += f.logLam
		p.MLE += 0.5 * f.logLam
		p.VAR += 0.5 * f.logLam
	}
	return p
}

// partsOf returns the objectives' terms (see base.Parts) from
// ‖y − μ‖², ‖a‖² (the data fit's reduction), σ², n, k, log det R, the
// residual trace tr(K − GGᵀ) and the mean prior's penalty.
func partsOf(yy, aa, s2, n float64, k int, logR, trace, penalty float64) base.Parts {
	p := base.Parts{
		DataFit:    math.Max(yy-aa, 0) / s2,
		Complexity: (n-float64(k))*math.Log(s2) + 2*logR,
		Trace:      trace / s2,
		MeanPrior:  penalty,
	}
	p.MLE = 0.5*(p.DataFit+p.Complexity+p.MeanPrior) + 0.5*n*math.Log(2*math.Pi)
	p.VAR = p.MLE + 0.5*p.Trace
	return p
}

// Value returns the objective o of the current inducing set.
func (f *Factor) Value(o base.Objective) float64 { return f.Parts().Value(o) }

// A pass over the rows of G or Q that sums over them (gramSchmidt,
// appendPivot) splits them into at most maxChunks chunks of at least
// minChunk rows, a number that depends on the row count only, and each
// chunk has its own partial sums, added in chunk order: the result is the
// same bit for bit whatever the number of cores (as in par.Reduce). The
// chunks are few and long: every chunk restarts the hardware prefetcher on
// every column. Two chunks let two cores share a sweep; more cores would
// want more chunks.
const (
	minChunk  = 2048
	maxChunks = 2
)

// partWidth is the length of one chunk's partial sums in f.gsParts: up to
// k coefficients and the three sums ‖w‖², wᵀy and wᵀ1 for gramSchmidt,
// up to t+1 entries of a column of A for appendPivot.
func (f *Factor) partWidth() int { return f.tcap + 3 }

// gsMode selects the work of a gsTask.
type gsMode int

const (
	gsProject        gsMode = iota // w₁ = w − Qc₁ and the sums of gramSchmidt
	gsProjectMeasure               // the same and d = Qᵀw
	gsDot                          // c₂ = Qᵀw₁
	gsFinish                       // Q[:, k] ← (w₁ − Qc₂)·scale
)

// gsTask runs a sweep of gramSchmidt or commitActive over Q[:, :k] and its
// column k, rows [0, n+k], on a range of chunks (see rowChunks; runRange
// gets chunk numbers), each chunk with its own partial sums.
type gsTask struct {
	f     *Factor
	mode  gsMode
	coef  []float64 // c₁ or c₂
	scale float64
	chunk int // rows per chunk
}

// appendTask is the pass of appendPivot over rows [0, n) of G, on a range
// of chunks (see rowChunks; RunRange gets chunk numbers): the kernel
// column, g = (K[:, j] − G[:, :t]·G[j, :]ᵀ)/√d_j with exact zeros at the
// pivot rows and √d_j at row j, in one sweep over G[:, :t] of the whole
// range, then a second sweep by chunks for each chunk's part of
// A[:t+1, t] = G[:, :t+1]ᵀg. It
// writes only column t of G and the partial sums, so a rejected column
// changes nothing observable.
type appendTask struct {
	f     *Factor
	j     int
	dj    float64
	chunk int // rows per chunk
}

// approxWork is the scratch space of the information-pivot scores.
type approxWork struct {
	b     []float64 // Bᵀ, B = Q[:n,:]ᵀ L_z = R⁻ᵀ A[:k, k:t], z×k row-major
	u, w  []float64 // u = L_zᵀ y, w = Bᵀ a
	mm    []float64 // M = L_zᵀL_z = A[k:t, k:t], z×z
	dd    []float64 // D = M − BᵀB, z×z
	lrow  []float64 // L_z row-major n×z
	dI    []float64 // residual variances given the active set
	dIOld []float64
	task  scoreTask
}

func (w *approxWork) init(n, m, z int) {
	w.b = make([]float64, m*z)
	w.u = make([]float64, z)
	w.w = make([]float64, z)
	w.mm = make([]float64, z*z)
	w.dd = make([]float64, z*z)
	w.lrow = make([]float64, n*z)
	w.dI = make([]float64, n)
	w.dIOld = make([]float64, n)
}

// scoreTask computes approximate scores for a range of candidates.
type scoreTask struct {
	f   *Factor
	dst []float64
	o   base.Objective
}

// reflection is one transposition's X = [s c; c −s] on columns (l, l+1) of
// G; afterwards G[p, l] = rho and G[p, l+1] = 0 exactly, p being the pivot
// that now sits at position l.
type reflection struct {
	l, p      int
	c, s, rho float64
}

// givens is the left rotation H on rows (l, l+1) of R, applied to Q as
// Q ← Q·Hᵀ on columns (l, l+1): (u, v) ← (ch·u + sh·v, sg·(ch·v − sh·u)).
type givens struct {
	l          int
	ch, sh, sg float64
}

// moveWork is the scratch space of move, sized once by newFactor.
type moveWork struct {
	refl []reflection // tcap−1
	giv  []givens     // mcap−1
	v    []float64    // the moving column at the pivot rows it passes (tcap)
	task rotTask
}

// qmat returns columns [0, c) of Q, rows [0, rows), as a row-major c×rows matrix Qᵀ.
func (f *Factor) qmat(c, rows int) blas64.General {
	if c == 0 {
		return blas64.General{Rows: 0, Cols: rows, Stride: f.ldq, Data: nil}
	}
	return blas64.General{Rows: c, Cols: rows, Stride: f.ldq, Data: f.q[:(c-1)*f.ldq+rows]}
}

// Mean returns μ, the constant prior mean subtracted from the targets.
func (f *Factor) Mean() float64 { return f.mu }

// SetMean sets the constant prior mean μ: the model is then a zero-mean GP
// for y − μ. It updates a = Q[:n,:]ᵀ(y − μ) through b = Q[:n,:]ᵀ1 in O(n +
// k), without touching G, Q or R. It panics if mu is not finite.
func (f *Factor) SetMean(mu float64) {
	if math.IsNaN(mu) || math.IsInf(mu, 0) {
		panic("sgp: non-finite mean")
	}
	delta := mu - f.mu
	f.mu = mu
	f.centre()
	if f.ok {
		for c := 0; c < f.k; c++ {
			f.a[c] -= delta * f.b[c]
		}
	}
}

// centre sets y − μ (wt∘(y − μ) with known noise) and its squared norm.
func (f *Factor) centre() {
	if f.wt == nil {
		for i, v := range f.yraw {
			f.y[i] = v - f.mu
		}
	} else {
		for i, v := range f.yraw {
			f.y[i] = (v - f.mu) * f.wt[i]
		}
	}
	f.yy = sumSquares(f.y)
}

// GLSMean returns the constant mean that minimises both objectives for the
// current inducing set and hyperparameters without a prior on μ, the
// generalised least-squares estimate
//
//	μ̂ = 1ᵀΣ⁻¹y / 1ᵀΣ⁻¹1,   Σ = K̂ + σ²I,
//
// read off the factors in O(k) since σ²Σ⁻¹ = I − Q[:n,:]Q[:n,:]ᵀ:
// μ̂ − μ = (1ᵀ(y − μ) − bᵀa) / (n − ‖b‖²). The trace term of VAR does not
// depend on μ, so the estimate is the same for VAR and MLE. It returns μ
// unchanged if the denominator is not positive (rounding only: it is
// σ²·1ᵀΣ⁻¹1 > 0).
func (f *Factor) GLSMean() float64 { return f.estimateMean(base.MeanPrior{}) }

// MAPMean returns the estimated mean of the model (Mean): the minimiser of
// both objectives in μ, including the prior's term ½(μ − ȳ)²/τ² when the
// factor has a prior, otherwise the GLS estimate (GLSMean).
func (f *Factor) MAPMean() float64 { return f.estimateMean(f.prior) }

// estimateMean returns μ + δ, δ the step of prior p from the factors'
// num = 1ᵀ(y − μ) − bᵀa and den = n − ‖b‖², in units of σ².
func (f *Factor) estimateMean(p base.MeanPrior) float64 {
	f.check()
	var sy float64
	nn := float64(f.n)
	if f.wt == nil {
		for _, v := range f.y {
			sy += v
		}
	} else {
		// The mean's direction is wt: 1ᵀ becomes wtᵀ, n becomes ‖wt‖².
		for i, v := range f.y {
			sy += v * f.wt[i]
		}
		nn = f.wtwt
	}
	var ba, bb float64
	for c := 0; c < f.k; c++ {
		ba += f.b[c] * f.a[c]
		bb += f.b[c] * f.b[c]
	}
	return f.mu + p.Step(sy-ba, nn-bb, f.mu-p.Ybar, f.noise)
}

// rotTask applies a move's rotations to a range of rows (rotatePanels).
type rotTask struct {
	f    *Factor
	refl []reflection
	giv  []givens
}
