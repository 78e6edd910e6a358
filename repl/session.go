package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/symbols"

	"github.com/cholqr/sgp/sgp/kernel"
)

// Options configures a Session. The zero value is a session that only
// collects output in each Result.
type Options struct {
	// Stdout and Stderr, if not nil, receive what a cell prints (fmt.Print…,
	// println, log) as it is printed. The same text is also collected in
	// Result.Output. Compiled code writing to os.Stdout directly is not
	// captured.
	Stdout, Stderr io.Writer
	// Stdin is what fmt.Scan… in a cell reads; nil reads nothing.
	Stdin io.Reader
	// Progress, if not nil, receives one line per epoch from every model a
	// cell builds with sgp.NewModel (Model.WithProgress).
	Progress io.Writer
	// OnEpoch, if not nil, is called after every epoch of every model a
	// cell builds with sgp.NewModel (Model.WithEpochFunc), from the
	// goroutine running the cell. A terminal draws its progress bar here.
	OnEpoch func(sgp.EpochRecord)
	// OnProgress, if not nil, receives the reports of every model a cell
	// builds with sgp.NewModel while it works (see Progress), from the
	// goroutine running the cell or one of the model's own (its gradient
	// phase), one at a time for a model. A notebook shows its progress here.
	OnProgress func(Progress)
	// OnDisplay, if not nil, is called from the goroutine running the cell
	// for each display.Show, display.PNG, display.SVG or display.HTML call,
	// when it happens. The displays are also collected in Result.Displays.
	OnDisplay func(Display)
	// Formats lists the renderings to produce for values with the method
	// sets PNG() []byte, SVG() string and HTML() string: any of "png",
	// "svg", "html". Nil means all three. Text is always produced.
	Formats []string
	// StopGrace is how long Eval waits, once its context is done, for the
	// cell to stop before returning (default 5 s). Compiled code that does
	// not check for interruption can outlive it (a time.Sleep, a channel
	// receive): Eval then abandons the cell — its interpreted code stops as
	// soon as the compiled call returns — and the next cell runs at once.
	StopGrace time.Duration
}

// Session is an interactive Go session on the yaegi interpreter, with the
// standard library, sgp, gonum (mat, floats, stat) and gonum/plot
// importable, and fmt, math, sgp, mat and display imported. It keeps its
// variables, functions and types from one cell to the next. Sessions are
// independent of each other; one Session evaluates one cell at a time and
// its methods may be called from any goroutine.
//
// The package display, imported in every session, shows values while a
// cell runs: display.Show(v) renders v as a cell value would be,
// display.PNG(b), display.SVG(s) and display.HTML(s) show raw content.
//
// Models built with sgp.NewModel in a session stop Step and Fit (between
// swaps and gradient evaluations) when the running cell is cancelled, and
// report to the session's Progress and OnEpoch.
//
// A cell does not end the process: a panic in a goroutine that the
// session's code started, unbounded recursion of interpreted code, make
// with more elements than the machine's memory holds and os.Exit end the
// cell with an error (an *ExitError for os.Exit). The values of old
// definitions and temporaries that nothing reads any more are freed after
// each cell; Reset drops everything but the imports.
type Session struct {
	opts    Options
	in      *interp.Interpreter
	formats map[string]bool

	// mu guards the state of the running cell, which the goroutine running
	// it, the interpreter's writers and the callbacks share.
	mu      sync.Mutex
	cellCtx context.Context // nil between cells
	// life is the context of the current interpreter, which Reset
	// cancels (endLife): the models built in it stop (reset.go).
	life     context.Context
	endLife  context.CancelFunc
	out      bytes.Buffer // output of the current cell
	displays []Display
	panics   []string // yaegi's "L:C: panic: …" trace lines of the current chunk
	captured []any    // the values passed to the hidden Values function
	warnings []string // warnings of the cell's fits not yet printed (warnings.go)
	temps    []any    // sgp values among an interrupted final expression's temporaries
	// gen counts the cells started and abandoned: a chunk releases frame
	// slots only if gen is what it was when the chunk started (release).
	gen     uint64
	orphans int             // abandoned cells still running
	captive map[string]bool // names that functions of the session may read (noteCaptives)
	models  int             // models built by sgp.NewModel (Progress.Model)

	// What guards the session (guard.go).
	armed         bool       // the interpreter can be stopped (armStop, stopLocked)
	active        int        // running cells and goroutines of the session's code
	monitoring    bool       // the stack monitor runs
	cellPanics    []string   // goroutine panics while the cell runs
	pendingPanics []string   // goroutine panics between cells
	cellStack     bool       // the cell was stopped for the stacks' size
	pendingStack  bool       // as cellStack, between cells
	exit          *ExitError // os.Exit was called
	memory        uint64     // the machine's memory in bytes, or 0 if unknown

	evalMu  sync.Mutex                          // one Eval at a time; guards the fields below
	pkgs    map[string]string                   // package name in the session → import path
	exports map[string]map[string]reflect.Value // import path → exported symbols
	decls   map[string]bool                     // names declared by declaration chunks
	stopped *chunk                              // the chunk the last run stopped in
}

// Import paths of the packages every session imports.
const (
	sgpPath     = "github.com/cholqr/sgp/sgp"
	kernelPath  = "github.com/cholqr/sgp/sgp/kernel"
	dataPath    = "github.com/cholqr/sgp/sgp/data"
	figurePath  = "github.com/cholqr/sgp/sgp/figure"
	molPath     = "github.com/cholqr/sgp/sgp/mol"
	matPath     = "gonum.org/v1/gonum/mat"
	displayPath = "display"
	hiddenPath  = "sgprepl/internal"      // the Values capture function
	hiddenName  = "__sgprepl"             // its package name in the session
	valuesCall  = hiddenName + ".Values(" // wraps a cell's final expression
)

// blockPrefix starts the function literal a compound statement runs in;
// the leading ";" makes yaegi parse it as a statement.
const blockPrefix = ";func() {"

// preimports are the packages a session starts with.
var preimports = []string{"fmt", "math", sgpPath, kernelPath, dataPath, figurePath, molPath, matPath, displayPath}

// New returns a Session.
func New(opts Options) (*Session, error) {
	s := &Session{opts: opts}
	if opts.StopGrace <= 0 {
		s.opts.StopGrace = 5 * time.Second
	}
	s.formats = map[string]bool{"png": true, "svg": true, "html": true}
	if opts.Formats != nil {
		s.formats = map[string]bool{}
		for _, f := range opts.Formats {
			s.formats[strings.ToLower(f)] = true
		}
	}
	s.memory = physicalMemory()
	if err := s.start(); err != nil {
		return nil, err
	}
	return s, nil
}

// start gives the session a new interpreter, with the pre-imports and
// nothing declared.
func (s *Session) start() error {
	s.pkgs = map[string]string{}
	s.exports = map[string]map[string]reflect.Value{}
	s.decls = map[string]bool{}
	s.mu.Lock()
	s.captive = map[string]bool{}
	s.gen++
	s.armed = false
	s.cellPanics, s.pendingPanics, s.cellStack, s.pendingStack, s.exit = nil, nil, false, false, nil
	s.mu.Unlock()
	s.newGeneration()
	stdin := s.opts.Stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	s.in = interp.New(interp.Options{
		Stdin:  stdin,
		Stdout: cellWriter{s, s.opts.Stdout, false},
		Stderr: cellWriter{s, s.opts.Stderr, true},
		GoPath: os.DevNull, // no source imports from a GOPATH
		Env:    os.Environ(),
		Args:   []string{"sgprepl"},
	})

	// The symbol tables: the shared generated ones, except for a
	// per-session copy of sgp whose NewModel hooks models to this session.
	exports := interp.Exports{}
	for k, v := range stdlib.Symbols {
		exports[k] = v
	}
	for k, v := range symbols.Symbols {
		exports[k] = v
	}
	sgpKey := sgpPath + "/sgp"
	sgpSyms := maps.Clone(symbols.Symbols[sgpKey])
	if sgpSyms == nil {
		return errors.New("repl: the sgp symbol table is missing; run go generate ./symbols/...")
	}
	sgpSyms["NewModel"] = reflect.ValueOf(s.newModel)
	exports[sgpKey] = sgpSyms

	values := reflect.ValueOf(s.capture)
	show := reflect.ValueOf(s.show)
	exports[displayPath+"/display"] = map[string]reflect.Value{
		"Show": show,
		"PNG":  reflect.ValueOf(s.showPNG),
		"SVG":  reflect.ValueOf(s.showSVG),
		"HTML": reflect.ValueOf(s.showHTML),
	}
	exports[hiddenPath+"/internal"] = map[string]reflect.Value{
		"Values": values,
		"Go":     reflect.ValueOf(s.goStart),
		"Len":    reflect.ValueOf(s.makeLen),
	}
	osSyms := maps.Clone(stdlib.Symbols["os/os"])
	osSyms["Exit"] = reflect.ValueOf(s.osExit)
	exports["os/os"] = osSyms
	for k, v := range exports {
		s.exports[strings.TrimSuffix(k, "/"+pathBase(k))] = v
	}
	// Interface wrappers, so that a value of a type declared in the
	// session reaches Values and Show with its display methods.
	exports["github.com/cholqr/sgp/repl/repl"] = wrapperSymbols
	exports["."] = map[string]reflect.Value{"MapTypes": reflect.ValueOf(map[reflect.Value][]reflect.Type{
		values: displayInterfaces,
		show:   displayInterfaces,
	})}
	if err := s.in.Use(exports); err != nil {
		return fmt.Errorf("repl: loading symbols: %w", err)
	}

	var imp strings.Builder
	imp.WriteString("import (")
	for _, p := range preimports {
		imp.WriteString(strconv.Quote(p) + "; ")
	}
	imp.WriteString(hiddenName + " " + strconv.Quote(hiddenPath) + ")")
	if _, err := s.in.Eval(imp.String()); err != nil {
		return fmt.Errorf("repl: pre-imports: %w", err)
	}
	for _, p := range preimports {
		s.pkgs[pathBase(p)] = p
	}
	return nil
}

// ResetMessage is what front ends print after a Reset.
const ResetMessage = "session reset: its variables, functions and types are gone; its imports stay"

// Reset drops the session's variables, functions and types, and keeps
// its imports: the session goes on in a new interpreter that imports
// what this one did, under the same names. Goroutines that the
// session's code started, and a cell abandoned while blocked in
// compiled code, are stopped as an interrupted cell is: interpreted code
// at once, the Fit or Step of a model built by sgp.NewModel in the session
// at its next swap or gradient evaluation, whichever goroutine runs it.
// Reset waits for them, at most Options.StopGrace; what still runs then
// (compiled code that checks no interrupt, such as an sgp.Exact fit
// started with context.Background in a goroutine) is left to end on its
// own, and Reset says so in its error after the session is reset.
func (s *Session) Reset() error {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	old, pkgs := s.in, s.pkgs
	if armStop(old) == nil {
		interpStop(old)
	}
	stopped := s.endGeneration()
	if err := s.reimport(pkgs); err != nil {
		return err
	}
	if !stopped {
		return fmt.Errorf("repl: the session is reset, but goroutines of its code still run in compiled code after %v (a fit that checks no interrupt?); they end on their own", s.opts.StopGrace)
	}
	return nil
}

// reimport starts a new interpreter that imports pkgs (name → path) under
// the same names.
func (s *Session) reimport(pkgs map[string]string) error {
	if err := s.start(); err != nil {
		return err
	}
	var names []string
	for name := range pkgs {
		if s.pkgs[name] != pkgs[name] {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	var imp strings.Builder
	imp.WriteString("import (")
	for _, name := range names {
		imp.WriteString(name + " " + strconv.Quote(pkgs[name]) + "; ")
	}
	imp.WriteString(")")
	if _, err := s.in.Eval(imp.String()); err != nil {
		return fmt.Errorf("repl: importing again after the reset: %w", err)
	}
	for _, name := range names {
		s.pkgs[name] = pkgs[name]
	}
	return nil
}

// pathBase returns the last element of an import path.
func pathBase(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

// newModel is the session's sgp.NewModel: the library's, with the
// session's interrupt, progress and epoch hooks.
func (s *Session) newModel(x kernel.Inputs, y []float64, k kernel.Kernel) *sgp.Model {
	stop := s.modelInterrupt()
	m := sgp.NewModel(x, y, k).WithInterrupt(stop)
	if s.opts.Progress != nil {
		m.WithProgress(s.opts.Progress)
	}
	if s.opts.OnEpoch != nil {
		m.WithEpochFunc(s.opts.OnEpoch)
	}
	if s.opts.OnProgress != nil {
		s.mu.Lock()
		s.models++
		id := s.models
		s.mu.Unlock()
		s.reportProgress(m, id, stop)
	}
	// A warning line in the cell's output, whether or not the cell shows
	// the Result (res, err := m.Fit() shows nothing), once (warnings.go).
	m.WithWarningFunc(s.warn)
	return m
}

// interrupted returns the running cell's context error, so that a Fit in
// compiled code stops when the cell is cancelled.
func (s *Session) interrupted() error {
	s.mu.Lock()
	ctx := s.cellCtx
	s.mu.Unlock()
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}
