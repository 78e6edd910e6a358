package cholqr

import (
	"context"
	"math"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// GreedyVariance chooses m points by a pivoted partial Cholesky, as
// Factor.GreedyVariance: each next point has the largest residual
// variance given the previous ones (ties by canonical order: each rank's
// best and one ArgMax), without information pivots. It leaves them
// factorised and returns them, padded with the first rows in the
// canonical order if the residual vanished everywhere.
func (f *Dist) GreedyVariance(m int) []int {
	saveZ := f.zcap
	f.zcap = 0
	_ = f.Factorize(nil)
	f.zcap = saveZ
	active := make([]int, 0, m)
	for len(active) < m {
		best, bv := -1, 0.0
		for i, v := range f.d {
			if j := f.lo + i; f.lpos[i] == -1 && v > 0 && f.first(j, best, v, bv) {
				best, bv = j, v
			}
		}
		if best, _ = f.argMax(best, bv); best < 0 || f.Add(best) != nil {
			break
		}
		active = append(active, best)
	}
	for p := 0; len(active) < m && p < f.n; p++ {
		if i := f.AtPos(p); f.Pos(i) == -1 {
			active = append(active, i)
		}
	}
	return active
}

// ForwardSelect rebuilds the inducing set, starting empty, by forward
// selection until it holds m points or ctx is done on some rank (one Any
// per step), as Factor.ForwardSelect: each step scores exactly the s
// candidates drawn by rnd (the same sequence on every rank) among the
// points not chosen, and with pivots also the row of best approximate
// score, in batches of ExactBatchMax (exactDeltas), and adds the best,
// without Gram–Schmidt if pivots (addNoQ: the caller must Factorize the
// set afterwards), falling back to the largest residual variance if none
// can be added. progress, if not nil, is called before each step with
// pivots with the number chosen so far. It returns the number of exact
// scores made.
func (f *Dist) ForwardSelect(ctx context.Context, m, s int, pivots bool, o base.Objective, rnd func(n int) int, progress func(k int)) int {
	_ = f.Factorize(nil)
	scored := 0
	cands := make([]int, 0, s+1)
	vals := make([]float64, s+1)
	add := f.Add
	if pivots {
		add = f.addNoQ
	}
	for f.k < m && !f.c.Any(ctx.Err() != nil) {
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
		for lo := 0; lo < len(cands); lo += ExactBatchMax {
			hi := min(len(cands), lo+ExactBatchMax)
			f.exactDeltas(cands[lo:hi], o, vals[lo:hi])
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
			g, gv := -1, 0.0
			for i, v := range f.d {
				if j := f.lo + i; f.lpos[i] < 0 && f.first(j, g, v, gv) && v > 1e-6*f.kdiag[i] {
					g, gv = j, v
				}
			}
			if g, _ = f.argMax(g, gv); g < 0 || add(g) != nil {
				break
			}
		}
	}
	return scored
}

// Grow adds inducing points while there are fewer than m, each time the
// row of best approximate score for o, as Factor.Grow, calling added (if
// not nil) with each, and returns how many it added.
func (f *Dist) Grow(o base.Objective, added func(j int)) int {
	if !f.ok {
		panic(errBadFactor)
	}
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
// fills the set towards m with rows drawn by rnd (at most 20·n draws),
// as Factor.FactorizeFrom. It returns how many points of active were
// left out.
func (f *Dist) FactorizeFrom(active []int, rnd func(n int) int) (left int) {
	_ = f.Factorize(nil)
	for _, j := range active {
		if f.k >= f.mcap || f.Add(j) != nil {
			left++
		}
	}
	if rnd != nil {
		for draws := 0; f.k < f.mcap && draws < 20*f.n; draws++ {
			if j := f.DrawRow(rnd); f.Pos(j) < 0 || f.Pos(j) >= f.k {
				_ = f.Add(j)
			}
		}
	}
	return left
}

// FactorizePivoted is Factorize with the inducing set reordered by a
// pivoted Cholesky restricted to it, as Factor.FactorizePivoted: each
// next point is the one of active with the largest residual variance
// given those before it (the residuals of the points left gathered by
// one SumFloat64s per step, exact: each is its owner's).
func (f *Dist) FactorizePivoted(active []int) error {
	_, err := f.factorizePivoted(active, false)
	return err
}

// FactorizeSkipping is FactorizePivoted that leaves out, rather than
// failing on, the points whose residual given the ones before is at or
// below 1e-8·κ(x, x), as Factor.FactorizeSkipping, and returns them.
func (f *Dist) FactorizeSkipping(active []int) (left []int) {
	left, _ = f.factorizePivoted(active, true)
	f.stats.LeftOut += len(left)
	return left
}

func (f *Dist) factorizePivoted(active []int, skip bool) (left []int, err error) {
	if len(active) > f.mcap {
		panic(errFull)
	}
	seen := make(map[int]bool, len(active))
	for _, j := range active {
		if j < 0 || j >= f.n {
			panic(errIndex)
		}
		if seen[j] {
			panic("sgp: inducing index repeated")
		}
		seen[j] = true
	}
	f.reset()
	rest := append([]int(nil), active...)
	dr := make([]float64, len(rest))
	for len(rest) > 0 {
		dr = dr[:len(rest)]
		clear(dr)
		for i, j := range rest {
			if jl := f.local(j); jl >= 0 {
				dr[i] = f.d[jl]
			}
		}
		f.c.SumFloat64s(dr)
		b := 0
		for i := range rest {
			if dr[i] > dr[b] {
				b = i
			}
		}
		j := rest[b]
		rest[b] = rest[len(rest)-1]
		rest = rest[:len(rest)-1]
		if !f.appendPivot(j, 1e-8) {
			if !skip {
				f.ok = false
				return nil, &base.DegenerateError{Index: j}
			}
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
