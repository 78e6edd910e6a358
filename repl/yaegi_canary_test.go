package repl

import (
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/cholqr/sgp/symbols"
)

// The session works around behaviours of yaegi v0.16.1 (files yaegi_*.go
// and the wrapping of final expressions in eval.go). Each test below
// reproduces one on a bare interpreter and fails once an upgraded yaegi no
// longer shows it: the workaround can then go.

// bare returns a yaegi interpreter with the standard library and the
// generated symbol tables, and nothing of the session.
func bare(t *testing.T) *interp.Interpreter {
	t.Helper()
	in := interp.New(interp.Options{})
	if err := in.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := in.Use(symbols.Symbols); err != nil {
		t.Fatal(err)
	}
	return in
}

// Upstream yaegi issue #1069: Eval of a call without results returns the
// previous Eval's value. The session passes a cell's final expression to a
// hidden function instead of reading Eval's result (evalExpr).
func TestYaegiStaleEvalResult(t *testing.T) {
	in := bare(t)
	calls := 0
	in.Use(interp.Exports{"pkg/pkg": {"Fn": reflect.ValueOf(func(any) { calls++ })}})
	if _, err := in.Eval(`import "pkg"`); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Eval(`str := "stale"`); err != nil {
		t.Fatal(err)
	}
	v, err := in.Eval(`pkg.Fn(1)`)
	if err != nil {
		t.Fatal(err)
	}
	if !(v.IsValid() && v.Kind() == reflect.String && v.String() == "stale") {
		t.Fatalf("yaegi no longer returns the previous value for a call without results (got %v): the hidden Values wrapper of evalExpr may be simplified", v)
	}
}

// yaegi runs func main of the main package after every Eval once it is
// declared (interp/program.go adds it to each program's init nodes). The
// session renames a user's main (hideMain in yaegi_define.go).
func TestYaegiRerunsMain(t *testing.T) {
	in := bare(t)
	n := 0
	in.Use(interp.Exports{"count/count": {"Inc": reflect.ValueOf(func() { n++ })}})
	for _, src := range []string{`import "count"`, `func main() { count.Inc() }`, `x := 1`, `_ = x`} {
		if _, err := in.Eval(src); err != nil {
			t.Fatal(err)
		}
	}
	if n < 2 {
		t.Fatalf("main ran %d times over three evaluations after its declaration: yaegi no longer reruns it; hideMain can go", n)
	}
}

// yaegi reports an undefined name in a definition as a "definition loop"
// (no upstream issue found). The session rewrites such messages to
// "undefined: name" (yaegi_undefined.go).
func TestYaegiObscureUndefined(t *testing.T) {
	in := bare(t)
	_, err := in.Eval(`y := nope`)
	if err == nil || strings.Contains(err.Error(), "undefined: nope") || !obscureError(err.Error()) {
		t.Fatalf("yaegi now reports y := nope as %v: obscureError and undefinedName may go", err)
	}
}

// Upstream yaegi issue #1701: range over an integer panics with "nil
// type" in the compiler. The README lists it among the interpreter's
// limits.
func TestYaegiRangeOverInt(t *testing.T) {
	in := bare(t)
	panicked := false
	func() {
		defer func() { panicked = recover() != nil }()
		_, err := in.Eval("for i := range 3 {\n_ = i\n}")
		panicked = panicked || err != nil
	}()
	if !panicked {
		t.Fatal("yaegi now ranges over integers: drop the limit from the README and the session's advice")
	}
}

// TestLimitHints: the constructs yaegi cannot run give a message that
// says what to write instead.
func TestLimitHints(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	for cell, want := range map[string]string{
		"for i := range 3 {\n_ = i\n}": "cannot range over an integer",
		"x := min(1, 2)\nx":            "no min builtin",
	} {
		_, err := s.Eval(t.Context(), cell)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", cell, err, want)
		}
	}
}
