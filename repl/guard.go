package repl

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"runtime/metrics"
	"time"
)

// What keeps one cell from ending the session:
//
//   - a panic in a goroutine that the session's code started is recovered
//     by the session (goStart, through the rewriting of go statements in
//     instrument.go) and becomes the error of the running cell, or, if
//     none runs, of the next one, which then does not run;
//   - unbounded recursion of interpreted code is stopped, as Ctrl-C stops
//     a cell, once the process's goroutine stacks pass stackLimit
//     (monitor): Go's own limit, 1 GB, ends the process ("fatal error:
//     stack overflow"), which no recover can catch;
//   - make(T, n) with more elements than the machine's memory holds
//     panics in the cell (makeLen) instead of dying of "out of memory";
//   - os.Exit stops the cell and makes Eval return an *ExitError with
//     the code (osExit); yaegi's restricted os.Exit panics with
//     "os.Exit(0)".
//
// Not caught: recursion in compiled code (it does not check the stop),
// a goroutine that compiled code starts with an interpreted function
// (time.AfterFunc(d, f)), other huge allocations (append, a library's
// own), and Go's other fatal errors (concurrent map writes). The
// command's supervisor (cmd/sgprepl) then restores the terminal and
// reports the crash.

// Names of the hidden functions in rewritten code (instrument.go).
const (
	goCall      = hiddenName + ".Go("
	makeLenCall = hiddenName + ".Len("
)

// stackLimit is how much memory the process's goroutine stacks may hold
// before the session stops its interpreted code: hundreds of thousands
// of nested interpreted calls, and half of what one goroutine's stack can
// reach before Go stops the process (a limit of 1 GB, so 512 MiB, as
// stacks double).
const stackLimit = 256 << 20

// stackCheck is how often the monitor reads the stacks' size: the
// stacks of a runaway recursion take seconds to grow from stackLimit to
// Go's limit.
const stackCheck = 5 * time.Millisecond

// ExitError is the error of a cell that called os.Exit: the cell stops
// at the call (its deferred functions run, unlike in a Go program), and
// the front end decides what the code means: the terminal REPL and
// scripts exit with it, a Jupyter kernel keeps its session.
type ExitError struct {
	Code int
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("os.Exit(%d) called: the cell stopped at the call, and the session goes on", e.Code)
}

// exitPanic is what osExit panics with to stop the cell.
type exitPanic struct{ code int }

// osExit is the session's os.Exit.
func (s *Session) osExit(code int) {
	s.mu.Lock()
	if s.exit == nil {
		s.exit = &ExitError{Code: code}
	}
	s.mu.Unlock()
	panic(exitPanic{code})
}

// goStart is the hidden Go function: rewritten go statements start their
// goroutine here, which recovers a panic of fn and reports it.
func (s *Session) goStart(fn func()) {
	s.enter()
	go func() {
		defer s.leave()
		defer func() {
			if r := recover(); r != nil {
				s.goroutinePanicked(r)
			}
		}()
		fn()
	}()
}

// goroutinePanicked records the panic of a goroutine of the session's
// code for the running cell, or for the next one.
func (s *Session) goroutinePanicked(r any) {
	if _, ok := r.(exitPanic); ok {
		return // recorded by osExit
	}
	msg := fmt.Sprint(r)
	if e, ok := r.(error); ok {
		msg = e.Error()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cellCtx != nil {
		s.cellPanics = append(s.cellPanics, msg)
	} else {
		s.pendingPanics = append(s.pendingPanics, msg)
	}
}

// enter counts a running cell or goroutine of the session's code, and
// starts the stack monitor if it was not running.
func (s *Session) enter() {
	s.mu.Lock()
	s.active++
	start := !s.monitoring
	s.monitoring = true
	s.mu.Unlock()
	if start {
		go s.monitor()
	}
}

// leave is the end of what enter counted.
func (s *Session) leave() {
	s.mu.Lock()
	s.active--
	s.mu.Unlock()
}

// monitor stops the session's interpreted code if the goroutine stacks
// grow by more than stackLimit while a cell or a goroutine of the
// session's code runs. The measure is the process's: it cannot tell the
// session's goroutines from others, which hold little, and it counts
// from what the stacks held when the monitor started, so that a stack
// still large from an earlier stop (a goroutine's stack shrinks only at
// garbage collections) does not stop the next cell.
func (s *Session) monitor() {
	t := time.NewTicker(stackCheck)
	defer t.Stop()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(sample)
	limit := uint64(stackLimit)
	if sample[0].Value.Kind() == metrics.KindUint64 {
		limit += sample[0].Value.Uint64()
	}
	for range t.C {
		s.mu.Lock()
		if s.active == 0 {
			s.monitoring = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > limit {
			s.mu.Lock()
			if s.stopLocked() {
				if s.cellCtx != nil {
					s.cellStack = true
				} else {
					s.pendingStack = true
				}
			}
			s.mu.Unlock()
		}
	}
}

// stopLocked stops the interpreted code, once per armStop, and reports
// whether it did. s.mu is held.
func (s *Session) stopLocked() bool {
	if !s.armed {
		return false
	}
	s.armed = false
	interpStop(s.in)
	return true
}

// shrinkStacks runs garbage collections, each of which halves the stack
// of a goroutine that uses less than a quarter of it, until the stacks
// hold less than a quarter of stackLimit (at most 8 times): a goroutine
// that served a runaway recursion and lives on keeps its large stack
// otherwise, and a new recursion on it would fill that stack without
// growing it, unseen by the monitor, up to Go's limit.
func shrinkStacks() {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/stacks:bytes"}}
	for range 8 {
		runtime.GC()
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 || sample[0].Value.Uint64() < stackLimit/4 {
			return
		}
	}
}

// stackError is the error of a cell whose code was stopped for its
// stack.
func stackError(earlier bool) *CellError {
	msg := fmt.Sprintf("stopped: the goroutine stacks passed %d MiB, which is unbounded recursion (Go ends the process at 1 GB); the session goes on", stackLimit>>20)
	if earlier {
		msg = fmt.Sprintf("stopped a goroutine of an earlier cell: the goroutine stacks passed %d MiB (unbounded recursion?); this cell did not run: run it again", stackLimit>>20)
	}
	return &CellError{Msg: msg}
}

// pendingError returns what happened since the last cell that the next
// one must report instead of running: a goroutine's panic, a stop for
// the stack, os.Exit in a goroutine. It clears them.
func (s *Session) pendingError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	exit, panics, stack := s.exit, s.pendingPanics, s.pendingStack
	s.exit, s.pendingPanics, s.pendingStack = nil, nil, false
	switch {
	case exit != nil:
		return exit
	case len(panics) > 0:
		return &CellError{Panicked: true, Msg: "in a goroutine started by an earlier cell: " + panics[0] + "; this cell did not run: run it again"}
	case stack:
		return stackError(true)
	}
	return nil
}

// cellOutcome returns the error of a cell that ended with err, given
// what happened while it ran, and clears that.
func (s *Session) cellOutcome(err error) error {
	s.mu.Lock()
	exit, panics, stack := s.exit, s.cellPanics, s.cellStack
	s.exit, s.cellPanics, s.cellStack = nil, nil, false
	s.mu.Unlock()
	var ce *CellError
	switch {
	case exit != nil:
		return exit
	case stack:
		shrinkStacks()
		return stackError(false)
	case len(panics) > 0 && err == nil:
		return &CellError{Panicked: true, Msg: "in a goroutine: " + panics[0]}
	case len(panics) > 0 && errors.As(err, &ce):
		ce.Msg += " (a goroutine also panicked: " + panics[0] + ")"
	}
	return err
}

// makeLen is the hidden Len function of rewritten make calls: it returns
// n, the size of make(T, …) for zero, a nil T, and panics if n elements
// of T hold more bytes than the machine's memory.
func (s *Session) makeLen(zero, n any) int {
	v := reflect.ValueOf(n)
	var count float64
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Int() < 0 {
			return int(v.Int()) // make's own panic says it
		}
		count = float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		count = float64(v.Uint())
	case reflect.Float32, reflect.Float64: // an untyped constant such as 1e9
		count = v.Float()
		if count != math.Trunc(count) {
			panic(fmt.Sprintf("make: size %v is not an integer", count))
		}
	default:
		panic(fmt.Sprintf("make: size of type %T is not an integer", n))
	}
	if count > math.MaxInt {
		panic(fmt.Sprintf("make: size %v is out of range", count))
	}
	t := reflect.TypeOf(zero)
	var size uintptr
	switch t.Kind() {
	case reflect.Slice, reflect.Chan:
		size = t.Elem().Size()
	case reflect.Map:
		size = t.Key().Size() + t.Elem().Size()
	}
	if bytes := count * float64(size); s.memory > 0 && bytes > float64(s.memory) {
		panic(fmt.Sprintf("make(%v, %.0f) asks for %s, more than this machine's %s of memory: the process would die; make it smaller",
			t, count, byteSize(bytes), byteSize(float64(s.memory))))
	}
	return int(count)
}

// byteSize formats a number of bytes with a binary unit.
func byteSize(b float64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f bytes", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}
