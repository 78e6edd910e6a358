package sgp

import (
	"fmt"
	"math"

	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// Evaluate predicts at test.X with noisy variances and scores the
// predictions against test.Y (see Evaluation). SMSE is undefined (an
// error) for constant test targets.
func (md *Model) Evaluate(test *data.Dataset) (ev *Evaluation, err error) {
	defer md.recoverPanic(&err)
	if test == nil || test.Len() == 0 {
		return nil, fmt.Errorf("sgp: no test data")
	}
	mean, vr, err := md.PredictNoisy(test.X)
	if err != nil {
		return nil, err
	}
	tm, tv := meanVar(md.y)
	return evaluation(mean, vr, test.Y, tm, tv)
}

// PredictTo is Predict into the buffers mean and variance (each of length
// xs.Len(), allocated if nil), as Predictor.PredictTo.
func (md *Model) PredictTo(mean, variance []float64, xs kernel.Inputs) (_, _ []float64, err error) {
	defer md.recoverPanic(&err)
	p, err := md.Predictor()
	if err != nil {
		return nil, nil, err
	}
	return p.PredictTo(mean, variance, xs)
}

// Predict returns the predictive mean and latent variance at xs from the
// model's current state. Add the noise variance (Noise) for observations.
func (md *Model) Predict(xs kernel.Inputs) (mean, variance []float64, err error) {
	defer md.recoverPanic(&err)
	p, err := md.Predictor()
	if err != nil {
		return nil, nil, err
	}
	return p.PredictTo(nil, nil, xs)
}

// PredictNoisy returns the predictive mean and the variance of a noisy
// observation y* = f* + ε at xs.
func (md *Model) PredictNoisy(xs kernel.Inputs) (mean, variance []float64, err error) {
	defer md.recoverPanic(&err)
	p, err := md.Predictor()
	if err != nil {
		return nil, nil, err
	}
	return p.PredictNoisy(xs)
}

// Predictor returns a snapshot of the model for prediction: after a
// hybrid fit (SelectHybrid) that of its continuous refinement.
func (md *Model) Predictor() (p *Predictor, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return nil, err
	}
	if md.refined != nil {
		p = md.refined.Predictor
	} else {
		p = newPredictor(md.f)
	}
	if md.targetName != "" {
		q := *p // the refinement's own stays as it is
		q.TargetName = md.targetName
		p = &q
	}
	if r := md.resolved(); r != nil && !md.fixHyper {
		q := *p
		q.Fixed, q.Bounds, _ = r.report(append(p.Kern.Params(nil), math.Log(p.NoiseV)), md.floor())
		p = &q
	}
	return p, nil
}

// PredictNoisyWith returns the predictive mean and the variance of noisy
// observations at xs whose own known noise variances are s2 (one per
// test input): the latent variance plus σ² plus s2[i], as PredictNoisy
// with each test point's known noise added (see WithNoiseVariances).
func (md *Model) PredictNoisyWith(xs kernel.Inputs, s2 []float64) (mean, variance []float64, err error) {
	defer md.recoverPanic(&err)
	p, err := md.Predictor()
	if err != nil {
		return nil, nil, err
	}
	return p.PredictNoisyWith(xs, s2)
}
