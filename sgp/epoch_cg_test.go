package sgp

import (
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// TestCGPhaseTerminates: a gradient phase ends even when its line search
// keeps asking for points already evaluated (or beyond the step cap),
// which are answered without an evaluation and so do not count against
// the evaluation budget: the requests are bounded too (maxCallsPerEval).
// The case is SyntheticARD(2000, 1000, 8, 7), m = 16, seed 2, whose
// epoch 20 from the forward start asks for such points.
func TestCGPhaseTerminates(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a 25-epoch fit")
	}
	train, _ := data.SyntheticARD(2000, 1000, 8, 7)
	done := make(chan *Result, 1)
	go func() {
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(16).WithInfoPivots(16).
			WithSeed(2).WithMaxEpochs(25).WithTolerance(0)
		res, err := md.Fit()
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case res := <-done:
		if res != nil {
			t.Logf("%d epochs, %s", res.Epochs, stopText(res.Status, res.Reason))
		}
	case <-time.After(10 * time.Minute): // a hang, not a slow machine
		t.Fatal("the fit did not finish: a gradient phase that never ends")
	}
}
