package repl

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp"
)

// TestSessionWarnsOnce: a fit's warning is printed once, where it
// happened (before what the cell prints next), and not at all when the
// cell's value is the Result, which shows it.
func TestSessionWarnsOnce(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	s := newSession(t, Options{Stderr: &stderr})
	evalCells(t, s, "train, _ := data.SnelsonLike(5000, 1)\n"+
		"newM := func() *sgp.Model { return sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(400).WithMaxEpochs(2) }")
	const warning = "warning: only "
	res, err := s.Eval(context.Background(), "newM().Fit()")
	if err != nil || res.Value == nil {
		t.Fatalf("%v %v", res.Value, err)
	}
	if n := strings.Count(res.Output+res.Value.Text, warning); n != 1 || strings.Contains(res.Output, warning) {
		t.Errorf("the warning appears %d times; output %q, value %q", n, res.Output, res.Value.Text)
	}
	if strings.Contains(stderr.String(), warning) {
		t.Errorf("the warning went to stderr beside the value: %q", stderr.String())
	}
	res, err = s.Eval(context.Background(), "r0, _ := newM().Fit()\ndisplay.Show(r0)")
	if err != nil || len(res.Displays) != 1 || strings.Contains(res.Output, warning) || !strings.Contains(res.Displays[0].Text, warning) {
		t.Errorf("display.Show(res): output %q, displays %+v, %v; want the warning in the display only", res.Output, res.Displays, err)
	}
	res, err = s.Eval(context.Background(), "fmt.Println(\"before\")\nr, _ := newM().Fit()\nfmt.Println(\"after\")\nr.Epochs")
	if err != nil || res.Value == nil {
		t.Fatalf("%v %v", res.Value, err)
	}
	if !regexpMatch(`^before\nwarning: only [^\n]*\nwarning: the fit did not converge[^\n]*\nafter\n$`, res.Output) {
		t.Errorf("output %q; want the warnings once, between before and after", res.Output)
	}
}

// TestSessionInterruptShowsPartialFit: a cell interrupted during a fit
// shows the fit's partial Result once, as its value beside the
// interruption, whether the fit is the cell's final expression or a
// statement's, and prints no separate warning.
func TestSessionInterruptShowsPartialFit(t *testing.T) {
	t.Parallel()
	// The cell is cancelled after the fit's first epoch; the grace is long
	// so that a loaded machine does not abandon the cell instead.
	var mu sync.Mutex
	var cancel context.CancelFunc
	s := newSession(t, Options{StopGrace: 2 * time.Minute, OnEpoch: func(sgp.EpochRecord) {
		mu.Lock()
		defer mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}})
	evalCells(t, s, "train, _ := data.SnelsonLike(2000, 1)\n"+
		"m := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.05})).WithM(60).WithMaxEpochs(100000).WithTolerance(0)")
	for _, cell := range []string{"m.Fit()", "res, err := m.Fit()", "fmt.Println(\"fitting\")\nres2, _ := m.Fit()\nres2"} {
		ctx, c := context.WithCancel(context.Background())
		mu.Lock()
		cancel = c
		mu.Unlock()
		res, err := s.Eval(ctx, cell)
		c()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%q: error %v, want an interruption", cell, err)
		}
		if res.Value == nil || !strings.HasPrefix(res.Value.Text, "fit cancelled after ") ||
			strings.Count(res.Value.Text, "interrupted at epoch") != 1 {
			t.Errorf("%q: value %+v; want the partial fit's summary", cell, res.Value)
		}
		if strings.Contains(res.Output, "warning:") {
			t.Errorf("%q: output %q repeats the summary's warning", cell, res.Output)
		}
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
