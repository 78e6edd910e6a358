package sgp

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/cholqr/sgp/sgp/internal/cholqr"
	"github.com/cholqr/sgp/sgp/internal/par"
	"github.com/cholqr/sgp/sgp/kernel"
)

// Init selects how the initial inducing set is chosen. Unless WithInit
// sets one, CholQR and the hybrid selector start from InitForward, the
// random and Titsias selectors from InitRandom and greedy variance from
// InitGreedy.
type Init int

const (
	// InitRandom draws m training points uniformly without replacement.
	InitRandom Init = iota
	// InitGreedy chooses points greedily by largest residual variance
	// (a pivoted partial Cholesky of K, "conditional variance").
	InitGreedy
	// InitForward chooses points by greedy forward selection at the
	// starting hyperparameters: from the empty set, m times, it scores
	// exactly (Cao et al. 2013, §3) 16 candidates drawn at random, as
	// Titsias-16's selection does, together with the point the information
	// pivots rank first among all n (the candidate a swap would propose,
	// §4), and adds the best. It costs about one Titsias-16 selection,
	// 17·m exact scores, and is deterministic for a seed. CholQR's swaps
	// then improve on a greedy set instead of a random one.
	//
	// It is CholQR's default: within the same time, fits from it end at
	// lower objectives than fits from a random start on molecules (WL
	// kernel) and strings (spectrum kernel); sgp/mol's
	// TestInitExperiment compares the starts.
	InitForward
)

// Model is a sparse Gaussian-process regression model whose inducing
// points are a subset of the training data, optimised by CholQR (Cao et
// al. 2013): swaps of inducing points scored through information pivots,
// alternated with conjugate-gradient steps on the log hyperparameters.
//
// A Model is configured fluently and built on first use:
//
//	m := sgp.NewModel(x, y, kernel.NewRBF(1, []float64{1})).WithM(10).WithObjective(sgp.VAR)
//	res, err := m.Fit()
//	mean, variance, err := m.Predict(xTest)
//
// Swap, Step and Fit can be interleaved freely, so the optimiser can be
// driven by hand. Configuration errors are kept and returned by the first
// method that returns an error (see Err). A Model is not safe for
// concurrent use.
type Model struct {
	x    kernel.Inputs
	y    []float64
	kern kernel.Kernel
	// targetName names the targets' column (WithTargetName), "" if unknown.
	targetName string
	// s2 are the known per-point noise variances (WithNoiseVariances),
	// nil for none.
	s2 []float64

	m, z  int
	obj   Objective
	mean  Mean
	seed  uint64
	noise float64 // σ²; 0 means var(y)/4
	// noiseFloor is the least σ² a fit of the hyperparameters may reach,
	// as set by WithNoiseFloor; 0 means the default (see noiseFloor).
	// floorAt caches the floor in force, once computed (0: not yet).
	noiseFloor float64
	floorAt    float64
	init       Init
	initSet    bool // init was chosen by WithInit
	inducing   []int
	maxEpochs  int
	warm       int               // MLE epochs of a noise-only VAR fit's restart (WithMLERestart)
	refined    *ContinuousResult // the hybrid selector's refinement, used for prediction
	from       string            // where refined started (Result.RefinedFrom)
	budget     time.Duration
	tol        float64
	swaps      int
	cgEvals    int
	fixHyper   bool
	cons       constraints // WithFixed, WithFixedAt, WithBounds
	restarts   int         // WithRestarts
	progress   io.Writer
	// every is how often a long phase (the forward start, the hybrid's
	// refinement) writes a progress line; 0 means progressEvery.
	every     time.Duration
	onEpoch   func(EpochRecord)
	interrupt func() error
	selector  Selector

	err      error
	replaced int // initial inducing points replaced because they were degenerate
	f        *cholqr.Factor
	stale    bool // f was left half-updated by a panic; refactorise before use
	// undone counts the gradient phases in a row whose best point could
	// not hold the whole inducing set and was undone (Model.continuous).
	undone int

	onWarning func(string)
	rng       *rand.Rand
	visits    *visits // when each inducing point was last proposed for removal
	trace     []EpochRecord
	epoch     int
}

// NewModel returns a model for inputs x, targets y and kernel k. The model
// is built lazily; configure it with the With methods first.
//
// The kernel is copied (kernel.Clone): the model optimises its own
// hyperparameters, so two models made from one kernel value do not change
// each other and may be fitted at the same time (read the fitted ones with
// Kernel, Params or Hyperparameters). A kernel.Func's copy shares its
// function, which must be safe for concurrent calls. A kernel of another
// package that does not implement kernel.Cloner cannot be copied: it is
// shared and must not be given to two models that are used at the same
// time.
func NewModel(x kernel.Inputs, y []float64, k kernel.Kernel) *Model {
	if k != nil {
		k = kernel.Clone(k)
	}
	md := &Model{x: x, y: y, kern: k, z: 16, tol: 1e-4, maxEpochs: 50, seed: 1, warm: 3}
	switch {
	case x == nil || x.Len() == 0 || len(y) == 0:
		md.err = ErrEmpty
	case len(y) != x.Len():
		md.err = fmt.Errorf("sgp: %d inputs but %d targets", x.Len(), len(y))
	case k == nil:
		md.err = errors.New("sgp: no kernel")
	}
	if md.err == nil {
		md.m = DefaultM(x.Len())
	}
	return md
}

// setErr keeps the first configuration error.
func (md *Model) setErr(err error) *Model {
	if md.err == nil {
		md.err = err
	}
	return md
}

// validate returns the first configuration error, found without building
// the model: an error of NewModel or a With method, inputs the kernel does
// not accept, or a number of inducing points outside 1 ≤ m < n.
func (md *Model) validate() error {
	if md.err != nil {
		return md.err
	}
	if err := md.kern.Accepts(md.x); err != nil {
		return err
	}
	if _, err := md.cons.resolve(kernelNames(md.kern)); err != nil {
		return err
	}
	return checkM(md.m, md.x.Len())
}

// Err returns the first configuration error, or nil. It only checks the
// configuration; the model's state, its starting inducing set included,
// is built by Fit (within its time budget and Result.Elapsed), Step,
// Swap, Build, or the first method that reads the state.
func (md *Model) Err() error { return md.validate() }

// reset discards the built state so that the next use rebuilds it.
func (md *Model) reset() { md.f, md.refined = nil, nil }

// WithM sets the number of inducing points m (default min(100, max(1, ⌊n/2⌋))).
//
// The model can end up with fewer than m: a point joins the inducing set
// only if its variance given the points already in it is at least 10⁻⁶ of
// its prior variance (see the package's numerical notes), so a kernel that
// cannot tell m training points apart at the current hyperparameters (a
// long lengthscale, smooth or duplicated data) keeps as many as it can.
// Fit reports the shortfall in Result.Warnings, and the model's String
// shows it.
//
// m must satisfy 1 ≤ m < n; Err and the methods that build the model
// report an m outside that range.
func (md *Model) WithM(m int) *Model {
	md.m = m
	md.reset()
	return md
}

// WithInfoPivots sets z, the number of information pivots (default 16).
func (md *Model) WithInfoPivots(z int) *Model {
	if z < 0 {
		return md.setErr(fmt.Errorf("sgp: z=%d information pivots must be ≥ 0", z))
	}
	md.z = z
	md.reset()
	return md
}

// WithObjective sets the objective, VAR (default) or MLE.
func (md *Model) WithObjective(o Objective) *Model {
	if err := checkObjective(o); err != nil {
		return md.setErr(err)
	}
	md.obj = o
	return md
}

// WithMean sets the prior mean function (default MeanConstant: a constant
// estimated in closed form with the hyperparameters; see Mean). MeanZero
// is the model of Cao et al. (2013) and of published benchmark numbers.
func (md *Model) WithMean(mn Mean) *Model {
	md.mean = mn
	md.reset()
	return md
}

// WithTargetName names the targets' column, as data.Dataset.TargetName
// holds it for a CSV file with a header row: figures label their axis
// with it and the Predictor carries it into a saved model. The inputs'
// names come with them (kernel.Vectors.Names). It changes nothing else.
func (md *Model) WithTargetName(name string) *Model {
	md.targetName = name
	return md
}

// TargetName returns the targets' column name (WithTargetName), or "".
func (md *Model) TargetName() string { return md.targetName }

// WithSeed sets the seed of the model's random numbers (default 1).
func (md *Model) WithSeed(seed uint64) *Model {
	md.seed = seed
	md.reset()
	return md
}

// WithNoise sets the initial noise variance σ² (default var(y)/4, or 1/4
// for targets that are all equal).
func (md *Model) WithNoise(noise float64) *Model {
	if err := checkNoise(noise); err != nil {
		return md.setErr(err)
	}
	md.noise = noise
	md.reset()
	return md
}

// WithNoiseFloor sets the least noise variance σ² that fitting the
// hyperparameters may reach, in the targets' units squared (0: the
// default, 10⁻⁶ of the targets' variance around a quadratic trend in the
// inputs, at least 10⁻⁹ of their variance). The floor keeps σ² away from
// the region where the objective is decided by rounding (targets with
// little or no noise; see Model.Fit); it is not a prior on the noise. A
// fit whose σ² ends at the floor says so (Result.AtNoiseFloor and a
// warning). Raise it to keep a model from fitting noise it knows is
// there; lower it for targets known to be accurate to more digits than
// the default allows. A starting σ² at or below the floor set (WithNoise,
// or the default var(y)/4) starts at twice the floor, as in Exact and
// Continuous. Fixed hyperparameters (WithFixedHyperparameters) are not
// moved to the floor.
func (md *Model) WithNoiseFloor(floor float64) *Model {
	if err := checkNoiseFloor(floor); err != nil {
		return md.setErr(err)
	}
	md.noiseFloor, md.floorAt = floor, 0
	return md
}

// floor returns the noise floor in force (see WithNoiseFloor).
func (md *Model) floor() float64 {
	if md.floorAt == 0 {
		md.floorAt = noiseFloor(md.x, md.y, md.noiseFloor)
	}
	return md.floorAt
}

// WithInit sets how the initial inducing set is chosen (default
// InitForward for CholQR and the hybrid selector, see Init).
func (md *Model) WithInit(i Init) *Model {
	md.init, md.initSet = i, true
	md.reset()
	return md
}

// WithInducing sets the initial inducing set (data indices; its length
// sets m, see WithM).
func (md *Model) WithInducing(idx []int) *Model {
	if md.x == nil {
		return md
	}
	seen := make(map[int]bool, len(idx))
	for _, j := range idx {
		if j < 0 || j >= md.x.Len() {
			return md.setErr(fmt.Errorf("sgp: inducing index %d out of range [0, %d)", j, md.x.Len()))
		}
		if seen[j] {
			return md.setErr(fmt.Errorf("sgp: inducing index %d repeated", j))
		}
		seen[j] = true
	}
	md.inducing = append([]int(nil), idx...)
	md.m = len(idx)
	md.reset()
	return md
}

// WithMaxEpochs sets the maximum number of epochs of Fit (default 50).
func (md *Model) WithMaxEpochs(n int) *Model {
	if err := checkMaxEpochs(n); err != nil {
		return md.setErr(err)
	}
	md.maxEpochs = n
	return md
}

// WithTimeBudget stops Fit after the epoch that exceeds d (0: no limit).
func (md *Model) WithTimeBudget(d time.Duration) *Model {
	if err := checkTimeBudget(d); err != nil {
		return md.setErr(err)
	}
	md.budget = d
	return md
}

// WithTolerance sets the relative decrease of the objective over an epoch
// below which Fit stops (default 1e-4). A tolerance of 0 turns the test
// off: Fit then runs to the maximum number of epochs or the time budget.
func (md *Model) WithTolerance(tol float64) *Model {
	if !(tol >= 0) {
		return md.setErr(fmt.Errorf("sgp: tolerance %v must be ≥ 0", tol))
	}
	md.tol = tol
	return md
}

// WithSwapsPerEpoch sets the number of swaps per epoch (default m: each
// inducing point is proposed for removal once an epoch; 0 keeps the
// default).
func (md *Model) WithSwapsPerEpoch(n int) *Model {
	if n < 0 {
		return md.setErr(fmt.Errorf("sgp: swaps per epoch %d must be ≥ 0", n))
	}
	md.swaps = n
	return md
}

// WithCGEvals sets the function-evaluation budget of the conjugate-gradient
// phase of an epoch (default min(20, max(15, 2·#θ)); 0 keeps the default).
func (md *Model) WithCGEvals(n int) *Model {
	if n < 0 {
		return md.setErr(fmt.Errorf("sgp: CG evaluations %d must be ≥ 0", n))
	}
	md.cgEvals = n
	return md
}

// WithMLERestart sets the number of MLE epochs of the restart a VAR fit
// makes when it ends at the noise-only optimum (default 3; 0 turns the
// restart off). With many inputs of which few matter, VAR's trace term
// can hold the data-scaled start at σ² ≈ var(y), every target explained
// as noise: a useless model that has converged. The restart goes back to
// the starting hyperparameters, runs these epochs on MLE, which finds the
// signal from the same start, re-selects the inducing set on VAR at MLE's
// hyperparameters, then runs VAR again, and keeps the result only
// if its VAR objective is lower (Result.Restarted). Fits that do not end
// at the noise-only optimum are not affected.
func (md *Model) WithMLERestart(epochs int) *Model {
	if epochs < 0 {
		return md.setErr(fmt.Errorf("sgp: %d restart epochs must be ≥ 0", epochs))
	}
	md.warm = epochs
	return md
}

// WithFixedHyperparameters turns the continuous phase off: only the
// inducing set is optimised. WithFixed fixes them one by one.
func (md *Model) WithFixedHyperparameters(fixed bool) *Model {
	md.fixHyper = fixed
	return md
}

// WithProgress writes one line per epoch to w.
func (md *Model) WithProgress(w io.Writer) *Model {
	md.progress = w
	return md
}

// WithWarningFunc calls fn with each warning of a Fit (Result.Warnings:
// fewer inducing points than asked for, no convergence) when it ends; the
// progress writer, if any, gets them as "warning: …" lines too.
func (md *Model) WithWarningFunc(fn func(msg string)) *Model {
	md.onWarning = fn
	return md
}

// WithEpochFunc calls fn after every epoch.
func (md *Model) WithEpochFunc(fn func(EpochRecord)) *Model {
	md.onEpoch = fn
	return md
}

// WithInterrupt makes Step and Fit (and their Context forms) also stop,
// between swaps and between gradient evaluations, as soon as fn returns a
// non-nil error, which they then return. An interactive session uses it so
// that an interrupt stops a Fit started without a context.
func (md *Model) WithInterrupt(fn func() error) *Model {
	md.interrupt = fn
	return md
}

// WithSelector sets how the inducing points are chosen (default CholQR).
// For greedy-variance the initial set is the greedy one as well.
func (md *Model) WithSelector(s Selector) *Model {
	if s.kind == selTitsias && s.s < 1 {
		return md.setErr(fmt.Errorf("sgp: titsias selector needs at least one candidate"))
	}
	md.selector = s
	if s.kind == selGreedyVariance && md.inducing == nil {
		md.init = InitGreedy
	}
	md.reset()
	return md
}

// Selector returns the selection rule.
func (md *Model) Selector() Selector { return md.selector }

// recoverPanic turns a panic during a Model method (a user's kernel
// failing, on any goroutine sgp evaluates it on) into *err, and marks the
// factorisation stale: the next use refactorises from scratch at the
// current inducing set and hyperparameters, so nothing half-updated is
// kept.
func (md *Model) recoverPanic(err *error) {
	if r := recover(); r != nil {
		*err = par.Capture(r, -1, -1)
		md.stale = true
	}
}

// ticker returns the progress ticker of a long phase that starts now.
func (md *Model) ticker() *progressTicker {
	return newTicker(md.progress != nil, md.every)
}
