package cholqr

import (
	"fmt"
	"math"
	"slices"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// SwapBest proposes to replace the active point at position p by the
// best of the rows cands (global indices, not active) and the row of
// largest residual variance after the removal (one ArgMax; ties by the
// smaller index), scored exactly in that order, the first of the largest
// decreases winning; the rule of acceptance is SwapWith's. Messages: one
// ArgMax, a pivot append and a Gram–Schmidt per candidate, and one
// append more where the removed point returns.
func (f *Dist) SwapBest(p int, cands []int, o base.Objective) base.SwapResult {
	if !f.ok {
		panic(errBadFactor)
	}
	f.needQ()
	if p < 0 || p >= f.k {
		panic(errIndex)
	}
	out := f.perm[p]
	res := base.SwapResult{Removed: out, Proposed: -1, Before: f.Value(o), After: math.NaN()}
	f.stats.Swaps++
	f.removeToPark(p)
	removed := f.Value(o)
	all := append(append([]int(nil), cands...), f.largestResidual(out))
	best, bd := -1, 0.0
	for _, j := range all {
		if j < 0 || j == out || f.IsActive(j) {
			continue
		}
		if df := f.ExactDelta(j, o); best < 0 || df > bd {
			best, bd = j, df
		}
	}
	if best >= 0 {
		res.Proposed, res.ExactDelta = best, bd
		after := removed - bd
		if after < res.Before-swapThreshold*f.ValueScale(res.Before) && f.Add(best) == nil {
			f.discardPark()
			f.fillInfoGreedy()
			res.Accepted, res.After = true, f.Value(o)
			f.stats.Accepted++
			return res
		}
	}
	f.restorePark()
	f.fillInfoGreedy()
	res.After = res.Before
	return res
}

// largestResidual returns the row of largest residual variance other than
// skip (the smaller index on ties), or −1 if every residual is zero: each
// rank's best and one ArgMax.
func (f *Dist) largestResidual(skip int) int {
	best, bv := -1, 0.0
	for i, v := range f.d {
		if v > 0 && f.lo+i != skip && (best < 0 || v > bv) {
			best, bv = f.lo+i, v
		}
	}
	_, best = f.c.ArgMax(bv, best)
	return best
}

// Epoch runs one pass of SwapBest over the inducing set, from the last
// position to the first (a swapped point, kept or replaced, ends last, so
// the pass visits each point once), each with s candidates drawn by rnd,
// a uniform index source that returns the same sequence on every rank,
// among the rows not active: the rows' own global indices, so that the
// draws do not depend on P. It returns the swaps made and accepted.
func (f *Dist) Epoch(o base.Objective, s int, rnd func(n int) int) (swaps, accepted int) {
	cands := make([]int, 0, s)
	for p := f.k - 1; p >= 0; p-- {
		cands = cands[:0]
		for try := 0; len(cands) < s && try < 4*s; try++ {
			if j := rnd(f.n); !f.IsActive(j) {
				cands = append(cands, j)
			}
		}
		if f.SwapBest(p, cands, o).Accepted {
			accepted++
		}
		swaps++
	}
	return swaps, accepted
}

// Mean returns μ.
func (f *Dist) Mean() float64 { return f.mu }

// TargetMoments returns the mean and variance of the targets over all
// rows: a prior N(ȳ, var y) on μ is MeanPrior{On: true, Ybar: ȳ, Tau2: var y}.
func (f *Dist) TargetMoments() (mean, variance float64) { return f.ybar, f.vary }

// SetPrior sets the prior on an estimated μ, whose penalty Parts adds.
func (f *Dist) SetPrior(p base.MeanPrior) { f.prior = p }

// MAPMean returns the minimiser in μ of both objectives for the current
// inducing set, as Factor.MAPMean: under the prior of SetPrior if any,
// otherwise the GLS estimate. It needs no messages: SetMean keeps
// Σ(y − μ).
func (f *Dist) MAPMean() float64 { return f.estimateMean(f.prior) }

// GLSMean returns the generalised least-squares estimate of μ, as
// Factor.GLSMean.
func (f *Dist) GLSMean() float64 { return f.estimateMean(base.MeanPrior{}) }

func (f *Dist) estimateMean(p base.MeanPrior) float64 {
	var ba, bb float64
	for c := 0; c < f.k; c++ {
		ba += f.b[c] * f.a[c]
		bb += f.b[c] * f.b[c]
	}
	return f.mu + p.Step(f.sumY-ba, float64(f.n)-bb, f.mu-p.Ybar, f.noise)
}

// LogScale returns n·log sd(y) over all rows, as Factor's.
func (f *Dist) LogScale() float64 { return f.logScale }

// Lend returns the storage of this rank's rows of G (nl·(m+z+1) values) and
// of Q (nl·m) for the caller to overwrite, and invalidates the state
// until the next successful Factorize, as Factor.Lend; the inducing set
// is kept in Active's order, to rebuild from.
func (f *Dist) Lend() (g, q []float64) {
	if !f.ok {
		panic(errBadFactor)
	}
	f.lastFactorized = append(f.lastFactorized[:0], f.perm[:f.k]...)
	f.ok = false
	return f.g, f.q
}

// LastFactorized returns a copy of the inducing set of the last
// successful Factorize or of the state Lend took, as Factor's.
func (f *Dist) LastFactorized() []int { return slices.Clone(f.lastFactorized) }

// SetParams sets the kernel's log parameters to theta and σ² to noise,
// forms this rank's diag K again and refactorises the inducing set there.
func (f *Dist) SetParams(theta []float64, noise float64) error {
	if !(noise > 0) || math.IsInf(noise, 0) {
		return fmt.Errorf("%w, got %v", base.ErrNoise, noise)
	}
	f.kern.SetParams(theta)
	if f.nl > 0 {
		f.kern.Diag(f.kdiag, f.x, 0, f.nl)
	}
	f.noise = noise
	return f.Factorize(f.Active(nil))
}
