package sgp

// WithNoiseVariances gives each training point a known noise variance
// s_i² ≥ 0, as Exact.WithNoiseVariances does: the noise of point i is
// λ_i = s_i² + σ², and the objective is the VFE (or DTC) bound of that
// likelihood (Titsias 2009, eq. 9 with Λ = diag(λ) for σ²I; see
// docs/algorithm.md, "Known per-point noise"), evaluated in O(n·m²) as
// without them. The Predictor's factors are those of the weighted
// problem, so that its predictions condition on the training noise;
// PredictNoisy adds σ² alone.
func (c *Continuous) WithNoiseVariances(s2 []float64) *Continuous {
	if err := checkNoiseVariances(s2); err != nil {
		return c.setErr(err)
	}
	c.s2 = append([]float64(nil), s2...)
	return c
}
