package cholqr

import (
	"fmt"
	"math"
	"slices"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// Mean returns μ.
func (f *Dist) Mean() float64 { return f.mu }

// TargetMoments returns the mean and variance of the targets over all
// rows: a prior N(ȳ, var y) on μ is MeanPrior{On: true, Ybar: ȳ, Tau2: var y}.
func (f *Dist) TargetMoments() (mean, variance float64) { return f.ybar, f.vary }

// SetPrior sets the prior on an estimated μ, whose penalty Parts adds.
func (f *Dist) SetPrior(p base.MeanPrior) { f.prior = p }

// MAPMean returns the minimiser in μ of both objectives for the current
// inducing set, as Factor.MAPMean: under the prior of SetPrior if any,
// otherwise the GLS estimate. It needs no messages: SetMean keeps
// Σ(y − μ).
func (f *Dist) MAPMean() float64 { return f.estimateMean(f.prior) }

// GLSMean returns the generalised least-squares estimate of μ, as
// Factor.GLSMean.
func (f *Dist) GLSMean() float64 { return f.estimateMean(base.MeanPrior{}) }

func (f *Dist) estimateMean(p base.MeanPrior) float64 {
	var ba, bb float64
	for c := 0; c < f.k; c++ {
		ba += f.b[c] * f.a[c]
		bb += f.b[c] * f.b[c]
	}
	return f.mu + p.Step(f.sumY-ba, float64(f.n)-bb, f.mu-p.Ybar, f.noise)
}

// LogScale returns n·log sd(y) over all rows, as Factor's.
func (f *Dist) LogScale() float64 { return f.logScale }

// Lend returns the storage of this rank's rows of G (nl·(m+z+1) values) and
// of Q (nl·m) for the caller to overwrite, and invalidates the state
// until the next successful Factorize, as Factor.Lend; the inducing set
// is kept in Active's order, to rebuild from.
func (f *Dist) Lend() (g, q []float64) {
	if !f.ok {
		panic(errBadFactor)
	}
	f.lastFactorized = append(f.lastFactorized[:0], f.perm[:f.k]...)
	f.ok = false
	return f.g, f.q
}

// LastFactorized returns a copy of the inducing set of the last
// successful Factorize or of the state Lend took, as Factor's.
func (f *Dist) LastFactorized() []int { return slices.Clone(f.lastFactorized) }

// SetParams sets the kernel's log parameters to theta and σ² to noise,
// forms this rank's diag K again and refactorises the inducing set there.
func (f *Dist) SetParams(theta []float64, noise float64) error {
	if !(noise > 0) || math.IsInf(noise, 0) {
		return fmt.Errorf("%w, got %v", base.ErrNoise, noise)
	}
	f.kern.SetParams(theta)
	if f.nl > 0 {
		f.kern.Diag(f.kdiag, f.x, 0, f.nl)
	}
	f.noise = noise
	return f.Factorize(f.Active(nil))
}
