package sgp

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/cholqr"
	"github.com/cholqr/sgp/sgp/internal/par"
	"github.com/cholqr/sgp/sgp/internal/table"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// Predictor holds what prediction needs from a fitted model, independent
// of the training data (Cao et al. 2013, §2; Titsias 2009): the kernel, the
// noise σ², the prior mean μ, the inducing inputs x_I and three factor
// arrays: W = G[I, :] (k×k lower triangular in pivot order, K[I,I] = WWᵀ),
// R from the QR of [G; σI] and a = Q[:n,:]ᵀ(y − μ). For a test input x*,
// with g* = W⁻¹K[I, *],
//
//	mean* = μ + g*ᵀR⁻¹a,    v* = κ(x*, x*) − ‖g*‖² + σ²‖R⁻ᵀg*‖²   (latent f*)
//
// and the variance of a noisy observation y* adds σ². Cost O(k²) per test
// point after O(k²) set-up, plus k kernel evaluations.
//
// It has the prediction methods of Model (Predict, PredictNoisy, PredictTo,
// Evaluate) and saves to JSON (Save, LoadPredictor). The factor arrays are
// unexported: they are consistent with each other and with R⁻¹a computed
// once, and are read only through prediction and the model file.
type Predictor struct {
	// Kern is the kernel with the fitted hyperparameters (a copy for the
	// built-in kernels, so that fitting the model further does not change
	// it).
	Kern kernel.Kernel
	// NoiseV is σ², the noise variance (also Noise()).
	NoiseV float64
	// PriorMean is μ, the constant prior mean added to every predictive
	// mean (0 for a zero-mean model).
	PriorMean float64
	// X holds the k inducing inputs x_I, in pivot order.
	X kernel.Inputs
	// InputNames are the names of the input columns the model was fit
	// on, in the model's order (the training Vectors' Names), or nil when
	// they had none. PredictTo refuses Vectors whose columns are named
	// otherwise (Vectors.Columns puts them in this order), and
	// ReadPredictCSV reads a CSV file's columns by these names.
	InputNames []string
	// TargetName is the name of the target column, or "" when it is not
	// known (a Model does not know it: set it before saving the
	// Predictor). ReadPredictCSV skips a column of that name.
	TargetName string
	// Fixed and Bounds are the hyperparameters the fit held fixed and
	// the bounds it kept (FitSummary.Fixed, Bounds), as a model file
	// records them; nil when none were.
	Fixed  map[string]float64
	Bounds []Bound

	w    []float64 // W, k×k row-major, lower triangular
	r    []float64 // R, k×k row-major, upper triangular
	a    []float64 // a, k
	beta []float64 // R⁻¹a
	// inducer are the inducing points' rows in the training data (nil
	// for continuous inducing inputs).
	inducer []int
	// knownNoise says the factors are those of a fit with known per-point
	// noise variances (WithNoiseVariances of Model or Continuous): they
	// condition on each training row's s_i² + σ².
	knownNoise bool
	// trainMean and trainVar are the training targets' mean and variance,
	// the trivial model of SNLP; trainVar is 0 when unknown (a model
	// loaded from a file without them).
	trainMean, trainVar float64
}

// newPredictor copies the prediction state out of a factor, including a
// copy of a built-in kernel, so later fitting does not change it.
//
// With known noise (cholqr.Factor.SetKnownNoise) the factor holds the
// scaled problem: its G' = Λ^{-1/2}G, so W = Λ_I^{1/2}G'[I, :], and
// R'ᵀR' = G'ᵀG' + I = I + GᵀΛ⁻¹G and a' = R'⁻ᵀGᵀΛ⁻¹(y − μ), which are
// R/σ and a/σ of the weighted problem's Predictor (noiseEval.predictor):
// R = σR', a = σa' give the predictive of Λ = diag(s² + σ²) exactly.
func newPredictor(f *cholqr.Factor) *Predictor {
	w, r, a := f.InducingFactors()
	if wt := f.RowWeights(); wt != nil {
		k := len(a)
		sd := math.Sqrt(f.Noise())
		for i, ji := range f.Active(nil) {
			for c := 0; c <= i; c++ {
				w[i*k+c] /= wt[ji]
			}
			for c := i; c < k; c++ {
				r[i*k+c] *= sd
			}
			a[i] *= sd
		}
	}
	p := &Predictor{Kern: kernel.Clone(f.Kernel()), NoiseV: f.Noise(), PriorMean: f.Mean(), w: w, r: r, a: a, knownNoise: f.RowWeights() != nil}
	p.trainMean, p.trainVar = meanVar(f.Targets())
	p.InputNames = inputNames(f.Inputs())
	p.inducer = f.Active(nil)
	p.X = f.Inputs().Subset(p.inducer)
	p.prepare()
	return p
}

func (p *Predictor) prepare() {
	k := len(p.a)
	p.beta = append([]float64(nil), p.a...)
	blas64.Trsv(blas.NoTrans, p.rt(), blas64.Vector{N: k, Data: p.beta, Inc: 1})
}

func (p *Predictor) rt() blas64.Triangular {
	k := len(p.a)
	return blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: k, Stride: max(1, k), Data: p.r}
}

func (p *Predictor) wt() blas64.Triangular {
	k := len(p.a)
	return blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: k, Stride: max(1, k), Data: p.w}
}

// PredictTo stores the predictive mean and latent variance at the s inputs
// xs in mean and variance (each of length s, allocated if nil) and returns
// them. Add σ² (Noise) to the variance for noisy observations. It returns
// an error if the kernel does not accept xs, or if xs are Vectors whose
// columns are named and the model's InputNames are not those names in
// that order: columns in another order, missing or unknown ones, are
// named in the error. Unnamed inputs are taken in the model's order.
func (p *Predictor) PredictTo(mean, variance []float64, xs kernel.Inputs) (_, _ []float64, err error) {
	defer base.RecoverTo(&err)
	if err := checkInputNames(p.InputNames, xs); err != nil {
		return nil, nil, err
	}
	if err := p.Kern.Accepts(xs); err != nil {
		return nil, nil, err
	}
	s, k := xs.Len(), len(p.a)
	if mean, variance, err = predictBuffers(mean, variance, s); err != nil {
		return nil, nil, err
	}
	// Work in blocks of test points to bound memory at O(k·block).
	const block = 2048
	gs := make([]float64, k*min(block, s))
	hs := make([]float64, k*min(block, s))
	kss := make([]float64, min(block, s))
	for lo := 0; lo < s; lo += block {
		hi := min(s, lo+block)
		b := hi - lo
		// Row c of gs = κ(xs[lo:hi], x_I[c]).
		par.For(k, max(1, par.MinRows/b), func(c0, c1 int) {
			for c := c0; c < c1; c++ {
				p.Kern.Column(gs[c*b:(c+1)*b], xs, lo, hi, p.X, c)
			}
		})
		kernelDiagRange(p.Kern, kss[:b], xs, lo, hi)
		g := blas64.General{Rows: k, Cols: b, Stride: b, Data: gs[:k*b]}
		if k > 0 {
			blas64.Trsm(blas.Left, blas.NoTrans, 1, p.wt(), g)
		}
		copy(hs[:k*b], gs[:k*b])
		h := blas64.General{Rows: k, Cols: b, Stride: b, Data: hs[:k*b]}
		if k > 0 {
			blas64.Trsm(blas.Left, blas.Trans, 1, p.rt(), h)
		}
		for i := 0; i < b; i++ {
			var mu, gg, hh float64
			for c := 0; c < k; c++ {
				gv, hv := gs[c*b+i], hs[c*b+i]
				mu += gv * p.beta[c]
				gg += gv * gv
				hh += hv * hv
			}
			mean[lo+i] = p.PriorMean + mu
			variance[lo+i] = math.Max(kss[i]-gg+p.NoiseV*hh, 0)
		}
	}
	return mean, variance, nil
}

// inputNames returns a copy of the column names of x, or nil when x are
// not Vectors with named columns.
func inputNames(x kernel.Inputs) []string {
	if v, ok := x.(*kernel.Vectors); ok && v.Names() != nil {
		return append([]string(nil), v.Names()...)
	}
	return nil
}

// checkInputNames returns an error when xs are Vectors with named columns
// and names, the model's input columns, are not those names in that
// order; inputs without names, or a model without them, pass.
func checkInputNames(names []string, xs kernel.Inputs) error {
	v, ok := xs.(*kernel.Vectors)
	if !ok || v.Names() == nil || names == nil || slices.Equal(v.Names(), names) {
		return nil
	}
	for _, name := range names {
		if !slices.Contains(v.Names(), name) {
			return fmt.Errorf("sgp: the inputs have no column %q, an input of the model (its inputs: %s)", table.Short(name), table.Names(names))
		}
	}
	for _, name := range v.Names() {
		if !slices.Contains(names, name) {
			return fmt.Errorf("sgp: the inputs' column %q is not an input of the model (its inputs: %s); select the model's with x.Columns(p.InputNames)", table.Short(name), table.Names(names))
		}
	}
	return fmt.Errorf("sgp: the inputs' columns (%s) are the model's in another order (%s); reorder them with x.Columns(p.InputNames)", table.Names(v.Names()), table.Names(names))
}

// kernelDiagRange sets dst[i−lo] = κ(x_i, x_i) for i in [lo, hi).
func kernelDiagRange(k kernel.Kernel, dst []float64, x kernel.Inputs, lo, hi int) {
	k.Diag(dst, x, lo, hi)
}

// Noise returns σ².
func (p *Predictor) Noise() float64 { return p.NoiseV }

// KnownNoise reports whether the predictor is of a fit with known
// per-point noise variances (Model.WithNoiseVariances,
// Continuous.WithNoiseVariances): its latent posterior conditions on each
// training row's s_i² + σ², and PredictNoisy adds σ² alone. A model file
// records it.
func (p *Predictor) KnownNoise() bool { return p.knownNoise }

// Predict returns the predictive mean and latent variance at xs, as
// Model.Predict does for the model the Predictor was taken from.
func (p *Predictor) Predict(xs kernel.Inputs) (mean, variance []float64, err error) {
	return p.PredictTo(nil, nil, xs)
}

// PredictNoisy returns the predictive mean and the variance of a noisy
// observation y* = f* + ε at xs, as Model.PredictNoisy does.
func (p *Predictor) PredictNoisy(xs kernel.Inputs) (mean, variance []float64, err error) {
	mean, variance, err = p.PredictTo(nil, nil, xs)
	return withNoise(mean, variance, err, p.NoiseV)
}

// predictBuffers returns mean and variance as buffers for s predictions,
// allocating those that are nil, or an error if a given one has another
// length.
func predictBuffers(mean, variance []float64, s int) ([]float64, []float64, error) {
	if mean == nil {
		mean = make([]float64, s)
	}
	if variance == nil {
		variance = make([]float64, s)
	}
	if len(mean) != s || len(variance) != s {
		return nil, nil, fmt.Errorf("sgp: prediction buffers of length %d and %d for %d inputs", len(mean), len(variance), s)
	}
	return mean, variance, nil
}

// withNoise adds the noise variance s2 to latent predictive variances,
// giving those of a noisy observation y* = f* + ε, or passes err on.
func withNoise(mean, variance []float64, err error, s2 float64) ([]float64, []float64, error) {
	if err != nil {
		return nil, nil, err
	}
	for i := range variance {
		variance[i] += s2
	}
	return mean, variance, nil
}

// Evaluate predicts at test.X with noisy variances and scores the
// predictions against test.Y, with the training targets as SNLP's trivial
// model, as Model.Evaluate does (the same numbers for the Predictor of a
// model). A Predictor loaded from a file keeps the training targets'
// mean and variance that the file holds (train_mean, train_var), and
// scores as the saved one; loaded from a file without them, it does not
// know its training targets and its SNLP is NaN (compute it with SNLP and
// the training targets' mean and population variance, gonum's
// stat.PopMeanVariance, if needed); the other scores are as for the model.
func (p *Predictor) Evaluate(test *data.Dataset) (ev *Evaluation, err error) {
	defer base.RecoverTo(&err)
	if test == nil || test.Len() == 0 {
		return nil, fmt.Errorf("sgp: no test data")
	}
	mean, vr, err := p.PredictNoisy(test.X)
	if err != nil {
		return nil, err
	}
	return evaluationKnown(mean, vr, test.Y, p.trainMean, p.trainVar)
}

// evaluationKnown is evaluation for a loaded model, which may not know
// its training targets' variance tv (0): SNLP is then NaN.
func evaluationKnown(mean, vr, ys []float64, tm, tv float64) (*Evaluation, error) {
	if tv > 0 {
		return evaluation(mean, vr, ys, tm, tv)
	}
	ev, err := evaluation(mean, vr, ys, 0, 1)
	if ev != nil {
		ev.SNLP = math.NaN()
	}
	return ev, err
}

// InputColumns returns the columns of the model's numeric inputs, for
// data.ReadPredictCSV; Dim is 0 when the model's inputs are not vectors.
func (p *Predictor) InputColumns() data.InputColumns {
	return inputColumns(p.X, p.InputNames, p.TargetName)
}

func inputColumns(x kernel.Inputs, names []string, target string) data.InputColumns {
	c := data.InputColumns{Names: names, Target: target}
	if v, ok := x.(*kernel.Vectors); ok {
		c.Dim = v.Dim()
	}
	return c
}
