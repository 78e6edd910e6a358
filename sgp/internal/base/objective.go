package base

import "fmt"

// Objective selects the function that CholQR minimises.
type Objective int

const (
	// VAR is Titsias' (2009) variational free energy, the negative ELBO:
	//	F = MLE + ½ σ⁻² tr(K − K̂).
	VAR Objective = iota
	// MLE is the negative log marginal likelihood of the projected process
	// (DTC) approximation:
	//	F = ½ yᵀ(K̂ + σ²I)⁻¹y + ½ log|K̂ + σ²I| + n/2 · log 2π.
	MLE
)

// String returns "VAR" or "MLE".
func (o Objective) String() string {
	switch o {
	case VAR:
		return "VAR"
	case MLE:
		return "MLE"
	}
	return fmt.Sprintf("Objective(%d)", int(o))
}

// Parts holds the terms of the objectives read off the engine's state
// (cholqr.Factor; Cao et al. 2013, §3):
//
//	E_D = σ⁻²(‖y‖² − ‖a‖²)                 data fit, yᵀ(K̂+σ²I)⁻¹y
//	E_C = (n−k)·log σ² + 2·Σ log R_ii      complexity, log|K̂+σ²I|
//	E_V = σ⁻²·tr(K − K̂)                   variational trace term
//	E_μ = (μ − ȳ)²/τ²                      the prior on an estimated mean
//
// so that MLE = ½(E_D + E_C + E_μ) + n/2·log 2π and VAR = MLE + ½E_V. E_μ
// is 0 unless the mean is MeanConstant (see Mean).
type Parts struct {
	DataFit    float64 // E_D
	Complexity float64 // E_C
	Trace      float64 // E_V
	MeanPrior  float64 // E_μ
	MLE        float64
	VAR        float64
}

// Value returns the objective o.
func (p Parts) Value(o Objective) float64 {
	if o == MLE {
		return p.MLE
	}
	return p.VAR
}

// Stats counts the work a Factor has done and the numerical events it saw.
type Stats struct {
	KernelEvals     int     // kernel entries evaluated (a column of n counts n)
	Swaps           int     // swaps attempted
	Accepted        int     // swaps accepted
	Clamped         int     // tiny negative residual variances clamped to zero
	Factorizations  int     // from-scratch factorisations
	InfoRefreshes   int     // information pivots replaced
	LastDrift       float64 // relative objective change corrected by the last refactorisation
	MaxDrift        float64 // largest such change so far
	LastResidDrift  float64 // max |Δ tr-residual| per point corrected by the last refactorisation
	Reorthogonalize int     // Gram–Schmidt columns that needed explicit passes over Q (a poor first projection)
	Predicted       int     // swap candidates whose exact score was first predicted without a pass over Q
	PredictedReject int     // of those, the ones rejected on the prediction alone
	NoQ             int     // points a forward start added without Gram–Schmidt (Q rebuilt after)
	LeftOut         int     // inducing points a rebuild left out as numerically in the span of the others
}
