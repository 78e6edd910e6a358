package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

func newSession(t *testing.T, opts Options) *Session {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// cellCase is one cell of a session script and what it must give.
type cellCase struct {
	cell     string
	value    string // substring of the value's text; "-" for no value
	output   string // substring of the output
	err      string // substring of the error; "" for none
	line     int    // error line, if not 0
	panicked bool
	png      bool // the value renders as PNG (and SVG, HTML)
	displays int  // display calls
}

// TestSessionCells runs a session through cells that cover values,
// declarations then statements, calls without results, imports, figures,
// errors and panics. The cells run in order in one session.
func TestSessionCells(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	cases := []cellCase{
		// Values.
		{cell: "1 + 1", value: "2"},
		{cell: `"a" + "b"`, value: "ab"},
		{cell: "import \"strconv\"\nx := 20\nx + 1", value: "21"},
		{cell: "x", value: "20"},
		{cell: "math.Sqrt(16)", value: "4"},
		{cell: "[]float64{1, 2}", value: "[1 2]"},
		{cell: "make([]int, 100)", value: "(len 100)"},
		{cell: "struct{ A, B int }{1, 2}", value: "{A:1 B:2}"},
		{cell: "mat.NewDense(2, 2, []float64{1, 2, 3, 4})", value: "2×2 *mat.Dense"},
		{cell: "var e error\ne", value: "<nil>"},

		// Declarations followed by statements, in one cell.
		{cell: "func sq(v float64) float64 { return v * v }\ntype P struct{ A int }\nconst c = 3\nvar p = P{A: c}\nsq(float64(p.A))", value: "9"},
		{cell: "type T struct{ n int }\nfunc (t T) String() string { return \"T!\" }\nT{1}", value: "T!"},
		{cell: "y := 2\nfunc twice(v int) int { return 2 * v }\ntwice(y)", value: "4"},
		{cell: "func(a int) int { return a + 1 }(41)", value: "42"},
		{cell: "for i := 0; i < 3; i++ {\n\tfmt.Print(i)\n}", value: "-", output: "012"},
		{cell: "if x > 1 { fmt.Println(\"big\") }", value: "-", output: "big"},
		// A two-value := inside a block (yaegi fails on it at the top level).
		{cell: "total := 0\nfor _, s := range []string{\"4\", \"5\"} {\n\tv, err := strconv.Atoi(s)\n\tif err == nil {\n\t\ttotal += v\n\t}\n}\ntotal", value: "9"},
		{cell: "loopVar := 0\nfor loopVar2 := 0; loopVar2 < 3; loopVar2++ {\n\tloopVar = loopVar2\n}\nloopVar", value: "2"},
		{cell: "loopVar2", err: "undefined: loopVar2"}, // a loop's variable stays local
		{cell: "outer:\nfor {\n\tfor {\n\t\tbreak outer\n\t}\n}", value: "-"},

		// Calls without results show nothing, not a stale value (yaegi #1069).
		{cell: "func noop() {}", value: "-"},
		{cell: "42", value: "42"},
		{cell: "noop()", value: "-"},
		{cell: "fmt.Println(\"hello\")", value: "-", output: "hello\n"},
		{cell: "println(\"to stderr\")", value: "-"},
		// Several results: shown one per line, a final nil error left out.
		{cell: "import \"strconv\"\nstrconv.Atoi(\"12\")", value: "12"},
		{cell: "strconv.Atoi(\"x\")", err: "invalid syntax"},

		// Imports.
		{cell: "import \"strings\"\nstrings.Repeat(\"ab\", 2)", value: "abab"},
		{cell: "import (\n\t\"gonum.org/v1/gonum/floats\"\n\tst \"gonum.org/v1/gonum/stat\"\n)\nfloats.Sum([]float64{1, 2, 3}) + st.Mean([]float64{1, 3}, nil)", value: "8"},
		{cell: "import \"gonum.org/v1/plot/plotter\"\nlen(plotter.XYs{{X: 1, Y: 2}})", value: "1"},
		{cell: "import \"no/such/package\"", err: "no/such/package"},
		// Importing what the session imported already is fine.
		{cell: "import \"fmt\"\nimport (\n\t\"math\"; \"sort\"\n)\nfmt.Sprint(math.Pi > 3, sort.IntsAreSorted([]int{1, 2}))", value: "true true"},

		// sgp values render through their String methods; figures as PNG.
		{cell: "train, test := data.SnelsonLike(60, 1)\ntrain", value: "60 points"},
		{cell: "m := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(6)\nm", value: "not built yet"},
		{cell: "m.Swap()", value: "swap:"},
		{cell: "m.Fit()", value: "fit "},
		{cell: "fig, _ := figure.Fit1D(m, \"fit\")\nfig", value: "Figure(\"fit\"", png: true},
		{cell: "display.Show(fig)\ndisplay.PNG(fig.PNG())\ndisplay.HTML(\"<b>x</b>\")", value: "-", displays: 3},
		{cell: "type Pic struct{}\nfunc (Pic) PNG() []byte { return []byte(\"\\x89PNG\") }\nfunc (Pic) String() string { return \"a picture\" }\nPic{}", value: "a picture", png: false},

		// Values indexed out of slices and maps from compiled code (yaegi
		// cannot infer their type at the top level by itself).
		{cell: "ind, _ := m.Inducing()\nj := ind[0]\nj2 := ind[1] + 1\nj2 - j > -1000", value: "true"},
		{cell: "hp := m.Hyperparameters().Map()\nnoise, ok := hp[\"noise\"]\nok && noise > 0", value: "true"},
		{cell: "y0 := train.Y[0] * 2\ny0 != 0", value: "true"},

		// Errors, positioned in the cell.
		{cell: "undefinedVar + 1", err: "undefined: undefinedVar", line: 1},
		{cell: "a := 1\nb := a + 1\n\tnope(b)", err: "undefined: nope", line: 3},
		{cell: "x := )", err: "expected"},
		// yaegi says "constant definition loop" or panics for these; the
		// session finds the undefined name.
		{cell: "y2 := nope", err: "1:7: undefined: nope", line: 1},
		{cell: "z := 1\nfmt.Println(z, nope2)", err: "undefined: nope2", line: 2},
		{cell: "k := 7\nundefinedK()", err: "undefined: undefinedK"},
		{cell: "k", value: "7"}, // definitions before an error stay
		{cell: "var s string = 1", err: "cannot"},

		// Panics, interpreted and compiled, come back as errors.
		{cell: "panic(\"boom\")", err: "boom", panicked: true},
		{cell: "xs := []int{1}\nxs[5]", err: "out of range", panicked: true, line: 2},
		{cell: "if true {\n\tpanic(\"inner\")\n}", err: "inner", panicked: true, line: 2},
		{cell: "mat.NewDense(2, 2, []float64{1})", err: "dimension mismatch", panicked: true},
		{cell: "var nilModel *sgp.Model\nnilModel.Swap()", panicked: true, err: "nil pointer"},
		{cell: "1 + 2", value: "3"}, // the session survives
	}
	for i, c := range cases {
		res, err := s.Eval(context.Background(), c.cell)
		if res == nil {
			t.Fatalf("cell %d %q: nil Result", i, c.cell)
		}
		switch {
		case c.err == "" && err != nil:
			t.Errorf("cell %d %q: error %v", i, c.cell, err)
			continue
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("cell %d %q: error %v, want one containing %q", i, c.cell, err, c.err)
			continue
		case c.err != "":
			var ce *CellError
			if !errors.As(err, &ce) {
				t.Errorf("cell %d %q: error %T, want *CellError", i, c.cell, err)
				continue
			}
			if ce.Panicked != c.panicked {
				t.Errorf("cell %d %q: Panicked %v, want %v (%v)", i, c.cell, ce.Panicked, c.panicked, err)
			}
			if c.line != 0 && ce.Line != c.line {
				t.Errorf("cell %d %q: error at line %d, want %d (%v)", i, c.cell, ce.Line, c.line, err)
			}
			continue
		}
		switch {
		case c.value == "-" && res.Value != nil:
			t.Errorf("cell %d %q: value %q, want none", i, c.cell, res.Value.Text)
		case c.value != "-" && res.Value == nil:
			t.Errorf("cell %d %q: no value, want %q", i, c.cell, c.value)
		case c.value != "-" && !strings.Contains(res.Value.Text, c.value):
			t.Errorf("cell %d %q: value %q, want it to contain %q", i, c.cell, res.Value.Text, c.value)
		}
		if c.output != "" && !strings.Contains(res.Output, c.output) {
			t.Errorf("cell %d %q: output %q, want it to contain %q", i, c.cell, res.Output, c.output)
		}
		if c.png {
			v := res.Value
			if v == nil || !bytes.HasPrefix(v.PNG, []byte("\x89PNG")) || !strings.Contains(v.SVG, "<svg") || !strings.Contains(v.HTML, "<img") {
				t.Errorf("cell %d %q: want PNG, SVG and HTML renderings", i, c.cell)
			}
		}
		if len(res.Displays) != c.displays {
			t.Errorf("cell %d %q: %d displays, want %d", i, c.cell, len(res.Displays), c.displays)
		}
	}
	// After failed definitions, listing and completion still work (yaegi's
	// Globals panics until its frame is grown again).
	if _, err := s.Eval(context.Background(), "failed := 1 + nope3"); err == nil {
		t.Error("a definition with an undefined name succeeded")
	}
	if vars := s.Vars(); len(vars) == 0 {
		t.Error("no variables listed")
	}
	if _, got := s.Complete("trai", 4); len(got) != 1 || got[0] != "train" {
		t.Errorf("Complete(trai) = %v after a failed definition", got)
	}
	// The figure shown by display.Show and display.PNG.
	res, _ := s.Eval(context.Background(), "display.Show(fig)")
	if len(res.Displays) != 1 || !bytes.HasPrefix(res.Displays[0].PNG, []byte("\x89PNG")) {
		t.Errorf("display.Show(fig): displays %+v", res.Displays)
	}
	// A type declared in the session shows through its own methods when
	// it is a variable or a literal.
	res, _ = s.Eval(context.Background(), "pic := Pic{}\npic")
	if res.Value == nil || string(res.Value.PNG) != "\x89PNG" || res.Value.Text != "a picture" {
		t.Errorf("pic: value %+v", res.Value)
	}
}

func TestSessionsAreIndependent(t *testing.T) {
	t.Parallel()
	a, b := newSession(t, Options{}), newSession(t, Options{})
	if _, err := a.Eval(context.Background(), "only := 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Eval(context.Background(), "only"); err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Errorf("session b sees session a's variable: %v", err)
	}
	var outA, outB bytes.Buffer
	a2, b2 := newSession(t, Options{Stdout: &outA}), newSession(t, Options{Stdout: &outB})
	a2.Eval(context.Background(), `fmt.Print("a")`)
	b2.Eval(context.Background(), `fmt.Print("b")`)
	if outA.String() != "a" || outB.String() != "b" {
		t.Errorf("outputs mixed: a %q, b %q", outA.String(), outB.String())
	}
}

func TestSessionProgressHooks(t *testing.T) {
	t.Parallel()
	var progress bytes.Buffer
	epochs := 0
	s := newSession(t, Options{Progress: &progress, OnEpoch: func(sgp.EpochRecord) { epochs++ }})
	res, err := s.Eval(context.Background(), "train, _ := data.SnelsonLike(80, 2)\n"+
		"m := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(6).WithMaxEpochs(3)\n"+
		"m.Fit()")
	if err != nil {
		t.Fatal(err)
	}
	if epochs == 0 || !strings.Contains(progress.String(), "epoch") {
		t.Errorf("%d epoch callbacks, progress %q; result %v", epochs, progress.String(), res.Value)
	}
}

// TestSessionAbandonsBlockedCell interrupts a cell blocked in compiled
// code (a channel receive that never completes): Eval returns after the
// grace period, and the session goes on answering at once.
func TestSessionAbandonsBlockedCell(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{StopGrace: 200 * time.Millisecond})
	if _, err := s.Eval(context.Background(), "import \"time\"\nblock := make(chan int)\nafter := 0"); err != nil {
		t.Fatal(err)
	}
	for _, cell := range []string{"<-block\nafter = 1", "time.Sleep(time.Hour)\nafter = 2"} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		_, err := s.Eval(ctx, cell)
		// yaegi's own channel operations stop at once; a call into
		// compiled code is abandoned after the grace period.
		if !errors.Is(err, context.Canceled) || strings.Contains(cell, "Sleep") && !strings.Contains(err.Error(), "abandoned") {
			t.Fatalf("%q: error %v, want an interruption (abandoning the cell if blocked)", cell, err)
		}
		done := make(chan error, 1)
		go func() {
			res, err := s.Eval(context.Background(), "after + 40")
			if err == nil && (res.Value == nil || res.Value.Text != "40") {
				err = fmt.Errorf("value %+v", res.Value)
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the cell after %q: %v", cell, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the session does not answer after %q was abandoned", cell)
		}
	}
}

// TestSessionErrorValues: a final expression whose last value is a
// non-nil error is an error of the cell; a nil error is not shown.
func TestSessionErrorValues(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	_, err := s.Eval(context.Background(), "sgp.NewModel(nil, nil, nil).Fit()")
	var ce *CellError
	if !errors.As(err, &ce) || ce.Returned == nil || !strings.Contains(ce.Msg, "no training data") {
		t.Fatalf("error %v, want the returned error", err)
	}
	res, err := s.Eval(context.Background(), "import \"strconv\"\nstrconv.Atoi(\"12\")")
	if err != nil || res.Value == nil || res.Value.Text != "12" {
		t.Fatalf("Atoi: %v, value %+v", err, res.Value)
	}
	// A user's own func main runs only when called, once per call.
	res, err = s.Eval(context.Background(), "calls := 0\nfunc main() { calls++ }\nmain()\nx := 1\ncalls")
	if err != nil || res.Value == nil || res.Value.Text != "1" {
		t.Fatalf("main: %v, value %+v", err, res.Value)
	}
	if res, err = s.Eval(context.Background(), "calls"); err != nil || res.Value.Text != "1" {
		t.Fatalf("main ran again in a later cell: %v, %+v", err, res.Value)
	}
}

// TestSessionWarnsShortfall: asking for 400 inducing points on 5000
// smooth points gets fewer; the cell's output says so even when the
// Result is not shown.
func TestSessionWarnsShortfall(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	s := newSession(t, Options{Stderr: &stderr})
	res, err := s.Eval(context.Background(), "train, _ := data.SnelsonLike(5000, 1)\n"+
		"m := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(400).WithMaxEpochs(2)\n"+
		"r, err := m.Fit()\n_, _ = r, err")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "warning: only") || !strings.Contains(res.Output, "of the m=400") || !strings.Contains(stderr.String(), "warning: only") {
		t.Errorf("no shortfall warning; output %q, stderr %q", res.Output, stderr.String())
	}
	res, err = s.Eval(context.Background(), "m")
	if err != nil || res.Value == nil || !strings.Contains(res.Value.Text, "(asked for 400; the kernel cannot tell more apart)") {
		t.Errorf("the model's display does not say so: %v %+v", err, res.Value)
	}
}

// TestSessionCancelLoop stops an interpreted endless loop.
func TestSessionCancelLoop(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := s.Eval(ctx, "n := 0\nfor {\n\tn++\n}")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want an interruption", err)
	}
	if d := time.Since(start); d > 20*time.Second { // not honoured, not slow: latency depends on load
		t.Errorf("the loop took %v to stop", d)
	}
	res, err := s.Eval(context.Background(), "n > 0")
	if err != nil || res.Value == nil || res.Value.Text != "true" {
		t.Errorf("after the interruption: %v, %v", res.Value, err)
	}
}

// TestSessionCancelFit cancels a long Fit running in compiled code, on a
// few-thousand-point problem with many inducing points: it must stop
// at the next swap, leave the model usable, and the session must go on.
func TestSessionCancelFit(t *testing.T) {
	t.Parallel()
	epochs := 0
	s := newSession(t, Options{OnEpoch: func(sgp.EpochRecord) { epochs++ }})
	setup := "train, _ := data.SnelsonLike(3000, 1)\n" +
		"m := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.02})).WithM(200).WithMaxEpochs(1000).WithTolerance(0)\n" +
		"m.Err()"
	if res, err := s.Eval(context.Background(), setup); err != nil || res.Value == nil || res.Value.Text != "<nil>" {
		t.Fatalf("setup: %v %v", res.Value, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	time.AfterFunc(1500*time.Millisecond, func() {
		cancelled = time.Now()
		cancel()
	})
	_, err := s.Eval(ctx, "res, fitErr := m.Fit()\nfmt.Println(\"not reached\")")
	stopped := time.Since(cancelled)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Fit error %v, want an interruption", err)
	}
	// The bound catches a cancellation that is not honoured (the Fit would
	// run for minutes), not its latency, which depends on the machine's
	// load; the latency is logged.
	if stopped > 20*time.Second {
		t.Errorf("Fit stopped %v after the cancellation, want it to stop at the next swap", stopped)
	}
	t.Logf("stopped %v after cancel, %d epochs done", stopped, epochs)
	res, err := s.Eval(context.Background(), "v, verr := m.Value()\nverr == nil && v > 0")
	if err != nil || res.Value == nil || res.Value.Text != "true" {
		t.Errorf("model after the interruption: %v, %v", res.Value, err)
	}
}

func TestComplete(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	if _, err := s.Eval(context.Background(), "import \"strings\"\n"+
		"train, _ := data.SnelsonLike(30, 1)\n"+
		"m := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{1})).WithM(3)\n"+
		"myValue := 3\nfunc myFunc() {}"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		code  string
		start int
		want  []string // all in the candidates
		not   []string
	}{
		{"data.SnelsonL", 0, []string{"data.SnelsonLike"}, nil},
		{"sgp.NewM", 0, []string{"sgp.NewModel"}, nil},
		{"x := figure.", 5, []string{"figure.Fit1D", "figure.CostRanking", "figure.Trace"}, nil},
		{"sgp.Plot", 0, nil, []string{"sgp.PlotFit1D"}},
		{"m.Sw", 0, []string{"m.Swap", "m.SwapPoint"}, nil},
		{"m.Fi", 0, []string{"m.Fit", "m.FitContext"}, nil},
		{"train.X.Di", 0, []string{"train.X.Dim"}, nil},
		{"train.", 0, []string{"train.Name", "train.X", "train.Y", "train.Len"}, nil},
		{"myV", 0, []string{"myValue"}, nil},
		{"myF", 0, []string{"myFunc"}, nil},
		{"str", 0, []string{"strings", "string"}, nil},
		{"strings.ToU", 0, []string{"strings.ToUpper"}, nil},
		{"mat.NewDe", 0, []string{"mat.NewDense"}, nil},
		{"fo", 0, []string{"for"}, nil},
		{"f(data.Snel", 2, []string{"data.SnelsonLike"}, nil},
		{"sgp._", 0, nil, []string{"sgp._Kernel"}},
		{"__", 0, nil, []string{"__sgprepl"}},
	}
	for _, c := range cases {
		start, got := s.Complete(c.code, len(c.code))
		if start != c.start {
			t.Errorf("Complete(%q): start %d, want %d", c.code, start, c.start)
		}
		set := map[string]bool{}
		for _, g := range got {
			set[g] = true
		}
		for _, w := range c.want {
			if !set[w] {
				t.Errorf("Complete(%q) = %v, want %q among them", c.code, got, w)
			}
		}
		for _, w := range c.not {
			if set[w] {
				t.Errorf("Complete(%q) = %v, must not offer %q", c.code, got, w)
			}
		}
	}
	// In the middle of a line, the word before the cursor.
	if start, got := s.Complete("data.Snel + 1", 9); start != 0 || len(got) != 1 || got[0] != "data.SnelsonLike" {
		t.Errorf("completion before the cursor: %d %v", start, got)
	}
}

func TestIsComplete(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src  string
		want bool
	}{
		{"", true},
		{"x := 1", true},
		{"for i := 0; i < 3; i++ {", false},
		{"for i := 0; i < 3; i++ {\n\tfmt.Println(i)\n}", true},
		{"f(1,", false},
		{"f(1,\n2)", true},
		{"x := 1 +", false},
		{"m.", false},
		{"s := `raw", false},
		{"s := `raw\n`", true},
		{"/* comment", false},
		{"func f() {\n", false},
		{"x := )", true}, // an error, reported when evaluated
		{"i++", true},
		{"type T struct {\n\tA int\n}", true},
	}
	for _, c := range cases {
		if got := IsComplete(c.src); got != c.want {
			t.Errorf("IsComplete(%q) = %v, want %v", c.src, got, c.want)
		}
	}
}

func TestSplitCell(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cell string
		want []chunkKind
	}{
		{"1 + 1", []chunkKind{chunkExpr}},
		{"x := 1", []chunkKind{chunkStmt}},
		{"import \"fmt\"\nfunc f() {}\nx := 1\nf()", []chunkKind{chunkImport, chunkDecl, chunkStmt, chunkExpr}},
		{"var x = 1\nx", []chunkKind{chunkStmt, chunkExpr}},
		{"func (t T) M() {}\ntype T int", []chunkKind{chunkDecl}},
		{"func() {}()", []chunkKind{chunkExpr}},
		{"for i := 0; i < 3; i++ {\n}\nx", []chunkKind{chunkBlock, chunkExpr}},
		{"a := 1\nb := 2\nif a < b {\n}\nc := 3\nswitch {\n}", []chunkKind{chunkStmt, chunkBlock, chunkStmt, chunkBlock}},
		{"x := 1; y := 2", []chunkKind{chunkStmt}},
		{"", nil},
	}
	for _, c := range cases {
		chunks := splitCell(c.cell)
		var got []chunkKind
		for _, ch := range chunks {
			got = append(got, ch.kind)
			if c.cell[ch.off:ch.off+len(ch.src)] != ch.src {
				t.Errorf("splitCell(%q): chunk %q is not at offset %d", c.cell, ch.src, ch.off)
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("splitCell(%q) = %v, want %v", c.cell, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("splitCell(%q) = %v, want %v", c.cell, got, c.want)
				break
			}
		}
	}
}

// TestSgpDisplay checks the text and HTML renderings of sgp values (sgp/display.go).
func TestSgpDisplay(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(60, 1)
	m := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(5).WithInfoPivots(3)
	if s := m.String(); !strings.Contains(s, "not built yet") {
		t.Errorf("Model before building: %q", s)
	}
	sw, err := m.Swap()
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Fit()
	if err != nil {
		t.Fatal(err)
	}
	ind, _ := m.Inducing()
	cr, err := m.CostRanking(ind[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	parts, _ := m.Parts()
	for _, c := range []struct {
		name, text string
		want       []string
		html       string
	}{
		{"Dataset", train.String(), []string{`"snelson-like"`, "60 points"}, ""},
		{"SwapResult", sw.String(), []string{"swap: ", "ΔF exact"}, sw.HTML()},
		{"EpochRecord", m.Trace()[0].String(), []string{"epoch 1: F "}, m.Trace()[0].HTML()},
		{"CostRanking", cr.String(), []string{"cost ranking after removing point", "Spearman ρ"}, cr.HTML()},
		{"Parts", parts.String(), []string{"MLE ", "VAR ", "data fit"}, parts.HTML()},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.text, w) {
				t.Errorf("%s.String() = %q, want %q in it", c.name, c.text, w)
			}
		}
		if strings.Contains(c.text, "\n") {
			t.Errorf("%s.String() is not one line: %q", c.name, c.text)
		}
		if c.html != "" && (!strings.HasPrefix(c.html, "<table>") || !strings.HasSuffix(c.html, "</table>")) {
			t.Errorf("%s.HTML() = %q, want a table", c.name, c.html)
		}
	}
	// A built Model and a Result are a title and aligned rows.
	for _, c := range []struct {
		name, text string
		want       []string
		html       string
	}{
		{"Model", m.String(), []string{"sgp.Model\n", "\n  n                     60", "\n  inducing points       5 (asked for 5)",
			"\n  information pivots z  3", "\n  objective             VAR ", "\n  lengthscale[0]        ", "\n  noise                 "}, m.HTML()},
		{"Result", res.String(), []string{"fit " + res.Status.String() + " after ", "epochs", "\n  inducing points ", " 5 of m=5\n", "\n  swaps accepted "}, res.HTML()},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.text, w) {
				t.Errorf("%s.String() = %q, want %q in it", c.name, c.text, w)
			}
		}
		if !strings.HasPrefix(c.html, "<table>") {
			t.Errorf("%s.HTML() = %q, want a table", c.name, c.html)
		}
	}
	var nilModel *sgp.Model
	if nilModel.String() != "sgp.Model(nil)" {
		t.Errorf("nil Model: %q", nilModel.String())
	}
	if (sgp.CostRanking{Removed: 3}).String() != "cost ranking after removing point 3: no candidates" {
		t.Errorf("empty ranking: %q", (sgp.CostRanking{Removed: 3}).String())
	}
}

// TestSessionExactSaveLoad: from the REPL, an exact GP is fitted, saved,
// read back through LoadRegressorFile and told apart from a sparse model
// by a type switch on the concrete types (TestSessionCommaOkAssert checks
// the comma-ok assertion).
func TestSessionExactSaveLoad(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	path := t.TempDir() + "/exact.json"
	cell := fmt.Sprintf(`import "context"
train, test := data.SnelsonLike(60, 1)
ex, err := sgp.NewExact(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithMaxEvals(40).FitContext(context.Background())
if err != nil {
	panic(err)
}
if err := ex.Predictor.SaveFile(%q); err != nil {
	panic(err)
}
r, err := sgp.LoadRegressorFile(%q)
if err != nil {
	panic(err)
}
kind := "sparse"
switch p := r.(type) {
case *sgp.ExactPredictor:
	kind = fmt.Sprintf("exact, n = %%d", p.N())
}
a, _ := ex.Predictor.Evaluate(test)
b, _ := r.Evaluate(test)
fmt.Sprintf("%%s; SMSE %%.12f %%.12f", kind, a.SMSE, b.SMSE)`, path, path)
	res, err := s.Eval(context.Background(), cell)
	if err != nil {
		t.Fatal(err)
	}
	if res.Value == nil || !strings.Contains(res.Value.Text, "exact, n = 60; SMSE") {
		t.Fatalf("value %+v", res.Value)
	}
	var a, b float64
	if _, err := fmt.Sscanf(strings.ReplaceAll(res.Value.Text, "exact, n = 60; ", ""), "SMSE %f %f", &a, &b); err != nil || a != b {
		t.Errorf("%q: fitted and loaded SMSE differ (%v)", res.Value.Text, err)
	}
}
