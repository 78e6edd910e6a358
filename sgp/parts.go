package sgp

import (
	"fmt"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// Objective selects the function that CholQR minimises: VAR or MLE.
type Objective = base.Objective

const (
	// VAR is Titsias' (2009) variational free energy, the negative ELBO:
	//	F = MLE + ½ σ⁻² tr(K − K̂).
	VAR = base.VAR
	// MLE is the negative log marginal likelihood of the projected process
	// (DTC) approximation:
	//	F = ½ yᵀ(K̂ + σ²I)⁻¹y + ½ log|K̂ + σ²I| + n/2 · log 2π.
	MLE = base.MLE
)

// ParseObjective converts "var"/"vfe"/"elbo" or "mle"/"dtc" (any case) to an Objective.
func ParseObjective(s string) (Objective, error) {
	switch lower(s) {
	case "var", "vfe", "elbo", "titsias":
		return VAR, nil
	case "mle", "dtc", "ml":
		return MLE, nil
	}
	return 0, fmt.Errorf("sgp: unknown objective %q: use var or mle", s)
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Parts holds the terms of the objectives read off a Factor (Cao et al.
// 2013, §3), in its fields DataFit, Complexity, Trace and MeanPrior, and
// the objectives MLE and VAR made of them:
//
//	E_D = σ⁻²(‖y‖² − ‖a‖²)                 data fit, yᵀ(K̂+σ²I)⁻¹y
//	E_C = (n−k)·log σ² + 2·Σ log R_ii      complexity, log|K̂+σ²I|
//	E_V = σ⁻²·tr(K − K̂)                   variational trace term
//	E_μ = (μ − ȳ)²/τ²                      the prior on an estimated mean
//
// so that MLE = ½(E_D + E_C + E_μ) + n/2·log 2π and VAR = MLE + ½E_V. E_μ
// is 0 unless the mean is MeanConstant (see Mean). Value(o) returns the
// objective o; String and HTML display the terms.
type Parts = base.Parts

// Stats counts the work a Factor has done and the numerical events it
// saw: KernelEvals (kernel entries evaluated), Swaps and Accepted,
// Clamped (tiny negative residual variances clamped to zero),
// Factorizations, InfoRefreshes, LastDrift and MaxDrift (the relative
// objective change corrected by refactorisations), LastResidDrift,
// Reorthogonalize, Predicted and PredictedReject (swap candidates whose
// exact score was predicted without a pass over Q, and those rejected on
// the prediction), NoQ (points a forward start added without Gram–Schmidt)
// and LeftOut (inducing points a rebuild left out as numerically in the
// span of the others).
type Stats = base.Stats

// SwapResult describes one swap of the engine (Model.Swap): Removed, the
// inducing point taken out; Proposed, the best candidate by approximate
// score (−1 if none); Accepted; ApproxDelta and ExactDelta, the
// approximate and exact decrease of F from adding Proposed; Before and
// After, the objective before and after the swap (After = Before if
// rejected).
type SwapResult = base.SwapResult
