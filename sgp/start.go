package sgp

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/cholqr/sgp/sgp/internal/cholqr"
)

// build creates the factored state if needed.
func (md *Model) build() error { return md.buildContext(context.Background()) }

// buildContext creates the factored state if needed: the starting
// inducing set (see Init) and its factorisation. Once ctx is done, the
// forward-selection start chooses the rest of its points at random, so
// that the model is built all the same.
func (md *Model) buildContext(ctx context.Context) error {
	if err := md.validate(); err != nil {
		return err
	}
	if md.f != nil {
		if md.stale {
			active := append([]int(nil), md.f.LastFactorized()...)
			if md.f.Ready() {
				active = md.f.Active(nil)
			}
			if err := md.f.Factorize(active); err != nil {
				return fmt.Errorf("sgp: refactorising after an earlier failure: %w", err)
			}
			md.stale = false
		}
		return nil
	}
	// A build that does not finish (an error, a panic of the kernel)
	// leaves the model unbuilt.
	built := false
	defer func() {
		if !built {
			md.f = nil
		}
	}()
	n := md.x.Len()
	noise := md.noise
	if noise == 0 {
		noise = startNoise(md.y)
	}
	if floor := md.floor(); !md.noiseFixed() && (md.noise == 0 || md.noiseFloor > 0) && noise <= floor {
		// A fit keeps σ² above the floor; a start at or below it (the
		// default start, or one set below a floor set) starts at twice
		// it, as paramMap.toX starts the gradient phase, so that a fit
		// that stops at its start does not end below the floor.
		noise = 2 * floor
	}
	noise, err := md.constrainStart(noise)
	if err != nil {
		return err
	}
	if err := checkStart(md.x, md.kern, noise, md.y, md.mean); err != nil {
		return err
	}
	f, err := md.newFactor(noise)
	if err != nil {
		return err
	}
	md.rng = rand.New(rand.NewPCG(md.seed, md.seed^0x5851f42d4c957f2d))
	active := md.inducing
	if active == nil {
		switch md.startInit() {
		case InitGreedy:
			active = f.GreedyVariance(md.m)
		case InitForward:
			md.f = f
			md.forwardSelectPivots(ctx, forwardCandidates, true, md.obj)
			active = f.Active(nil)
			if ctx.Err() != nil {
				// Cancelled: the rest of the set at random, so that the
				// model is built and a cancelled Fit reports its state.
				for _, p := range md.rng.Perm(n) {
					if len(active) >= md.m {
						break
					}
					j := f.AtPos(p)
					if !f.IsActive(j) {
						active = append(active, j)
					}
				}
			}
		default:
			active = md.rng.Perm(n)[:md.m]
			for i, p := range active {
				active[i] = f.AtPos(p)
			}
		}
	}
	md.f = f
	md.visits = newVisits()
	md.replaced = 0
	if err := f.Factorize(active); err != nil {
		// Keep the non-degenerate part of the requested set, in order, and
		// fill the rest at random (a clumped start can hold more points
		// than the kernel can tell apart).
		md.replaced = md.rebuildRobust(active, true, md.obj)
		if f.NumActive() == 0 {
			return fmt.Errorf("sgp: no inducing point has a non-negligible variance under the kernel")
		}
	}
	md.trace = nil
	md.epoch = 0
	md.profile()
	if md.selector.kind == selTitsias && md.inducing == nil {
		md.forwardSelect(md.selector.s, md.obj)
		md.profile()
	}
	built = true
	return nil
}

// newFactor returns the model's factor at σ² = noise, not yet
// factorised: its known noise variances, the mean's prior and start, and
// the rows' canonical order set.
func (md *Model) newFactor(noise float64) (*cholqr.Factor, error) {
	f, err := cholqr.New(md.x, md.y, md.kern, noise, md.m, md.z)
	if err != nil {
		return nil, err
	}
	if md.s2 != nil {
		if err := f.SetKnownNoise(md.s2); err != nil {
			return nil, err
		}
	}
	f.SetPrior(md.mean.prior(md.y))
	f.SetOrder(canonicalRows(md.x, md.y))
	f.SetMean(md.mean.startValue(md.y))
	return f, nil
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
func (md *Model) rebuildRobust(active []int, random bool, obj Objective) int {
	var rnd func(int) int
	if random {
		rnd = md.rng.IntN
	}
	left := md.f.FactorizeFrom(active, rnd)
	if md.f.NumActive() > 0 {
		md.grow(obj)
	}
	return left
}

// refactorKeeping rebuilds the factor for active at the current θ where
// Factorize and FactorizePivoted fail: the points numerically in the span
// of the others are left out (cholqr.Factor.FactorizeSkipping) and the set is refilled
// by approximate score (grow). A set that the swaps built at this θ can
// hold members whose residual given the others, computed afresh, is below
// keepTol; rebuildRobust admits points at the stricter pivotTol and can
// lose many of them at once, raising the objective, where leaving out
// only the points in the span of the others costs nothing resolvable.
func (md *Model) refactorKeeping(active []int, obj Objective) {
	md.f.FactorizeSkipping(active)
	md.grow(obj)
	md.profile()
}

// forwardSelect rebuilds the inducing set by Titsias' (2009) greedy
// forward selection: starting empty, m times it scores s candidates drawn
// uniformly from the points not yet chosen exactly (ExactDelta, O(n·k)
// each) and adds the best. Cost O(s·n·m²) and s·m kernel columns.
func (md *Model) forwardSelect(s int, obj Objective) int {
	return md.forwardSelectPivots(context.Background(), s, false, obj)
}

// forwardCandidates is the number of random candidates scored exactly per
// step of CholQR's forward start (InitForward), as in Titsias-16.
const forwardCandidates = 16

// forwardSelectPivots is forwardSelect that, with pivots set, also scores
// exactly the candidate with the best approximate score of the
// information pivots (Cao et al. 2013, §4): CholQR's forward start
// (InitForward), which build factorises again afterwards (see
// cholqr.Factor.ForwardSelect). It reports its progress on the model's
// progress writer.
func (md *Model) forwardSelectPivots(ctx context.Context, s int, pivots bool, obj Objective) int {
	tick := md.ticker()
	progress := func(k int) {
		if tick.due() {
			fmt.Fprintf(md.progress, "start: %d of %d inducing points chosen by forward selection, %.0f s\n", k, md.m, tick.elapsed().Seconds())
		}
	}
	return md.f.ForwardSelect(ctx, md.m, s, pivots, obj, md.rng.IntN, progress)
}

// grow adds inducing points while there are fewer than m, each time the
// candidate with the best approximate score for obj, marks them visited,
// and returns how many it added (cholqr.Factor.Grow).
func (md *Model) grow(obj Objective) int {
	return md.f.Grow(obj, md.visits.mark)
}

// Build builds the model's state if it is not built yet: it chooses the
// starting inducing set (see Init; the forward-selection start scores
// candidates exactly, O(m²·n) in all) and factorises it. Once ctx is
// done, the forward-selection start chooses the rest of its points at
// random, and Build returns ctx's error with the model built. Fit builds
// a model that is not yet built itself, counting the time in its budget;
// Build is for inspecting the start (Inducing, Value, Factor) before
// fitting.
func (md *Model) Build(ctx context.Context) (err error) {
	defer md.recoverPanic(&err)
	if err := md.buildContext(ctx); err != nil {
		return err
	}
	return ctx.Err()
}
