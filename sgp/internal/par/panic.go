package par

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// Panic is a panic recovered on a goroutine of For, Reduce or a Pool and
// raised again on the caller's goroutine; package sgp returns it as
// sgp.PanicError.
type Panic struct {
	// Value is what the code panicked with.
	Value any
	// Lo and Hi are the rows [Lo, Hi) the failing goroutine was working
	// on, or Lo = Hi = -1 when unknown.
	Lo, Hi int
	// Stack is the failing goroutine's stack trace.
	Stack []byte
}

func (p *Panic) Error() string {
	if p.Lo >= 0 && p.Hi > p.Lo {
		return fmt.Sprintf("sgp: panic while evaluating rows %d–%d: %v", p.Lo, p.Hi-1, p.Value)
	}
	return fmt.Sprintf("sgp: panic: %v", p.Value)
}

// Unwrap returns the panic value if it is an error.
func (p *Panic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// Capture returns the recovered value r as a *Panic on rows [lo, hi),
// with the current goroutine's stack; a *Panic is returned as it is, so
// that a panic raised again keeps the rows and stack where it happened.
func Capture(r any, lo, hi int) *Panic {
	if p, ok := r.(*Panic); ok {
		return p
	}
	return &Panic{Value: r, Lo: lo, Hi: hi, Stack: debug.Stack()}
}

// slot keeps the first panic of a group of goroutines.
type slot struct {
	mu  sync.Mutex
	err *Panic
}

// keep records p unless a panic is already recorded.
func (s *slot) keep(p *Panic) {
	s.mu.Lock()
	if s.err == nil {
		s.err = p
	}
	s.mu.Unlock()
}

// guard runs fn(lo, hi), recording a panic instead of propagating it.
func (s *slot) guard(lo, hi int, fn func(lo, hi int)) {
	defer func() {
		if r := recover(); r != nil {
			s.keep(Capture(r, lo, hi))
		}
	}()
	fn(lo, hi)
}

// rethrow panics with the recorded panic, if any, on the calling
// goroutine.
func (s *slot) rethrow() {
	s.mu.Lock()
	err := s.err
	s.err = nil
	s.mu.Unlock()
	if err != nil {
		panic(err)
	}
}
