package cholqr

import (
	"testing"

	"github.com/cholqr/sgp/sgp/internal/layers"
)

// fileLayers lists the package's files from its foundations up, with
// what each holds: a file refers only to the files before it.
var fileLayers = []string{
	"doc.go",          // the package documentation, the panic messages
	"factor.go",       // the factored state: storage, accessors, the objective read off it
	"gs.go",           // Gram–Schmidt orthogonalisation of a new column against Q
	"pivot.go",        // appending a pivot to the partial Cholesky factor
	"factor_block.go", // factorising an inducing set by blocks
	"knownnoise.go",   // known per-point noise: the scaled problem's weights
	"factorize.go",    // creating and factorising the state
	"score.go",        // approximate scores through the information pivots
	"score_exact.go",  // exact scores of candidates in batches
	"swap.go",         // moving, removing and adding pivots; a swap
	"view.go",         // the views of the state: for inspection, prediction, the gradient phase
	"select.go",       // the selections: greedy variance, forward selection, refill; the cost ranking
	"dist.go",         // the state over one rank's rows (Dist): storage, the order, the objective, appending a pivot, greedy pivots
	"dist_move.go",    // Dist's message-free moves of pivots, the removal to the park and its restoring
	"dist_update.go",  // Dist's Gram–Schmidt, Factorize, placing a candidate, Add, addNoQ, ExactDelta, Remove
	"dist_score.go",   // Dist's approximate scores, random pivots, exact scores of candidates in batches
	"dist_swap.go",    // Dist's Swap (Factor's), its prediction, SwapWith
	"dist_select.go",  // Dist's GreedyVariance, ForwardSelect, Grow, the rebuilds of a clumped set
	"dist_fit.go",     // Dist's mean and its estimates, the storage lent, SetParams
	"dist_view.go",    // Dist's replicated factors for a predictor
}

// TestFileLayers checks that no file refers to a file after it in
// fileLayers, and that every file is listed.
func TestFileLayers(t *testing.T) {
	t.Parallel()
	layers.Check(t, ".", fileLayers)
}
