package cli

import (
	"fmt"
	"math"
	"strings"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"
)

// restartsUsage is the help of fit --restarts.
var restartsUsage = fmt.Sprintf("fit N more times from other starting hyperparameters and keep the lowest objective (scikit-learn's n_restarts_optimizer): drawn around the data-driven start from --seed, the period of a periodic kernel from the periodogram's next peaks; the JSON's \"starts\" lists each start's objective (default %d for a kernel with a periodic component, whose objective has many optima, 0 otherwise; --time-budget is shared by the starts)", sgp.DefaultRestarts)

// restartsFor resolves --restarts: n if it was given (n ≥ 0), otherwise
// the default for kernel k (sgp.RestartsFor).
func restartsFor(n int, k kernel.Kernel) int {
	if n >= 0 {
		return n
	}
	return sgp.RestartsFor(k)
}

// startReport is one start of a fit with restarts in the JSON report.
type startReport struct {
	From      string             `json:"from"`      // "the data", "a draw around it" or "periodogram peak k, period p"
	Objective *float64           `json:"objective"` // null for a start whose fit failed
	Stopped   string             `json:"stopped"`
	Error     string             `json:"error,omitempty"`
	Seconds   float64            `json:"seconds"`
	Start     map[string]float64 `json:"start"` // the starting hyperparameters, by name
	End       map[string]float64 `json:"end"`   // where the fit ended; null if it failed
}

// startsReport returns the starts of the fit s for the report, nil for a
// fit from one start.
func startsReport(s *sgp.FitSummary) []startReport {
	if len(s.Starts) == 0 {
		return nil
	}
	out := make([]startReport, len(s.Starts))
	for i, st := range s.Starts {
		r := startReport{From: st.From, Stopped: st.Status.String(), Error: st.Err, Seconds: st.Elapsed.Seconds(), Start: namedParams(s.Names, st.Start)}
		if !math.IsInf(st.Objective, 0) && !math.IsNaN(st.Objective) {
			r.Objective = ptr(st.Objective)
		}
		if st.End != nil {
			r.End = namedParams(s.Names, st.End)
		}
		for name, v := range s.Fixed { // a fixed value as given, which exp θ gives only to rounding
			r.Start[name] = v
			if r.End != nil {
				r.End[name] = v
			}
		}
		out[i] = r
	}
	return out
}

// bestStart returns the index of the start kept, nil for a fit from one
// start.
func bestStart(s *sgp.FitSummary) *int {
	if len(s.Starts) == 0 {
		return nil
	}
	return ptr(s.BestStart)
}

// startsLine describes the starts of a fit with restarts for the text
// summary, "" for a fit from one start: the objective each ended at, the
// kept one marked, and where the kept one started.
func (r *fitReport) startsLine() string {
	if len(r.Starts) == 0 || r.BestStart == nil {
		return ""
	}
	fs := make([]string, len(r.Starts))
	for i, st := range r.Starts {
		fs[i] = "failed"
		if st.Objective != nil {
			fs[i] = fmt.Sprintf("%.6g", *st.Objective)
		}
		if i == *r.BestStart {
			fs[i] += " (kept)"
		}
	}
	return fmt.Sprintf("%d (1 + %d restarts), F %s; kept start %d, from %s", len(r.Starts), len(r.Starts)-1, strings.Join(fs, ", "), *r.BestStart, r.Starts[*r.BestStart].From)
}
