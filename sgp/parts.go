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
// 2013, §3): the data fit, the complexity, the variational trace term and
// the mean's prior term, and the two objectives made of them.
type Parts = base.Parts

// Stats counts the work a Factor has done and the numerical events it saw.
type Stats = base.Stats

// SwapResult describes one swap of the engine (Model.Swap, Factor's
// swaps): the point removed, the candidate proposed, whether it was
// accepted, its exact and approximate decrease of F, and F before and
// after.
type SwapResult = base.SwapResult
