package cholqr

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/par"
	"github.com/cholqr/sgp/sgp/internal/stats"
	"github.com/cholqr/sgp/sgp/kernel"
)

// newFactor validates a problem and allocates a factor for at most m
// inducing points and z information pivots. x holds n inputs, y n targets,
// noise is σ². The returned Factor is empty: call Factorize.
//
// It returns an error for empty data, mismatched lengths, non-finite
// targets, a noise variance that is not positive and finite, a capacity m
// outside 1 ≤ m ≤ n, z < 0, or inputs the kernel does not accept. The
// factor holds every point as inducing (m = n) for the tests that compare
// it with the exact GP; a model's m is checked by checkM.
func New(x kernel.Inputs, y []float64, kern kernel.Kernel, noise float64, m, z int) (_ *Factor, err error) {
	defer base.RecoverTo(&err)
	if x == nil || x.Len() == 0 || len(y) == 0 {
		return nil, base.ErrEmpty
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
		return nil, fmt.Errorf("%w, got %v", base.ErrNoise, noise)
	}
	if kern == nil {
		return nil, fmt.Errorf("sgp: no kernel")
	}
	if err := kern.Accepts(x); err != nil {
		return nil, err
	}
	if m < 1 || m > n {
		return nil, fmt.Errorf("sgp: a factor's capacity m=%d must satisfy 1 ≤ m ≤ n=%d", m, n)
	}
	if z < 0 {
		return nil, fmt.Errorf("sgp: the number of information pivots z=%d must be ≥ 0", z)
	}
	z = min(z, n)
	f := &Factor{
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
	if v := stats.Variance(y); v > 0 && !math.IsInf(v, 0) {
		f.logScale = 0.5 * float64(n) * math.Log(v)
	}
	return f, nil
}

// SetNoise changes σ². The factors depend on σ², so the Factor must be
// refactorised; SetNoise does that and returns the error of Factorize.
func (f *Factor) SetNoise(noise float64) error {
	if err := checkNoise(noise); err != nil {
		return err
	}
	if f.wt != nil {
		f.setSigma2(noise)
	} else {
		f.noise = noise
	}
	if f.ok {
		return f.Factorize(f.Active(nil))
	}
	return nil
}

// Clone returns a deep copy of f with its own scratch space and workers,
// sharing only the inputs, the raw targets and the kernel, which neither
// changes: a scratch Factor on which an inspection may add and remove
// points while f stays exactly as it is (Model.CostRanking). It costs the
// memory of f, O(n·(m+z)).
func (f *Factor) Clone() *Factor {
	c := *f
	c.perm, c.pos = slices.Clone(f.perm), slices.Clone(f.pos)
	c.lastFactorized = slices.Clone(f.lastFactorized)
	c.y, c.g, c.kdiag, c.d = slices.Clone(f.y), slices.Clone(f.g), slices.Clone(f.kdiag), slices.Clone(f.d)
	c.q, c.r, c.a, c.b = slices.Clone(f.q), slices.Clone(f.r), slices.Clone(f.a), slices.Clone(f.b)
	c.gram = slices.Clone(f.gram)
	c.parkedCol, c.parkedQ, c.parkedR = slices.Clone(f.parkedCol), slices.Clone(f.parkedQ), slices.Clone(f.parkedR)
	// parkedGram is resliced to the parked pivot's row (dropLast): copy its
	// full capacity so that the clone can park a pivot further right.
	c.parkedGram = slices.Clone(f.parkedGram[:cap(f.parkedGram)])[:len(f.parkedGram)]
	c.gj, c.cvec, c.c2 = slices.Clone(f.gj), slices.Clone(f.cvec), slices.Clone(f.c2)
	c.gsParts = slices.Clone(f.gsParts)
	f.cloneWeights(&c)
	c.gsTask, c.appendTask = gsTask{}, appendTask{}
	c.approx = approxWork{}
	c.approx.init(f.n, f.mcap, f.zcap)
	c.approx.task.f = &c
	c.rot = moveWork{refl: make([]reflection, f.tcap), giv: make([]givens, f.mcap), v: make([]float64, f.tcap)}
	c.pool = par.NewPool()
	runtime.AddCleanup(&c, func(w *par.Pool) { w.Close() }, c.pool)
	return &c
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
		return &base.DegenerateError{Index: j, Residual: f.d[j]}
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
	base.KernelDiag(f.kern, f.kdiag, f.x)
	if f.wt != nil {
		for i, w := range f.wt {
			f.kdiag[i] *= w * w
		}
	}
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
	f.qStale = false
	f.ok = true
}

// FactorizePivoted is Factorize with the inducing set reordered by a
// pivoted Cholesky restricted to it: each next point is the one of active
// with the largest residual variance given those before it. The resulting
// objective is the same as for any order, but a near-degenerate set
// factorises whenever any order would.
func (f *Factor) FactorizePivoted(active []int) error {
	_, err := f.factorizePivoted(active, false)
	return err
}

// FactorizeSkipping is FactorizePivoted that leaves out, rather than
// failing on, the points whose residual variance given the ones before is
// at most keepTol: numerically in the span of the others, they add
// nothing to the Nyström approximation. It returns the points left out
// (for a kernel that is not positive semi-definite, possibly all of them).
func (f *Factor) FactorizeSkipping(active []int) (left []int) {
	left, _ = f.factorizePivoted(active, true)
	f.stats.LeftOut += len(left)
	return left
}

// factorizePivoted is FactorizePivoted, or factorizeSkipping if skip.
func (f *Factor) factorizePivoted(active []int, skip bool) (left []int, err error) {
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
		if !skip {
			if err := f.appendActive(j); err != nil {
				return nil, err
			}
			continue
		}
		// appendPivot changes nothing when it refuses a point.
		if !f.appendPivot(j, f.keepTol(j)) {
			left = append(left, j)
			continue
		}
		f.gramSchmidt()
		f.commitActive()
	}
	f.fillInfoGreedy()
	f.stats.Factorizations++
	return left, nil
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
