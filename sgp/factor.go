package sgp

import (
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Objective selects the function that CholQR minimises.
type Objective int

const (
	// VAR is Titsias' (2009) variational free energy, the negative ELBO:
	//	F = MLE + ½ σ⁻² tr(K − K̂).
	VAR Objective = iota
	// MLE is the negative log marginal likelihood of the projected process
	// (DTC) approximation:
	//	F = ½ yᵀ(K̂ + σ²I)⁻¹y + ½ log|K̂ + σ²I| + n/2 · log 2π.
	MLE
)

// String returns "VAR" or "MLE".
func (o Objective) String() string {
	switch o {
	case VAR:
		return "VAR"
	case MLE:
		return "MLE"
	}
	return fmt.Sprintf("Objective(%d)", int(o))
}

// ParseObjective converts "var"/"vfe"/"elbo" or "mle"/"dtc" (any case) to an Objective.
func ParseObjective(s string) (Objective, error) {
	switch lower(s) {
	case "var", "vfe", "elbo", "titsias":
		return VAR, nil
	case "mle", "dtc", "ml":
		return MLE, nil
	}
	return 0, fmt.Errorf("sgp: unknown objective %q: use var or mle", s)
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Parts holds the terms of the objectives read off a Factor (DESIGN §2):
//
//	E_D = σ⁻²(‖y‖² − ‖a‖²)                 data fit, yᵀ(K̂+σ²I)⁻¹y
//	E_C = (n−k)·log σ² + 2·Σ log R_ii      complexity, log|K̂+σ²I|
//	E_V = σ⁻²·tr(K − K̂)                   variational trace term
//
// so that MLE = ½(E_D + E_C) + n/2·log 2π and VAR = MLE + ½E_V.
type Parts struct {
	DataFit    float64 // E_D
	Complexity float64 // E_C
	Trace      float64 // E_V
	MLE        float64
	VAR        float64
}

// Value returns the objective o.
func (p Parts) Value(o Objective) float64 {
	if o == MLE {
		return p.MLE
	}
	return p.VAR
}

// Stats counts the work a Factor has done and the numerical events it saw.
type Stats struct {
	KernelEvals     int     // kernel entries evaluated (a column of n counts n)
	Swaps           int     // swaps attempted
	Accepted        int     // swaps accepted
	Clamped         int     // tiny negative residual variances clamped to zero
	Factorizations  int     // from-scratch factorisations
	InfoRefreshes   int     // information pivots replaced
	LastDrift       float64 // relative objective change corrected by the last refactorisation
	MaxDrift        float64 // largest such change so far
	LastResidDrift  float64 // max |Δ tr-residual| per point corrected by the last refactorisation
	Reorthogonalize int     // Gram–Schmidt second passes
}

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
// All storage is allocated by NewFactor for at most m active points and z
// information pivots; later updates do not allocate. Memory is
// O(n·(m+z) + m²); no n×n matrix is formed.
//
// A Factor is not safe for concurrent use. Its methods panic with an sgp:
// message if called before a successful Factorize.
type Factor struct {
	x    Inputs
	yraw []float64 // the targets, not modified
	y    []float64 // y − μ
	mu   float64   // μ, the constant prior mean
	// logScale is n·log sd(y) (0 for constant targets), the amount by which
	// changing the units of y shifts the objectives; see valueScale.
	logScale float64
	kern     Kernel
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

	pool    *workers
	colTask columnTask

	// A removed point is parked here until its removal is confirmed, so
	// that a rejected swap can restore it without a kernel evaluation.
	parked    int // data index, or −1
	parkedCol []float64
	parkStale bool      // the information pivots changed after parking
	parkedQ   []float64 // its Q column, R column and a entry when it was
	parkedR   []float64 // the last active point, restored on rollback
	parkedA   float64
	parkedB   float64

	// Scratch space, sized once.
	gj     []float64 // a row of G
	cvec   []float64 // Gram–Schmidt coefficients (mcap)
	c2     []float64
	tent   tentative
	approx approxWork

	stats Stats
}

// tentative is a new QR column computed by Gram–Schmidt but not yet
// committed: Q[:, k] holds q; R column k would be [c; r]; a[k] = qᵀỹ.
type tentative struct {
	valid bool
	r     float64
	anew  float64
	bnew  float64 // qᵀ[1; 0]
	gg    float64 // ‖g‖²
}

// NewFactor validates a problem and allocates a Factor for at most m
// inducing points and z information pivots. x holds n inputs, y n targets,
// noise is σ². The returned Factor is empty: call Factorize.
//
// It returns an error for empty data, mismatched lengths, non-finite
// targets, a noise variance that is not positive and finite, m < 1, m > n,
// z < 0, or inputs the kernel does not accept.
func NewFactor(x Inputs, y []float64, kern Kernel, noise float64, m, z int) (_ *Factor, err error) {
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
	f := &Factor{
		x: x, yraw: y, y: append([]float64(nil), y...), kern: kern, noise: noise, n: n,
		mcap: m, zcap: z, tcap: m + z + 1,
		perm:      make([]int, m+z+1),
		pos:       make([]int, n),
		parked:    -1,
		parkedCol: make([]float64, n),
		parkedQ:   make([]float64, n+m),
		parkedR:   make([]float64, m),
		gj:        make([]float64, m+z+1),
		cvec:      make([]float64, m),
		c2:        make([]float64, m),
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
	f.gram = make([]float64, f.tcap*f.tcap)
	f.pool = newWorkers()
	runtime.AddCleanup(f, func(w *workers) { w.close() }, f.pool)
	f.colTask = columnTask{kern: kern, x: x, y: x}
	f.approx.task.f = f
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
func (f *Factor) valueScale(v float64) float64 {
	return math.Max(math.Abs(v-f.logScale), float64(f.n)/100)
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
	for i, v := range f.yraw {
		f.y[i] = v - mu
	}
	f.yy = sumSquares(f.y)
	if f.ok {
		for c := 0; c < f.k; c++ {
			f.a[c] -= delta * f.b[c]
		}
	}
}

// GLSMean returns the constant mean that minimises both objectives for the
// current inducing set and hyperparameters, the generalised least-squares
// estimate
//
//	μ̂ = 1ᵀΣ⁻¹y / 1ᵀΣ⁻¹1,   Σ = K̂ + σ²I,
//
// read off the factors in O(k) since σ²Σ⁻¹ = I − Q[:n,:]Q[:n,:]ᵀ:
// μ̂ − μ = (1ᵀ(y − μ) − bᵀa) / (n − ‖b‖²). The trace term of VAR does not
// depend on μ, so the estimate is the same for VAR and MLE. It returns μ
// unchanged if the denominator is not positive (rounding only: it is
// σ²·1ᵀΣ⁻¹1 > 0).
func (f *Factor) GLSMean() float64 {
	f.check()
	var sy float64
	for _, v := range f.y {
		sy += v
	}
	var ba, bb float64
	for c := 0; c < f.k; c++ {
		ba += f.b[c] * f.a[c]
		bb += f.b[c] * f.b[c]
	}
	den := float64(f.n) - bb
	if !(den > 0) {
		return f.mu
	}
	return f.mu + (sy-ba)/den
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
func (f *Factor) Noise() float64 { return f.noise }

// Kernel returns the kernel.
func (f *Factor) Kernel() Kernel { return f.kern }

// Stats returns the counters.
func (f *Factor) Stats() Stats { return f.stats }

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

// col returns column c of G.
func (f *Factor) col(c int) []float64 { return f.g[c*f.n : (c+1)*f.n : (c+1)*f.n] }

// qcol returns column c of Q (ldq rows).
func (f *Factor) qcol(c int) []float64 { return f.q[c*f.ldq : (c+1)*f.ldq : (c+1)*f.ldq] }

// pivotTol returns the residual variance below which point i is treated
// as already explained and cannot join the inducing set: 1e-6·κ(x_i, x_i).
//
// DESIGN §5 suggests about 1e-10; we measured that this admits sets whose
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

// SetNoise changes σ². The factors depend on σ², so the Factor must be
// refactorised; SetNoise does that and returns the error of Factorize.
func (f *Factor) SetNoise(noise float64) error {
	if !(noise > 0) || math.IsInf(noise, 0) {
		return fmt.Errorf("%w, got %v", ErrNoise, noise)
	}
	f.noise = noise
	if f.ok {
		return f.Factorize(f.Active(nil))
	}
	return nil
}

// Factorize builds the state from scratch for the ordered inducing set
// active, then chooses up to z information pivots greedily by largest
// residual variance. It costs O(n·(k+z)²) time and k+z kernel columns.
//
// It panics if an index is out of range or repeated, or if len(active) > m.
// It returns a *DegenerateError if a point's residual variance given the
// earlier ones is below 1e-10·κ(x,x) (a duplicate input); the Factor is then
// left invalid.
func (f *Factor) Factorize(active []int) error {
	f.validateActive(active)
	f.reset()
	if f.factorizeBlocked(active) {
		f.fillInfoGreedy()
		f.stats.Factorizations++
	} else if err := f.factorizeRankOne(active); err != nil {
		return err
	}
	f.lastFactorized = append(f.lastFactorized[:0], active...)
	return nil
}

// factorizeRankOne is Factorize by k rank-one steps (appendPivot and
// Gram–Schmidt), which names the first degenerate point.
func (f *Factor) factorizeRankOne(active []int) error {
	f.reset()
	for _, j := range active {
		if err := f.appendActive(j); err != nil {
			return err
		}
	}
	f.fillInfoGreedy()
	f.stats.Factorizations++
	return nil
}

// appendActive appends point j as the next active pivot during a rebuild
// (keepTol applies), or invalidates the Factor and names it.
func (f *Factor) appendActive(j int) error {
	if !f.appendPivot(j, f.keepTol(j)) {
		f.ok = false
		return &DegenerateError{Index: j, Residual: f.d[j]}
	}
	f.gramSchmidt()
	f.commitActive()
	return nil
}

// validateActive panics on out-of-range or repeated indices.
func (f *Factor) validateActive(active []int) {
	if len(active) > f.mcap {
		panic(errFull)
	}
	f.ok = false
	for i := range f.pos {
		f.pos[i] = -1
	}
	for _, j := range active {
		if j < 0 || j >= f.n {
			panic(errIndex)
		}
		if f.pos[j] != -1 {
			panic(fmt.Sprintf("sgp: inducing index %d repeated", j))
		}
		f.pos[j] = 0
	}
	for _, j := range active {
		f.pos[j] = -1
	}
}

// reset empties the factorisation: no pivots, d = diag K.
func (f *Factor) reset() {
	f.k, f.t, f.parked = 0, 0, -1
	f.tent.valid = false
	kernelDiag(f.kern, f.kdiag, f.x)
	f.stats.KernelEvals += f.n
	copy(f.d, f.kdiag)
	for i := range f.q {
		f.q[i] = 0
	}
	for i := range f.r {
		f.r[i] = 0
	}
	clear(f.a)
	clear(f.b)
	f.ok = true
}

// FactorizePivoted is Factorize with the inducing set reordered by a
// pivoted Cholesky restricted to it: each next point is the one of active
// with the largest residual variance given those before it. The resulting
// objective is the same as for any order, but a near-degenerate set
// factorises whenever any order would.
func (f *Factor) FactorizePivoted(active []int) error {
	f.validateActive(active)
	f.reset()
	rest := append([]int(nil), active...)
	for len(rest) > 0 {
		b := 0
		for i, j := range rest {
			if f.d[j] > f.d[rest[b]] {
				b = i
			}
		}
		j := rest[b]
		rest[b] = rest[len(rest)-1]
		rest = rest[:len(rest)-1]
		if err := f.appendActive(j); err != nil {
			return err
		}
	}
	f.fillInfoGreedy()
	f.stats.Factorizations++
	return nil
}

// Refactorize rebuilds the state from scratch for the current inducing set
// (in its current order) and fresh greedy information pivots, and records in
// Stats how far the updated state had drifted from the exact one. It
// returns the relative objective drift |F_updated − F_fresh|/|F_fresh| for
// the VAR objective.
func (f *Factor) Refactorize() (float64, error) {
	f.check()
	before := f.Parts().VAR
	beforeResid := f.residualActive(f.approx.dI)
	active := f.Active(nil)
	if err := f.Factorize(active); err != nil {
		return 0, err
	}
	after := f.Parts().VAR
	drift := math.Abs(before-after) / math.Max(math.Abs(after), 1)
	afterResid := f.residualActive(f.approx.dIOld)
	var rd float64
	for i := range beforeResid {
		rd = math.Max(rd, math.Abs(beforeResid[i]-afterResid[i]))
	}
	f.stats.LastDrift = drift
	f.stats.LastResidDrift = rd
	f.stats.MaxDrift = math.Max(f.stats.MaxDrift, drift)
	return drift, nil
}

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
		panic(errShortBuffer)
	}
	return f.residualActive(dst)
}

// Parts returns the objective terms read off the factors in O(n·z + k).
func (f *Factor) Parts() Parts {
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
func (f *Factor) Value(o Objective) float64 { return f.Parts().Value(o) }

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

// gramSchmidt orthogonalises the augmented column [G[:, k]; 0_k; σ] against
// Q[:, :k] by classical Gram–Schmidt with a second pass when the first loses
// more than 30% of the norm ("twice is enough", Giraud et al. 2005), and
// stores the tentative result in Q[:, k] and f.cvec/f.tent. It costs
// O((n+k)·k) and does not change the committed state.
func (f *Factor) gramSchmidt() {
	n, k := f.n, f.k
	rows := n + k + 1
	g := f.col(k)
	w := f.qcol(k)[:rows]
	copy(w, g)
	for i := n; i < rows; i++ {
		w[i] = 0
	}
	sigma := math.Sqrt(f.noise)
	w[n+k] = sigma
	var vv float64
	for _, v := range g {
		vv += v * v
	}
	gg := vv
	vv += f.noise
	c := f.cvec[:k]
	if k > 0 {
		qt := f.qmat(k, rows)
		wv := blas64.Vector{N: rows, Data: w, Inc: 1}
		cv := blas64.Vector{N: k, Data: c, Inc: 1}
		blas64.Gemv(blas.NoTrans, 1, qt, wv, 0, cv)
		blas64.Gemv(blas.Trans, -1, qt, cv, 1, wv)
		var ww float64
		for _, v := range w {
			ww += v * v
		}
		if ww < 0.49*vv {
			c2 := blas64.Vector{N: k, Data: f.c2[:k], Inc: 1}
			blas64.Gemv(blas.NoTrans, 1, qt, wv, 0, c2)
			blas64.Gemv(blas.Trans, -1, qt, c2, 1, wv)
			for i := range c {
				c[i] += f.c2[i]
			}
			f.stats.Reorthogonalize++
		}
	}
	var ww float64
	for _, v := range w {
		ww += v * v
	}
	r := math.Sqrt(ww)
	inv := 1 / r
	var anew, bnew float64
	for i := range w {
		w[i] *= inv
	}
	for i, v := range w[:n] {
		anew += v * f.y[i]
		bnew += v
	}
	f.tent = tentative{valid: true, r: r, anew: anew, bnew: bnew, gg: gg}
}

// commitActive makes the tentative column computed by gramSchmidt the k-th
// active column.
func (f *Factor) commitActive() {
	if !f.tent.valid {
		panic("sgp: internal error: no tentative column")
	}
	k, m := f.k, f.mcap
	for i := 0; i < k; i++ {
		f.r[i*m+k] = f.cvec[i]
	}
	f.r[k*m+k] = f.tent.r
	f.a[k] = f.tent.anew
	f.b[k] = f.tent.bnew
	f.k++
	f.tent.valid = false
}

// deltaFromTentative returns the exact decrease of the objective o if the
// tentative column joins the active set (DESIGN §3):
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
