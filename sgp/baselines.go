package sgp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Selector is the rule that chooses the inducing points among the training
// data. CholQR is the default; the others are the baselines of Cao et al.
// (2013, §5), which optimise the same objective with the same
// conjugate-gradient phase:
//
//	cholqr            swaps scored through information pivots (this package)
//	random            a random subset, fixed; only θ is optimised
//	greedy-variance   each epoch, the m points chosen greedily by largest
//	                  residual variance at the current θ (a pivoted partial
//	                  Cholesky: IVM-like, Burt et al. 2020 "conditional
//	                  variance"), then CG
//	titsias:S         each epoch, greedy forward selection (Titsias 2009):
//	                  m times, score S random candidates exactly and add the
//	                  best; then CG
//	hybrid            CholQR, then the inducing inputs and θ refined
//	                  continuously (FitContinuous from the k-means centres
//	                  of the inputs or, given time to converge, their
//	                  k-means++ seeds, then from the other, CholQR's set
//	                  and a random subset while time is left; the lowest
//	                  kept),
//	                  kept if the objective is lower; vector inputs and the
//	                  RBF kernel only (see fitHybrid)
type Selector struct {
	kind selectorKind
	s    int // candidates per step for titsias
}

type selectorKind int

const (
	selCholQR selectorKind = iota
	selRandom
	selGreedyVariance
	selTitsias
	selHybrid
)

// Selectors.
var (
	SelectCholQR         = Selector{kind: selCholQR}
	SelectRandom         = Selector{kind: selRandom}
	SelectGreedyVariance = Selector{kind: selGreedyVariance}
	SelectHybrid         = Selector{kind: selHybrid}
)

// SelectTitsias returns Titsias' greedy forward selection scoring s random
// candidates exactly per added point.
func SelectTitsias(s int) Selector { return Selector{kind: selTitsias, s: s} }

// String returns the selector's name as ParseSelector reads it.
func (s Selector) String() string {
	switch s.kind {
	case selRandom:
		return "random"
	case selGreedyVariance:
		return "greedy-variance"
	case selTitsias:
		return fmt.Sprintf("titsias:%d", s.s)
	case selHybrid:
		return "hybrid"
	}
	return "cholqr"
}

// ParseSelector reads "cholqr", "random", "greedy-variance",
// "titsias:S" (S ≥ 1 candidates per step) or "hybrid".
func ParseSelector(name string) (Selector, error) {
	switch n := strings.ToLower(strings.TrimSpace(name)); {
	case n == "cholqr":
		return SelectCholQR, nil
	case n == "random":
		return SelectRandom, nil
	case n == "hybrid":
		return SelectHybrid, nil
	case n == "greedy-variance" || n == "greedy" || n == "ivm":
		return SelectGreedyVariance, nil
	case strings.HasPrefix(n, "titsias:"):
		s, err := strconv.Atoi(strings.TrimPrefix(n, "titsias:"))
		if err != nil || s < 1 {
			return Selector{}, fmt.Errorf("sgp: selector %q: titsias needs a candidate count, e.g. titsias:16", name)
		}
		return SelectTitsias(s), nil
	}
	return Selector{}, fmt.Errorf("sgp: unknown selector %q: use cholqr, random, greedy-variance, titsias:S or hybrid", name)
}

// WithSelector sets how the inducing points are chosen (default CholQR).
// For greedy-variance the initial set is the greedy one as well.
func (md *Model) WithSelector(s Selector) *Model {
	if s.kind == selTitsias && s.s < 1 {
		return md.setErr(fmt.Errorf("sgp: titsias selector needs at least one candidate"))
	}
	md.selector = s
	if s.kind == selGreedyVariance && md.inducing == nil {
		md.init = InitGreedy
	}
	md.reset()
	return md
}

// Selector returns the selection rule.
func (md *Model) Selector() Selector { return md.selector }

// reselect runs a baseline's selection step at the current hyperparameters
// and returns the number of exact candidate scores it made. The new set
// replaces the old one only if it does not raise the objective, so that an
// epoch never makes the model worse.
func (md *Model) reselect() int {
	f := md.f
	old := f.Active(nil)
	before := f.Value(md.obj)
	var scored int
	switch md.selector.kind {
	case selGreedyVariance:
		active := greedyVariance(f, md.m)
		if err := f.Factorize(active); err != nil {
			md.rebuildRobust(active, true)
		}
	case selTitsias:
		scored = md.forwardSelect(md.selector.s)
	default:
		return 0
	}
	md.profile()
	if !(f.Value(md.obj) <= before) {
		if err := f.Factorize(old); err != nil {
			md.refactorKeeping(old)
		} else {
			md.profile()
		}
	}
	return scored
}

// forwardSelect rebuilds the inducing set by Titsias' (2009) greedy
// forward selection: starting empty, m times it scores s candidates drawn
// uniformly from the points not yet chosen exactly (ExactDelta, O(n·k)
// each) and adds the best. Cost O(s·n·m²) and s·m kernel columns.
func (md *Model) forwardSelect(s int) int { return md.forwardSelectPivots(s, false) }

// forwardCandidates is the number of random candidates scored exactly per
// step of CholQR's forward start (InitForward), as in Titsias-16.
const forwardCandidates = 16

// forwardSelectPivots is forwardSelect that, with pivots set, also scores
// exactly the candidate with the best approximate score of the
// information pivots (Cao et al. 2013, §4), found among all n points at
// O(n·z·(k+z)) per step: the pool of each step is then the S random
// candidates of Titsias (2009) plus the one a CholQR swap would propose.
// Each step's pool is scored in one batch (exactDeltas: two level-3
// products over the active columns of G, taken chunk by chunk in one pass
// over G, not several passes over G and Q per candidate; at n = 10⁴,
// m = 256 the forward start took 10 s one candidate at a time).
func (md *Model) forwardSelectPivots(s int, pivots bool) int {
	f := md.f
	n := f.n
	_ = f.Factorize(nil)
	scored := 0
	// At most exactBatchMax candidates are scored at a time: the batch
	// holds one n-vector per candidate.
	w := newExactBatch(n, f.mcap, min(s+1, exactBatchMax), f.pool.Size())
	cands := make([]int, 0, s+1)
	vals := make([]float64, s+1)
	// CholQR's forward start (pivots) is factorised again by build, so it
	// adds its points without Gram–Schmidt (addNoQ); Titsias' selection
	// keeps its factor and needs Q.
	add := f.Add
	if pivots {
		add = f.addNoQ
	}
	tick := md.ticker()
	for f.k < md.m {
		if pivots && tick.due() {
			fmt.Fprintf(md.progress, "start: %d of %d inducing points chosen by forward selection, %.0f s\n", f.k, md.m, tick.elapsed().Seconds())
		}
		cands = cands[:0]
		if pivots {
			if j, _ := f.bestApprox(md.obj); j >= 0 {
				cands = append(cands, j)
			}
		}
		for c := 0; c < s; c++ {
			if j := md.rng.IntN(n); !f.IsActive(j) {
				cands = append(cands, j)
			}
		}
		for lo := 0; lo < len(cands); lo += w.s {
			hi := min(len(cands), lo+w.s)
			f.exactDeltas(cands[lo:hi], md.obj, vals[lo:hi], w)
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
				if f.pos[i] < 0 && v > gv && v > f.pivotTol(i) {
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
