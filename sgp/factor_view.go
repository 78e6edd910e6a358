package sgp

import (
	"fmt"
	"html"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/internal/cholqr"
	"github.com/cholqr/sgp/sgp/internal/table"
)

// Factor is a read-only view of a Model's factored state (Model.Factor),
// for inspection: the partial Cholesky factor G of K with the inducing
// points and then the information pivots as pivots, the thin QR
// factorisation [G_I; σI] = QR, the residual variances and the objective
// read off them (see the package documentation's Notation). Its methods
// return copies and computations, never the state itself, so nothing
// done with them changes the model. It shows the model's state as the
// model leaves it: after a Swap, Step or Fit of the same model, the new
// state; after the model is reconfigured (a With… method), the state it
// had. With known noise variances (Model.WithNoiseVariances) the arrays
// and residual variances are those of the scaled problem the swaps run
// on (K' = Λ^{-1/2}KΛ^{-1/2}, y' = Λ^{-1/2}(y − μ), noise 1), and Noise is
// σ²; the objectives are the original problem's.
type Factor struct {
	f *cholqr.Factor
}

// N returns the number of training points n.
func (v *Factor) N() int { return v.f.N() }

// MaxActive returns m, the capacity of the inducing set.
func (v *Factor) MaxActive() int { return v.f.MaxActive() }

// MaxInfo returns the capacity of the information-pivot set.
func (v *Factor) MaxInfo() int { return v.f.MaxInfo() }

// NumActive returns k, the current size of the inducing set.
func (v *Factor) NumActive() int { return v.f.NumActive() }

// NumInfo returns the current number of information pivots.
func (v *Factor) NumInfo() int { return v.f.NumInfo() }

// Noise returns the noise variance σ².
func (v *Factor) Noise() float64 { return v.f.Noise() }

// Mean returns μ, the constant prior mean subtracted from the targets.
func (v *Factor) Mean() float64 { return v.f.Mean() }

// Stats returns the counters of work and numerical events.
func (v *Factor) Stats() Stats { return v.f.Stats() }

// Active returns the inducing set in pivot order in dst (allocated if nil).
func (v *Factor) Active(dst []int) []int { return v.f.Active(dst) }

// InfoPivots returns the information pivots in pivot order in dst
// (allocated if nil).
func (v *Factor) InfoPivots(dst []int) []int { return v.f.InfoPivots(dst) }

// IsActive reports whether point i is in the inducing set.
func (v *Factor) IsActive(i int) bool { return v.f.IsActive(i) }

// ResidualTo stores d = diag(K − K̂), the residual variance of every
// point given the inducing set, in dst (allocated if nil) and returns it.
func (v *Factor) ResidualTo(dst []float64) []float64 { return v.f.ResidualTo(dst) }

// Parts returns the terms of both objectives.
func (v *Factor) Parts() Parts { return v.f.Parts() }

// Value returns objective o.
func (v *Factor) Value(o Objective) float64 { return v.f.Value(o) }

// GMatrix returns a copy of the partial Cholesky factor of the inducing
// set, G[:, :k] (n×k, rows in data order): K̂ = GGᵀ.
func (v *Factor) GMatrix() *mat.Dense { return v.f.GMatrix() }

// InfoMatrix returns a copy of L_z = G[:, k:k+z] (n×z), the partial
// Cholesky factor of the residual K − K̂ at the information pivots.
func (v *Factor) InfoMatrix() *mat.Dense { return v.f.InfoMatrix() }

// QMatrix returns a copy of Q ((n+k)×k): the thin QR factor of [G; σI].
func (v *Factor) QMatrix() *mat.Dense { return v.f.QMatrix() }

// RMatrix returns a copy of R (k×k upper triangular).
func (v *Factor) RMatrix() *mat.TriDense { return v.f.RMatrix() }

// QtY returns a copy of a = Q[:n, :]ᵀ(y − μ).
func (v *Factor) QtY() []float64 { return v.f.QtY() }

// GLSMean returns the constant prior mean that minimises both objectives
// for the current inducing set and hyperparameters without a prior on μ
// (the estimate of MeanGLS, see Mean), without setting it.
func (v *Factor) GLSMean() float64 { return v.f.GLSMean() }

// ApproxDeltasTo stores in dst (allocated if nil) every point's
// approximate decrease of objective o from adding it to the inducing set,
// from the information pivots (Cao et al. 2013, §4): NaN for inducing
// points, −Inf for points with a negligible residual. Cost O(n·z·(k+z)).
// The exact decreases of the candidates that could replace an inducing
// point are Model.CostRanking's.
func (v *Factor) ApproxDeltasTo(dst []float64, o Objective) []float64 {
	return v.f.ApproxDeltasTo(dst, o)
}

// String summarises the factored state in one line.
func (v *Factor) String() string {
	if v == nil || v.f == nil {
		return "sgp.Factor(nil)"
	}
	f := v.f
	if !f.Ready() {
		return fmt.Sprintf("sgp.Factor: n=%d, m≤%d, z≤%d; not factorised", f.N(), f.MaxActive(), f.MaxInfo())
	}
	p := f.Parts()
	return fmt.Sprintf("sgp.Factor: n=%d, k=%d of m=%d inducing, %d information pivots, σ²=%s, μ=%s; MLE %s, VAR %s",
		f.N(), f.NumActive(), f.MaxActive(), f.NumInfo(), table.G(f.Noise()), table.G(f.Mean()), table.G(p.MLE), table.G(p.VAR))
}

// HTML returns the factored state as a table.
func (v *Factor) HTML() string {
	if v == nil || v.f == nil || !v.f.Ready() {
		return html.EscapeString(v.String())
	}
	f := v.f
	p := f.Parts()
	n, k := f.N(), f.NumActive()
	return table.HTML("CholQR factored state", [][2]string{
		{"n", strconv.Itoa(n)}, {"inducing points k (of m)", fmt.Sprintf("%d (of %d)", k, f.MaxActive())},
		{"information pivots", strconv.Itoa(f.NumInfo())}, {"noise σ²", table.G(f.Noise())}, {"prior mean μ", table.G(f.Mean())},
		{"MLE", table.G(p.MLE)}, {"VAR", table.G(p.VAR)}, {"data fit E_D", table.G(p.DataFit)},
		{"complexity E_C", table.G(p.Complexity)}, {"trace E_V", table.G(p.Trace)}, {"mean prior E_μ", table.G(p.MeanPrior)},
		{"G, Q", fmt.Sprintf("%d×%d, %d×%d (GMatrix, QMatrix)", n, k+f.NumInfo(), n+k, k)},
	})
}
