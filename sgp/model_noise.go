package sgp

import "fmt"

// WithNoiseVariances gives each training point a known noise variance
// s_i² ≥ 0 (s2, one per target, in the targets' units squared), as
// Exact.WithNoiseVariances and Continuous.WithNoiseVariances do: the
// likelihood is y_i = f(x_i) + ε_i, ε_i ~ N(0, s_i² + σ²), σ² learned
// above the noise floor or fixed (WithFixedAt("noise", v)). The swaps run
// on the scaled problem K' = Λ^{-1/2}KΛ^{-1/2}, y' = Λ^{-1/2}(y − μ) with
// noise 1, Λ = diag(s² + σ²), whose objective is the original one less
// ½Σ log λ_i at every inducing set (docs/algorithm.md, "Known per-point
// noise in CholQR"), so the engine's updates and scores are unchanged;
// the gradient phase is continuous SGPR's known-noise objective at
// Z = x_I. The predictions condition on the training data with their own
// noise; PredictNoisy adds σ² alone, PredictNoisyWith a test point's own
// known noise too. The hybrid selector's continuous refinement takes the
// same s2. s2 is copied; an error names the first entry that is
// negative, NaN or infinite, or a length other than n. FitRanks does not
// take known noise.
func (md *Model) WithNoiseVariances(s2 []float64) *Model {
	if err := checkNoiseVariances(s2); err != nil {
		return md.setErr(err)
	}
	if md.x != nil && len(s2) != md.x.Len() {
		return md.setErr(fmt.Errorf("sgp: %d noise variances for %d training points", len(s2), md.x.Len()))
	}
	md.s2 = append([]float64(nil), s2...)
	md.reset()
	return md
}

// NoiseVariances returns a copy of the known noise variances of the
// training points (WithNoiseVariances), nil for none.
func (md *Model) NoiseVariances() []float64 {
	if md.s2 == nil {
		return nil
	}
	return append([]float64(nil), md.s2...)
}
