package sgp

import (
	"fmt"

	"github.com/cholqr/sgp/sgp/kernel"
)

// WithNoiseVariances gives each training point a known noise variance
// s_i² ≥ 0 (s2, one per target, in the targets' units squared), as
// scikit-learn's alpha array and GPyTorch's fixed-noise likelihood do:
// the likelihood is y_i = f(x_i) + ε_i, ε_i ~ N(0, s_i² + σ²), with the
// homoscedastic σ² learned above the noise floor as without them, or
// fixed (WithFixedAt("noise", v), v > 0). The fit factorises
// K + diag(s² + σ²) in place of K + σ²I; ∂F/∂log σ² is ½σ² tr(Σ⁻¹ − ααᵀ)
// as before, Σ now with the known variances on its diagonal.
//
// The predictions' latent posterior conditions on the training data with
// their own noise; PredictNoisy adds σ² alone, since a test point's own
// known noise is not known to the model (add it to the variance where it
// is). s2 is copied; an error names the first entry that is negative,
// NaN or infinite, or a length other than n. σ² stays positive: the
// hyperparameters are optimised in log σ², and a noise-free model is a
// small fixed σ².
func (e *Exact) WithNoiseVariances(s2 []float64) *Exact {
	if err := checkNoiseVariances(s2); err != nil {
		return e.setErr(err)
	}
	e.s2 = append([]float64(nil), s2...)
	return e
}

// NoiseVariances returns a copy of the known noise variances of the
// training points (Exact.WithNoiseVariances), nil for none.
func (p *ExactPredictor) NoiseVariances() []float64 {
	if p.s2 == nil {
		return nil
	}
	return append([]float64(nil), p.s2...)
}

// PredictNoisyWith returns the predictive mean and the variance of noisy
// observations at xs whose own known noise variances are s2 (one per
// test input): the latent variance plus σ² plus s2[i], as PredictNoisy
// with each test point's known noise added.
func (p *ExactPredictor) PredictNoisyWith(xs kernel.Inputs, s2 []float64) (mean, variance []float64, err error) {
	return predictNoisyWith(p.PredictTo, p.NoiseV, xs, s2)
}

// PredictNoisyWith returns the predictive mean and the variance of noisy
// observations at xs whose own known noise variances are s2 (one per
// test input): the latent variance plus σ² plus s2[i], as PredictNoisy
// with each test point's known noise added (see
// Continuous.WithNoiseVariances).
func (p *Predictor) PredictNoisyWith(xs kernel.Inputs, s2 []float64) (mean, variance []float64, err error) {
	return predictNoisyWith(p.PredictTo, p.NoiseV, xs, s2)
}

func predictNoisyWith(predict func(mean, variance []float64, xs kernel.Inputs) ([]float64, []float64, error), noise float64, xs kernel.Inputs, s2 []float64) ([]float64, []float64, error) {
	if xs == nil || len(s2) != xs.Len() {
		n := 0
		if xs != nil {
			n = xs.Len()
		}
		return nil, nil, fmt.Errorf("sgp: %d noise variances for %d test inputs", len(s2), n)
	}
	if err := checkNoiseVariances(s2); err != nil {
		return nil, nil, err
	}
	mean, variance, err := predict(nil, nil, xs)
	if err != nil {
		return nil, nil, err
	}
	for i := range variance {
		variance[i] += noise + s2[i]
	}
	return mean, variance, nil
}
