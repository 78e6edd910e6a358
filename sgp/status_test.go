package sgp

import "testing"

// TestStatusWords: every Status reads as the words the displays and the
// command line's JSON ("stopped") show, and a stop with a reason reads
// "status: reason".
func TestStatusWords(t *testing.T) {
	for s, want := range map[Status]string{
		NotStopped: "", Converged: "converged", MaxEpochs: "max epochs", MaxEvaluations: "max evaluations",
		TimeBudget: "time budget", Cancelled: "cancelled", Stalled: "stalled",
		Fixed: "fixed", Failed: "failed", Status(42): "Status(42)",
	} {
		if got := s.String(); got != want {
			t.Errorf("Status(%d) = %q, want %q", int(s), got, want)
		}
	}
	if got := (stop{Stalled, "no decrease"}).String(); got != "stalled: no decrease" {
		t.Errorf("stalled with a reason: %q", got)
	}
	for s, want := range map[CGStop]string{cgNone: "", CGBudget: "budget", CGLineSearch: "line search failed", CGSkipped: "skipped"} {
		if got := s.String(); got != want {
			t.Errorf("CGStop(%d) = %q, want %q", int(s), got, want)
		}
	}
}
