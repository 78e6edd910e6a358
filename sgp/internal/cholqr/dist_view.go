package cholqr

import (
	"slices"

	"github.com/cholqr/sgp/sgp/kernel"
)

// InducingFactors returns what Factor.InducingFactors does, from the
// replicated state and so the same on every rank without messages: for
// the k inducing points in pivot order, w = G[I, :k] (k×k row-major,
// lower triangular, read off the pivots' own rows of G), r = R (k×k
// row-major, upper triangular) and a = Q[:n,:]ᵀ(y − μ), all copies.
func (f *Dist) InducingFactors() (w, r, a []float64) {
	if !f.ok {
		panic(errBadFactor)
	}
	k := f.k
	w, r = make([]float64, k*k), make([]float64, k*k)
	a = slices.Clone(f.a[:k])
	for i := 0; i < k; i++ {
		copy(w[i*k:i*k+i+1], f.pivRows[i*f.tcap:i*f.tcap+i+1])
		copy(r[i*k+i:(i+1)*k], f.r[i*f.mcap+i:i*f.mcap+k])
	}
	return w, r, a
}

// PredictionState returns the kernel, the noise σ² and the prior mean μ
// of the state (the kernel itself, not a copy), the same on every rank.
func (f *Dist) PredictionState() (kern kernel.Kernel, noise, mu float64) {
	return f.kern, f.noise, f.mu
}
