package sgp

import (
	"io"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// Regressor is a fitted model that predicts and saves: a sparse
// *Predictor or an exact *ExactPredictor. LoadRegressor reads either
// kind of model file; a comma-ok assertion (p, ok := r.(*Predictor)) or a
// type switch on the two types tells them apart, in the REPL too.
type Regressor interface {
	// Predict returns the predictive mean and latent variance at xs.
	Predict(xs kernel.Inputs) (mean, variance []float64, err error)
	// PredictNoisy returns the predictive mean and the variance of a
	// noisy observation at xs.
	PredictNoisy(xs kernel.Inputs) (mean, variance []float64, err error)
	// PredictCov returns the predictive mean and the latent covariance
	// at xs; PredictNoisyCov that of noisy observations.
	PredictCov(xs kernel.Inputs) (mean []float64, cov *mat.SymDense, err error)
	PredictNoisyCov(xs kernel.Inputs) (mean []float64, cov *mat.SymDense, err error)
	// Sample returns n posterior draws of the latent function at xs (the
	// columns of an xs.Len()×n matrix); SampleNoisy of noisy
	// observations; SampleWith with options.
	Sample(xs kernel.Inputs, n int, rng *rand.Rand) (*mat.Dense, error)
	SampleNoisy(xs kernel.Inputs, n int, rng *rand.Rand) (*mat.Dense, error)
	SampleWith(xs kernel.Inputs, n int, rng *rand.Rand, o SampleOptions) (*mat.Dense, error)
	// PredictGrad returns the gradients in x of the predictive mean and
	// latent variance at xs, for kernels with input gradients.
	PredictGrad(xs kernel.Inputs) (dmean, dvar *mat.Dense, err error)
	// Evaluate scores the predictions at test.X against test.Y.
	Evaluate(test *data.Dataset) (*Evaluation, error)
	// Noise returns σ².
	Noise() float64
	// Save writes the model as JSON.
	Save(w io.Writer) error
	// SaveFile writes the model to a file, as Predictor.SaveFile does:
	// a regular file completely or not at all.
	SaveFile(path string) error
}

// LoadRegressor reads a model file of either kind, sparse (Save of a
// Model or Predictor) or exact (ExactPredictor.Save), with the checks of
// LoadPredictor and LoadExactPredictor.
func LoadRegressor(r io.Reader) (Regressor, error) {
	mf, err := readModelFile(r)
	if err != nil {
		return nil, err
	}
	if mf.format == exactModelFormat {
		return mf.exactPredictor()
	}
	return mf.predictor()
}

// LoadRegressorFile reads a model file of either kind (see LoadRegressor).
func LoadRegressorFile(path string) (Regressor, error) {
	return loadFile(path, LoadRegressor)
}
