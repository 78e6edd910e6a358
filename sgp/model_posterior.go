package sgp

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/kernel"
)

// PredictCov returns the predictive mean and the latent covariance at xs
// from the model's current state, as Predictor.PredictCov.
func (md *Model) PredictCov(xs kernel.Inputs) (mean []float64, cov *mat.SymDense, err error) {
	defer md.recoverPanic(&err)
	p, err := md.Predictor()
	if err != nil {
		return nil, nil, err
	}
	return p.PredictCov(xs)
}

// PredictNoisyCov is PredictCov for noisy observations, as
// Predictor.PredictNoisyCov.
func (md *Model) PredictNoisyCov(xs kernel.Inputs) (mean []float64, cov *mat.SymDense, err error) {
	defer md.recoverPanic(&err)
	p, err := md.Predictor()
	if err != nil {
		return nil, nil, err
	}
	return p.PredictNoisyCov(xs)
}

// Sample returns n posterior draws of the latent function at xs, as
// Predictor.Sample.
func (md *Model) Sample(xs kernel.Inputs, n int, rng *rand.Rand) (*mat.Dense, error) {
	return md.SampleWith(xs, n, rng, SampleOptions{})
}

// SampleNoisy returns n posterior draws of noisy observations at xs, as
// Predictor.SampleNoisy.
func (md *Model) SampleNoisy(xs kernel.Inputs, n int, rng *rand.Rand) (*mat.Dense, error) {
	return md.SampleWith(xs, n, rng, SampleOptions{Noisy: true})
}

// SampleWith is Sample with options, as Predictor.SampleWith.
func (md *Model) SampleWith(xs kernel.Inputs, n int, rng *rand.Rand, o SampleOptions) (out *mat.Dense, err error) {
	defer md.recoverPanic(&err)
	p, err := md.Predictor()
	if err != nil {
		return nil, err
	}
	return p.SampleWith(xs, n, rng, o)
}

// PredictGrad returns the gradients in x of the predictive mean and
// variance at xs, as Predictor.PredictGrad.
func (md *Model) PredictGrad(xs kernel.Inputs) (dmean, dvar *mat.Dense, err error) {
	defer md.recoverPanic(&err)
	p, err := md.Predictor()
	if err != nil {
		return nil, nil, err
	}
	return p.PredictGrad(xs)
}
