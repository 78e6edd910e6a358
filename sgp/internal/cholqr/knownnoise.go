package cholqr

import (
	"fmt"
	"math"
	"slices"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// SetKnownNoise gives each training point a known noise variance s2[i] ≥ 0
// on top of σ²: the likelihood's noise is λ_i = s2[i] + σ². The Factor then
// holds the scaled problem (see Factor.wt; docs/algorithm.md, "Known
// per-point noise in CholQR"): kernel k'(x_i, x_j) = k(x_i, x_j)/√(λ_iλ_j),
// targets y'_i = (y_i − μ)/√λ_i and noise 1, whose Nyström approximation
// on the same inducing set is Λ^{-1/2}QΛ^{-1/2}, so that
//
//	(y − μ)ᵀ(Q + Λ)⁻¹(y − μ) = y'ᵀ(Q' + I)⁻¹y',
//	log|Q + Λ| = log|Q' + I| + Σ log λ_i,
//	tr(Λ⁻¹(K − Q)) = tr(K' − Q'):
//
// Parts, Value and every score are those of the original problem, and the
// swaps' arithmetic is unchanged. The mean's direction is Λ^{-1/2}1 in
// place of the ones vector. Noise, SetNoise and SetNoiseOnly keep meaning
// σ². s2 is not copied and must not change; the residual variances
// (ResidualTo) and the pivots' tolerances are the scaled problem's. It
// must be called before the first Factorize; it returns an error for a
// length other than n or an entry that is negative or not finite.
func (f *Factor) SetKnownNoise(s2 []float64) error {
	if f.ok || f.wt != nil {
		panic("sgp: internal error: SetKnownNoise after Factorize")
	}
	if len(s2) != f.n {
		return fmt.Errorf("sgp: %d noise variances for %d training points", len(s2), f.n)
	}
	for i, v := range s2 {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("sgp: noise variance %d is %v; known noise variances must be finite and ≥ 0", i, v)
		}
	}
	f.s2, f.sigma2, f.noise = s2, f.noise, 1
	f.wt = make([]float64, f.n)
	f.setWeights()
	return nil
}

// KnownNoise returns the known noise variances (SetKnownNoise), nil for
// none; the caller must not modify them.
func (f *Factor) KnownNoise() []float64 { return f.s2 }

// RowWeights returns λ_i^{-1/2}, the rows' scales of the problem the
// Factor holds with known noise (SetKnownNoise), nil without; the caller
// must not modify them.
func (f *Factor) RowWeights() []float64 { return f.wt }

// setWeights sets wt, ‖wt‖² and Σ log λ_i from s2 and σ², and the scaled
// targets from them.
func (f *Factor) setWeights() {
	var ww, ll float64
	for i, v := range f.s2 {
		lam := v + f.sigma2
		f.wt[i] = 1 / math.Sqrt(lam)
		ww += f.wt[i] * f.wt[i]
		ll += math.Log(lam)
	}
	f.wtwt, f.logLam = ww, ll
	f.centre()
}

// setSigma2 sets σ² with known noise, leaving the factors to be rebuilt.
func (f *Factor) setSigma2(noise float64) {
	f.sigma2 = noise
	f.setWeights()
}

// cloneWeights gives a clone c of f its own row weights.
func (f *Factor) cloneWeights(c *Factor) {
	c.wt = slices.Clone(f.wt)
}

// checkNoise returns an error for a σ² that is not positive and finite.
func checkNoise(noise float64) error {
	if !(noise > 0) || math.IsInf(noise, 0) {
		return fmt.Errorf("%w, got %v", base.ErrNoise, noise)
	}
	return nil
}
