package sgp

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// RanksOptions configures FitRanks.
type RanksOptions struct {
	M         int       // inducing points, 1 ≤ M ≤ n
	Z         int       // information pivots (0: 16, Model's default)
	Objective Objective // VAR or MLE
	MaxEpochs int       // at most this many epochs (0: 50, Model's)
	// Tol ends the fit after an epoch that lowers the objective by less
	// than Tol times its scale (cholqr.Dist.ValueScale; 0: 1e-4, Model's).
	Tol float64
	// Greedy starts from the greedy variance set instead of the forward
	// selection with information pivots that Model's CholQR starts from.
	Greedy bool
	Seed   uint64 // Model's seed (WithSeed): the same draws as Model's fit
	Mean   Mean   // the prior mean (MeanConstant by default)
	// Progress receives one line per epoch (rank 0 passes it, the
	// others nil).
	Progress io.Writer
	// Learn learns the hyperparameters in a gradient phase before each
	// epoch's swaps (ranks_grad.go), but those named in Fixed (kernel
	// parameter names and "noise"), which are held at their start.
	Learn bool
	Fixed []string
	// CGEvals bounds the evaluations of each gradient phase (0:
	// min(20, max(15, 2·#θ)), as Model's); NoiseFloor is the least σ²
	// it may reach (0: Model's default from every rank's rows, 10⁻⁶ of
	// the targets' variance around a quadratic trend in the inputs, at
	// least 10⁻⁹ of their variance; ranks_start.go).
	CGEvals    int
	NoiseFloor float64
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
	Converged bool // the last epoch lowered the objective by less than Tol
	// Stopped reports that the context ended the fit, before a swap:
	// Epochs counts the complete epochs, Swaps and Accepted those of an
	// epoch cut short too.
	Stopped bool
	// Messages and Bytes are what this rank sent during the swaps
	// (comm.Stats), over Swaps.
	Messages, Bytes int64
	Elapsed         time.Duration

	// Hyperparameters are the kernel's and σ² at the end; CGEvals the
	// gradient phases' evaluations over all epochs, CGStatus how the
	// last one ended (CGSkipped with the hyperparameters held); Start
	// the objective of the starting set at the starting θ.
	Hyperparameters Hyperparameters
	CGEvals         int
	CGStatus        CGStop
	Start           float64

	// StartHyperparameters are the kernel's and σ² at the start (σ²
	// from the data where FitRanks was passed 0), StartMean μ's start
	// (the targets' mean ȳ for an estimated mean, as Model's, or the
	// fixed mean); NoiseFloor is
	// the least σ² the gradient phases could reach and AtNoiseFloor
	// whether the learned σ² ended at it (within a factor 1.05, as
	// Model's FitSummary.AtNoiseFloor).
	StartHyperparameters Hyperparameters
	StartMean            float64
	NoiseFloor           float64
	AtNoiseFloor         bool

	pred *Predictor
}

// Predictor returns the fitted model's Predictor, the same on every rank
// (built from the state every rank holds): predictions, test scores and
// the model file of a fit over ranks. Its InputNames are the names of the
// inputs the rank passed to FitRanks (nil for unnamed inputs or a rank
// without rows); set them before saving from a rank without rows.
func (r *RanksResult) Predictor() *Predictor { return r.pred }

// defaults checks o and sets its defaults, Model's.
func (o *RanksOptions) defaults() error {
	if o.Objective != VAR && o.Objective != MLE {
		return errors.New("sgp: FitRanks minimises VAR or MLE")
	}
	if o.MaxEpochs == 0 {
		o.MaxEpochs = 50
	}
	if o.Z == 0 {
		o.Z = 16
	}
	if o.Tol == 0 {
		o.Tol = 1e-4
	}
	if o.MaxEpochs < 0 || o.Z < 0 || !(o.Tol > 0) {
		return fmt.Errorf("sgp: FitRanks: %d epochs, %d information pivots and tolerance %v must be positive", o.MaxEpochs, o.Z, o.Tol)
	}
	return nil
}
