package repl

import (
	"bytes"
	"io"
	"time"

	"github.com/cholqr/sgp/sgp"
)

// Progress is a report of a model that a cell runs, built in the session
// with sgp.NewModel (Options.OnProgress): the end of an epoch, a line of
// the model's progress output, or, with neither, a sign that the model is
// working — it checks for interruption between swaps and gradient
// evaluations, so these come many times a second during a Fit or Step.
type Progress struct {
	// Model numbers the session's models in the order sgp.NewModel built
	// them, from 1.
	Model int
	// Epoch is the epoch that just ended (Model.WithEpochFunc), or nil.
	Epoch *sgp.EpochRecord
	// Line is a line of the model's progress output (Model.WithProgress),
	// without its newline, or "".
	Line string
	// Budget is the model's time budget (Model.TimeBudget), counted from
	// the start of each Fit; 0 for none.
	Budget time.Duration
}

// reportProgress makes model m, the id-th of the session, report to
// Options.OnProgress, besides Options.Progress and Options.OnEpoch, at
// each of its interrupt checks too, whose answer is stop's. The
// model's progress output still goes to Options.Progress, if set. A model
// configured with its own WithProgress, WithEpochFunc or WithInterrupt
// afterwards reports less: only through the hooks it keeps.
func (s *Session) reportProgress(m *sgp.Model, id int, stop func() error) {
	report := func(p Progress) {
		p.Model, p.Budget = id, m.TimeBudget()
		s.opts.OnProgress(p)
	}
	m.WithProgress(&lineWriter{next: s.opts.Progress, line: func(l string) { report(Progress{Line: l}) }})
	m.WithEpochFunc(func(rec sgp.EpochRecord) {
		if s.opts.OnEpoch != nil {
			s.opts.OnEpoch(rec)
		}
		report(Progress{Epoch: &rec})
	})
	m.WithInterrupt(func() error {
		report(Progress{})
		return stop()
	})
}

// lineWriter passes what is written to next, if not nil, and each
// complete line to line.
type lineWriter struct {
	next    io.Writer
	line    func(string)
	pending []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.pending = append(w.pending, p...)
	for {
		i := bytes.IndexByte(w.pending, '\n')
		if i < 0 {
			break
		}
		w.line(string(bytes.TrimSuffix(w.pending[:i], []byte("\r"))))
		w.pending = w.pending[i+1:]
	}
	if w.next != nil {
		return w.next.Write(p)
	}
	return len(p), nil
}
