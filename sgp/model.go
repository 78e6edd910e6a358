package sgp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"
)

// Init selects how the initial inducing set is chosen.
type Init int

const (
	// InitRandom draws m training points uniformly without replacement.
	InitRandom Init = iota
	// InitGreedy chooses points greedily by largest residual variance
	// (a pivoted partial Cholesky of K, "conditional variance").
	InitGreedy
)

// Model is a sparse Gaussian-process regression model whose inducing
// points are a subset of the training data, optimised by CholQR (Cao et
// al. 2013): swaps of inducing points scored through information pivots,
// alternated with conjugate-gradient steps on the log hyperparameters.
//
// A Model is configured fluently and built on first use:
//
//	m := sgp.NewModel(x, y, sgp.NewRBF(1, []float64{1})).WithM(10).WithObjective(sgp.VAR)
//	res, err := m.Fit()
//	mean, variance, err := m.Predict(xTest)
//
// Swap, Step and Fit can be interleaved freely, so the optimiser can be
// driven by hand. Configuration errors are kept and returned by the first
// method that returns an error (see Err). A Model is not safe for
// concurrent use.
type Model struct {
	x    Inputs
	y    []float64
	kern Kernel

	m, z      int
	obj       Objective
	mean      Mean
	seed      uint64
	noise     float64 // σ²; 0 means var(y)/4
	init      Init
	inducing  []int
	maxEpochs int
	budget    time.Duration
	tol       float64
	swaps     int
	cgEvals   int
	fixHyper  bool
	progress  io.Writer
	onEpoch   func(EpochRecord)
	interrupt func() error
	selector  Selector

	err      error
	replaced int // initial inducing points replaced because they were degenerate
	f        *Factor
	stale    bool // f was left half-updated by a panic; refactorise before use

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
// cannot be copied (FuncKernel, user types) is shared and must not be given
// to two models that are used at the same time.
func NewModel(x Inputs, y []float64, k Kernel) *Model {
	if k != nil {
		k = cloneKernel(k)
	}
	md := &Model{x: x, y: y, kern: k, z: 16, tol: 1e-4, maxEpochs: 50, seed: 1}
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

// DefaultM returns the default number of inducing points for n training
// points: min(100, max(1, ⌊n/2⌋)). Measured on the Snelson-like problem
// (n = 12…400, 8 seeds each), m = n/2 fits as well as m = n−1 (the
// previous default) and better at n = 40 (mean test SMSE 0.40 against
// 0.51, objective 37.1 against 39.9): with nearly every point inducing the
// swaps have few candidates to work with.
func DefaultM(n int) int { return min(100, max(1, n/2)) }

// setErr keeps the first configuration error.
func (md *Model) setErr(err error) *Model {
	if md.err == nil {
		md.err = err
	}
	return md
}

// reset discards the built state so that the next use rebuilds it.
func (md *Model) reset() { md.f = nil }

// WithM sets the number of inducing points m (default DefaultM(n)).
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

// MeanFunction returns the prior mean function.
func (md *Model) MeanFunction() Mean { return md.mean }

// Mean returns the current value of the constant prior mean μ (the
// estimate for MeanConstant).
func (md *Model) Mean() (mu float64, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return math.NaN(), err
	}
	return md.f.mu, nil
}

// profile sets an estimated mean to its closed-form optimum for the
// current inducing set and hyperparameters (Factor.GLSMean); F can only
// decrease. It does nothing for a fixed mean or an invalid factor.
func (md *Model) profile() {
	if md.mean.Estimated() && md.f != nil && md.f.ok {
		md.f.SetMean(md.f.GLSMean())
	}
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

// WithInit sets how the initial inducing set is chosen (default InitRandom).
func (md *Model) WithInit(i Init) *Model {
	md.init = i
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
// below which Fit stops (default 1e-4).
func (md *Model) WithTolerance(tol float64) *Model {
	if !(tol >= 0) {
		return md.setErr(fmt.Errorf("sgp: tolerance %v must be ≥ 0", tol))
	}
	md.tol = tol
	return md
}

// WithSwapsPerEpoch sets the number of swaps per epoch (default min(60, m)).
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

// Err returns the first configuration or build error, or nil.
func (md *Model) Err() error {
	if md.err != nil {
		return md.err
	}
	return md.build()
}

// build creates the factored state if needed.
func (md *Model) build() error {
	if md.err != nil {
		return md.err
	}
	if md.f != nil {
		if md.stale {
			active := append([]int(nil), md.f.lastFactorized...)
			if md.f.ok {
				active = md.f.Active(nil)
			}
			if err := md.f.Factorize(active); err != nil {
				return fmt.Errorf("sgp: refactorising after an earlier failure: %w", err)
			}
			md.stale = false
		}
		return nil
	}
	if err := md.kern.Accepts(md.x); err != nil {
		return err
	}
	n := md.x.Len()
	if md.m < 1 || md.m >= n {
		return fmt.Errorf("sgp: m=%d inducing points must satisfy 1 ≤ m < n=%d", md.m, n)
	}
	noise := md.noise
	if noise == 0 {
		noise = variance(md.y) / 4
		if !(noise > 0) {
			noise = 1e-2
		}
	}
	f, err := NewFactor(md.x, md.y, md.kern, noise, md.m, md.z)
	if err != nil {
		return err
	}
	f.SetMean(md.mean.startValue(md.y))
	md.rng = rand.New(rand.NewPCG(md.seed, md.seed^0x5851f42d4c957f2d))
	active := md.inducing
	if active == nil {
		switch md.init {
		case InitGreedy:
			active = greedyVariance(f, md.m)
		default:
			active = md.rng.Perm(n)[:md.m]
		}
	}
	md.f = f
	md.visited = make([]int, n)
	if err := f.Factorize(active); err != nil {
		// Keep the non-degenerate part of the requested set, in order, and
		// fill the rest at random (a clumped start can hold more points
		// than the kernel can tell apart).
		md.replaced = md.rebuildRobust(active, true)
		if f.k == 0 {
			md.f = nil
			return fmt.Errorf("sgp: no inducing point has a non-negligible variance under the kernel")
		}
	}
	md.counter = 0
	md.trace = nil
	md.epoch = 0
	md.profile()
	if md.selector.kind == selTitsias && md.inducing == nil {
		md.forwardSelect(md.selector.s)
		md.profile()
	}
	return nil
}

// rebuildRobust factorises the points of active that are not degenerate
// given the earlier ones, in order, and fills the set up to m with random
// points (random) or best-scoring ones. It returns how many points of
// active were left out. It cannot fail unless every point is degenerate.
func (md *Model) rebuildRobust(active []int, random bool) int {
	f := md.f
	_ = f.Factorize(nil)
	left := 0
	for _, j := range active {
		if f.k >= f.mcap || f.Add(j) != nil {
			left++
		}
	}
	n := f.n
	if random {
		for draws := 0; f.k < f.mcap && draws < 20*n; draws++ {
			if j := md.rng.IntN(n); f.pos[j] < 0 || f.pos[j] >= f.k {
				_ = f.Add(j)
			}
		}
	}
	if f.k > 0 {
		md.grow()
	}
	return left
}

// greedyVariance chooses m points by a pivoted partial Cholesky: each next
// point has the largest residual variance given the previous ones.
func greedyVariance(f *Factor, m int) []int {
	saveZ := f.zcap
	f.zcap = 0
	_ = f.Factorize(nil)
	f.zcap = saveZ
	active := make([]int, 0, m)
	for len(active) < m {
		best, bv := -1, 0.0
		for i, v := range f.d {
			if f.pos[i] == -1 && v > bv {
				best, bv = i, v
			}
		}
		if best < 0 || f.Add(best) != nil {
			break
		}
		active = append(active, best)
	}
	// Pad with random points if the residual vanished everywhere.
	for i := 0; len(active) < m && i < f.n; i++ {
		if f.pos[i] == -1 {
			active = append(active, i)
		}
	}
	return active
}

// variance returns the population variance of v.
func variance(v []float64) float64 {
	var mean float64
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	var s float64
	for _, x := range v {
		s += (x - mean) * (x - mean)
	}
	return s / float64(len(v))
}

// Factor returns the factored state (building it if needed), for
// inspection. Changing it changes the model.
func (md *Model) Factor() (f *Factor, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return nil, err
	}
	return md.f, nil
}

// ReplacedInit returns how many points of the requested initial inducing
// set were degenerate (indistinguishable by the kernel from earlier ones)
// and were replaced by random points when the model was built.
func (md *Model) ReplacedInit() int { return md.replaced }

// Kernel returns the kernel (its hyperparameters are the model's).
func (md *Model) Kernel() Kernel { return md.kern }

// Inputs returns the training inputs.
func (md *Model) Inputs() Inputs { return md.x }

// Targets returns the training targets.
func (md *Model) Targets() []float64 { return md.y }

// ObjectiveKind returns the objective being minimised.
func (md *Model) ObjectiveKind() Objective { return md.obj }

// Noise returns the current noise variance σ².
func (md *Model) Noise() (s2 float64, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return 0, err
	}
	return md.f.noise, nil
}

// Value returns the current objective (including n/2·log 2π).
func (md *Model) Value() (v float64, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return math.NaN(), err
	}
	return md.f.Value(md.obj), nil
}

// Parts returns the current objective and its terms.
func (md *Model) Parts() (p Parts, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return Parts{}, err
	}
	return md.f.Parts(), nil
}

// Inducing returns the current inducing set (data indices, pivot order).
func (md *Model) Inducing() (idx []int, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return nil, err
	}
	return md.f.Active(nil), nil
}

// InfoPivots returns the current information pivots (data indices).
func (md *Model) InfoPivots() (idx []int, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return nil, err
	}
	return md.f.InfoPivots(nil), nil
}

// Params returns θ: the kernel's log hyperparameters followed by log σ².
func (md *Model) Params() []float64 {
	th := md.kern.Params(nil)
	noise := md.noise
	if md.f != nil {
		noise = md.f.noise
	}
	if noise == 0 && len(md.y) > 0 {
		noise = variance(md.y) / 4
	}
	return append(th, math.Log(noise))
}

// ParamNames names the entries of Params.
func (md *Model) ParamNames() []string {
	return append(md.kern.ParamNames(), "noise")
}

// Hyperparameters returns the hyperparameters by name, as positive values
// (exp θ).
func (md *Model) Hyperparameters() map[string]float64 {
	names, th := md.ParamNames(), md.Params()
	h := make(map[string]float64, len(th))
	for i, v := range th {
		h[names[i]] = math.Exp(v)
	}
	return h
}

// SetParams sets θ (kernel log hyperparameters, then log σ²) and
// refactorises for the current inducing set.
func (md *Model) SetParams(theta []float64) (err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return err
	}
	np := md.kern.NumParams()
	if len(theta) != np+1 {
		return fmt.Errorf("sgp: %d parameters given, the model has %d (%v)", len(theta), np+1, md.ParamNames())
	}
	for i, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("sgp: parameter %s is %v", md.ParamNames()[i], v)
		}
	}
	old := md.Params()
	md.kern.SetParams(theta[:np])
	md.f.noise = math.Exp(theta[np])
	if err := md.f.Factorize(md.f.Active(nil)); err != nil {
		md.kern.SetParams(old[:np])
		md.f.noise = math.Exp(old[np])
		_ = md.f.Factorize(md.f.Active(nil))
		md.profile()
		return err
	}
	md.profile()
	return nil
}

// Trace returns the per-epoch records so far.
func (md *Model) Trace() []EpochRecord { return append([]EpochRecord(nil), md.trace...) }

// Stats returns the factor's counters.
func (md *Model) Stats() Stats {
	if md.f == nil {
		return Stats{}
	}
	return md.f.stats
}

// Swap performs one swap: it removes the inducing point that has gone
// longest without being proposed for removal, proposes the best
// replacement by approximate score, checks it exactly and keeps it if the
// objective decreases (Cao et al. 2013, Alg. 1).
func (md *Model) Swap() (sr SwapResult, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return SwapResult{}, err
	}
	order := md.visitOrder(1)
	return md.swapPoint(order[0]), nil
}

// SwapPoint proposes to replace inducing point j (a data index).
func (md *Model) SwapPoint(j int) (sr SwapResult, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return SwapResult{}, err
	}
	if j < 0 || j >= md.x.Len() || !md.f.IsActive(j) {
		return SwapResult{}, fmt.Errorf("sgp: point %d is not an inducing point", j)
	}
	return md.swapPoint(j), nil
}

func (md *Model) swapPoint(j int) SwapResult {
	md.counter++
	md.visited[j] = md.counter
	res := md.f.Swap(md.f.pos[j], md.obj, md.rng.IntN)
	if res.Accepted {
		md.visited[res.Proposed] = md.counter
		// The swap was decided at a fixed mean; re-estimating it can only
		// lower F further.
		md.profile()
		res.After = md.f.Value(md.obj)
	}
	return res
}

// visitOrder returns up to count inducing points, those not proposed for
// removal for longest first, ties in random order.
func (md *Model) visitOrder(count int) []int {
	active := md.f.Active(nil)
	md.rng.Shuffle(len(active), func(a, b int) { active[a], active[b] = active[b], active[a] })
	// Stable insertion sort by last visit (m is small).
	for a := 1; a < len(active); a++ {
		for b := a; b > 0 && md.visited[active[b]] < md.visited[active[b-1]]; b-- {
			active[b], active[b-1] = active[b-1], active[b]
		}
	}
	return active[:min(count, len(active))]
}

// EpochRecord summarises one epoch.
type EpochRecord struct {
	Epoch       int
	Objective   float64 // after the epoch, including n/2·log 2π
	Parts       Parts
	Params      []float64 // θ after the epoch
	Grown       int       // inducing points added because the set was below m
	Scored      int       // exact candidate scores made by a baseline's re-selection
	Swaps       int
	Accepted    int
	CGEvals     int
	CGObjective float64 // after the continuous phase
	CGStatus    string  // how the continuous phase ended: CGBudget, CGConverged, CGLineSearch, …
	CGGradient  float64 // max |∂F/∂θ| where the continuous phase ended (+Inf if unknown)
	Mean        float64 // the prior mean μ after the epoch
	Drift       float64 // relative difference between the updated factor and a fresh evaluation
	Elapsed     time.Duration
	Total       time.Duration
}

// Step runs one epoch: the continuous phase (CG on θ with the inducing set
// fixed) followed by a discrete pass of swaps.
func (md *Model) Step() (EpochRecord, error) {
	return md.StepContext(context.Background())
}

// StepContext is Step with cancellation, checked between swaps and CG
// evaluations.
func (md *Model) StepContext(ctx context.Context) (rec EpochRecord, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return EpochRecord{}, err
	}
	return md.epochStep(ctx)
}

// Result summarises a Fit.
type Result struct {
	Objective float64
	Parts     Parts
	Epochs    int
	Elapsed   time.Duration
	// Stopped says why Fit stopped: "converged", "max epochs", "time
	// budget", "cancelled", "error", or "stalled: " and the reason when the
	// objective stopped decreasing because the gradient phase failed (a
	// line search that found no decrease, non-finite objective values)
	// while the gradient was not small.
	Stopped string
	// Converged is true only when the relative decrease of the objective
	// over the last epoch fell below the tolerance and the gradient phase
	// ended normally or at a small gradient.
	Converged bool
	Inducing  []int
	Params    []float64
	Mean      float64 // the prior mean μ
	// M is the number of inducing points asked for; len(Inducing) can be
	// smaller (see Model.WithM).
	M int
	// Warnings lists what the user should know about the result: fewer
	// inducing points than asked for, a fit that did not converge.
	Warnings []string
	Stats
}

// Fit runs epochs until the objective's relative decrease over an epoch is
// below the tolerance, the maximum number of epochs or the time budget is
// reached. The decrease is measured relative to the objective of the
// standardised targets, F − n·log sd(y) (at least n/100 in magnitude), so
// that the rule does not depend on the units of y.
//
// A gradient phase that fails (see EpochRecord.CGStatus) while its
// gradient is not small does not count as convergence: Fit goes on, and
// after two such epochs in a row it stops with Stopped = "stalled: …" and
// Converged = false.
func (md *Model) Fit() (*Result, error) { return md.FitContext(context.Background()) }

// FitContext is Fit with cancellation: it stops at the next swap or CG
// evaluation once ctx is done, returning the model as it then is together
// with ctx's error.
func (md *Model) FitContext(ctx context.Context) (res *Result, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return nil, err
	}
	start := time.Now()
	prev := md.f.Value(md.obj)
	stopped, converged := "max epochs", false
	stalls := 0
	var runErr error
	for e := 0; e < md.maxEpochs; e++ {
		rec, err := md.epochStep(ctx)
		if err != nil {
			runErr = err
			stopped = "error"
			if md.stopErr(ctx) != nil {
				stopped = "cancelled"
			}
			break
		}
		if prev-rec.Objective < md.tol*md.f.valueScale(prev) {
			if md.cgHealthy(rec) {
				stopped, converged = "converged", true
				break
			}
			if stalls++; stalls >= 2 {
				stopped = "stalled: " + rec.CGStatus
				break
			}
		} else {
			stalls = 0
		}
		prev = rec.Objective
		if md.budget > 0 && time.Since(start) >= md.budget {
			stopped = "time budget"
			break
		}
	}
	res = &Result{
		Objective: md.f.Value(md.obj),
		Parts:     md.f.Parts(),
		Epochs:    len(md.trace),
		Elapsed:   time.Since(start),
		Stopped:   stopped,
		Converged: converged,
		Inducing:  md.f.Active(nil),
		Params:    md.Params(),
		Mean:      md.f.mu,
		M:         md.m,
		Stats:     md.f.stats,
	}
	res.Warnings = md.warnings(res)
	for _, w := range res.Warnings {
		if md.progress != nil {
			fmt.Fprintf(md.progress, "warning: %s\n", w)
		}
		if md.onWarning != nil {
			md.onWarning(w)
		}
	}
	return res, runErr
}

// cgHealthy reports whether an epoch's gradient phase ended normally, or
// at a gradient small enough that a failed line search means a flat
// objective rather than a stuck optimiser: max |∂F/∂θ| below the
// tolerance times the objective's scale, so that a unit change of any log
// hyperparameter would change F by less than the tolerance.
func (md *Model) cgHealthy(rec EpochRecord) bool {
	switch rec.CGStatus {
	case CGBudget, CGConverged, CGSkipped:
		return true
	}
	return rec.CGGradient <= md.tol*md.f.valueScale(rec.Objective)
}

// warnings returns the notes a user must see about a fit.
func (md *Model) warnings(res *Result) []string {
	var w []string
	if k := len(res.Inducing); k < md.m {
		w = append(w, fmt.Sprintf("only %d of the m=%d inducing points asked for: the kernel cannot tell more training points apart at these hyperparameters (see WithM)", k, md.m))
	}
	switch {
	case res.Stopped == "cancelled":
		w = append(w, fmt.Sprintf("interrupted at epoch %d, F = %.6g; the model keeps this state", res.Epochs, res.Objective))
	case !res.Converged:
		w = append(w, fmt.Sprintf("the fit did not converge (%s); the model is the best state reached", res.Stopped))
	}
	return w
}

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
