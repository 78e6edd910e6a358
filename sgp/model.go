package sgp

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

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
	// It is CholQR's default because it measured better than the random
	// start (sgp/mol's TestInitExperiment: 20 s budget, at most 200
	// epochs, medians of 3 seeds on a shared 2-core machine; VAR
	// objective F / test SMSE, forward against random start against
	// Titsias-16): thrombin (WL) m = 64 3439.8 / 0.503, 3461.8 / 0.521,
	// 3452.6 / 0.516; m = 128 3332.8 / 0.440, 3354.1 / 0.461,
	// 3351.4 / 0.442; lipophilicity (WL) m = 64 4663.9 / 0.562,
	// 4677.8 / 0.562, 4701.2 / 0.564; m = 128 4521.6 / 0.537,
	// 4529.7 / 0.540, 4547.1 / 0.536; synthetic motif strings (4-mer
	// spectrum) m = 32 F 7.7, 42.0, 24.0 and m = 64 −75.0, −68.0, −60.5.
	// On SyntheticARD (RBF, m = 16, 32) all reach the noise floor and
	// CholQR from either start ends 2–12 nats below Titsias-16.
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
	hardEnd    bool // the budget also stops an epoch midway (the hybrid's CholQR phase)
	tol        float64
	swaps      int
	cgEvals    int
	fixHyper   bool
	progress   io.Writer
	// every is how often a long phase (the forward start, the hybrid's
	// refinement) writes a progress line; 0 means progressEvery.
	every     time.Duration
	onEpoch   func(EpochRecord)
	interrupt func() error
	// interruptPanic is the panic of the interrupt function during the
	// current Fit or Step (callInterrupt), nil otherwise.
	interruptPanic error
	selector       Selector

	err      error
	replaced int // initial inducing points replaced because they were degenerate
	f        *factor
	stale    bool // f was left half-updated by a panic; refactorise before use
	// undone counts the gradient phases in a row whose best point could
	// not hold the whole inducing set and was undone (Model.continuous).
	undone int

	onWarning func(string)
	rng       *rand.Rand
	visited   []int // visited[i] = swap counter when point i was last proposed for removal
	counter   int
	trace     []EpochRecord
	epoch     int
	stats     Stats
}

// NewModel returns a model for inputs x, targets y and kernel k. The model
// is built lazily; configure it with the With methods first.
//
// A built-in kernel is copied: the model optimises its own hyperparameters,
// so two models made from one kernel value do not change each other (read
// the fitted ones with Kernel, Params or Hyperparameters). A kernel that
// cannot be copied (kernel.Func, user types) is shared and must not be given
// to two models that are used at the same time.
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
		md.m = defaultM(x.Len())
	}
	return md
}

// defaultM returns the default number of inducing points for n training
// points, min(100, max(1, ⌊n/2⌋)): with nearly every point inducing, the
// swaps have few candidates to work with.
func defaultM(n int) int { return min(100, max(1, n/2)) }

// setErr keeps the first configuration error.
func (md *Model) setErr(err error) *Model {
	if md.err == nil {
		md.err = err
	}
	return md
}

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
func (md *Model) WithM(m int) *Model {
	if md.x != nil && (m < 1 || m >= md.x.Len()) {
		return md.setErr(fmt.Errorf("sgp: m=%d inducing points must satisfy 1 ≤ m < n=%d", m, md.x.Len()))
	}
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
	if o != VAR && o != MLE {
		return md.setErr(fmt.Errorf("sgp: unknown objective %v", o))
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

// WithSeed sets the seed of the model's random numbers (default 1).
func (md *Model) WithSeed(seed uint64) *Model {
	md.seed = seed
	md.reset()
	return md
}

// WithNoise sets the initial noise variance σ² (default var(y)/4).
func (md *Model) WithNoise(noise float64) *Model {
	if !(noise > 0) || math.IsInf(noise, 0) {
		return md.setErr(fmt.Errorf("%w, got %v", ErrNoise, noise))
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
// the default allows. Fixed hyperparameters (WithFixedHyperparameters)
// are not moved to the floor.
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
// sets m).
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
	if len(idx) == 0 || len(idx) >= md.x.Len() {
		return md.setErr(fmt.Errorf("sgp: %d inducing points must satisfy 1 ≤ m < n=%d", len(idx), md.x.Len()))
	}
	md.inducing = append([]int(nil), idx...)
	md.m = len(idx)
	md.reset()
	return md
}

// WithMaxEpochs sets the maximum number of epochs of Fit (default 50).
func (md *Model) WithMaxEpochs(n int) *Model {
	if n < 1 {
		return md.setErr(fmt.Errorf("sgp: max epochs %d must be ≥ 1", n))
	}
	md.maxEpochs = n
	return md
}

// WithTimeBudget stops Fit after the epoch that exceeds d (0: no limit).
func (md *Model) WithTimeBudget(d time.Duration) *Model {
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
// at the noise-only optimum are not affected. Measured on
// SyntheticARD(2000, 1000, 32, 1), m = 64: test SMSE 1.00 without the
// restart, 0.051 with it (MLE alone 0.054).
func (md *Model) WithMLERestart(epochs int) *Model {
	if epochs < 0 {
		return md.setErr(fmt.Errorf("sgp: %d restart epochs must be ≥ 0", epochs))
	}
	md.warm = epochs
	return md
}

// WithFixedHyperparameters turns the continuous phase off: only the
// inducing set is optimised.
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
		*err = newPanicError(r, -1, -1)
		md.stale = true
	}
}

// progressEvery is how often a long phase without epochs (the forward
// start, the hybrid's refinement) writes a progress line: a phase shorter
// than that says nothing.
const progressEvery = 5 * time.Second

// progressTicker says when a phase that started at start is due to write
// its next progress line: every md.every (progressEvery by default), and
// never without a progress writer.
type progressTicker struct {
	on          bool
	every       time.Duration
	start, last time.Time
}

func (md *Model) ticker() *progressTicker {
	every := md.every
	if every == 0 {
		every = progressEvery
	}
	now := time.Now()
	return &progressTicker{on: md.progress != nil, every: every, start: now, last: now}
}

// due reports whether a line is due now, and if so starts the next period.
func (t *progressTicker) due() bool {
	if !t.on {
		return false
	}
	if now := time.Now(); now.Sub(t.last) >= t.every {
		t.last = now
		return true
	}
	return false
}

// elapsed returns the time since the phase started.
func (t *progressTicker) elapsed() time.Duration { return time.Since(t.start) }
