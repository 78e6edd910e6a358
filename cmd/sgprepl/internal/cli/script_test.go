package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runScriptMain runs Main with args and an empty stdin.
func runScriptMain(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(ctx, args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestScriptMode(t *testing.T) {
	figs := t.TempDir()
	t.Setenv("SGPREPL_OUT", figs)
	dir := t.TempDir()
	script := writeFile(t, dir, "fit.go", `// A script is a cell: statements and declarations.
import "strings"

func shout(s string) string { return strings.ToUpper(s) + "!" }

train, _ := data.SnelsonLike(60, 1)
m := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(5).WithMaxEpochs(10)
res, err := m.Fit()
if err != nil {
	panic(err)
}
fmt.Println(shout("fitted"), res.Epochs > 0)
figure.Fit1D(m, "script")
`)
	program := writeFile(t, dir, "main.go", `package main

import "fmt"

func main() {
	fmt.Println("hello from main")
}
`)
	bad := writeFile(t, dir, "bad.go", "x := 1\n\ny := x + nope\n")
	panicky := writeFile(t, dir, "panic.go", "xs := []int{}\n_ = xs\npanic(\"boom\")\n")

	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string // the one line on stderr; "" for none
	}{
		{"run", []string{"run", script}, 0, []string{"FITTED! true", "Figure(\"script\"", "figure saved: " + figs}, ""},
		{"run main", []string{"run", program}, 0, []string{"hello from main\n"}, ""},
		{"-e returned error", []string{"-e", "sgp.NewModel(nil, nil, nil).Fit()"}, 1, nil, "sgprepl: no training data"},
		{"-e error value", []string{"-e", `fmt.Errorf("bad %d", 7)`}, 1, nil, "sgprepl: bad 7"},
		{"-e nil error", []string{"-e", `x, err := 4, error(nil); _ = err; x`}, 0, []string{"4\n"}, ""},
		{"-e value", []string{"-e", "1 + 1"}, 0, []string{"2\n"}, ""},
		{"-e statements", []string{"-e", `x := 3; fmt.Println(x * 2)`}, 0, []string{"6\n"}, ""},
		{"-e void", []string{"-e", `fmt.Print("no newline")`}, 0, []string{"no newline\n"}, ""},
		{"run error", []string{"run", bad}, 1, nil, "sgprepl: " + bad + ":3:10: undefined: nope"},
		{"run panic", []string{"run", panicky}, 1, nil, "sgprepl: " + panicky + ":3:1: panic: boom"},
		{"-e error", []string{"-e", "undefinedX"}, 1, nil, "sgprepl: 1:1: undefined: undefinedX"},
		{"-e syntax error", []string{"-e", "x := )"}, 1, nil, "sgprepl: "},
		{"run missing", []string{"run", filepath.Join(dir, "missing.go")}, 1, nil, "sgprepl: cannot read " + filepath.Join(dir, "missing.go")},
		{"run no file", []string{"run"}, 2, nil, "sgprepl: run takes one Go file"},
		{"run two files", []string{"run", script, program}, 2, nil, "sgprepl: run takes one Go file"},
		{"-e no code", []string{"-e"}, 2, nil, "sgprepl: -e takes one argument"},
	}
	for _, c := range cases {
		code, stdout, stderr := runScriptMain(t, context.Background(), c.args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d; stderr:\n%s", c.name, code, c.code, stderr)
		}
		for _, w := range c.stdout {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", c.name, w, stdout)
			}
		}
		if c.stderr == "" && stderr != "" {
			t.Errorf("%s: stderr %q, want none", c.name, stderr)
		}
		if c.stderr != "" {
			oneErrorLine(t, stderr)
			if !strings.HasPrefix(stderr, c.stderr) {
				t.Errorf("%s: stderr %q, want it to start with %q", c.name, stderr, c.stderr)
			}
		}
	}
	// func main runs exactly once (yaegi alone runs it after every
	// evaluation once it is declared).
	if _, stdout, _ := runScriptMain(t, context.Background(), "run", program); strings.Count(stdout, "hello from main") != 1 {
		t.Errorf("run main: main ran %d times:\n%s", strings.Count(stdout, "hello from main"), stdout)
	}
	if _, err := os.Stat(filepath.Join(figs, "fig-001.png")); err != nil {
		t.Errorf("the script's figure was not saved: %v", err)
	}
}

// TestScriptInterrupted cancels a running script: exit status 130.
func TestScriptInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	code, _, stderr := runScriptMain(t, ctx, "-e", "n := 0\nfor {\n\tn++\n}")
	if code != exitInterrupted {
		t.Errorf("exit %d, want %d; stderr %q", code, exitInterrupted, stderr)
	}
	oneErrorLine(t, stderr)
}

// TestScriptOsExit: os.Exit in a script or at the REPL ends it with that
// status and prints nothing more, as a Go program does.
func TestScriptOsExit(t *testing.T) {
	t.Setenv("SGPREPL_OUT", t.TempDir())
	for _, c := range []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
	}{
		{"-e exit 0", []string{"-e", "import \"os\"\nfmt.Println(\"before\")\nos.Exit(0)\nfmt.Println(\"after\")"}, "", 0, "before\n"},
		{"-e exit 3", []string{"-e", "import \"os\"\nos.Exit(3)"}, "", 3, ""},
		{"REPL", nil, "import \"os\"\nfmt.Println(\"before\")\nos.Exit(4)\nfmt.Println(\"after\")\n", 4, "before\n"},
	} {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), c.args, strings.NewReader(c.stdin), &out, &errOut)
		if code != c.code || out.String() != c.stdout || errOut.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q and nothing", c.name, code, out.String(), errOut.String(), c.code, c.stdout)
		}
	}
}
