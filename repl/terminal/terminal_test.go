package terminal

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cholqr/sgp/repl"
)

// buildREPL builds cmd/sgprepl into a temporary folder and returns its
// path; the packages are in the build cache from compiling this test, so
// it only links.
func buildREPL(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; cannot build sgprepl")
	}
	bin := filepath.Join(t.TempDir(), "sgprepl")
	cmd := exec.Command(goTool, "build", "-o", bin, "../../cmd/sgprepl")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ../../cmd/sgprepl: %v\n%s", err, out)
	}
	return bin
}

// tmux drives a terminal program through a private tmux server: keys in
// with send-keys, the screen out with capture-pane.
type tmux struct {
	t      *testing.T
	socket string
}

func newTmux(t *testing.T, dir string) *tmux {
	t.Helper()
	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock")}
	// A shell in the pane, so that the pane (and what the REPL printed)
	// survives the REPL ending or crashing.
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "repl", "-x", "150", "-y", "50",
		"env PS1='$ ' bash --norc --noprofile")
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	tm.waitFor("the shell prompt", 5*time.Second, func(s string) bool { return lastLine(s) == "$" })
	return tm
}

func (tm *tmux) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// send types keys: literal text, or key names such as Enter, Tab, Up,
// BSpace, C-a, C-c, C-d.
func (tm *tmux) send(keys ...string) {
	tm.t.Helper()
	tm.run(append([]string{"send-keys", "-t", "repl"}, keys...)...)
}

// text types s literally.
func (tm *tmux) text(s string) {
	tm.t.Helper()
	tm.run("send-keys", "-t", "repl", "-l", s)
}

// screen returns the pane with its scrollback, wrapped lines joined.
func (tm *tmux) screen() string {
	tm.t.Helper()
	return tm.run("capture-pane", "-t", "repl", "-p", "-J", "-S", "-1000")
}

// waitFor polls the screen until ok holds, or fails after timeout.
func (tm *tmux) waitFor(what string, timeout time.Duration, ok func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := tm.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("waiting for %s: not on the screen after %v:\n%s", what, timeout, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitPrompt waits until the last line is the empty REPL prompt, after at
// least `after` prompts have been shown in total.
func (tm *tmux) waitPrompt(after int) string {
	tm.t.Helper()
	return tm.waitFor("the sgp> prompt", 10*time.Second, func(s string) bool {
		return lastLine(s) == "sgp>" && strings.Count(s, "sgp>") >= after
	})
}

func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// TestTerminalREPL runs sgprepl in a real pseudo-terminal (tmux): line
// editing, Tab completion, multi-line input, Ctrl-C during a Fit and at the
// prompt, figures saved to files, commands, and history across two runs.
func TestTerminalREPL(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install tmux); skipping the terminal test")
	}
	t.Parallel()
	bin := buildREPL(t)
	dir := t.TempDir()
	hist := filepath.Join(dir, "history")
	figs := filepath.Join(dir, "figs")
	tm := newTmux(t, dir)
	start := "SGP_HISTORY=" + hist + " SGPREPL_OUT=" + figs + " SGPREPL_IMAGES=file " + bin
	tm.text(start)
	tm.send("Enter")
	prompts := 1
	tm.waitPrompt(prompts)

	// enter types a line and waits for the next prompt and for want.
	enter := func(line, want string) string {
		t.Helper()
		tm.text(line)
		tm.send("Enter")
		prompts++
		s := tm.waitPrompt(prompts)
		if want != "" && !strings.Contains(s, want) {
			t.Fatalf("after %q the screen lacks %q:\n%s", line, want, s)
		}
		return s
	}

	// Line editing: Backspace, then Ctrl-A to the start of the line.
	tm.text("x := 4")
	tm.send("BSpace")
	enter("5", "")
	tm.text(" + 1")
	tm.send("C-a")
	enter("x", "\n6\n")

	// Tab completion of a package member.
	tm.text("data.SnelsonLi")
	tm.send("Tab")
	tm.waitFor("the completed name", 5*time.Second, func(s string) bool { return lastLine(s) == "sgp> data.SnelsonLike" })
	enter("(50, 1)", "50 points")

	// Multi-line input continues while a brace is open.
	tm.text("for i := 0; i < 3; i++ {")
	tm.send("Enter")
	tm.waitFor("the continuation prompt", 5*time.Second, func(s string) bool { return lastLine(s) == "..." })
	tm.text("fmt.Print(i)")
	tm.send("Enter")
	enter("}", "\n012\n")

	// Ctrl-C during a long Fit stops it at its next swap; the REPL stays.
	enter("big, _ := data.SnelsonLike(3000, 1)", "")
	enter("m := sgp.NewModel(big.X, big.Y, kernel.NewRBF(1, []float64{0.02})).WithM(200).WithMaxEpochs(1000).WithTolerance(0)", "")
	tm.text("res, err := m.Fit()")
	tm.send("Enter")
	tm.waitFor("the progress bar", 20*time.Second, func(s string) bool {
		return strings.Contains(lastLine(s), "fit ") && strings.Contains(lastLine(s), "epoch")
	})
	interrupted := time.Now()
	tm.send("C-c")
	prompts++
	s := tm.waitPrompt(prompts)
	if d := time.Since(interrupted); d > 20*time.Second { // not honoured, not slow: latency depends on load
		t.Errorf("the Fit took %v to stop after Ctrl-C", d)
	}
	if !strings.Contains(s, "interrupted") {
		t.Errorf("no 'interrupted' after Ctrl-C:\n%s", s)
	}
	// One summary of the partial fit, its warning included, then the
	// interruption.
	if c := strings.Index(s, "fit cancelled after "); c < 0 || strings.Count(s, "warning: interrupted at epoch") != 1 || strings.LastIndex(s, "\ninterrupted") < c {
		t.Errorf("after Ctrl-C, want the partial fit's summary once, then 'interrupted':\n%s", s)
	}
	enter("err", "context canceled")
	enter("m.Trace()[0].Epoch", "\n1\n")

	// A figure is saved to a file whose path is printed.
	s = enter(`figure.Trace(m.Trace(), "trace")`, "figure saved: "+figs)
	png, err := os.ReadFile(filepath.Join(figs, "fig-001.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("figure file: %v (%d bytes)\n%s", err, len(png), s)
	}

	// Commands, errors, and Ctrl-C at the prompt discarding the input.
	enter(":vars", "*sgp.Model")
	enter("nope()", "undefined: nope")
	tm.text("unfinished(")
	tm.send("Enter")
	tm.waitFor("the continuation prompt", 5*time.Second, func(s string) bool { return lastLine(s) == "..." })
	tm.send("C-c")
	prompts++
	tm.waitPrompt(prompts)
	enter("1+1", "\n2\n")
	tm.text(":quit")
	tm.send("Enter")
	tm.waitFor("the shell prompt after :quit", 5*time.Second, func(s string) bool { return lastLine(s) == "$" })

	// History is kept across runs: Up recalls the previous run's lines.
	tm.text(start)
	tm.send("Enter")
	prompts++
	tm.waitPrompt(prompts)
	tm.send("Up")
	tm.waitFor("the last command recalled", 5*time.Second, func(s string) bool { return lastLine(s) == "sgp> :quit" })
	tm.send("Up")
	tm.waitFor("the line before it recalled", 5*time.Second, func(s string) bool { return lastLine(s) == "sgp> 1+1" })
	tm.send("Enter")
	prompts++
	s = tm.waitPrompt(prompts)
	if strings.Count(s, "\n2\n") < 2 {
		t.Errorf("the recalled 1+1 did not print 2:\n%s", s)
	}
	tm.send("C-d")
	tm.waitFor("the shell prompt after Ctrl-D", 5*time.Second, func(s string) bool { return lastLine(s) == "$" })
	if h, err := os.ReadFile(hist); err != nil || !strings.Contains(string(h), "x := 5\n") {
		t.Errorf("history file: %v\n%s", err, h)
	}
}

// TestInteractivePiped runs the REPL on input that is not a terminal:
// cells, multi-line input, commands and errors, without prompts.
func TestInteractivePiped(t *testing.T) {
	t.Setenv("SGPREPL_OUT", t.TempDir())
	in := strings.Join([]string{
		"x := 6",
		"x * 7",
		"for i := 0; i < 2; i++ {",
		"\tfmt.Print(i)",
		"}",
		":vars",
		"nope",
		":help",
		"train, _ := data.SnelsonLike(40, 1)",
		"m := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(4)",
		`figure.Fit1D(m, "fit")`,
		":unknown",
		":load " + filepath.Join("testdata", "nonexistent.go"),
		"y := x +",
		"  1",
		"y",
	}, "\n")
	var out, errOut bytes.Buffer
	if err := Interactive(context.Background(), Streams{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errOut}); err != nil {
		t.Fatalf("error %v, stderr:\n%s", err, errOut.String())
	}
	for _, want := range []string{"42\n", "01\n", "x            int", "Commands:", "Figure(", "figure saved: ", "\n7\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	for _, want := range []string{"error: undefined: nope", "unknown command :unknown", "nonexistent.go"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if strings.Contains(out.String(), "sgp>") {
		t.Errorf("prompts printed on a pipe:\n%s", out.String())
	}
}

func TestDetectInline(t *testing.T) {
	t.Parallel()
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, ""},
		{map[string]string{"TERM": "xterm-kitty"}, "kitty"},
		{map[string]string{"KITTY_WINDOW_ID": "1"}, "kitty"},
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, "iterm"},
		{map[string]string{"TERM_PROGRAM": "WezTerm"}, "iterm"},
		{map[string]string{"TERM": "xterm-kitty", "SGPREPL_IMAGES": "file"}, ""},
		{map[string]string{"SGPREPL_IMAGES": "iterm"}, "iterm"},
	}
	for _, c := range cases {
		if got := detectInline(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("detectInline(%v) = %q, want %q", c.env, got, c.want)
		}
	}
	png := bytes.Repeat([]byte{1}, 5000) // base64 longer than one kitty chunk
	var b bytes.Buffer
	writeInline(&b, "kitty", png)
	if s := b.String(); !strings.HasPrefix(s, "\x1b_Ga=T,f=100,m=1;") || !strings.Contains(s, "\x1b_Gm=0;") {
		t.Errorf("kitty escape: %q…", s[:min(40, len(s))])
	}
	b.Reset()
	writeInline(&b, "iterm", png)
	if s := b.String(); !strings.HasPrefix(s, "\x1b]1337;File=inline=1;size=5000;") || !strings.HasSuffix(s, "\a\n") {
		t.Errorf("iTerm2 escape: %q…", s[:min(40, len(s))])
	}
}

// TestInteractiveCleansUpFigures: the temporary figure folder of a REPL
// session is removed when the session ends, and the line of the first
// figure saved there says so and how to keep figures; the next say
// "(temporary)". In $SGPREPL_OUT and in a script's temporary folder,
// which stay, the line is the path alone.
func TestInteractiveCleansUpFigures(t *testing.T) {
	t.Setenv("SGPREPL_OUT", "")
	in := "train, _ := data.SnelsonLike(30, 1)\nm := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(4)\nfigure.Fit1D(m, \"fit\")\nfigure.Fit1D(m, \"again\")\n"
	var out, errOut bytes.Buffer
	if err := Interactive(context.Background(), Streams{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errOut}); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "figure saved: ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("%d figures saved, want 2:\n%s\n%s", len(lines), out.String(), errOut.String())
	}
	path, note, _ := strings.Cut(strings.TrimPrefix(lines[0], "figure saved: "), " (")
	if want := "temporary: the folder is removed when sgprepl exits; to keep figures, set SGPREPL_OUT to a folder or call the figure's Save(path))"; note != want {
		t.Errorf("first figure's line %q, want the path then (%s", lines[0], want)
	}
	if want := "figure saved: " + filepath.Join(filepath.Dir(path), "fig-002.png") + " (temporary)"; lines[1] != want {
		t.Errorf("second figure's line %q, want %q", lines[1], want)
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("the temporary folder %s is still there (%v)", filepath.Dir(path), err)
	}

	// A script's figures stay where they are saved.
	out.Reset()
	if err := RunScript(context.Background(), Streams{Stdout: &out, Stderr: &errOut}, "", in); err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(out.String(), "figure saved: ")
	if path, _, _ := strings.Cut(rest, "\n"); strings.Contains(path, " (") || !strings.HasSuffix(path, ".png") {
		t.Errorf("a script's figure line: %q", "figure saved: "+path)
	} else {
		os.RemoveAll(filepath.Dir(path))
	}
}

// TestHelpListsImports: :help names every package a session has
// imported, those it starts with and the user's.
func TestHelpListsImports(t *testing.T) {
	s, err := repl.New(repl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	in := ":help\nimport \"strings\"\n:help\n"
	if err := Interactive(context.Background(), Streams{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errOut}); err != nil {
		t.Fatal(err)
	}
	var imported []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "Imported: ") {
			imported = append(imported, l)
		}
	}
	if len(imported) != 2 {
		t.Fatalf("%d Imported lines:\n%s%s", len(imported), out.String(), errOut.String())
	}
	imps := s.Imports()
	for _, name := range []string{"figure", "mol", "sgp", "mat", "display"} {
		found := false
		for _, imp := range imps {
			found = found || imp.Name == name
		}
		if !found {
			t.Errorf("a session's imports %v lack %s", imps, name)
		}
	}
	for _, imp := range imps {
		if !strings.Contains(imported[0], " "+imp.Name+",") && !strings.Contains(imported[0], " "+imp.Name+" (") && !strings.Contains(imported[0], " "+imp.Name+".") {
			t.Errorf(":help lacks the import %s (%s): %q", imp.Name, imp.Path, imported[0])
		}
	}
	if !strings.Contains(imported[0], "figure (sgp/figure), mol (sgp/mol)") || strings.Contains(imported[0], "strings") || !strings.Contains(imported[1], ", strings.") {
		t.Errorf(":help before and after import \"strings\":\n%s\n%s", imported[0], imported[1])
	}
}
