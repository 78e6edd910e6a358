package repl

import (
	"context"
	"errors"
	"time"
)

// errReset is the interrupt error of a model whose session was reset
// (Session.Reset): its Fit or Step stops at the next swap or gradient
// evaluation, as for an interrupted cell.
var errReset = errors.New("repl: the session was reset")

// generation returns the context of the session's current interpreter:
// Reset cancels it, and with it every model built in that interpreter
// (newModel), in whichever goroutine its fit runs.
func (s *Session) generation() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.life
}

// newGeneration starts the context of a new interpreter (start), ending
// the one before.
func (s *Session) newGeneration() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.endLife != nil {
		s.endLife()
	}
	s.life, s.endLife = context.WithCancel(context.Background())
}

// endGeneration cancels the current interpreter's context and waits, at
// most Options.StopGrace, for the goroutines of the session's code to end
// (a fit in one of them stops at its next swap or gradient evaluation).
// It reports whether they all did.
func (s *Session) endGeneration() bool {
	s.mu.Lock()
	if s.endLife != nil {
		s.endLife()
	}
	s.mu.Unlock()
	deadline := time.Now().Add(s.opts.StopGrace)
	for {
		s.mu.Lock()
		active := s.active
		s.mu.Unlock()
		if active == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// modelInterrupt returns the interrupt of a model built now by the
// session's sgp.NewModel: the running cell's cancellation, and the end of
// the current interpreter (Reset), after which the model stops for good.
func (s *Session) modelInterrupt() func() error {
	life := s.generation()
	return func() error {
		if life.Err() != nil {
			return errReset
		}
		return s.interrupted()
	}
}
