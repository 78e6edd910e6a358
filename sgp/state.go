package sgp

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cholqr/sgp/sgp/kernel"
)

// MeanFunction returns the prior mean function.
func (md *Model) MeanFunction() Mean { return md.mean }

// TimeBudget returns the time budget of Fit set by WithTimeBudget, counted
// from the start of each Fit; 0 means no limit.
func (md *Model) TimeBudget() time.Duration { return md.budget }

// Mean returns the current value of the constant prior mean μ (the
// estimate for MeanConstant): the μ the model predicts with and saves,
// which after a hybrid fit that kept its continuous refinement is the
// refinement's (Refined().Mean), not the CholQR factor's.
func (md *Model) Mean() (mu float64, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return math.NaN(), err
	}
	return md.predictMean(), nil
}

// predictMean is Mean of a built model.
func (md *Model) predictMean() float64 {
	if md.refined != nil {
		return md.refined.Mean
	}
	return md.f.mu
}

// profile sets an estimated mean to its closed-form optimum for the
// current inducing set and hyperparameters (Factor.GLSMean); F can only
// decrease. It does nothing for a fixed mean or an invalid factor.
func (md *Model) profile() {
	if md.mean.Estimated() && md.f != nil && md.f.ok {
		md.f.SetMean(md.f.GLSMean())
	}
}

// Factor returns a read-only view of the factored state (building it if
// needed), for inspection.
func (md *Model) Factor() (f *Factor, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return nil, err
	}
	return &Factor{f: md.f}, nil
}

// Kernel returns the kernel (its hyperparameters are the model's).
func (md *Model) Kernel() kernel.Kernel { return md.kern }

// Inputs returns the training inputs.
func (md *Model) Inputs() kernel.Inputs { return md.x }

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
// (exp θ), in θ order: the kernel's, then the noise variance σ² ("noise").
func (md *Model) Hyperparameters() Hyperparameters {
	return newHyperparameters(md.ParamNames(), md.Params())
}

// Hyperparameters are a model's hyperparameters by name, as positive
// values (exp θ), in θ order: the kernel's (Kernel.ParamNames), then the
// noise variance σ², named "noise". String and HTML show them in that
// order, one per row.
type Hyperparameters struct {
	Names  []string
	Values []float64
}

// newHyperparameters returns the hyperparameters exp θ named by names.
func newHyperparameters(names []string, theta []float64) Hyperparameters {
	h := Hyperparameters{Names: append([]string(nil), names...), Values: make([]float64, len(theta))}
	for i, v := range theta {
		h.Values[i] = math.Exp(v)
	}
	return h
}

// Value returns the hyperparameter called name. It panics, listing the
// names, if there is none.
func (h Hyperparameters) Value(name string) float64 {
	for i, n := range h.Names {
		if n == name {
			return h.Values[i]
		}
	}
	panic(fmt.Sprintf("sgp: no hyperparameter %q; the names are %s", name, strings.Join(h.Names, ", ")))
}

// Map returns the hyperparameters as a map from name to value.
func (h Hyperparameters) Map() map[string]float64 {
	m := make(map[string]float64, len(h.Names))
	for i, n := range h.Names {
		m[n] = h.Values[i]
	}
	return m
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
	old, active := md.Params(), md.f.Active(nil)
	md.refined = nil
	md.kern.SetParams(theta[:np])
	md.f.noise = math.Exp(theta[np])
	if err := md.f.Factorize(active); err != nil {
		// The set cannot be kept at θ: back to the state before, which
		// the set was built at (a failed Factorize leaves the factor
		// invalid, so the set is taken from before the attempt).
		if rerr := md.refactor(old, active); rerr != nil {
			md.refactorKeeping(active)
		}
		return err
	}
	md.profile()
	return nil
}

// Trace is the per-epoch record of a fit, oldest first: a slice, indexed,
// ranged over and passed to figure.Trace as one, that displays as a table
// (String in a terminal, HTML in a notebook).
type Trace []EpochRecord

// Trace returns a copy of the per-epoch records so far.
func (md *Model) Trace() Trace { return append(Trace(nil), md.trace...) }

// Stats returns the factor's counters.
func (md *Model) Stats() Stats {
	if md.f == nil {
		return Stats{}
	}
	return md.f.stats
}
