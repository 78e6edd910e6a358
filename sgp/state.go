package sgp

import (
	"fmt"
	"math"
)

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

// Factor returns a read-only view of the factored state (building it if
// needed), for inspection.
func (md *Model) Factor() (f *Factor, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return nil, err
	}
	return &Factor{f: md.f}, nil
}

// Noise returns the current noise variance σ².
func (md *Model) Noise() (s2 float64, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return 0, err
	}
	return md.f.Noise(), nil
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
	md.f.SetNoiseOnly(math.Exp(theta[np]))
	if err := md.f.Factorize(active); err != nil {
		// The set cannot be kept at θ: back to the state before, which
		// the set was built at (a failed Factorize leaves the factor
		// invalid, so the set is taken from before the attempt).
		if rerr := md.refactor(old, active); rerr != nil {
			md.refactorKeeping(active, md.obj)
		}
		return err
	}
	md.profile()
	return nil
}

// Trace returns a copy of the per-epoch records so far.
func (md *Model) Trace() Trace { return append(Trace(nil), md.trace...) }

// Stats returns the factor's counters.
func (md *Model) Stats() Stats {
	if md.f == nil {
		return Stats{}
	}
	return md.f.Stats()
}
