package sgp

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/cholqr/sgp/sgp/internal/par"

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
//	b  k        Q[:n, :]ᵀ1, for the mean's closed-form estimate (GLSMean)
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
type factor struct {
	x    kernel.Inputs
	yraw []float64 // the targets, not modified
	y    []float64 // y − μ
	mu   float64   // μ, the constant prior mean
	// logScale is n·log sd(y) (0 for constant targets), the amount by which
	// changing the units of y shifts the objectives; see valueScale.
	logScale float64
	kern     kernel.Kernel
	noise    float64 // σ²
	n        int
	mcap     int // maximum active points m
	zcap     int // maximum information pivots
	tcap     int // mcap + zcap + 1 columns of G

	perm []int // perm[:k] active, perm[k:t] information pivots, in pivot order
	pos  []int // pos[i] = position of point i in perm, or −1
	k, t int
	ok   bool
	// lastFactorized is the inducing set of the last successful
	// Factorize, to rebuild from when a panic left the state half-updated.
	lastFactorized []int

	g     []float64 // G, column-major: column c is g[c·n : (c+1)·n]
	kdiag []float64 // diag K
	d     []float64 // diag(K − G[:, :t] G[:, :t]ᵀ)
	ldq   int       // n + mcap, rows of Q
	q     []float64 // Q, column-major with ldq rows, mcap columns
	r     []float64 // R, mcap×mcap row-major, upper triangular
	a     []float64 // Q[:n, :]ᵀ(y − μ)
	b     []float64 // Q[:n, :]ᵀ1
	yy    float64   // ‖y − μ‖²
	gram  []float64 // A = GᵀG, tcap×tcap row-major, kept for the approximate scores

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

	stats Stats
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

// newFactor validates a problem and allocates a factor for at most m
// inducing points and z information pivots. x holds n inputs, y n targets,
// noise is σ². The returned Factor is empty: call Factorize.
//
// It returns an error for empty data, mismatched lengths, non-finite
// targets, a noise variance that is not positive and finite, m < 1, m > n,
// z < 0, or inputs the kernel does not accept.
func newFactor(x kernel.Inputs, y []float64, kern kernel.Kernel, noise float64, m, z int) (_ *factor, err error) {
	defer recoverTo(&err)
	if x == nil || x.Len() == 0 || len(y) == 0 {
		return nil, ErrEmpty
	}
	n := x.Len()
	if len(y) != n {
		return nil, fmt.Errorf("sgp: %d inputs but %d targets", n, len(y))
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("sgp: target %d is %v; remove or impute non-finite targets", i, v)
		}
	}
	if !(noise > 0) || math.IsInf(noise, 0) {
		return nil, fmt.Errorf("%w, got %v", ErrNoise, noise)
	}
	if kern == nil {
		return nil, fmt.Errorf("sgp: no kernel")
	}
	if err := kern.Accepts(x); err != nil {
		return nil, err
	}
	if m < 1 || m > n {
		return nil, fmt.Errorf("sgp: the number of inducing points m=%d must satisfy 1 ≤ m ≤ n=%d", m, n)
	}
	if z < 0 {
		return nil, fmt.Errorf("sgp: the number of information pivots z=%d must be ≥ 0", z)
	}
	z = min(z, n)
	f := &factor{
		x: x, yraw: y, y: append([]float64(nil), y...), kern: kern, noise: noise, n: n,
		mcap: m, zcap: z, tcap: m + z + 1,
		perm:       make([]int, m+z+1),
		pos:        make([]int, n),
		parked:     -1,
		parkedCol:  make([]float64, n),
		parkedQ:    make([]float64, n+m),
		parkedR:    make([]float64, m),
		parkedGram: make([]float64, m+z+1),
		gj:         make([]float64, m+z+1),
		cvec:       make([]float64, m),
		c2:         make([]float64, m),
	}
	f.g = make([]float64, n*f.tcap)
	f.kdiag = make([]float64, n)
	f.d = make([]float64, n)
	f.ldq = n + m
	f.q = make([]float64, f.ldq*m)
	f.r = make([]float64, m*m)
	f.a = make([]float64, m)
	f.b = make([]float64, m)
	f.approx.init(n, m, z)
	f.gsParts = make([]float64, maxChunks*f.partWidth())
	f.gram = make([]float64, f.tcap*f.tcap)
	f.pool = par.NewPool()
	runtime.AddCleanup(f, func(w *par.Pool) { w.Close() }, f.pool)
	f.approx.task.f = f
	f.rot = moveWork{refl: make([]reflection, f.tcap), giv: make([]givens, m), v: make([]float64, f.tcap)}
	f.yy = sumSquares(f.y)
	if v := variance(y); v > 0 && !math.IsInf(v, 0) {
		f.logScale = 0.5 * float64(n) * math.Log(v)
	}
	return f, nil
}

// sumSquares returns Σ v_i².
func sumSquares(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return s
}

// valueScale returns the scale against which relative changes of an
// objective value v are measured: |v − n·log sd(y)|, the magnitude of the
// objective of the standardised targets, and at least n/100. Dividing by
// it makes tolerances independent of the units of y.
func (f *factor) valueScale(v float64) float64 {
	return math.Max(math.Abs(v-f.logScale), float64(f.n)/100)
}

// N returns the number of training points n.
func (f *factor) N() int { return f.n }

// MaxActive returns m, the capacity of the inducing set.
func (f *factor) MaxActive() int { return f.mcap }

// MaxInfo returns the capacity of the information-pivot set.
func (f *factor) MaxInfo() int { return f.zcap }

// NumActive returns k, the current size of the inducing set.
func (f *factor) NumActive() int { f.check(); return f.k }

// NumInfo returns the current number of information pivots.
func (f *factor) NumInfo() int { f.check(); return f.t - f.k }

// Noise returns σ².
func (f *factor) Noise() float64 { return f.noise }

// Kernel returns the kernel.
func (f *factor) Kernel() kernel.Kernel { return f.kern }

// Stats returns the counters.
func (f *factor) Stats() Stats { return f.stats }

// Active returns the inducing set in pivot order in dst (allocated if nil).
func (f *factor) Active(dst []int) []int {
	f.check()
	return append(dst[:0], f.perm[:f.k]...)
}

// InfoPivots returns the information pivots in pivot order in dst.
func (f *factor) InfoPivots(dst []int) []int {
	f.check()
	return append(dst[:0], f.perm[f.k:f.t]...)
}

// IsActive reports whether point i is in the inducing set.
func (f *factor) IsActive(i int) bool {
	f.check()
	p := f.pos[i]
	return p >= 0 && p < f.k
}

func (f *factor) check() {
	if !f.ok {
		panic(errBadFactor)
	}
}

// needQ panics if Q is stale (see addNoQ).
func (f *factor) needQ() {
	if f.qStale {
		panic("sgp: internal error: Q is stale after addNoQ; Factorize first")
	}
}

// lend returns the storage of G (n·(m+z+1) values) and Q ((n+m)·m) for
// the caller to overwrite, and invalidates the Factor: every method that
// reads the state panics until the next successful Factorize, which
// rebuilds G and Q from scratch (as after a change of hyperparameters).
// The inducing set is kept in lastFactorized, to rebuild from. A Model's
// gradient phase holds its n×m matrices here (see Model.continuous).
func (f *factor) lend() (g, q []float64) {
	f.check()
	f.lastFactorized = append(f.lastFactorized[:0], f.perm[:f.k]...)
	f.ok = false
	return f.g, f.q
}

// col returns column c of G.
func (f *factor) col(c int) []float64 { return f.g[c*f.n : (c+1)*f.n : (c+1)*f.n] }

// qcol returns column c of Q (ldq rows).
func (f *factor) qcol(c int) []float64 { return f.q[c*f.ldq : (c+1)*f.ldq : (c+1)*f.ldq] }

// pivotTol returns the residual variance below which point i is treated
// as already explained and cannot join the inducing set: 1e-6·κ(x_i, x_i).
//
// A tolerance of about 1e-10 is the textbook choice; we measured that this admits sets whose
// objective is numerically undetermined. The kernel values carry a
// relative rounding error ε, so a pivot (a residual variance r·κ) is known
// to about ε·κ, a relative error ε/r that its Cholesky column passes on to
// every other residual as an absolute error of about (ε/r)·κ. A set is
// self-consistent only if its smallest admitted residual is well above
// that noise: r ≫ ε/r, r ≫ √ε ≈ 1.5e-8. On Snelson 1D with the data-driven
// initial lengthscale, members admitted at r ≈ 1e-8 had residuals of 0 in
// a rebuild of the same set, members at r ≈ 1e-12 made the updated,
// rebuilt and dense-oracle objectives disagree by 2e-7 relative (so swap
// decisions at 1e-9 followed rounding noise), and K[I,I] stopped being
// numerically positive definite under a 1% change of lengthscale, which
// stalled the gradient phase. A point whose residual is below 1e-6·κ adds
// nothing resolvable to the Nyström approximation.
func (f *factor) pivotTol(i int) float64 { return 1e-6 * f.kdiag[i] }

// keepTol is the smaller residual below which a point already in the
// inducing set is declared degenerate when the factor is rebuilt, e.g.
// after a hyperparameter change. The gap to pivotTol is a hysteresis: a
// point admitted just above pivotTol is not thrown out by the rounding of
// a rebuild in another order.
func (f *factor) keepTol(i int) float64 { return 1e-8 * f.kdiag[i] }

// clampTol returns the negative residual beyond which a factorisation is
// declared broken (a kernel that is not positive semi-definite) rather than
// clamped to zero and counted in Stats.Clamped. A pivot kept down to
// keepTol = 1e-8·κ carries a relative error of about ε/1e-8 ≈ 1e-8, which
// reaches the other residuals as an absolute error of that order times κ;
// the bound leaves a wide margin above it.
func (f *factor) clampTol(i int) float64 { return 1e-5 * f.kdiag[i] }

// SetNoise changes σ². The factors depend on σ², so the Factor must be
// refactorised; SetNoise does that and returns the error of Factorize.
func (f *factor) SetNoise(noise float64) error {
	if !(noise > 0) || math.IsInf(noise, 0) {
		return fmt.Errorf("%w, got %v", ErrNoise, noise)
	}
	f.noise = noise
	if f.ok {
		return f.Factorize(f.Active(nil))
	}
	return nil
}

// residualActive stores in dst the residual variances given the inducing
// set alone, d_I = diag(K − G[:, :k]G[:, :k]ᵀ) = d + rowsum(L_z∘L_z).
func (f *factor) residualActive(dst []float64) []float64 {
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
func (f *factor) ResidualTo(dst []float64) []float64 {
	f.check()
	if dst == nil {
		dst = make([]float64, f.n)
	}
	if len(dst) != f.n {
		panic(errShortBuffer)
	}
	return f.residualActive(dst)
}

// Parts returns the objective terms read off the factors in O(n·z + k).
func (f *factor) Parts() Parts {
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
	s2 := f.noise
	p := Parts{
		DataFit:    math.Max(f.yy-aa, 0) / s2,
		Complexity: (n-float64(k))*math.Log(s2) + 2*logR,
		Trace:      trace / s2,
	}
	p.MLE = 0.5*(p.DataFit+p.Complexity) + 0.5*n*math.Log(2*math.Pi)
	p.VAR = p.MLE + 0.5*p.Trace
	return p
}

// Value returns the objective o of the current inducing set.
func (f *factor) Value(o Objective) float64 { return f.Parts().Value(o) }

// clone returns a deep copy of f with its own scratch space and workers,
// sharing only the inputs, the raw targets and the kernel, which neither
// changes: a scratch Factor on which an inspection may add and remove
// points while f stays exactly as it is (Model.CostRanking). It costs the
// memory of f, O(n·(m+z)).
func (f *factor) clone() *factor {
	c := *f
	c.perm, c.pos = slices.Clone(f.perm), slices.Clone(f.pos)
	c.lastFactorized = slices.Clone(f.lastFactorized)
	c.y, c.g, c.kdiag, c.d = slices.Clone(f.y), slices.Clone(f.g), slices.Clone(f.kdiag), slices.Clone(f.d)
	c.q, c.r, c.a, c.b = slices.Clone(f.q), slices.Clone(f.r), slices.Clone(f.a), slices.Clone(f.b)
	c.gram = slices.Clone(f.gram)
	c.parkedCol, c.parkedQ, c.parkedR = slices.Clone(f.parkedCol), slices.Clone(f.parkedQ), slices.Clone(f.parkedR)
	c.parkedGram = slices.Clone(f.parkedGram)
	c.gj, c.cvec, c.c2 = slices.Clone(f.gj), slices.Clone(f.cvec), slices.Clone(f.c2)
	c.gsParts = slices.Clone(f.gsParts)
	c.gsTask, c.appendTask = gsTask{}, appendTask{}
	c.approx = approxWork{}
	c.approx.init(f.n, f.mcap, f.zcap)
	c.approx.task.f = &c
	c.rot = moveWork{refl: make([]reflection, f.tcap), giv: make([]givens, f.mcap), v: make([]float64, f.tcap)}
	c.pool = par.NewPool()
	runtime.AddCleanup(&c, func(w *par.Pool) { w.Close() }, c.pool)
	return &c
}
