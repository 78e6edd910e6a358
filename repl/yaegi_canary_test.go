package repl

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/cholqr/sgp/symbols"
)

// The session works around behaviours of yaegi v0.16.1 (files yaegi_*.go
// and compound in split.go). Each test below
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
// hidden function instead of reading Eval's result (evalExpr in
// yaegi_values.go).
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
// declared (interp/program.go adds it to each program's init nodes; no
// upstream issue found). The session renames a user's main (hideMain in
// yaegi_define.go).
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
// type" in the compiler. docs/repl.md and the README list it among the
// interpreter's limits.
func TestYaegiRangeOverInt(t *testing.T) {
	in := bare(t)
	panicked := false
	func() {
		defer func() { panicked = recover() != nil }()
		_, err := in.Eval("for i := range 3 {\n_ = i\n}")
		panicked = panicked || err != nil
	}()
	if !panicked {
		t.Fatal("yaegi now ranges over integers: drop the limit from docs/repl.md, the README, repl's package doc and the session's advice")
	}
}

// compiled returns a bare interpreter with package p of compiled code
// imported: a slice p.S and a map p.M.
func compiled(t *testing.T) *interp.Interpreter {
	t.Helper()
	in := bare(t)
	in.Use(interp.Exports{"p/p": {
		"S": reflect.ValueOf(&[]float64{1, 2}).Elem(),
		"M": reflect.ValueOf(&map[string]int{"a": 1}).Elem(),
	}})
	if _, err := in.Eval(`import "p"`); err != nil {
		t.Fatal(err)
	}
	return in
}

// failsOrPanics evaluates src and reports whether yaegi returned an error
// or panicked.
func failsOrPanics(in *interp.Interpreter, src string) (failed bool) {
	defer func() {
		if recover() != nil {
			failed = true
		}
	}()
	_, err := in.Eval(src)
	return err != nil
}

// yaegi cannot type a top-level definition that indexes a value of
// compiled code (no upstream issue found). The session writes the type
// out (typedDefine in yaegi_define.go).
func TestYaegiIndexDefine(t *testing.T) {
	for _, src := range []string{"x := p.S[0]", "y := p.S[0] + 1"} {
		if !failsOrPanics(compiled(t), src) {
			t.Errorf("yaegi now evaluates %q: typedDefine and retryTyped may go", src)
		}
	}
}

// yaegi panics ("nil type") on x, ok := m[k] at the top level with m from
// compiled code (no upstream issue found). The session writes the types
// out before trying (commaOkDefine in yaegi_define.go).
func TestYaegiCommaOkDefine(t *testing.T) {
	if !failsOrPanics(compiled(t), `v, ok := p.M["a"]`) {
		t.Error(`yaegi now evaluates v, ok := p.M["a"]: commaOkDefine may go`)
	}
}

// Upstream yaegi issues #1686 and #140: EvalWithContext returns when its
// context is done while the code it runs is still running, and the
// interpreter's stop method is unexported. The session runs Eval in a
// goroutine of its own, waits for it, and stops it through a go:linkname
// (yaegi_stop.go).
func TestYaegiEvalWithContextReturnsEarly(t *testing.T) {
	if _, ok := reflect.TypeFor[*interp.Interpreter]().MethodByName("Stop"); ok {
		t.Error("yaegi now exports (*Interpreter).Stop: use it instead of the go:linkname of yaegi_stop.go")
	}
	in := bare(t)
	entered, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	in.Use(interp.Exports{"b/b": {"Block": reflect.ValueOf(func() { close(entered); <-release })}})
	if _, err := in.Eval(`import "b"`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	returned := make(chan struct{})
	go func() {
		in.EvalWithContext(ctx, "b.Block()")
		close(returned)
	}()
	<-entered
	cancel()
	select {
	case <-returned:
		// Returned while b.Block still runs: the workaround is needed.
	case <-time.After(5 * time.Second):
		t.Error("yaegi's EvalWithContext now waits for the code it stops: yaegi_stop.go's go:linkname may go")
	}
}

// yaegi v0.16.1 fails on r, err := f() in a block at the top level, and
// makes a for loop's variable a session variable (upstream issue #1053).
// The session runs each compound statement in a function literal
// (compound in split.go).
func TestYaegiTopLevelBlocks(t *testing.T) {
	in := bare(t)
	if _, err := in.Eval(`import "strconv"`); err != nil {
		t.Fatal(err)
	}
	_, err := in.Eval("if true {\nr, err := strconv.Atoi(\"1\")\n_, _ = r, err\n}")
	leaks := false
	if _, ferr := in.Eval("for i := 0; i < 3; i++ {\n}"); ferr == nil {
		_, ierr := in.Eval("i")
		leaks = ierr == nil
	}
	if err == nil && !leaks {
		t.Error("yaegi now scopes top-level blocks as Go does: compound statements need not be wrapped in a function literal")
	}
}

// TestLimitHints: the constructs yaegi cannot run give a message that
// says what to write instead.
func TestLimitHints(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	for cell, want := range map[string]string{
		"for i := range 3 {\n_ = i\n}":  "cannot range over an integer",
		"x := min(1, 2)\nx":             "no min builtin",
		"f := (*sgp.Model).Fit\nf(nil)": "cannot call the method expression (*sgp.Model).Fit",
	} {
		_, err := s.Eval(t.Context(), cell)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", cell, err, want)
		}
	}
}

// TestYaegiLogsNilType is the canary of YaegiLogFilter: yaegi logs "nil
// type" through the standard logger before panicking on range over an
// int. When it stops logging, the filter can go.
func TestYaegiLogsNilType(t *testing.T) {
	var buf bytes.Buffer
	log.SetOutput(&buf)
	defer log.SetOutput(os.Stderr)
	s := newSession(t, Options{})
	if _, err := s.Eval(context.Background(), "for i := range 3 { _ = i }"); err == nil {
		t.Skip("yaegi now supports range over int; see TestYaegiRangeOverInt")
	}
	if !strings.Contains(buf.String(), "nil type") {
		t.Errorf("yaegi no longer logs %q (logged %q): YaegiLogFilter may go", "nil type", buf.String())
	}
	var out bytes.Buffer
	f := YaegiLogFilter(&out)
	fmt.Fprint(f, "2026/11/24 05:44:39 nil type\n")
	fmt.Fprint(f, "other line\n")
	if out.String() != "other line\n" {
		t.Errorf("filtered output %q", out.String())
	}
}

// Upstream yaegi issue #1678: every Eval keeps what it computed in the
// interpreter's global frame, the old value of a redefined variable and
// the temporaries of top-level code included. The session releases them
// (yaegi_release.go), reading the frame by reflection: this test also
// fails if that layout changes.
func TestYaegiKeepsRedefinedValues(t *testing.T) {
	in := bare(t)
	f, ok := frameOf(in)
	if !ok {
		t.Fatal("yaegi's Interpreter no longer has the frame yaegi_release.go reads (frame.data, frame.mutex): the session keeps every value again; update frameOf")
	}
	for range 5 {
		if _, err := in.Eval("x := make([]float64, 1000)"); err != nil {
			t.Fatal(err)
		}
	}
	slots, ok := f.slots()
	if !ok || slots["x"] <= 0 {
		t.Fatalf("yaegi's symbol table is no longer what yaegi_release.go reads (srcPkg, symbol.index; slots %v): the session keeps every value again; update slots", slots)
	}
	kept := 0
	for _, v := range *f.data {
		if v.IsValid() && v.Kind() == reflect.Slice && v.Len() == 1000 {
			kept++
		}
	}
	if kept < 5 {
		t.Errorf("the frame holds %d of the 5 slices assigned to x: yaegi may free redefined values now (issue #1678); yaegi_release.go may go", kept)
	}
	n := len(*f.data)
	for range 10 {
		if _, err := in.Eval("x[0] = 1"); err != nil {
			t.Fatal(err)
		}
	}
	if len(*f.data) == n {
		t.Error("ten assignments added no slot to the frame: yaegi may reuse its temporaries now (issue #1678); yaegi_release.go may go")
	}
}

// yaegi panics ("nil type") on a top-level comma-ok type assertion
// written with := (no upstream issue found). The session writes the
// variables out first (commaOkDefine in yaegi_define.go).
func TestYaegiCommaOkAssert(t *testing.T) {
	in := bare(t)
	if _, err := in.Eval("var v any = 1"); err != nil {
		t.Fatal(err)
	}
	if !failsOrPanics(in, "x, ok := v.(int)") {
		t.Error("yaegi now evaluates x, ok := v.(int) at the top level: commaOkDefine's assertion case may go")
	}
}

// yaegi accepts a call with two results where one value is needed, and
// names no function when the counts differ the other way (no upstream
// issue found). The session checks the calls of a chunk before running it
// (checkResults in yaegi_results.go).
func TestYaegiDropsResults(t *testing.T) {
	in := bare(t)
	if _, err := in.Eval(`import "strconv"`); err != nil {
		t.Fatal(err)
	}
	if failsOrPanics(in, `n := strconv.Atoi("x")`) {
		t.Error("yaegi now refuses n := strconv.Atoi(s): checkResults may go")
	}
	_, err := in.Eval(`a, b, c := strconv.Atoi("1")`)
	if err == nil || !strings.Contains(err.Error(), "but  returns") {
		t.Errorf("yaegi's mismatch message is now %v: checkResults may go", err)
	}
}

// yaegi declares the variable of a top-level definition that fails to
// compile (no upstream issue found). The session undoes it
// (yaegi_failed.go), through the unexported symbol table: this test also
// fails if that layout changes.
func TestYaegiKeepsFailedDefinitions(t *testing.T) {
	in := bare(t)
	if _, err := in.Eval(`import "fmt"`); err != nil {
		t.Fatal(err)
	}
	if !failsOrPanics(in, `var r fmt.Stringer = 3`) {
		t.Fatal("var r fmt.Stringer = 3 compiled")
	}
	if _, ok := in.Globals()["r"]; !ok {
		t.Error("yaegi no longer declares a failed definition's variable: undoDefinitions may go")
	}
	if _, ok := mainSymbols(in); !ok {
		t.Error("yaegi's symbol table is no longer where yaegi_failed.go reads it")
	}
}

// yaegi never takes a type switch's case of an interface type (no
// upstream issue found): the switch falls to default. :help and
// docs/repl.md advise concrete cases or comma-ok assertions; this test
// fails once yaegi gets it right and that advice can go.
func TestYaegiTypeSwitchInterfaceCase(t *testing.T) {
	in := bare(t)
	for _, src := range []string{`import "fmt"`, "func kind(v any) string {\n\tswitch v.(type) {\n\tcase error:\n\t\treturn \"error\"\n\t}\n\treturn \"other\"\n}"} {
		if _, err := in.Eval(src); err != nil {
			t.Fatal(err)
		}
	}
	v, err := in.Eval(`kind(fmt.Errorf("x"))`)
	if err != nil {
		t.Fatal(err)
	}
	if v.String() != "other" {
		t.Errorf("yaegi now takes an interface case of a type switch (%v): the advice in :help and docs/repl.md may go", v)
	}
}
