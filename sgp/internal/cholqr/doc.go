// Package cholqr is the CholQR engine of Cao et al. (2013): the factored
// state of a sparse GP whose inducing set I is chosen among the training
// points, and the updates that add, remove and swap its points in
// O(n·(k+z)) passes over its rows instead of refactorising in O(n·k²). Package sgp's
// Model drives it; nothing outside the engine reads its storage.
//
// # The state
//
// Factor holds, for n training points, an ordered inducing set of k ≤ m
// points and z information pivots (see Factor for the definitions):
//
//	G  n×(k+z)  partial Cholesky factor of K, pivots I then the information pivots
//	d  n        residual variances after them
//	Q R         thin QR of [G[:, :k]; σI_k]
//	a, b  k     Q[:n,:]ᵀ(y − μ) and Q[:n,:]ᵀ1
//
// It is one type with O(n·(m+z)) storage in row blocks (G, d, the first n
// rows of Q, the targets) and O((m+z)²) small state (R, A = GᵀG, the
// information-pivot work). Every pass over the rows splits them into
// chunks fixed by n alone and adds the chunks' partial sums in order
// (package par, rowChunks), so results do not depend on the core count.
//
// # The methods, by file
//
//	factor.go        the state, its sizes and accessors, the objective read
//	                 off it: Parts, Value, SetMean, GLSMean, MAPMean
//	gs.go            Gram–Schmidt of a new column against Q (a second
//	                 projection only where the first loses orthogonality),
//	                 the row chunks of the passes
//	pivot.go         appending and dropping a pivot column of G
//	factor_block.go  factorising a set by blocks of columns
//	knownnoise.go    known per-point noise (SetKnownNoise): the scaled
//	                 problem's row weights, σ² behind them
//	factorize.go     New; Factorize, FactorizePivoted, FactorizeSkipping,
//	                 Refactorize (the drift), SetNoise, Clone
//	score.go         approximate scores through the information pivots
//	                 (ApproxDeltasTo; Cao et al. 2013, §4)
//	score_exact.go   exact scores of candidates in batches
//	swap.go          moving pivots; Add, Remove, ExactDelta, Swap (whose
//	                 exact check can be predicted without a pass over Q),
//	                 RefreshInfo, RefreshInfoGreedy
//	view.go          copies for inspection (GMatrix, QMatrix, RMatrix, QtY),
//	                 for prediction (InducingFactors), and the few setters
//	                 and readers the model's driver needs (SetPrior,
//	                 SetNoiseOnly, Lend, Pos, RecordDrift, …)
//	select.go        the selections that run on the state: GreedyVariance,
//	                 ForwardSelect (Titsias 2009; CholQR's forward start),
//	                 Grow, FactorizeFrom, and CostRanking
//	dist.go          Dist: the state over one rank's rows of an MPI job
//	                 (package comm), its sums in global block order, the
//	                 canonical order and its ties across ranks, the
//	                 objective, appending a pivot by its owner's
//	                 broadcast, the greedy information pivots
//	dist_move.go     Dist's moves of pivots without messages, the
//	                 removal to the park and its restoring
//	dist_update.go   Dist's Gram–Schmidt, Factorize, placing a candidate,
//	                 Add, addNoQ, ExactDelta, Remove
//	dist_score.go    Dist's approximate scores (the best one's row,
//	                 ApproxDeltasTo on this rank's rows), random information
//	                 pivots (RefreshInfo, RefreshInfoGreedy), exact
//	                 scores of candidates in batches
//	dist_swap.go     Dist's Swap (Factor's), its prediction, SwapWith
//	dist_select.go   Dist's GreedyVariance, ForwardSelect, Grow,
//	                 FactorizeFrom, FactorizePivoted, FactorizeSkipping
//	dist_fit.go      Dist's mean and its estimates, the storage lent to
//	                 the gradient phase, SetParams
//	dist_view.go     Dist's replicated factors for a predictor
//
// What the engine shares with the models (objectives, Parts, Stats,
// SwapResult, the mean's prior, the kernel row helpers, the errors) is in
// package base, below both.
package cholqr

// Panic messages for programmer errors.
const (
	errBadFactor = "sgp: use of a Factor without a successful Factorize"
	errIndex     = "sgp: index out of range"
	errFull      = "sgp: inducing set is full"
	errNotActive = "sgp: point is not in the inducing set"
	errIsActive  = "sgp: point is already in the inducing set"
)
