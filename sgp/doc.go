// Package sgp implements sparse Gaussian-process regression whose inducing
// points are a subset of the training data, optimised by CholQR (Cao,
// Brubaker, Fleet and Hertzmann, "Efficient Optimization for Sparse
// Gaussian Process Regression", NIPS 2013; IEEE TPAMI 37(12), 2015).
//
// # Packages
//
// Where a change belongs, by the one job of each package:
//
//	sgp                      the model: the factored state and its swaps,
//	                         scores, objectives and gradients, the Model
//	                         driven by Swap, Step and Fit, the exact GP and
//	                         continuous SGPR, prediction, persistence; its
//	                         files, from the foundations up, are listed in
//	                         layers_test.go
//	sgp/kernel               kernels and their inputs, the optional
//	                         interfaces of the engine's fast paths, the
//	                         kernels' JSON form
//	sgp/data                 data sets: CSV reading, the shared sets'
//	                         loaders, synthetic sets
//	sgp/figure               gonum/plot figures of models, cost rankings,
//	                         traces, curves and parity plots (a program that
//	                         only fits does not link the plotting stack)
//	sgp/mol                  SMILES → molecular graphs, molecule CSV loaders,
//	                         table cells → inputs for a kernel
//	sgp/outfile              how every output file is written
//	sgp/internal/asm         assembly kernels and their Go fallbacks
//	sgp/internal/par         row-parallel ranges, ordered reductions, the
//	                         worker pool, panics raised on the caller
//	sgp/internal/linalg      level-3 BLAS: OpenBLAS opened at run time, or
//	                         blocked pure Go (SGP_BLAS)
//	sgp/internal/naive       the dense O(n³) oracle of the tests
//	sgp/internal/kerneltest  the conformance suite every kernel passes
//	repl                     the interactive Session on yaegi: evaluate cells,
//	                         render values, complete, inspect, interrupt
//	repl/terminal            the terminal REPL and scripts (run, -e)
//	repl/jupyter             the Jupyter kernel: wire protocol, output capture,
//	                         kernel spec installation
//	symbols                  yaegi export tables (go generate ./symbols/...)
//	cmd/sgprepl              the binary; its subcommands and flags are in
//	                         cmd/sgprepl/internal/cli
//	notebooks                tutorial notebooks, executed by go test
//
// # Overview
//
// A Model is built from inputs (any kernel.Inputs: vectors, or discrete
// objects through their own kernels), targets and a kernel.Kernel,
// configured fluently (WithM, WithObjective, WithSeed, …) and driven by
// Swap (one swap of an inducing point), Step (one epoch) or Fit (until a
// stop rule). Predict,
// Evaluate and Save work on the fitted state; Predictor, a snapshot for
// prediction alone, has the same prediction methods and loads from a
// saved file. Trace, Result, Predictor and Comparison (fitted models side
// by side with their test scores) print as aligned tables and render as
// HTML tables in notebooks.
//
// Beneath the Model, three exported pieces are for research rather than
// everyday fitting: Factor, a read-only view of the factored state, for
// inspection; Evaluator, the objective and its gradient with
// respect to θ for a fixed inducing set (gradient checks, other
// optimisers; Fit's continuous phase uses it); and Stats, the counters
// of work and numerical events (clamped residuals, drift) that Factor,
// Model and Result report.
//
// # Model
//
// With inducing set I (|I| = k ≤ m) and the Nyström approximation
// K̂ = K[:,I] K[I,I]⁻¹ K[I,:], the two objectives, both minimised and both
// including n/2·log 2π so that they compare with GPflow's −ELBO and
// −log marginal likelihood, are
//
//	MLE (projected process, DTC):  F = ½yᵀ(K̂+σ²I)⁻¹y + ½log|K̂+σ²I| + n/2·log 2π
//	VAR (Titsias 2009):            F = MLE + ½σ⁻²tr(K − K̂)
//
// # Algorithm
//
// The state (Factor) holds the partial Cholesky factor G of K with pivots I
// then the information pivots P, the residual variances d, the thin QR
// factorisation [G_I; σI] = QR and a = Q[:n,:]ᵀy; the objective is read off
// them in O(n + k). Removing an inducing point moves it to the end by
// adjacent transpositions, each restored by a 2×2 rotation of G and Q (the
// isotropic σI block absorbs the rotation); adding one appends a Cholesky
// column and orthogonalises it against Q. Both cost O(n·(k+z)) and do not
// allocate. Every candidate's decrease of F is approximated through the z
// information pivots (Cao et al. 2013, §4) from the Gram matrix A = GᵀG kept
// up to date by the same rotations; the best candidate is scored exactly and
// accepted only if F decreases. An epoch runs Polak–Ribière conjugate
// gradients on the log hyperparameters with the inducing set fixed
// (analytic gradients, Evaluator), then m swaps.
//
// # Notation
//
//	n        number of training points          N(), Inputs.Len()
//	m, k     capacity and size of the inducing set   MaxActive(), NumActive()
//	z        number of information pivots       MaxInfo(), NumInfo()
//	I, P     inducing set, information pivots   Active(), InfoPivots()
//	G, Q, R  factors                            GMatrix(), QMatrix(), RMatrix()
//	d        residual variances diag(K − K̂)     ResidualTo()
//	σ²       noise variance                     Noise()
//	θ        log hyperparameters, kernel's then log σ²   Model.Params()
//	E_D, E_C, E_V   data fit, complexity, trace terms of F   Parts
//
// G's rows are in data order; its columns are in pivot order.
//
// # Numerical notes
//
// Kernel values carry rounding of relative size ε, so a point whose
// residual variance given the inducing set is r·κ(x,x) has a Cholesky
// column known only to a relative ε/r, and such a set's objective is
// ill-conditioned. Points join the inducing set only if r > 1e-6 (the
// admission tolerance); members are kept through
// rebuilds down to r > 1e-8. Tiny negative residuals are clamped to zero and
// counted in Stats. The factorisation is rebuilt from scratch at every epoch
// (the hyperparameters change) and the difference between the updated and
// the rebuilt objective is reported as drift. Parallel reductions sum in a
// fixed order, so results do not depend on scheduling.
//
// # Scaling out: the factor state partitioned by rows
//
// (This section describes a design, not code in this package.) Every
// large object of the factorisation is indexed by data point, so the
// state splits by rows across P machines, each holding n/P points:
//
//   - per machine, rows in its range: the inputs X and targets y, the
//     residual variances d (diag(K − GGᵀ)), the rows of G (n × t, with
//     t = k + z pivots) and the data rows of Q (the thin QR factor of
//     [G_k; σI], Cao et al. 2013 §3), and a block of the candidates;
//   - replicated on every machine, O((k+z)²) numbers: the pivot order
//     perm, the t×t Gram matrix A = GᵀG, the triangular R, the σI rows of
//     Q (k × k), the vectors a = Qᵀy and b, and the hyperparameters.
//
// A swap (Swap in swap.go, Cao et al. 2013 §3.2 and §4) then needs only a
// few reductions of length O(k + z), never an exchange of rows:
//
//  1. Removing a pivot is a chain of adjacent transpositions. Each needs
//     the rotation (c, s) built from the two entries G[p, l], G[p, l+1] of
//     one row p: its owner broadcasts the two numbers, every machine
//     rotates its own rows of G and Q, and the replicated A, R, a, b are
//     updated identically everywhere (their rotations use only replicated
//     data).
//  2. Scoring the candidates (score.go) is local: each machine scores its
//     rows from its rows of G, Q and d and the replicated quantities,
//     then one all-reduce of (score, index) pairs by arg max picks the
//     best.
//  3. Adding the chosen point j (pivot.go): its owner
//     broadcasts x_j and the row G[j, :] (O(d + t) numbers); every machine
//     computes the kernel column on its rows and its part of the new G
//     column and of d; the new column of A = GᵀG and the new column of
//     Qᵀ·(column) for the QR update are one all-reduce of length t + k;
//     the clamp check (no residual below tolerance) is an all-reduce of
//     one boolean.
//  4. The objective (Parts in factor.go) needs yᵀy, the trace of the
//     residual and the data fit: an all-reduce of a few scalars.
//
// A swap therefore costs O(n(k+z)/P) local work and about five
// all-reduces of at most k + z + 2 numbers. The gradient phase splits the
// same way: each machine forms its K_mn block and its part of the m×m
// products K_mn·K_nm (objective.go), which are summed by one all-reduce of
// m² numbers per evaluation.
package sgp
