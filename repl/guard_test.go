package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestSessionGoroutinePanics: a panic in a goroutine that a cell started
// (a plain panic, a nil-map write) is an error of that cell if it is
// still running, and otherwise of the next cell, which does not run; the
// session goes on. Uncaught, each of these ends the process.
func TestSessionGoroutinePanics(t *testing.T) {
	t.Parallel()
	stdin, feed := io.Pipe()
	defer feed.Close()
	s := newSession(t, Options{Stdin: stdin})
	evalOK(t, s, "import \"time\"")
	for _, c := range []struct {
		cell, err string
	}{
		{"go func() { panic(\"late\") }()\ntime.Sleep(200 * time.Millisecond)\n1", "panic: in a goroutine: late"},
		{"var m map[string]int\ngo func() {\n\tm[\"a\"] = 1\n}()\ntime.Sleep(200 * time.Millisecond)", "in a goroutine: assignment to entry in nil map"},
		// The cell's own error comes first.
		{"go func() { panic(\"also\") }()\ntime.Sleep(200 * time.Millisecond)\npanic(\"own\")", "own (a goroutine also panicked: also)"},
	} {
		_, err := s.Eval(context.Background(), c.cell)
		var ce *CellError
		if !errors.As(err, &ce) || !ce.Panicked || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: error %v, want a panic with %q", c.cell, err, c.err)
		}
	}

	// A panic after its cell ended (when the test feeds the line the
	// goroutine waits for): the next cell reports it and does not run,
	// the one after runs.
	evalOK(t, s, "go func() {\n\tvar line string\n\tfmt.Scanln(&line)\n\tpanic(\"after the cell\")\n}()")
	fmt.Fprintln(feed, "go")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		s.mu.Lock()
		n := len(s.pendingPanics)
		s.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the goroutine has not panicked 30 s after its line")
		}
	}
	_, err := s.Eval(context.Background(), "ran := true")
	if err == nil || !strings.Contains(err.Error(), "earlier cell: after the cell; this cell did not run") {
		t.Errorf("the cell after: error %v", err)
	}
	if _, err := s.Eval(context.Background(), "ran"); err == nil || !strings.Contains(err.Error(), "undefined: ran") {
		t.Errorf("ran: error %v, want undefined (the cell did not run)", err)
	}
	if res := evalOK(t, s, "1 + 2"); res.Value == nil || res.Value.Text != "3" {
		t.Errorf("1 + 2 = %+v", res.Value)
	}
}

// TestSessionGoStatements: the rewritten go statements evaluate the
// function and its arguments where the go statement is, as Go does, with
// every form of call: a function, a function literal with arguments, a
// method (yaegi binds a method value to its variable, not to the value:
// the rewriting keeps that), a variadic call, a builtin, constants of
// the callee's parameter type, and go statements inside a declared
// function.
func TestSessionGoStatements(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	for _, c := range []struct{ cell, want string }{
		// yaegi shares a loop's variable between iterations: evaluated
		// late, every goroutine would see i = 3.
		{"func send(x float64, c chan float64) { c <- x }\nc := make(chan float64, 3)\nfor i := 0; i < 3; i++ {\n\tgo send(float64(i*i), c)\n}\n<-c + <-c + <-c", "5"},
		{"const k = 2\nc1 := make(chan float64, 1)\ngo send(k, c1)\n<-c1", "2"},
		{"c2 := make(chan int, 1)\nv := 40\ngo func(a, b int) { c2 <- a + b }(v, 2)\nv = 0\n<-c2", "42"},
		{"type acc struct{ n int }\nfunc (a acc) put(c chan int) { c <- a.n }\na := acc{7}\nc3 := make(chan int, 1)\ngo a.put(c3)\n<-c3", "7"},
		{"func sum(c chan int, xs ...int) {\n\tt := 0\n\tfor _, x := range xs {\n\t\tt += x\n\t}\n\tc <- t\n}\nc4 := make(chan int, 1)\nxs := []int{1, 2, 3}\ngo sum(c4, xs...)\n<-c4", "6"},
		{"c5 := make(chan int)\ngo close(c5)\nn5 := 1\nfor x := range c5 {\n\tn5 += x\n}\nn5", "1"},
		{"func fan(n int) int {\n\tc := make(chan int, n)\n\tfor i := 0; i < n; i++ {\n\t\tgo func(j int) { c <- j }(i)\n\t}\n\tt := 0\n\tfor i := 0; i < n; i++ {\n\t\tt += <-c\n\t}\n\treturn t\n}\nfan(5)", "10"},
	} {
		res := evalOK(t, s, c.cell)
		if res.Value == nil || res.Value.Text != c.want {
			t.Errorf("%q = %+v, want %s", c.cell, res.Value, c.want)
		}
	}
}

// TestSessionRecursion: unbounded recursion of interpreted code is
// stopped with an error before Go's stack limit ends the process, and
// the session goes on. Not parallel: the limit is on the process's
// goroutine stacks.
func TestSessionRecursion(t *testing.T) {
	s := newSession(t, Options{})
	_, err := s.Eval(context.Background(), "depth := 0\nfunc rec(n int) int {\n\tdepth = n\n\treturn rec(n+1) + 1\n}\nrec(0)")
	if err == nil || !strings.Contains(err.Error(), "unbounded recursion") {
		t.Fatalf("error %v, want the stop for the stack", err)
	}
	res := evalOK(t, s, "depth > 10000")
	if res.Value == nil || res.Value.Text != "true" {
		t.Errorf("depth > 10000 = %+v", res.Value)
	}
	// Deep but bounded recursion is not stopped.
	res = evalOK(t, s, "func down(n int) int {\n\tif n == 0 {\n\t\treturn 0\n\t}\n\treturn down(n-1) + 1\n}\ndown(20000)")
	if res.Value == nil || res.Value.Text != "20000" {
		t.Errorf("down(20000) = %+v", res.Value)
	}
	// A cell that runs for a while after the stop is not stopped for the
	// stack the stopped recursion left, and a second runaway recursion is
	// stopped again.
	res = evalOK(t, s, "import \"time\"\nfor i := 0; i < 20; i++ {\n\ttime.Sleep(5 * time.Millisecond)\n}\n\"slept\"")
	if res.Value == nil || !strings.Contains(res.Value.Text, "slept") {
		t.Errorf("the cell after the stop: %+v", res.Value)
	}
	if _, err := s.Eval(context.Background(), "rec(0)"); err == nil || !strings.Contains(err.Error(), "unbounded recursion") {
		t.Errorf("second recursion: error %v, want the stop for the stack", err)
	}
}

// TestSessionMakeLimit: make with more elements than the machine's memory
// holds is an error of the cell, not a fatal "out of memory"; sizes that
// fit are unchanged.
func TestSessionMakeLimit(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	if s.memory == 0 {
		t.Skip("the machine's memory is not known on this system; make is not checked")
	}
	for _, cell := range []string{
		"xs := make([]float64, 1e12)",
		"n := int64(1) << 40\nys := make([]float64, 0, n)",
		"type pair struct{ a, b float64 }\nps := make([]pair, 1<<40)",
		"hint := 1 << 41\nm := make(map[int]float64, hint)",
		"func alloc(n int) []float64 { return make([]float64, n) }\nalloc(1 << 42)",
	} {
		_, err := s.Eval(context.Background(), cell)
		if err == nil || !strings.Contains(err.Error(), "of memory: the process would die") {
			t.Errorf("%q: error %v, want the memory check", cell, err)
		}
	}
	for cell, want := range map[string]string{
		"k := 1000\nlen(make([]float64, k, 2*k)) + cap(make([]int, 3, 5))": "1005",
		"len(make(map[string]int, 10))":                                    "0",
		"cap(make(chan int, 4))":                                           "4",
		"n2 := -1\nmake([]int, n2)":                                        "",
	} {
		res, err := s.Eval(context.Background(), cell)
		switch {
		case want == "" && (err == nil || !strings.Contains(err.Error(), "negative len")):
			t.Errorf("%q: error %v, want make's own", cell, err)
		case want != "" && (err != nil || res.Value == nil || res.Value.Text != want):
			t.Errorf("%q = %+v, %v, want %s", cell, res.Value, err, want)
		}
	}
}

// TestSessionOsExit: os.Exit stops the cell and Eval returns its code;
// yaegi's restricted os.Exit panics with "os.Exit(0)" instead.
func TestSessionOsExit(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	res, err := s.Eval(context.Background(), "import \"os\"\nfmt.Println(\"before\")\nos.Exit(3)\nfmt.Println(\"after\")")
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 3 {
		t.Fatalf("error %v (%T), want an *ExitError with code 3", err, err)
	}
	if res.Output != "before\n" {
		t.Errorf("output %q, want only what came before os.Exit", res.Output)
	}
	// Recovered by the cell's own code, it still ends the cell.
	_, err = s.Eval(context.Background(), "func() {\n\tdefer func() { recover() }()\n\tos.Exit(0)\n}()")
	if !errors.As(err, &exit) || exit.Code != 0 {
		t.Errorf("a recovered os.Exit(0): error %v", err)
	}
	evalOK(t, s, "1")
}

// TestInstrumentPositions: positions in rewritten source map back to the
// chunk as written, and a rewritten chunk that does not compile runs as
// written (a generic function cannot be a value: go f(x) with a generic
// f).
func TestInstrumentPositions(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	src := ";go work(a, 1); ys := make([]int, n); z"
	ins := s.instrument(chunkStmt, src)
	if len(ins.edits) != 2 || !strings.Contains(ins.text, goCall) || !strings.Contains(ins.text, makeLenCall) {
		t.Fatalf("rewritten: %q", ins.text)
	}
	if got, want := ins.origOffset(strings.LastIndex(ins.text, "z")), strings.LastIndex(src, "z"); got != want {
		t.Errorf("z at %d of the rewritten source maps to %d, want %d", strings.LastIndex(ins.text, "z"), got, want)
	}
	if got, want := ins.origOffset(strings.Index(ins.text, goCall)+3), strings.Index(src, "go"); got != want {
		t.Errorf("inside the rewritten go statement maps to %d, want its start %d", got, want)
	}
	if plain := s.instrument(chunkStmt, ";x := 1"); len(plain.edits) != 0 || plain.text != ";x := 1" {
		t.Errorf("nothing to rewrite: %+v", plain)
	}

	res := evalOK(t, s, "func twice[T any](x T, c chan T) {\n\tc <- x\n\tc <- x\n}\nc := make(chan int, 2)\ngo twice(21, c)\n<-c + <-c")
	if res.Value == nil || res.Value.Text != "42" {
		t.Errorf("go with a generic function: %+v", res.Value)
	}
	_, err := s.Eval(context.Background(), "go twice(1, c) ; undefinedAfterGo")
	var ce *CellError
	if !errors.As(err, &ce) || ce.Column != 18 || !strings.Contains(ce.Msg, "undefined: undefinedAfterGo") {
		t.Errorf("error %v (column %d), want undefined: undefinedAfterGo at column 18", err, ce.Column)
	}
}

// TestInstrumentMakeInLoops: inside functions and loops, where a make may
// run millions of times, the size is tested by interpreted code before
// the statement and the session's check (a call, about 1 µs) runs only
// for a large size; at the top level, or for a size with effects, the
// call wraps the size.
func TestInstrumentMakeInLoops(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	for _, c := range []struct {
		kind      chunkKind
		src, want string
	}{
		{chunkDecl, "func f(n int) []float64 {\n\treturn make([]float64, n)\n}",
			"func f(n int) []float64 {\n\tif uint64(n) >= 1048576 { __sgprepl.Len(([]float64)(nil), n) }; return make([]float64, n)\n}"},
		{chunkBlock, blockPrefix + "for i := 0; i < 3; i++ {\n\trow := make([]int, len(xs)+i)\n\t_ = row\n}\n}()",
			blockPrefix + "for i := 0; i < 3; i++ {\n\tif uint64(len(xs)+i) >= 1048576 { __sgprepl.Len(([]int)(nil), len(xs)+i) }; row := make([]int, len(xs)+i)\n\t_ = row\n}\n}()"},
		{chunkStmt, ";ys := make([]int, n)", ";ys := make([]int, __sgprepl.Len(([]int)(nil), n))"},
		{chunkDecl, "func g() []int {\n\treturn make([]int, size())\n}",
			"func g() []int {\n\treturn make([]int, __sgprepl.Len(([]int)(nil), size()))\n}"},
	} {
		if got := s.instrument(c.kind, c.src).text; got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}
