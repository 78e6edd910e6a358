package terminal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cholqr/sgp/repl"

	"github.com/peterh/liner"

	"github.com/cholqr/sgp/sgp"
)

// replHelp is the text of :help; %s is the list of imported packages
// (importList).
const replHelp = `sgprepl: an interactive Go session (yaegi) with sgp, gonum and gonum/plot.
Imported: %s. Import others as in Go:
  import "gonum.org/v1/plot/plotter"

Type Go statements and declarations; the value of a final expression is shown.
Input continues on the next line while brackets are open. Tab completes names
(sgp.<Tab>, m.<Tab>). Up/Down recall history, kept across runs.

Commands:
  :help            this text
  :vars            the session's variables, functions and types
  :reset           drop them all (imports stay), freeing their memory
  :load FILE       evaluate a Go file in the session
  :doc NAME        the documentation of NAME (sgp.NewModel, m.Fit, kernel.RBF),
                   as Shift-Tab shows it in a notebook
  :inline on|off   show figures in the terminal (kitty or iTerm2 protocol);
                   :inline kitty or :inline iterm forces one
  :quit            leave (or Ctrl-D)

Ctrl-C stops the running cell (a Fit stops at its next swap) and clears the
input at the prompt. Figures (values with a PNG method, display.Show, display.PNG)
are saved as PNG files whose paths are printed; $SGPREPL_OUT sets the folder
(a temporary folder otherwise, removed when the REPL ends).

yaegi limits: no generics of your own in compiled APIs, no range over an int,
no min/max/clear builtins, closures capture loop variables as before Go 1.22,
and a type switch never takes an interface case (case error:, case
mat.Symmetric:): switch on concrete types, or use comma-ok assertions
(v, ok := x.(mat.Symmetric)), which work.
`

// importList lists imported packages for :help: "fmt, math, sgp, figure
// (sgp/figure), …", with the path (shortened for sgp's and gonum's
// packages) where it is not the name.
func importList(imps []repl.Import) string {
	parts := make([]string, len(imps))
	for i, imp := range imps {
		short := strings.TrimPrefix(strings.TrimPrefix(imp.Path, "github.com/cholqr/sgp/"), "gonum.org/v1/")
		parts[i] = imp.Name
		if short != imp.Name {
			parts[i] += " (" + short + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// errAborted is returned by a lineReader when the user pressed Ctrl-C at
// the prompt.
var errAborted = errors.New("aborted")

// lineReader reads input lines.
type lineReader interface {
	// ReadLine shows prompt and returns the line without its newline;
	// io.EOF at the end of input, errAborted on Ctrl-C.
	ReadLine(prompt string) (string, error)
	// AddHistory adds a line to the history.
	AddHistory(line string)
	Close() error
}

// plainReader reads lines from a reader that is not a terminal, without
// prompts or history.
type plainReader struct{ sc *bufio.Scanner }

func newPlainReader(r io.Reader) *plainReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	return &plainReader{sc}
}

func (p *plainReader) ReadLine(string) (string, error) {
	if p.sc.Scan() {
		return p.sc.Text(), nil
	}
	if err := p.sc.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}

func (p *plainReader) AddHistory(string) {}
func (p *plainReader) Close() error      { return nil }

// linerReader is line editing on a terminal, with history in a file.
type linerReader struct {
	l           *liner.State
	historyPath string
}

// historyPath returns the history file: $SGP_HISTORY, or
// sgp/sgprepl_history in the user's configuration folder.
func historyPath() string {
	if p := os.Getenv("SGP_HISTORY"); p != "" {
		return p
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "sgp", "sgprepl_history")
}

func newLinerReader(s *repl.Session) *linerReader {
	l := liner.NewLiner()
	l.SetCtrlCAborts(true)
	l.SetMultiLineMode(true)
	l.SetTabCompletionStyle(liner.TabPrints)
	l.SetWordCompleter(func(line string, pos int) (string, []string, string) {
		// pos counts runes.
		r := []rune(line)
		pos = max(0, min(pos, len(r)))
		head, tail := string(r[:pos]), string(r[pos:])
		start, cands := s.Complete(head, len(head))
		return head[:start], cands, tail
	})
	lr := &linerReader{l: l, historyPath: historyPath()}
	if lr.historyPath != "" {
		loadHistory(l, lr.historyPath)
	}
	return lr
}

// maxHistoryLine is the longest history entry loaded (a pasted cell is
// one line of the file).
const maxHistoryLine = 1 << 20

// loadHistory adds the lines of the history file at path to l's
// history, skipping those that are longer than maxHistoryLine or not
// UTF-8. liner's ReadHistory stops at the first such line (and at any
// line over 4096 bytes), and the file is only appended to: one bad line
// would hide all the history after it, in every later session.
func loadHistory(l *liner.State, path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var line []byte
	long := false // the current line is past maxHistoryLine: skip it
	for {
		part, err := r.ReadSlice('\n')
		if !long {
			line = append(line, part...)
			long = len(line) > maxHistoryLine+1
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if entry := strings.TrimRight(string(line), "\r\n"); !long && entry != "" && utf8.ValidString(entry) {
			l.AppendHistory(entry)
		}
		line, long = line[:0], false
		if err != nil {
			return
		}
	}
}

func (lr *linerReader) ReadLine(prompt string) (string, error) {
	line, err := lr.l.Prompt(prompt)
	if errors.Is(err, liner.ErrPromptAborted) {
		return "", errAborted
	}
	return line, err
}

func (lr *linerReader) AddHistory(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	lr.l.AppendHistory(line)
	appendHistory(lr.historyPath, line)
}

// appendHistory appends one entry to the history file, creating it (and
// its folder) private to the user: mode 0600. Appending a single write
// with O_APPEND keeps concurrent sessions from overwriting each other's
// lines; a failure only loses the entry. A multi-line entry is stored as
// liner stores it, one line per entry.
func appendHistory(path, line string) {
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm()&0o077 != 0 {
		f.Chmod(0o600) // a history file written by an older version
	}
	f.WriteString(strings.ReplaceAll(line, "\n", " ") + "\n")
}

func (lr *linerReader) Close() error {
	return lr.l.Close()
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Streams are the standard streams of a front end.
type Streams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// terminal is the interactive REPL.
type terminal struct {
	e      Streams
	s      *repl.Session
	tty    bool // stdout is a terminal: progress bar and inline images possible
	figs   *figureSaver
	inline string // "", "kitty" or "iterm"

	mu       sync.Mutex // guards the fields below and writes to the output
	progress bool       // a progress line is on screen
	firstRel float64    // relative decrease of the first epoch seen in the cell
	prevObj  float64    // objective after the previous epoch seen in the cell
	cancel   context.CancelFunc

	exit *repl.ExitError // a cell called os.Exit: the REPL ends with its code
}

// Interactive runs the terminal REPL, which sgprepl starts when it is
// given no arguments. On a terminal it edits lines with history and
// completion; otherwise it reads cells from stdin without prompts. Ctrl-C
// stops the running cell, never the REPL; cancelling ctx ends the REPL. A
// cell that calls os.Exit ends it with that cell's *repl.ExitError.
func Interactive(ctx context.Context, e Streams) error {
	t, err := newTerminal(e)
	if err != nil {
		return err
	}
	defer t.figs.cleanup()
	s := t.s
	f, isFile := e.Stdin.(*os.File)
	_, modeErr := liner.TerminalMode()
	useLiner := isFile && f == os.Stdin && modeErr == nil && liner.TerminalSupported() && isTerminal(os.Stdout)

	var r lineReader
	if useLiner {
		lr := newLinerReader(s)
		r = lr
		blas, err := sgp.BLAS()
		if err != nil {
			blas = "unavailable: " + err.Error()
		}
		fmt.Fprintf(e.Stdout, "sgprepl: Go with sgp, gonum and plot (yaegi); BLAS: %s. :help for help, :quit or Ctrl-D to leave.\n", blas)
	} else {
		r = newPlainReader(e.Stdin)
	}
	defer r.Close()

	// Ctrl-C while a cell runs arrives as SIGINT: stop the cell. At the
	// prompt the line editor reads it as a key.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	go func() {
		for range sig {
			t.mu.Lock()
			if t.cancel != nil {
				t.cancel()
			}
			t.mu.Unlock()
		}
	}()

	var buf strings.Builder
	for {
		if ctx.Err() != nil {
			return nil
		}
		prompt := "sgp> "
		if buf.Len() > 0 {
			prompt = "...  "
		}
		line, err := r.ReadLine(prompt)
		switch {
		case errors.Is(err, errAborted):
			buf.Reset()
			continue
		case errors.Is(err, io.EOF):
			if buf.Len() > 0 {
				t.eval(ctx, buf.String())
			}
			if useLiner {
				fmt.Fprintln(e.Stdout)
			}
			if t.exit != nil {
				return t.exit
			}
			return nil
		case err != nil:
			return fmt.Errorf("reading input: %w", err)
		}
		r.AddHistory(line)
		if buf.Len() == 0 && strings.HasPrefix(strings.TrimSpace(line), ":") {
			if quit := t.command(ctx, strings.TrimSpace(line)); quit {
				return nil
			}
			if t.exit != nil {
				return t.exit
			}
			continue
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		if !repl.IsComplete(buf.String()) {
			continue
		}
		t.eval(ctx, buf.String())
		buf.Reset()
		if t.exit != nil {
			return t.exit
		}
	}
}

// newTerminal returns the REPL's state on the streams e, with a new
// session. The caller removes its temporary figure folder at the end
// (t.figs.cleanup).
func newTerminal(e Streams) (*terminal, error) {
	t := &terminal{e: e, figs: newFigureSaver()}
	// The figures of a session in a temporary folder go with it; set
	// SGPREPL_OUT (or save a figure with its Save method) to keep them.
	t.figs.removes = true
	if out, ok := e.Stdout.(*os.File); ok && isTerminal(out) {
		t.tty = true
	}
	t.inline = detectInline(os.Getenv)
	s, err := repl.New(repl.Options{
		Stdout:    lockedWriter{t, e.Stdout},
		Stderr:    lockedWriter{t, e.Stderr},
		OnEpoch:   t.epoch,
		OnDisplay: func(d repl.Display) { t.display(d) },
		Formats:   []string{"png"},
		StopGrace: 5 * time.Second,
	})
	if err != nil {
		return nil, err
	}
	t.s = s
	return t, nil
}

// command runs a :command and reports whether the REPL should end.
func (t *terminal) command(ctx context.Context, line string) (quit bool) {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	w := t.e.Stdout
	switch name {
	case ":quit", ":q", ":exit":
		return true
	case ":help", ":h", ":?":
		fmt.Fprintf(w, replHelp, importList(t.s.Imports()))
	case ":vars", ":v":
		vars := t.s.Vars()
		if len(vars) == 0 {
			fmt.Fprintln(w, "(no variables yet)")
		}
		for _, v := range vars {
			if v.Type == "" {
				fmt.Fprintf(w, "%-12s (declared function or type)\n", v.Name)
				continue
			}
			fmt.Fprintf(w, "%-12s %-24s %s\n", v.Name, v.Type, v.Value)
		}
	case ":reset":
		if err := t.s.Reset(); err != nil {
			fmt.Fprintf(t.e.Stderr, "error: %v\n", err)
			return false
		}
		fmt.Fprintln(w, repl.ResetMessage)
	case ":load", ":l":
		if arg == "" {
			fmt.Fprintln(t.e.Stderr, "usage: :load FILE")
			return false
		}
		src, err := os.ReadFile(arg)
		if err != nil {
			fmt.Fprintf(t.e.Stderr, "error: %v\n", err)
			return false
		}
		t.eval(ctx, ScriptSource(string(src)))
	case ":doc", ":d":
		if arg == "" {
			fmt.Fprintln(t.e.Stderr, "usage: :doc NAME (a package, a name in it, a variable, or a variable's method or field)")
			return false
		}
		doc := t.s.Inspect(arg, len(arg))
		if doc == "" {
			fmt.Fprintf(t.e.Stderr, "no documentation for %s: not a package, a variable of the session, or a name, method or field of one\n", arg)
			return false
		}
		fmt.Fprintln(w, strings.TrimRight(doc, "\n"))
	case ":inline":
		switch arg {
		case "off":
			t.inline = ""
			fmt.Fprintln(w, "figures: saved to files only")
		case "on", "":
			if t.inline == "" {
				t.inline = detectInline(os.Getenv)
			}
			if t.inline == "" {
				fmt.Fprintln(w, "this terminal does not announce kitty or iTerm2 graphics; use :inline kitty or :inline iterm to force one")
				return false
			}
			fmt.Fprintf(w, "figures: shown inline (%s protocol) and saved to files\n", t.inline)
		case "kitty", "iterm":
			t.inline = arg
			fmt.Fprintf(w, "figures: shown inline (%s protocol) and saved to files\n", t.inline)
		default:
			fmt.Fprintln(t.e.Stderr, "usage: :inline on|off|kitty|iterm")
		}
	default:
		fmt.Fprintf(t.e.Stderr, "unknown command %s; :help lists the commands\n", name)
	}
	return false
}

// eval evaluates a cell, with Ctrl-C stopping it, and prints its value or
// error. A cell that called os.Exit sets t.exit instead.
func (t *terminal) eval(ctx context.Context, cell string) {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t.mu.Lock()
	t.cancel = cancel
	t.firstRel, t.prevObj = 0, math.NaN()
	t.mu.Unlock()

	res, err := t.s.Eval(cctx, cell)

	t.mu.Lock()
	t.cancel = nil
	t.clearProgress()
	t.mu.Unlock()
	if res.Output != "" && !strings.HasSuffix(res.Output, "\n") {
		fmt.Fprintln(t.e.Stdout)
	}
	var exit *repl.ExitError
	if errors.As(err, &exit) {
		t.exit = exit
		return
	}
	if res.Value != nil {
		t.display(*res.Value) // with an error: an interrupted fit's partial result
	}
	if err != nil {
		fmt.Fprintln(t.e.Stderr, describeError(err, strings.Count(strings.TrimRight(cell, "\n"), "\n") > 0))
	}
}

// describeError formats a cell error for the terminal: the position only
// for a cell of several lines.
func describeError(err error, multiline bool) string {
	var ce *repl.CellError
	if !errors.As(err, &ce) {
		return "error: " + err.Error()
	}
	switch {
	case ce.Err != nil:
		return ce.Msg
	case ce.Panicked && multiline && ce.Line > 0:
		return fmt.Sprintf("panic (line %d): %s", ce.Line, ce.Msg)
	case ce.Panicked:
		return "panic: " + ce.Msg
	case multiline && ce.Line > 0:
		return fmt.Sprintf("error (line %d:%d): %s", ce.Line, ce.Column, ce.Msg)
	}
	return "error: " + ce.Msg
}

// display prints a value's text and saves its PNG, if any, showing it
// inline when asked.
func (t *terminal) display(d repl.Display) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clearProgress()
	w := t.e.Stdout
	fmt.Fprintln(w, d.Text)
	if d.PNG == nil {
		return
	}
	path, err := t.figs.save(d.PNG)
	if err != nil {
		fmt.Fprintf(t.e.Stderr, "cannot save the figure: %v\n", err)
		return
	}
	fmt.Fprintln(w, t.figs.savedLine(path))
	if t.tty {
		writeInline(w, t.inline, d.PNG)
	}
}

// epoch draws the progress line of a Fit after each epoch: a bar that
// fills as the relative decrease of the objective per epoch approaches
// the default stopping tolerance 1e-4 (on a log scale), the epoch, the
// objective and the swaps.
func (t *terminal) epoch(rec sgp.EpochRecord) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rel := math.NaN()
	if !math.IsNaN(t.prevObj) {
		rel = (t.prevObj - rec.Objective) / math.Max(math.Abs(t.prevObj), 1e-300)
	}
	t.prevObj = rec.Objective
	if !t.tty {
		return
	}
	frac := 0.0
	if rel > 0 && !math.IsNaN(rel) {
		if t.firstRel == 0 {
			t.firstRel = math.Max(rel, 2e-4)
		}
		frac = math.Log(t.firstRel/rel) / math.Log(t.firstRel/1e-4)
	}
	if rel <= 0 && !math.IsNaN(rel) {
		frac = 1
	}
	frac = math.Max(0, math.Min(1, frac))
	const width = 20
	full := int(math.Round(frac * width))
	bar := strings.Repeat("█", full) + strings.Repeat("░", width-full)
	relText := "   —   "
	if !math.IsNaN(rel) {
		relText = fmt.Sprintf("%.1e", math.Abs(rel))
	}
	fmt.Fprintf(t.e.Stdout, "\r\x1b[Kfit %s epoch %d  F %.6g  Δ %s  swaps %d/%d  %.1fs  (Ctrl-C stops)",
		bar, rec.Epoch, rec.Objective, relText, rec.Accepted, rec.Swaps, rec.Total.Seconds())
	t.progress = true
}

// clearProgress erases the progress line, if shown. t.mu is held.
func (t *terminal) clearProgress() {
	if t.progress {
		fmt.Fprint(t.e.Stdout, "\r\x1b[K")
		t.progress = false
	}
}

// lockedWriter writes a cell's output after erasing the progress line.
type lockedWriter struct {
	t *terminal
	w io.Writer
}

func (lw lockedWriter) Write(p []byte) (int, error) {
	lw.t.mu.Lock()
	defer lw.t.mu.Unlock()
	lw.t.clearProgress()
	return lw.w.Write(p)
}
