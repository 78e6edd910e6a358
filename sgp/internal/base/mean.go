package base

import "math"

// MeanPrior is the Gaussian prior N(Ybar, Tau2) on an estimated mean
// (sgp.MeanConstant); the zero value is no prior (GLS, or a mean that is
// not estimated).
type MeanPrior struct {
	On         bool
	Ybar, Tau2 float64
}

// Penalty returns (μ − ȳ)²/τ², twice the prior's term of the objective
// (Parts.MeanPrior); 0 without a prior.
func (p MeanPrior) Penalty(mu float64) float64 {
	if !p.On || mu == p.Ybar {
		return 0
	}
	d := mu - p.Ybar
	if !(p.Tau2 > 0) {
		return math.Inf(1)
	}
	return d * d / p.Tau2
}

// Step returns the change δ of μ that minimises
//
//	[‖y − μ − δ‖²_W]/s2 + (μ + δ − ȳ)²/τ²
//
// where the first term is a quadratic in δ with gradient −2·num/s2 and
// curvature 2·den/s2 at δ = 0 (num = 1ᵀW(y − μ), den = 1ᵀW1 in the units
// of s2), and off = μ − ȳ:
//
//	δ = (num − off·s2/τ²) / (den + s2/τ²).
//
// Without a prior it is the GLS step num/den. It returns 0 if the
// denominator is not positive (rounding only) and −off when τ² = 0
// (constant targets: μ = ȳ).
func (p MeanPrior) Step(num, den, off, s2 float64) float64 {
	w := 0.0
	if p.On {
		if !(p.Tau2 > 0) {
			return -off
		}
		w = s2 / p.Tau2
	}
	d := den + w
	if !(d > 0) {
		return 0
	}
	return (num - off*w) / d
}
