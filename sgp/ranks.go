package sgp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/cholqr"
	"github.com/cholqr/sgp/sgp/kernel"
)

// FitRanks fits the CholQR inducing set of a sparse GP whose rows are
// spread over the ranks of c (each rank holding rows [lo, lo+x.Len()) of
// n, comm.Span's layout; docs/scaling.md), from kern's hyperparameters
// and noise σ² (0: from the data, as Model's; ranks_start.go), the same
// on every rank, held unless o.Learn. It runs
// Model's CholQR fit on the distributed engine (cholqr.Dist), step for
// step: the rows in the canonical order (canonicalOrder), the forward
// start with information pivots (or the greedy variance start), then
// epochs of a pass of swaps over the inducing set, those visited longest
// ago first, each proposing the best candidate by the information
// pivots' approximate scores and keeping it if the exact objective falls
// (swapPass, as Model's epochs), until an epoch lowers the objective by
// less than o.Tol relative to its scale, MaxEpochs, or ctx is done on
// some rank (checked before each swap, one reduction each). With the
// hyperparameters held and the same seed, M, Z, mean and objective it
// makes the swaps Model.Fit makes with WithFixedHyperparameters, to the
// last bits of the sums. With o.Learn each epoch starts with a gradient
// phase in the hyperparameters not in o.Fixed (ranksGrad.phase); Model's
// restarts from MLE and its switch-back of lengthscales are not run.
//
// Every rank calls FitRanks with the same arguments but its own rows
// and returns the same result.
func FitRanks(ctx context.Context, c *comm.Comm, x *kernel.Vectors, y []float64, lo, n int, kern kernel.Kernel, noise float64, o RanksOptions) (_ *RanksResult, err error) {
	defer base.RecoverTo(&err)
	if err := o.defaults(); err != nil {
		return nil, err
	}
	start := time.Now()
	st, err := startRanks(c, x, y, lo, n, kern, noise, &o)
	if err != nil {
		return nil, err
	}
	noise = st.noise
	d, err := cholqr.NewDist(c, x, y, lo, n, kern, noise, o.M, o.Z)
	if err != nil {
		return nil, err
	}
	ybar, vary := d.TargetMoments()
	d.SetPrior(o.Mean.priorFrom(ybar, vary))
	d.SetMean(o.Mean.startFrom(ybar))
	d.SetOrder(canonicalOrder(c, x, y, lo, n, st.dim))
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x5851f42d4c957f2d)) // Model's streams (buildContext)
	stopped := func() error {
		if c.Any(ctx.Err() != nil) {
			return context.Canceled
		}
		return nil
	}
	if err := startSet(ctx, d, &o, rng, stopped); err != nil {
		return nil, err
	}
	profileRanks(d, o.Mean)
	grad, err := newRanksGrad(c, x, y, lo, kern, noise, st.floor, &o)
	if err != nil {
		return nil, err
	}
	res := &RanksResult{Ranks: c.Size(), N: n, Start: d.Value(o.Objective), CGStatus: CGSkipped}
	if err := ranksEpochs(ctx, d, grad, &o, rng, stopped, res, start); err != nil {
		return nil, err
	}
	res.Inducing = d.Active(nil)
	res.Parts = d.Parts()
	res.Value = res.Parts.Value(o.Objective)
	res.Mean = d.Mean()
	if grad != nil {
		noise = grad.noise
	}
	res.Hyperparameters = newHyperparameters(append(kern.ParamNames(), "noise"), append(kern.Params(nil), math.Log(noise)))
	res.Hyperparameters.Values[kern.NumParams()] = noise // σ² exactly, not exp(log σ²)
	st.finish(res, kern, grad)
	var names []string
	if x != nil {
		names = x.Names()
	}
	if res.pred, err = ranksPredictor(d, names); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// startSet chooses and factorises the starting inducing set as
// Model.buildContext does for CholQR: forward selection with information
// pivots (forwardCandidates random candidates a step), its rest drawn at
// random when stopped, or the greedy variance set with o.Greedy; a set
// the kernel cannot hold whole keeps its non-degenerate part and is
// filled as Model's.
func startSet(ctx context.Context, d *cholqr.Dist, o *RanksOptions, rng *rand.Rand, stopped func() error) error {
	var active []int
	if o.Greedy {
		active = d.GreedyVariance(o.M)
	} else {
		// The start stops where some rank's ctx is done (one Any a
		// step): a context of each rank's own would stop the ranks at
		// different steps.
		sctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		tick := newTicker(o.Progress != nil, 0) // rank 0's alone
		progress := func(k int) {
			if stopped() != nil {
				cancel()
			}
			if tick.due() {
				fmt.Fprintf(o.Progress, "start: %d of %d inducing points chosen by forward selection, %.0f s (%d ranks)\n",
					k, o.M, tick.elapsed().Seconds(), d.Comm().Size())
			}
		}
		d.ForwardSelect(sctx, o.M, forwardCandidates, true, o.Objective, rng.IntN, progress)
		active = d.Active(nil)
		if sctx.Err() != nil {
			for _, p := range rng.Perm(d.N()) {
				if len(active) >= o.M {
					break
				}
				if j := d.AtPos(p); !d.IsActive(j) {
					active = append(active, j)
				}
			}
		}
	}
	if err := d.Factorize(active); err != nil {
		// As Model's build (rebuildRobust): the non-degenerate part of
		// the set, in order, filled at random, then by score.
		d.FactorizeFrom(active, rng.IntN)
		if d.NumActive() == 0 {
			return errors.New("sgp: no inducing point has a non-negligible variance under the kernel")
		}
		d.Grow(o.Objective, nil)
	}
	return nil
}

// ranksEpochs runs FitRanks' epochs into res: the gradient phase if
// grad is not nil, the refill of a set below M (Grow), and a pass of
// swaps over the whole set, until the stop rule of Model's epochs.
func ranksEpochs(ctx context.Context, d *cholqr.Dist, grad *ranksGrad, o *RanksOptions, rng *rand.Rand, stopped func() error, res *RanksResult, start time.Time) error {
	v := newVisits()
	prev := d.Value(o.Objective)
	profile := func() { profileRanks(d, o.Mean) }
	for res.Epochs < o.MaxEpochs {
		epochStart := time.Now()
		if stopped() != nil {
			res.Stopped = true
			return nil
		}
		if grad != nil {
			if err := grad.phase(ctx, d); err != nil {
				return err
			}
			profile()
			res.CGEvals, res.CGStatus = grad.evals, grad.status
		}
		if d.Grow(o.Objective, v.mark) > 0 {
			profile()
		}
		before := d.Comm().Stats().Total()
		order := v.order(d.Active(nil), rng, d.NumActive())
		swaps, acc, err := swapPass(d, order, o.Objective, rng, v, stopped, profile, nil)
		after := d.Comm().Stats().Total()
		res.Messages += after.Messages - before.Messages
		res.Bytes += after.Bytes - before.Bytes
		res.Swaps += swaps
		res.Accepted += acc
		if err != nil {
			res.Stopped = true
			return nil
		}
		res.Epochs++
		value := d.Value(o.Objective)
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "epoch %3d  %v %.6g  swaps %d/%d  (%d ranks)  %.2fs (fit %.2fs)\n",
				res.Epochs, o.Objective, value, acc, swaps, d.Comm().Size(), time.Since(epochStart).Seconds(), time.Since(start).Seconds())
		}
		if prev-value < o.Tol*d.ValueScale(prev) {
			res.Converged = true
			return nil
		}
		prev = value
	}
	return nil
}
