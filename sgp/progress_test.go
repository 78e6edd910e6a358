package sgp

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// TestProgressOfLongPhases: the phases that run without epochs report
// through the progress writer at every progress period (here 1ns, so
// that no assertion depends on the machine's speed): the forward start
// says how many inducing points it has chosen, and the hybrid's
// refinement says up front how long it may take without a time budget,
// then how far it has got.
func TestProgressOfLongPhases(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(200, 1)
	var buf bytes.Buffer
	md := NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(10).WithSeed(1).WithMaxEpochs(3).
		WithSelector(SelectHybrid).WithProgress(&buf)
	md.every = time.Nanosecond
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"start: 9 of 10 inducing points chosen by forward selection",
		"hybrid: continuous: 2 evaluations (at most 60 a fit), lowest VAR",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("progress has no %q:\n%s", want, out)
		}
	}
	buf.Reset()
	md = NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(10).WithSeed(1).WithMaxEpochs(1).WithProgress(&buf)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "start:") {
		t.Errorf("a forward start shorter than the progress period reported:\n%s", buf.String())
	}
}
