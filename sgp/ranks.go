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
// on every rank, held unless o.Learn. It starts from the greedy
// variance set and runs epochs of swaps: each inducing point in turn,
// from the last to the first, is removed (no messages) and replaced by
// the best of Candidates rows drawn by the seed and the row of largest
// residual variance, scored exactly, if that lowers the objective by a
// relative 1e-9; with o.Learn each epoch starts with a gradient phase
// in the hyperparameters not in o.Fixed, as Model's (ranksGrad.phase).
// An estimated mean is re-estimated after each epoch. It
// ends after MaxEpochs, an epoch without an accepted swap, or when ctx
// is done on some rank (checked before each swap and each evaluation of
// the gradient phase, one reduction each: ranksEpoch).
//
// Every rank calls FitRanks with the same arguments but its own rows
// and returns the same result. The information pivots' approximate
// scores are not distributed: FitRanks' swaps score candidates drawn
// over the rows' global indices exactly.
func FitRanks(ctx context.Context, c *comm.Comm, x *kernel.Vectors, y []float64, lo, n int, kern kernel.Kernel, noise float64, o RanksOptions) (_ *RanksResult, err error) {
	defer base.RecoverTo(&err)
	if o.Objective != VAR && o.Objective != MLE {
		return nil, errors.New("sgp: FitRanks minimises VAR or MLE")
	}
	if o.MaxEpochs == 0 {
		o.MaxEpochs = 50
	}
	if o.Candidates == 0 {
		o.Candidates = 8
	}
	if o.MaxEpochs < 0 || o.Candidates < 0 {
		return nil, fmt.Errorf("sgp: FitRanks: %d epochs and %d candidates must not be negative", o.MaxEpochs, o.Candidates)
	}
	start := time.Now()
	st, err := startRanks(c, x, y, lo, n, kern, noise, &o)
	if err != nil {
		return nil, err
	}
	noise = st.noise
	d, err := startDist(c, x, y, lo, n, kern, noise, &o)
	if err != nil {
		return nil, err
	}
	grad, err := newRanksGrad(c, x, y, lo, kern, noise, st.floor, &o)
	if err != nil {
		return nil, err
	}
	res := &RanksResult{Ranks: c.Size(), N: n, Start: d.Value(o.Objective), CGStatus: CGSkipped}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	for res.Epochs < o.MaxEpochs {
		if c.Any(ctx.Err() != nil) {
			res.Stopped = true
			break
		}
		if grad != nil {
			if err := grad.phase(ctx, d); err != nil {
				return nil, err
			}
			profileRanks(d, o.Mean)
			res.CGEvals, res.CGStatus = grad.evals, grad.status
		}
		swaps, acc, cut, sent := ranksEpoch(ctx, c, d, o.Objective, o.Candidates, rng.IntN)
		res.Messages += sent.Messages
		res.Bytes += sent.Bytes
		res.Swaps += swaps
		res.Accepted += acc
		profileRanks(d, o.Mean)
		if cut {
			res.Stopped = true
			break
		}
		res.Epochs++
		// Value is a reduction: every rank takes it, whether it prints
		// the progress line (rank 0) or not.
		value := d.Value(o.Objective)
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "epoch %3d  %v %.6g  swaps %d/%d  (%d ranks)  %.2fs\n",
				res.Epochs, o.Objective, value, acc, swaps, c.Size(), time.Since(start).Seconds())
		}
		if acc == 0 {
			res.Converged = true
			break
		}
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

// startDist returns FitRanks' factored state at its start: the prior
// mean set as Model's build sets it, and the greedy variance set.
func startDist(c *comm.Comm, x *kernel.Vectors, y []float64, lo, n int, kern kernel.Kernel, noise float64, o *RanksOptions) (*cholqr.Dist, error) {
	d, err := cholqr.NewDist(c, x, y, lo, n, kern, noise, o.M)
	if err != nil {
		return nil, err
	}
	ybar, vary := d.TargetMoments()
	switch o.Mean.kind {
	case meanConstant:
		d.SetPrior(base.MeanPrior{On: true, Ybar: ybar, Tau2: vary})
		d.SetMean(ybar)
	case meanGLS:
		d.SetMean(ybar)
	default:
		d.SetMean(o.Mean.fixedValue())
	}
	// GreedyVariance leaves factorised the points the kernel tells apart
	// and pads the set with rows it need not: the fit keeps the former,
	// as Model keeps fewer than m points where no more qualify.
	set := d.GreedyVariance(o.M)
	if err := d.Factorize(set[:max(1, d.NumActive())]); err != nil {
		return nil, err
	}
	profileRanks(d, o.Mean)
	return d, nil
}

// profileRanks sets an estimated mean to its minimiser for the current
// inducing set.
func profileRanks(d *cholqr.Dist, mn Mean) {
	if mn.Estimated() {
		d.SetMean(d.MAPMean())
	}
}
