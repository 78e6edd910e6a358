package cholqr

import (
	"context"
	"math"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// The selections of an inducing set that run on the engine's state: the
// pivoted partial Cholesky (GreedyVariance), Titsias' (2009) forward
// selection and CholQR's forward start (ForwardSelect), the refill by
// approximate score (Grow) and the rebuild of a set the kernel cannot
// hold whole (FactorizeFrom).

// GreedyVariance chooses m points by a pivoted partial Cholesky: each
// next point has the largest residual variance given the previous ones,
// ties (a stationary kernel's equal variances at the start) going to the
// first in the canonical order of the rows (SetOrder). It leaves the
// state factorised for the points it added and returns them, padded with
// the first points in the canonical order if the residual vanished
// everywhere.
func (f *Factor) GreedyVariance(m int) []int {
	saveZ := f.zcap
	f.zcap = 0
	_ = f.Factorize(nil)
	f.zcap = saveZ
	active := make([]int, 0, m)
	for len(active) < m {
		best, bv := -1, 0.0
		for i, v := range f.d {
			if f.pos[i] == -1 && v > 0 && f.first(i, best, v, bv) {
				best, bv = i, v
			}
		}
		if best < 0 || f.Add(best) != nil {
			break
		}
		active = append(active, best)
	}
	for p := 0; len(active) < m && p < f.n; p++ {
		if i := f.AtPos(p); f.pos[i] == -1 {
			active = append(active, i)
		}
	}
	return active
}

// ForwardSelect rebuilds the inducing set, starting empty, by Titsias'
// (2009) greedy forward selection until it holds m points or ctx is done:
// each step scores exactly (ExactDelta, O(n·k) each) s candidates drawn
// by rnd from the points not yet chosen and adds the best. With pivots
// set, each step also scores the candidate with the best approximate
// score of the information pivots (Cao et al. 2013, §4), found among all
// n points at O(n·z·(k+z)): the pool of a step is then the s random
// candidates plus the one a CholQR swap would propose, and the points are
// added without Gram–Schmidt (addNoQ), so the caller must Factorize the
// set afterwards. Each step's pool is scored in one batch (exactDeltas:
// two level-3 products over the active columns of G, taken chunk by
// chunk in one pass over G). progress, if not nil, is called before each
// step of a start with pivots with the number of points chosen so far.
// It returns the number of exact scores made; cost O(s·n·m²) and s·m
// kernel columns.
func (f *Factor) ForwardSelect(ctx context.Context, m, s int, pivots bool, o base.Objective, rnd func(n int) int, progress func(k int)) int {
	_ = f.Factorize(nil)
	scored := 0
	// At most ExactBatchMax candidates are scored at a time: the batch
	// holds one n-vector per candidate.
	w := newExactBatch(f.n, f.mcap, min(s+1, ExactBatchMax), f.pool.Size())
	cands := make([]int, 0, s+1)
	vals := make([]float64, s+1)
	add := f.Add
	if pivots {
		add = f.addNoQ
	}
	for f.k < m && ctx.Err() == nil {
		if pivots && progress != nil {
			progress(f.k)
		}
		cands = cands[:0]
		if pivots {
			if j, _ := f.bestApprox(o); j >= 0 {
				cands = append(cands, j)
			}
		}
		for c := 0; c < s; c++ {
			if j := f.DrawRow(rnd); !f.IsActive(j) {
				cands = append(cands, j)
			}
		}
		for lo := 0; lo < len(cands); lo += w.s {
			hi := min(len(cands), lo+w.s)
			f.exactDeltas(cands[lo:hi], o, vals[lo:hi], w)
		}
		scored += len(cands)
		best, bv := -1, math.Inf(-1)
		for q, j := range cands {
			if v := vals[q]; v > bv {
				best, bv = j, v
			}
		}
		if best < 0 || add(best) != nil {
			if !f.ok {
				break // a rebuild in addNoQ failed; the caller factorises again
			}
			// No admissible candidate in this draw: fall back to the
			// largest residual variance.
			g, gv := -1, 0.0
			for i, v := range f.d {
				if f.pos[i] < 0 && f.first(i, g, v, gv) && v > f.pivotTol(i) {
					g, gv = i, v
				}
			}
			if g < 0 || add(g) != nil {
				break
			}
		}
	}
	return scored
}

// Grow adds inducing points while there are fewer than m, each time the
// candidate with the best approximate score for o, calling added (if not
// nil) with each, and returns how many it added. The set is below m only
// when the kernel could not tell m points apart at earlier
// hyperparameters.
func (f *Factor) Grow(o base.Objective, added func(j int)) int {
	n := 0
	for f.k < f.mcap {
		best, _ := f.bestApprox(o)
		if best < 0 || f.Add(best) != nil {
			break
		}
		if added != nil {
			added(best)
		}
		n++
	}
	return n
}

// FactorizeFrom factorises afresh the points of active that are not
// degenerate given the earlier ones, in order, and, with rnd not nil,
// fills the set towards m with points drawn by rnd (at most 20·n draws).
// It returns how many points of active were left out.
func (f *Factor) FactorizeFrom(active []int, rnd func(n int) int) (left int) {
	_ = f.Factorize(nil)
	for _, j := range active {
		if f.k >= f.mcap || f.Add(j) != nil {
			left++
		}
	}
	if rnd != nil {
		for draws := 0; f.k < f.mcap && draws < 20*f.n; draws++ {
			if j := f.DrawRow(rnd); f.pos[j] < 0 || f.pos[j] >= f.k {
				_ = f.Add(j)
			}
		}
	}
	return left
}

// Ranking is the exact and approximate decrease of the objective for
// candidate replacements of one removed inducing point (CostRanking).
type Ranking struct {
	Candidates []int     // data indices of the candidates
	Exact      []float64 // exact ΔF of adding each candidate
	Approx     []float64 // approximate ΔF from the information pivots
	InfoPivots []int     // the information pivots used
}

// CostRanking scores, with inducing point j (a data index) taken out,
// candidate replacements both exactly and approximately for o, using the
// information pivots as they are: the candidates are the points whose
// approximate score is finite, in index order, narrowed by choose if it
// is not nil. It works on a copy of the state (Clone), so f is left
// exactly as it was. It costs O(n²·k) for all n candidates, and the
// memory of f. It panics if j is not an inducing point.
func (f *Factor) CostRanking(j int, o base.Objective, choose func(cands []int) []int) Ranking {
	if !f.IsActive(j) {
		panic(errNotActive)
	}
	c := f.Clone()
	c.removeToPark(c.pos[j])
	approx := c.ApproxDeltasTo(nil, o)
	r := Ranking{InfoPivots: c.InfoPivots(nil)}
	var cands []int
	for i, v := range approx {
		if i != j && !math.IsNaN(v) && !math.IsInf(v, -1) {
			cands = append(cands, i)
		}
	}
	if choose != nil {
		cands = choose(cands)
	}
	for _, i := range cands {
		wasPivot := c.pos[i] >= 0
		if !c.insertCandidate(i) {
			continue
		}
		ex := c.deltaFromTentative(o)
		c.tent.valid = false
		if !wasPivot {
			c.move(c.k, c.t-1)
			c.dropInfoLast()
		}
		r.Candidates = append(r.Candidates, i)
		r.Exact = append(r.Exact, ex)
		r.Approx = append(r.Approx, approx[i])
	}
	return r
}
