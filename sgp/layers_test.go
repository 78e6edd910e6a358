package sgp

import (
	"testing"

	"github.com/cholqr/sgp/sgp/internal/layers"
)

// fileLayers lists the package's files from its foundations up, with
// what each holds: a file refers only to the files before it.
var fileLayers = []string{
	"doc.go",             // the package documentation
	"blas.go",            // the dense linear-algebra backend in use
	"errors.go",          // errors, panics turned into errors
	"status.go",          // how a fit ended: Status, the FitSummary every fit reports
	"progress.go",        // when a long phase writes its next progress line
	"parts.go",           // the objectives and their terms, the counters
	"metrics.go",         // SMSE, SNLP and test scores
	"mean.go",            // the prior mean
	"rowsums.go",         // sums over a rank's rows in blocks, added in global block order
	"hyperparameters.go", // hyperparameters by name
	"constraints.go",     // hyperparameters fixed or bounded by name: the optimiser's coordinates
	"trace.go",           // the record of an epoch, the trace
	"noisefloor.go",      // the least noise variance a fit may reach
	"options.go",         // the options the builders share: their validators, the starting noise
	"starts.go",          // restarts: the starts drawn around the data's, fitted in turn
	"startcheck.go",      // the ranges a fit's start must be in
	"canonical.go",       // the canonical order of the rows, in one process or across ranks
	"units.go",           // what keeps the fits independent of the data's units and row order
	"kmeans.go",          // k-means centres of the inputs
	"objective.go",       // the Evaluator: an objective and its gradient in θ
	"objective_dist.go",  // the Evaluator on one rank of a distributed fit
	"optimize.go",        // the gonum/optimize adapters: the CG problem, line search, step sizes, recorders
	"predict.go",         // the Predictor
	"predict_cov.go",     // the joint posterior of a sparse model: covariance, draws
	"predict_grad.go",    // the gradients of the predictions in the test input
	"knownnoise.go",      // known per-point noise variances: their checks
	"exact.go",           // the exact GP
	"exact_cov.go",       // the exact GP's joint posterior and gradients
	"noisevar.go",        // known per-point noise variances of the exact GP
	"default.go",         // the default fit: the exact GP wherever it is affordable
	"sgpr_noise_eval.go", // the continuous SGPR objective with known per-point noise variances
	"sgpr.go",            // SGPR with continuous inducing inputs
	"sgpr_noise.go",      // continuous SGPR with known per-point noise variances
	"selector.go",        // the rules that choose inducing points
	"swappass.go",        // the pass of swaps an epoch runs, on either engine
	"model.go",           // the Model and its configuration
	"model_noise.go",     // the Model with known per-point noise variances
	"fixing.go",          // hyperparameters fixed or bounded one by one: the builders' options, the model's start
	"run.go",             // the state of one Fit or Step, how it ended
	"params.go",          // the model's hyperparameters and prior mean, read without building
	"start.go",           // building the model: its starting inducing set
	"epoch.go",           // one epoch: the gradient phase and the swaps
	"epochs.go",          // epochs until a stop rule; the restart from MLE
	"switchon.go",        // switching back on inputs whose lengthscales grew too long
	"subset.go",          // a fit of a subset of the data: the Result
	"hybrid.go",          // the hybrid selector's continuous refinement
	"fit.go",             // Fit, Step and Swap
	"ranks_options.go",   // FitRanks' options and result
	"ranks_predict.go",   // the Predictor of a fit over ranks, from the replicated state
	"ranks_grad.go",      // FitRanks' gradient phase: the hyperparameters learned over the ranks
	"ranks_start.go",     // what a fit over ranks takes from the data: the kernel's spread, σ², the noise floor
	"ranks.go",           // FitRanks: the CholQR fit over the ranks of a comm
	"factor_view.go",     // the read-only view of the factored state
	"state.go",           // the model's state read after building it
	"model_predict.go",   // the model's predictions and test scores
	"model_posterior.go", // the model's joint posterior and gradients
	"ranking.go",         // the exact and approximate costs of the candidates
	"persist_decode.go",  // reading a model file as a bounded token stream
	"persist.go",         // saving and loading the sparse model
	"persist_exact.go",   // saving and loading the exact GP
	"regressor.go",       // Regressor: a fitted model of either kind, and reading either kind
	"display.go",         // text and HTML displays
	"compare.go",         // models side by side
}

// TestFileLayers checks that no file refers to a file after it in
// fileLayers, and that every file is listed.
func TestFileLayers(t *testing.T) {
	t.Parallel()
	layers.Check(t, ".", fileLayers)
}
