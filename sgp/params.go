package sgp

import (
	"math"
	"time"

	"github.com/cholqr/sgp/sgp/kernel"
)

// MeanFunction returns the prior mean function.
func (md *Model) MeanFunction() Mean { return md.mean }

// TimeBudget returns the time budget of Fit set by WithTimeBudget, counted
// from the start of each Fit; 0 means no limit.
func (md *Model) TimeBudget() time.Duration { return md.budget }

// predictMean is Mean of a built model.
func (md *Model) predictMean() float64 {
	if md.refined != nil {
		return md.refined.Mean
	}
	return md.f.Mean()
}

// profile sets an estimated mean to its closed-form optimum for the
// current inducing set and hyperparameters (under its prior, see Mean); F can only
// decrease. It does nothing for a fixed mean or an invalid factor.
func (md *Model) profile() {
	if md.mean.Estimated() && md.f != nil && md.f.Ready() {
		md.f.SetMean(md.f.MAPMean())
	}
}

// Kernel returns the kernel (its hyperparameters are the model's).
func (md *Model) Kernel() kernel.Kernel { return md.kern }

// Inputs returns the training inputs.
func (md *Model) Inputs() kernel.Inputs { return md.x }

// Targets returns the training targets.
func (md *Model) Targets() []float64 { return md.y }

// ObjectiveKind returns the objective being minimised.
func (md *Model) ObjectiveKind() Objective { return md.obj }

// Params returns θ: the kernel's log hyperparameters followed by log σ².
func (md *Model) Params() []float64 {
	th := md.kern.Params(nil)
	noise := md.noise
	if md.f != nil {
		noise = md.f.Noise()
	}
	if noise == 0 {
		noise = startNoise(md.y)
	}
	return append(th, math.Log(noise))
}

// ParamNames names the entries of Params.
func (md *Model) ParamNames() []string {
	return append(md.kern.ParamNames(), "noise")
}

// Hyperparameters returns the hyperparameters by name, as positive values
// (exp θ), in θ order: the kernel's, then the noise variance σ² ("noise");
// a value fixed by WithFixedAt is the value given.
func (md *Model) Hyperparameters() Hyperparameters {
	return md.resolved().exactValues(newHyperparameters(md.ParamNames(), md.Params()))
}
