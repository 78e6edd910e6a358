package sgp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/cholqr"
	"github.com/cholqr/sgp/sgp/kernel"
)

// RanksOptions configures FitRanks.
type RanksOptions struct {
	M          int       // inducing points, 1 ≤ M ≤ n
	Objective  Objective // VAR or MLE
	MaxEpochs  int       // at most this many epochs of swaps (0: 50)
	Candidates int       // rows drawn and scored exactly per swap (0: 8)
	Seed       uint64    // seed of the draws, the same on every rank
	Mean       Mean      // the prior mean (MeanConstant by default)
	// Progress receives one line per epoch (rank 0 passes it, the
	// others nil).
	Progress io.Writer
}

// RanksResult is the outcome of FitRanks, the same on every rank except
// the counts of what this rank sent.
type RanksResult struct {
	Ranks     int     // P
	N         int     // rows over all ranks
	Inducing  []int   // the inducing set, global row indices in pivot order
	Value     float64 // the objective at the end
	Parts     Parts
	Mean      float64 // μ
	Epochs    int
	Swaps     int
	Accepted  int
	Converged bool // the last epoch accepted no swap
	Stopped   bool // the context ended the fit after an epoch
	// Messages and Bytes are what this rank sent during the swaps
	// (comm.Stats), over Swaps.
	Messages, Bytes int64
	Elapsed         time.Duration

	pred *Predictor
}

// Predictor returns the fitted model's Predictor, the same on every rank
// (built from the state every rank holds): predictions, test scores and
// the model file of a fit over ranks. Its InputNames are the names of the
// inputs the rank passed to FitRanks (nil for unnamed inputs or a rank
// without rows); set them before saving from a rank without rows.
func (r *RanksResult) Predictor() *Predictor { return r.pred }

// FitRanks fits the CholQR inducing set of a sparse GP whose rows are
// spread over the ranks of c (each rank holding rows [lo, lo+x.Len()) of
// n, comm.Span's layout; docs/scaling.md) with the hyperparameters held:
// kern's and noise σ², the same on every rank. It starts from the greedy
// variance set and runs epochs of swaps: each inducing point in turn,
// from the last to the first, is removed (no messages) and replaced by
// the best of Candidates rows drawn by the seed and the row of largest
// residual variance, scored exactly, if that lowers the objective by a
// relative 1e-9. An estimated mean is re-estimated after each epoch. It
// ends after MaxEpochs, an epoch without an accepted swap, or when ctx
// is done on some rank (checked between epochs, one reduction each).
//
// Every rank calls FitRanks with the same arguments but its own rows
// and returns the same result. The information pivots' approximate
// scores and the gradient phase in θ are not distributed: FitRanks is
// the sparse model with held hyperparameters (Model.WithFixedHyperparameters),
// its candidates drawn over the rows' global indices.
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
	if err := d.Factorize(d.GreedyVariance(o.M)); err != nil {
		return nil, err
	}
	profileRanks(d, o.Mean)
	res := &RanksResult{Ranks: c.Size(), N: n}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	for res.Epochs < o.MaxEpochs {
		if c.Any(ctx.Err() != nil) {
			res.Stopped = true
			break
		}
		before := c.Stats().Total()
		swaps, acc := d.Epoch(o.Objective, o.Candidates, rng.IntN)
		after := c.Stats().Total()
		res.Messages += after.Messages - before.Messages
		res.Bytes += after.Bytes - before.Bytes
		res.Epochs++
		res.Swaps += swaps
		res.Accepted += acc
		profileRanks(d, o.Mean)
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "epoch %3d  %v %.6g  swaps %d/%d  (%d ranks)  %.2fs\n",
				res.Epochs, o.Objective, d.Value(o.Objective), acc, swaps, c.Size(), time.Since(start).Seconds())
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

// profileRanks sets an estimated mean to its minimiser for the current
// inducing set.
func profileRanks(d *cholqr.Dist, mn Mean) {
	if mn.Estimated() {
		d.SetMean(d.MAPMean())
	}
}
