package sgp

import (
	"github.com/cholqr/sgp/sgp/internal/cholqr"
	"github.com/cholqr/sgp/sgp/kernel"
)

// ranksPredictor copies the prediction state of a fit over ranks out of
// the replicated part of d (Dist.InducingFactors, InducingInputs), so
// that every rank builds the same Predictor without messages: W, R, a,
// a copy of the kernel, σ², μ, the inducing inputs and rows, and the
// targets' mean and variance (the trivial model of SNLP). names are the
// input columns' names (nil for none).
func ranksPredictor(d *cholqr.Dist, names []string) (*Predictor, error) {
	w, r, a := d.InducingFactors()
	kern, noise, mu := d.PredictionState()
	k := len(a)
	xi := d.InducingInputs()
	var x *kernel.Vectors
	var err error
	if k > 0 {
		if x, err = kernel.NewVectors(k, len(xi)/k, xi); err != nil {
			return nil, err
		}
		if names != nil {
			if x, err = x.WithNames(names); err != nil {
				return nil, err
			}
		}
	}
	p := &Predictor{Kern: kernel.Clone(kern), NoiseV: noise, PriorMean: mu, w: w, r: r, a: a, X: x}
	p.trainMean, p.trainVar = d.TargetMoments()
	if names != nil {
		p.InputNames = append([]string(nil), names...)
	}
	p.inducer = d.Active(nil)
	p.prepare()
	return p, nil
}
