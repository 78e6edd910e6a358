// Package sgp fits sparse Gaussian-process regression models whose inducing
// points are a subset of the training data, chosen by CholQR (Cao, Brubaker,
// Fleet and Hertzmann, "Efficient Optimization for Sparse Gaussian Process
// Regression", NIPS 2013; IEEE TPAMI 37(12), 2015). One objective chooses
// both the inducing set and the hyperparameters, in time and memory linear
// in the number of training points, for any inputs a kernel can compare:
// vectors, and also molecules, strings or histograms, where inducing inputs
// cannot move continuously.
//
// # Getting started
//
// A Model takes inputs, targets and a kernel; it is configured fluently,
// fitted, and then predicts:
//
//	train, test := data.SnelsonLike(200, 1)       // or data.ReadCSVFile("train.csv")
//	k := kernel.NewRBFFromData(train.X, train.Y)  // RBF-ARD, started from the data
//	m := sgp.NewModel(train.X, train.Y, k).WithM(64).WithSeed(1)
//	res, err := m.FitContext(ctx)                 // res.Status says why it stopped
//	mean, variance, err := m.PredictNoisy(test.X) // at any inputs of the training kind
//	ev, err := m.Evaluate(test)                   // SMSE, SNLP, MAE, RMSE, 95% coverage
//	p, err := m.Predictor()                       // p.SaveFile; LoadPredictorFile reads it
//
// Inputs and kernels are in package sgp/kernel (vectors, strings, graphs,
// histograms, count fingerprints; RBF, Weisfeiler–Lehman, spectrum,
// Tanimoto, histogram intersection, sums, and kernel.Func around any Go
// function), data sets and CSV reading in sgp/data, molecules from SMILES in
// sgp/mol, and figures in sgp/figure.
//
// # The main types
//
//	Model        a sparse model: With… methods configure it (WithM, WithObjective,
//	             WithSelector, WithTimeBudget, WithNoiseFloor, …); Fit runs it to
//	             its stop rule; Swap (one swap) and Step (one epoch) drive it by hand
//	Result       what Fit reports: the objective, Status and Reason, Converged,
//	             Warnings (fewer inducing points than asked, no convergence, …)
//	Predictor    the fitted state for prediction alone: Predict, PredictNoisy,
//	             Evaluate, SaveFile; the joint posterior: PredictCov, Sample,
//	             PredictGrad; LoadRegressorFile reads sparse and exact models
//	Selector     how the inducing points are chosen: CholQR (the default), the
//	             paper's baselines, or the hybrid with a continuous refinement
//	Exact        the full GP (n ≤ MaxExactN), the reference for what sparsity
//	             costs: NewExact, with the same With… options
//	Continuous   SGPR with inducing inputs that move continuously (vectors):
//	             NewContinuous, with the same With… options
//	Comparison   fitted models side by side with their test scores
//	Factor, Trace, CostRanking, Evaluator, Stats
//	             the inside, for research: the factored state (read-only), the
//	             record of each epoch, exact against approximate swap costs,
//	             the objective and its gradient for a fixed inducing set
//
// Models, results, traces, predictors and comparisons print as aligned
// tables and render as HTML tables in notebooks. Errors say what is wrong
// and what to do next; a kernel that panics on any of the package's
// goroutines becomes a *PanicError returned by the call.
//
// # Model
//
// With inducing set I (|I| = k ≤ m) and the Nyström approximation
// K̂ = K[:,I] K[I,I]⁻¹ K[I,:], a constant prior mean μ (estimated by
// default, see Mean) and noise variance σ², the two objectives (Cao et al.
// 2013, §2), both minimised and both including n/2·log 2π so that they
// compare with GPflow's −ELBO and −log marginal likelihood, are
//
//	MLE (projected process, DTC):  F = ½(y−μ)ᵀ(K̂+σ²I)⁻¹(y−μ) + ½log|K̂+σ²I| + n/2·log 2π
//	VAR (Titsias 2009):            F = MLE + ½σ⁻²tr(K − K̂)
//
// # Algorithm
//
// The state (Factor) holds the partial Cholesky factor G of K with pivots I
// then the information pivots P, the residual variances d, the thin QR
// factorisation [G_I; σI] = QR and a = Q[:n,:]ᵀ(y − μ); the objective is read
// off them in O(n + k) (Cao et al. 2013, §3). Removing an inducing point
// moves it to the end by adjacent transpositions, each restored by a 2×2
// rotation of G and Q; adding one appends a Cholesky column and
// orthogonalises it against Q. Both cost O(n·(k+z)) and do not allocate.
// Every candidate's decrease of F is approximated through the z information
// pivots (Cao et al. 2013, §4); the best candidate is scored exactly and
// accepted only if F decreases. An epoch runs Polak–Ribière conjugate
// gradients on the log hyperparameters with the inducing set fixed, then m
// swaps; Fit stops when an epoch lowers F by less than a relative 10⁻⁴, at
// the maximum number of epochs or at the time budget. The kernel matrix is
// read by column and by diagonal, never as an n×n matrix (Exact alone
// forms it).
//
// The engine (the state, its updates, the scores and the selections that
// run on it) is package sgp/internal/cholqr, whose documentation maps its
// files; what it shares with the models (Objective, Parts, Stats,
// SwapResult, the mean's prior, the kernel row helpers, the errors) is
// package sgp/internal/base, which sgp names through aliases. Package
// sgp holds the models that drive the engine, the dense Evaluator, the
// exact GP, continuous SGPR, persistence and the displays.
//
// The repository's docs/algorithm.md describes the method in full (the
// start, the selectors, the prior mean, the noise floor, the noise-only
// restart, inputs switched off, the hybrid), and docs/results.md the
// measurements behind the defaults.
//
// # Fixed and bounded hyperparameters
//
// WithFixed, WithFixedAt and WithBounds of Model, Exact and Continuous
// fix or bound hyperparameters one by one, by the names Hyperparameters
// and FitSummary.Names use ("noise", "lengthscale[0]", "k0.period[0]");
// the optimisers see only the free ones, in these coordinates:
//
//   - a fixed hyperparameter keeps its starting θ bit for bit through the
//     fit and its restarts; WithFixedAt sets that start, and the value
//     given is what FitSummary.Fixed, Hyperparameters and a saved model
//     report;
//   - a bounded one, lo ≤ value ≤ hi, is optimised in a coordinate u with
//     log value = a + (b − a)·s(u), s the logistic function, a = log lo
//     and b = log hi: every u is feasible, so no line search leaves the
//     bounds, the objective stays smooth in u, and ∂F/∂u =
//     ∂F/∂θ·(b − a)·s(u)(1 − s(u)) (GPflow's sigmoid transform, in log
//     space). A projection onto the bounds would instead make F along a
//     search direction kinked where it meets one, which the line searches
//     of conjugate gradients and L-BFGS assume it is not. A start outside the bounds or on one starts 1% of their log
//     width inside; restarts draw within them. Near a bound the gradient
//     in u vanishes, so a fit that presses against one stops a little
//     inside it: it counts as at the bound within a factor 1.05 (1% of
//     the log width of narrower bounds), and FitSummary.Bounds and a
//     warning say so;
//   - the free unbounded noise is σ² = floor + exp u above the noise
//     floor, as without constraints.
//
// The noise floor stays the least σ² a fit may reach: a lower bound on
// the noise below it is raised to it (a warning says so), and an upper
// bound at or below it is an error. A fixed noise is used as given, below
// the floor too, as WithFixedHyperparameters uses it. Fixing every
// hyperparameter is WithFixedHyperparameters(true). The prior mean μ is
// not among them: WithMean(MeanFixed(c)) fixes it.
//
// Fixed values and bounds are in the units of the data: a noise variance
// or a signal variance in the targets' units squared, a lengthscale or a
// period in its input's units. A fit is equivariant under a change of the
// data's units when they change with it, as it is without them.
//
// # Known per-point noise
//
// WithNoiseVariances of Exact, Continuous and Model gives each training
// point a known noise variance s_i² (scikit-learn's alpha array,
// GPyTorch's fixed-noise likelihood): the noise of point i is s_i² + σ²,
// σ² learned or fixed as above. The predictions condition on that
// training noise; PredictNoisy adds σ² alone and PredictNoisyWith a test
// point's own known noise too. docs/algorithm.md ("Known per-point
// noise") derives the objectives; a Model's swaps run on the problem
// scaled by Λ^{-1/2}, whose objective differs from the original's by a
// constant at fixed σ² ("Known per-point noise in CholQR"). FitRanks
// does not take it.
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
// column known only to a relative ε/r. Points join the inducing set only
// if r > 10⁻⁶ (the admission tolerance); members are kept through rebuilds
// down to r > 10⁻⁸, so a smooth kernel can hold fewer than m points apart
// (Result.Warnings says so). Tiny negative residuals are clamped to zero
// and counted in Stats. The factorisation is rebuilt from scratch at every
// epoch and the difference between the updated and the rebuilt objective
// is reported as drift. Parallel reductions sum in a fixed order, so
// results do not depend on the number of cores: a fit is deterministic for
// a seed.
package sgp
