package sgp

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// cancelAt is a progress writer that cancels a context when the line
// holding marker has appeared after the line holding after (any line when
// after is ""), as an interrupt that arrives at that point of a fit.
type cancelAt struct {
	mu            sync.Mutex
	buf           bytes.Buffer
	after, marker string
	seen          bool
	cancel        context.CancelFunc
}

func (c *cancelAt) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, line := range strings.Split(string(p), "\n") {
		if c.after == "" || strings.Contains(line, c.after) {
			c.seen = true
			if c.after != "" {
				continue
			}
		}
		if c.seen && strings.Contains(line, c.marker) {
			c.cancel()
		}
	}
	return c.buf.Write(p)
}

func (c *cancelAt) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// TestHybridCancelledAfterCholQR cancels a hybrid fit (no time budget, so
// CholQR runs first, then the continuous fits) after CholQR's fit has
// ended: during the continuous parent, between the parents and the
// refinement, and during the refinement from CholQR's fit. Each time the
// fit returns its result with the context's error, Status Cancelled (a
// caller that saves cancelled fits saves it), a Reason that says where it
// stopped, a warning saying it was interrupted, and an objective no
// higher than CholQR's, the model it keeps predicting. The same when the
// model's interrupt function (WithInterrupt, as the REPL stops a fit)
// fails instead: the continuous fits check it too.
func TestHybridCancelledAfterCholQR(t *testing.T) {
	t.Parallel()
	train, test := data.SyntheticARD(400, 20, 4, 3)
	errStop := errors.New("stopped by the interrupt function")
	// fit runs a fit that w stops: by cancelling its context or, with
	// interrupt, by making its interrupt function (WithInterrupt) fail, as
	// the REPL stops a fit.
	fit := func(sel Selector, w *cancelAt, interrupt bool) (*Model, *Result, error) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(12).WithSeed(1).
			WithMaxEpochs(3).WithSelector(sel)
		if w != nil {
			w.cancel = cancel
			if interrupt {
				var stop atomic.Bool
				w.cancel = func() { stop.Store(true) }
				md.WithInterrupt(func() error {
					if stop.Load() {
						return errStop
					}
					return nil
				})
			}
			md.WithProgress(w)
			md.every = time.Nanosecond // a continuous progress line at every evaluation
		}
		res, err := md.FitContext(ctx)
		return md, res, err
	}
	_, chol, err := fit(SelectCholQR, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, after, marker, phase string
	}{
		{"continuous parent", "", "hybrid: continuous:", "during the continuous fit from a random subset"},
		{"between", "", "hybrid: continuous refinement from a random subset", "during the hybrid's continuous refinements"},
		{"refinement", "hybrid: continuous refinement from a random subset", "hybrid: continuous:", "during the continuous refinement from CholQR's fit"},
		{"refinement, interrupt", "hybrid: continuous refinement from a random subset", "hybrid: continuous:", "during the continuous refinement from CholQR's fit"},
		{"continuous parent, interrupt", "", "hybrid: continuous:", "during the continuous fit from a random subset"},
	} {
		w := &cancelAt{after: c.after, marker: c.marker}
		interrupt := strings.HasSuffix(c.name, ", interrupt")
		md, res, err := fit(SelectHybrid, w, interrupt)
		want := context.Canceled
		if interrupt {
			want = errStop
		}
		if !errors.Is(err, want) || res == nil {
			t.Fatalf("%s: result %v, error %v; want the result with %v\n%s", c.name, res, err, want, w)
		}
		if res.Status != Cancelled || res.Converged || !strings.HasPrefix(res.Reason, c.phase+", after CholQR's fit ended (") {
			t.Errorf("%s: status %q (converged %v), want cancelled %s…", c.name, res.Stopped(), res.Converged, c.phase)
		}
		if !strings.Contains(strings.Join(res.Warnings, "\n"), "interrupted "+c.phase) || !strings.Contains(w.String(), "warning: interrupted "+c.phase) {
			t.Errorf("%s: no warning that the fit was interrupted: %q\n%s", c.name, res.Warnings, w)
		}
		if res.Objective > chol.Objective+1e-9*max(1, -chol.Objective, chol.Objective) {
			t.Errorf("%s: objective %.8g above CholQR's %.8g", c.name, res.Objective, chol.Objective)
		}
		if res.Refined != nil && md.Refined() != res.Refined {
			t.Errorf("%s: the result's refinement is not the model's", c.name)
		}
		if _, err := md.Evaluate(test); err != nil {
			t.Errorf("%s: the kept model does not predict: %v", c.name, err)
		}
	}
}
