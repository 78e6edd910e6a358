package repl

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp"
)

// TestProgressReports: a session with OnProgress hears, from every model
// sgp.NewModel builds, its epochs, its progress lines and the checks for
// interruption between them, numbered by model and with its time budget;
// Progress and OnEpoch still get theirs.
func TestProgressReports(t *testing.T) {
	t.Parallel()
	var (
		mu      sync.Mutex
		reports []Progress
		epochs  int
		lines   bytes.Buffer
	)
	s := newSession(t, Options{
		OnProgress: func(p Progress) {
			mu.Lock()
			reports = append(reports, p)
			mu.Unlock()
		},
		OnEpoch:  func(sgp.EpochRecord) { mu.Lock(); epochs++; mu.Unlock() },
		Progress: &lockedBuffer{mu: &mu, b: &lines},
	})
	cell := "import \"time\"\ntrain, _ := data.SnelsonLike(60, 1)\n" +
		"a := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(5).WithMaxEpochs(3).WithTolerance(0).WithTimeBudget(time.Minute)\n" +
		"a.Fit()\n" +
		"b := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(5).WithMaxEpochs(2).WithTolerance(0)\n" +
		"res, _ := b.Fit()\nres.Epochs"
	if _, err := s.Eval(context.Background(), cell); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	type count struct{ epochs, lines, beats int }
	got := map[int]*count{1: {}, 2: {}}
	for _, p := range reports {
		c := got[p.Model]
		if c == nil {
			t.Fatalf("a report of model %d", p.Model)
		}
		want := map[int]time.Duration{1: time.Minute, 2: 0}[p.Model]
		if p.Budget != want {
			t.Errorf("model %d reports budget %v, want %v", p.Model, p.Budget, want)
		}
		switch {
		case p.Epoch != nil:
			c.epochs++
			if p.Epoch.Epoch != c.epochs || p.Line != "" {
				t.Errorf("model %d: epoch report %d is %+v", p.Model, c.epochs, p)
			}
		case p.Line != "":
			c.lines++
			if strings.Contains(p.Line, "\n") {
				t.Errorf("a line with its newline: %q", p.Line)
			}
		default:
			c.beats++
		}
	}
	for id, want := range map[int]int{1: 3, 2: 2} {
		c := got[id]
		if c.epochs != want || c.lines < want || c.beats < want {
			t.Errorf("model %d: %d epochs, %d lines, %d checks reported; want %d epochs and at least as many lines and checks", id, c.epochs, c.lines, c.beats, want)
		}
	}
	if epochs != 5 || strings.Count(lines.String(), "epoch ") < 5 {
		t.Errorf("OnEpoch saw %d epochs and Progress %q; want 5 each", epochs, lines.String())
	}
}

type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
