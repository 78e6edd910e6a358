package sgp

import (
	"fmt"
	"math/rand/v2"
)

// build creates the factored state if needed.
func (md *Model) build() error {
	if md.err != nil {
		return md.err
	}
	if md.f != nil {
		if md.stale {
			active := append([]int(nil), md.f.lastFactorized...)
			if md.f.ok {
				active = md.f.Active(nil)
			}
			if err := md.f.Factorize(active); err != nil {
				return fmt.Errorf("sgp: refactorising after an earlier failure: %w", err)
			}
			md.stale = false
		}
		return nil
	}
	if err := md.kern.Accepts(md.x); err != nil {
		return err
	}
	n := md.x.Len()
	if md.m < 1 || md.m >= n {
		return fmt.Errorf("sgp: m=%d inducing points must satisfy 1 ≤ m < n=%d", md.m, n)
	}
	noise := md.noise
	if noise == 0 {
		noise = variance(md.y) / 4
		if !(noise > 0) {
			noise = 1e-2
		}
	}
	f, err := newFactor(md.x, md.y, md.kern, noise, md.m, md.z)
	if err != nil {
		return err
	}
	f.SetMean(md.mean.startValue(md.y))
	md.rng = rand.New(rand.NewPCG(md.seed, md.seed^0x5851f42d4c957f2d))
	active := md.inducing
	if active == nil {
		switch md.startInit() {
		case InitGreedy:
			active = greedyVariance(f, md.m)
		case InitForward:
			md.f = f
			md.forwardSelectPivots(forwardCandidates, true)
			active = f.Active(nil)
		default:
			active = md.rng.Perm(n)[:md.m]
		}
	}
	md.f = f
	md.visited = make([]int, n)
	md.replaced = 0
	if err := f.Factorize(active); err != nil {
		// Keep the non-degenerate part of the requested set, in order, and
		// fill the rest at random (a clumped start can hold more points
		// than the kernel can tell apart).
		md.replaced = md.rebuildRobust(active, true)
		if f.k == 0 {
			md.f = nil
			return fmt.Errorf("sgp: no inducing point has a non-negligible variance under the kernel")
		}
	}
	md.counter = 0
	md.trace = nil
	md.epoch = 0
	md.profile()
	if md.selector.kind == selTitsias && md.inducing == nil {
		md.forwardSelect(md.selector.s)
		md.profile()
	}
	return nil
}

// startInit returns how the initial inducing set is chosen: the one set by
// WithInit, or the selector's default (see Init).
func (md *Model) startInit() Init {
	if md.initSet {
		return md.init
	}
	switch md.selector.kind {
	case selCholQR, selHybrid:
		return InitForward
	case selGreedyVariance:
		return InitGreedy
	}
	return md.init
}

// rebuildRobust factorises the points of active that are not degenerate
// given the earlier ones, in order, and fills the set up to m with random
// points (random) or best-scoring ones. It returns how many points of
// active were left out. It cannot fail unless every point is degenerate.
func (md *Model) rebuildRobust(active []int, random bool) int {
	f := md.f
	_ = f.Factorize(nil)
	left := 0
	for _, j := range active {
		if f.k >= f.mcap || f.Add(j) != nil {
			left++
		}
	}
	n := f.n
	if random {
		for draws := 0; f.k < f.mcap && draws < 20*n; draws++ {
			if j := md.rng.IntN(n); f.pos[j] < 0 || f.pos[j] >= f.k {
				_ = f.Add(j)
			}
		}
	}
	if f.k > 0 {
		md.grow()
	}
	return left
}

// refactorKeeping rebuilds the factor for active at the current θ where
// Factorize and FactorizePivoted fail: the points numerically in the span
// of the others are left out (factorizeSkipping) and the set is refilled
// by approximate score (grow). A set that the swaps built at this θ can
// hold members whose residual given the others, computed afresh, is below
// keepTol; rebuildRobust admits points at the stricter pivotTol and lost
// 51 of 128 points at once on a 26-input set with discrete inputs, which
// raised the objective by 370 nats where these points left out cost
// nothing resolvable.
func (md *Model) refactorKeeping(active []int) {
	md.f.factorizeSkipping(active)
	md.grow()
	md.profile()
}

// greedyVariance chooses m points by a pivoted partial Cholesky: each next
// point has the largest residual variance given the previous ones.
func greedyVariance(f *factor, m int) []int {
	saveZ := f.zcap
	f.zcap = 0
	_ = f.Factorize(nil)
	f.zcap = saveZ
	active := make([]int, 0, m)
	for len(active) < m {
		best, bv := -1, 0.0
		for i, v := range f.d {
			if f.pos[i] == -1 && v > bv {
				best, bv = i, v
			}
		}
		if best < 0 || f.Add(best) != nil {
			break
		}
		active = append(active, best)
	}
	// Pad with random points if the residual vanished everywhere.
	for i := 0; len(active) < m && i < f.n; i++ {
		if f.pos[i] == -1 {
			active = append(active, i)
		}
	}
	return active
}

// variance returns the population variance of v.
func variance(v []float64) float64 {
	var mean float64
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	var s float64
	for _, x := range v {
		s += (x - mean) * (x - mean)
	}
	return s / float64(len(v))
}
