package repl

import (
	"strings"
	"testing"
	"time"
)

// TestResetStopsFits: a fit that a cell started in a goroutine (of a
// model built by sgp.NewModel in the session) is stopped by Reset, which
// waits for it: after Reset returns its progress lines stop, and nothing
// of the session's code runs any more. Without this the fit kept burning
// CPU and printing into later cells; its interrupt saw no cell running
// and never fired.
func TestResetStopsFits(t *testing.T) {
	t.Parallel()
	progress := new(syncBuffer)
	s := newSession(t, Options{Stdout: new(syncBuffer), Progress: progress})
	evalOK(t, s, `train, _ := data.SnelsonLike(300, 1)
m := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(15).WithMaxEpochs(1000000).WithTolerance(0)
go func(m *sgp.Model) { m.Fit() }(m) // m as an argument: the goroutine reads no variable of the session, which the interpreter may move`)
	deadline := time.Now().Add(60 * time.Second)
	for strings.Count(progressText(progress), "epoch") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no epochs in 60 s; progress:\n%s", progressText(progress))
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Reset took %v", time.Since(start))
	s.mu.Lock()
	active := s.active
	s.mu.Unlock()
	if active != 0 {
		t.Errorf("%d goroutines of the session's code still run after Reset", active)
	}
	n := progress.Len()
	time.Sleep(300 * time.Millisecond)
	if grew := progress.Len() - n; grew > 0 {
		t.Errorf("the fit goes on after Reset: %d more bytes of progress:\n%s", grew, progressText(progress)[n:])
	}
}

func progressText(b *syncBuffer) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
