package base

import (
	"fmt"
	"strconv"

	"github.com/cholqr/sgp/sgp/internal/table"
)

// SwapResult describes one swap proposal.
type SwapResult struct {
	Removed     int     // data index of the inducing point taken out
	Proposed    int     // best candidate by approximate score, or −1 if none
	Accepted    bool    // whether Proposed replaced Removed
	ApproxDelta float64 // approximate decrease of F from adding Proposed
	ExactDelta  float64 // exact decrease of F from adding Proposed
	Before      float64 // objective before the swap
	After       float64 // objective after the swap (= Before if rejected)
}

// String summarises the objective terms; the mean prior's only where it
// is not 0.
func (p Parts) String() string {
	prior := ""
	if p.MeanPrior != 0 {
		prior = ", mean prior " + table.G(p.MeanPrior)
	}
	return fmt.Sprintf("MLE %s, VAR %s (data fit %s, complexity %s, trace %s%s)",
		table.G(p.MLE), table.G(p.VAR), table.G(p.DataFit), table.G(p.Complexity), table.G(p.Trace), prior)
}

// HTML returns the objective terms as a table.
func (p Parts) HTML() string {
	return table.HTML("objective terms", [][2]string{
		{"MLE", table.G(p.MLE)}, {"VAR", table.G(p.VAR)},
		{"data fit E_D", table.G(p.DataFit)}, {"complexity E_C", table.G(p.Complexity)}, {"trace E_V", table.G(p.Trace)},
		{"mean prior E_μ", table.G(p.MeanPrior)},
	})
}

// String describes the swap in one line. ΔF is the exact and the
// approximate decrease of F from adding the candidate once the removed
// point is out.
func (r SwapResult) String() string {
	switch {
	case r.Proposed < 0:
		return fmt.Sprintf("swap: %d kept, no candidate; F %s", r.Removed, table.G(r.Before))
	case r.Accepted:
		return fmt.Sprintf("swap: %d → %d accepted; F %s → %s (adding %d: ΔF exact %s, approx %s)",
			r.Removed, r.Proposed, table.G(r.Before), table.G(r.After), r.Proposed, table.G(r.ExactDelta), table.G(r.ApproxDelta))
	}
	return fmt.Sprintf("swap: %d kept, candidate %d rejected: F %s would not decrease (adding %d: ΔF exact %s, approx %s)",
		r.Removed, r.Proposed, table.G(r.Before), r.Proposed, table.G(r.ExactDelta), table.G(r.ApproxDelta))
}

// HTML returns the swap as a table.
func (r SwapResult) HTML() string {
	return table.HTML("swap", [][2]string{
		{"removed", strconv.Itoa(r.Removed)}, {"proposed", strconv.Itoa(r.Proposed)},
		{"accepted", strconv.FormatBool(r.Accepted)},
		{"ΔF approximate", table.G(r.ApproxDelta)}, {"ΔF exact", table.G(r.ExactDelta)},
		{"F before", table.G(r.Before)}, {"F after", table.G(r.After)},
	})
}
