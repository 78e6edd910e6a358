package repl

import (
	"context"
	_ "unsafe" // for go:linkname

	"github.com/traefik/yaegi/interp"
)

// yaegi v0.16.1 stops running interpreted code only from inside
// EvalWithContext, which evaluates in a goroutine of its own and returns
// as soon as its context is done, leaving that goroutine running: the
// caller cannot wait for it, and the next Eval would run beside it. A
// Session instead evaluates with Eval in a goroutine it owns and waits
// for, and stops it with the interpreter's own stop method, which closes
// the interpreter's done channel and bumps the run id that every running
// frame checks (interp/interp.go, (*Interpreter).stop).
//
// Upstream, stopping interpreted goroutines is asked for in yaegi issue
// #1686 (open; v0.16.1), whose reporter notes that only the unexported
// stop method does it, and evaluating beside a running evaluation is not
// supported (issue #140, open). TestYaegiEvalWithContextReturnsEarly in
// yaegi_canary_test.go fails once EvalWithContext waits for the code it
// stops or the interpreter exports a Stop method: this file can then go.
//
// stop may be called once per done channel; armStop installs a fresh one
// (EvalWithContext does, on an empty program) before each cell. The
// module proxy serves no other yaegi version, so go.mod pins this one; a
// link error here means yaegi changed and this file needs a look.

//go:linkname interpStop github.com/traefik/yaegi/interp.(*Interpreter).stop
func interpStop(*interp.Interpreter)

// armStop gives the interpreter a fresh done channel, so that interpStop
// can be called once for the next evaluation.
func armStop(i *interp.Interpreter) error {
	_, err := i.EvalWithContext(context.Background(), "")
	return err
}
