package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"io"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/symbols"
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
type Session struct {
	opts    Options
	in      *interp.Interpreter
	formats map[string]bool

	// mu guards the state of the running cell, which the goroutine running
	// it, the interpreter's writers and the callbacks share.
	mu        sync.Mutex
	cellCtx   context.Context // nil between cells
	out       bytes.Buffer    // output of the current cell
	displays  []Display
	panics    []string // yaegi's "L:C: panic: …" trace lines of the current chunk
	captured  []any    // the values passed to the hidden Values function
	abandoned int      // cells interrupted while blocked in compiled code, left running

	evalMu  sync.Mutex                          // one Eval at a time; guards the fields below
	pkgs    map[string]string                   // package name in the session → import path
	exports map[string]map[string]reflect.Value // import path → exported symbols
	decls   map[string]bool                     // names declared by declaration chunks
}

// Import paths of the packages every session imports.
const (
	sgpPath     = "github.com/cholqr/sgp/sgp"
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
var preimports = []string{"fmt", "math", sgpPath, figurePath, molPath, matPath, displayPath}

// movedNames maps names that package sgp exported before figures and
// molecules got packages of their own to their new homes, so that cells
// written for earlier versions (sgp.PlotFit1D, sgp.LoadThrombin, …) keep
// working in a session. New code uses figure.Fit1D, mol.LoadThrombin, ….
var movedNames = map[string][2]string{
	"PlotFit1D":       {figurePath, "Fit1D"},
	"PlotCostRanking": {figurePath, "CostRanking"},
	"PlotTrace":       {figurePath, "Trace"},
	"PlotCurves":      {figurePath, "Curves"},
	"Figure":          {figurePath, "Figure"},
	"Series":          {figurePath, "Series"},
	"FigureDPI":       {figurePath, "DPI"},
}

// movedToMol lists the names that moved from sgp to sgp/mol unchanged.
var movedToMol = []string{"ParseSMILES", "GraphsFromSMILES", "ReadMoleculeCSV", "LoadThrombin", "LoadLipophilicity",
	"Molecules", "SMILESError", "RowErrors", "RowError", "InputsFromCells",
	"BondSingle", "BondDouble", "BondTriple", "BondQuadruple", "BondAromatic"}

// movedName reports whether name is one of the compatibility names of
// sgp, which completion does not offer.
func movedName(name string) bool {
	_, ok := movedNames[name]
	return ok || slices.Contains(movedToMol, name)
}

// addMovedNames adds the moved names to a session's copy of the sgp
// symbol table.
func addMovedNames(sgpSyms map[string]reflect.Value) {
	for old, to := range movedNames {
		if v, ok := symbols.Symbols[to[0]+"/"+pathBase(to[0])][to[1]]; ok {
			sgpSyms[old] = v
		}
	}
	for _, name := range movedToMol {
		if v, ok := symbols.Symbols[molPath+"/mol"][name]; ok {
			sgpSyms[name] = v
		}
	}
}

// New returns a Session.
func New(opts Options) (*Session, error) {
	s := &Session{
		opts:    opts,
		pkgs:    map[string]string{},
		exports: map[string]map[string]reflect.Value{},
		decls:   map[string]bool{},
	}
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
	stdin := opts.Stdin
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
		return nil, errors.New("repl: the sgp symbol table is missing; run go generate ./symbols/...")
	}
	sgpSyms["NewModel"] = reflect.ValueOf(s.newModel)
	addMovedNames(sgpSyms)
	exports[sgpKey] = sgpSyms

	values := reflect.ValueOf(s.capture)
	show := reflect.ValueOf(s.show)
	exports[displayPath+"/display"] = map[string]reflect.Value{
		"Show": show,
		"PNG":  reflect.ValueOf(s.showPNG),
		"SVG":  reflect.ValueOf(s.showSVG),
		"HTML": reflect.ValueOf(s.showHTML),
	}
	exports[hiddenPath+"/internal"] = map[string]reflect.Value{"Values": values}
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
		return nil, fmt.Errorf("repl: loading symbols: %w", err)
	}

	var imp strings.Builder
	imp.WriteString("import (")
	for _, p := range preimports {
		imp.WriteString(strconv.Quote(p) + "; ")
	}
	imp.WriteString(hiddenName + " " + strconv.Quote(hiddenPath) + ")")
	if _, err := s.in.Eval(imp.String()); err != nil {
		return nil, fmt.Errorf("repl: pre-imports: %w", err)
	}
	for _, p := range preimports {
		s.pkgs[pathBase(p)] = p
	}
	return s, nil
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
func (s *Session) newModel(x sgp.Inputs, y []float64, k sgp.Kernel) *sgp.Model {
	m := sgp.NewModel(x, y, k).WithInterrupt(s.interrupted)
	if s.opts.Progress != nil {
		m.WithProgress(s.opts.Progress)
	}
	if s.opts.OnEpoch != nil {
		m.WithEpochFunc(s.opts.OnEpoch)
	}
	// A warning line in the cell's output, whether or not the cell shows
	// the Result (res, err := m.Fit() shows nothing).
	m.WithWarningFunc(func(msg string) {
		w := cellWriter{s: s, stream: s.opts.Stderr, stderr: true}
		fmt.Fprintf(w, "warning: %s\n", msg)
	})
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

// Display is one rendering of a value: always text, and the PNG, SVG or
// HTML that the value's methods of those names return (or that a
// display.PNG, display.SVG or display.HTML call gave).
type Display struct {
	Text string
	PNG  []byte
	SVG  string
	HTML string
}

// Result is what a cell produced.
type Result struct {
	// Output is the text the cell printed, standard output and standard
	// error interleaved.
	Output string
	// Displays are the display.Show/PNG/SVG/HTML calls, in order.
	Displays []Display
	// Value renders the value of the cell's final expression, if the cell
	// ends with an expression that has one; otherwise it is nil. A call
	// with several results shows them one per line, leaving out a final
	// nil error.
	Value *Display
	// Values holds the final expression's values themselves.
	Values []any
}

// CellError is an error in a cell: a compile error, a panic, an
// interruption, or a final expression whose last value is a non-nil error.
type CellError struct {
	// Line and Column locate the error in the cell (1-based), or are 0.
	Line, Column int
	// Msg describes the error, without position.
	Msg string
	// Panicked is true when the cell panicked; Value is what it panicked with.
	Panicked bool
	Value    any
	// Err is the context's error for an interrupted cell.
	Err error
	// Returned is the non-nil error that the cell's final expression
	// evaluated to (the last result of a call such as m.Fit()).
	Returned error
}

func (e *CellError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Message())
	}
	return e.Message()
}

// Message is the error without its position.
func (e *CellError) Message() string {
	if e.Panicked {
		return "panic: " + e.Msg
	}
	return e.Msg
}

// Unwrap returns the context's error of an interrupted cell, or the error
// the cell returned.
func (e *CellError) Unwrap() error {
	if e.Err != nil {
		return e.Err
	}
	return e.Returned
}

// Eval evaluates a cell: Go statements and declarations in any order. It
// returns what the cell printed and displayed, the value of its final
// expression, and an error (a *CellError) for a compile error, a panic or
// an interruption; the Result is never nil. Definitions made before an
// error stay.
//
// Cancelling ctx stops the cell: interpreted code at once, a Fit or Step
// of a model built with sgp.NewModel at its next swap or gradient
// evaluation. Eval waits for the cell to stop, at most Options.StopGrace.
func (s *Session) Eval(ctx context.Context, cell string) (*Result, error) {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	if err := ctx.Err(); err != nil {
		return &Result{}, interruptError(err)
	}
	if err := armStop(s.in); err != nil {
		return &Result{}, fmt.Errorf("repl: %w", err)
	}
	cellCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	s.mu.Lock()
	s.cellCtx = cellCtx
	s.out.Reset()
	s.displays = nil
	s.mu.Unlock()

	chunks := splitCell(cell)
	done := make(chan struct{})
	var (
		res  = &Result{}
		rerr error
	)
	go func() {
		defer close(done)
		defer func() {
			// Panics in the interpreter are recovered per chunk; this is
			// for the session's own code (rendering a value, callbacks).
			if r := recover(); r != nil {
				rerr = &CellError{Panicked: true, Value: r, Msg: fmt.Sprint(r)}
			}
		}()
		rerr = s.run(cellCtx, cell, chunks, res)
	}()

	var stopOnce sync.Once
	select {
	case <-done:
	case <-cellCtx.Done():
		stopOnce.Do(func() { interpStop(s.in) })
		select {
		case <-done:
		case <-time.After(s.opts.StopGrace):
			s.mu.Lock()
			out := &Result{Output: s.out.String(), Displays: append([]Display(nil), s.displays...)}
			s.cellCtx = nil
			s.mu.Unlock()
			return out, &CellError{Msg: fmt.Sprintf("interrupted; the cell was still blocked in a call to compiled code after %v and has been abandoned: its interpreted code stops when that call returns, its variables may be incomplete, and the session goes on", s.opts.StopGrace), Err: ctx.Err()}
		}
	}
	s.mu.Lock()
	s.cellCtx = nil
	res.Output = s.out.String()
	res.Displays = append([]Display(nil), s.displays...)
	s.mu.Unlock()
	return res, rerr
}

// run evaluates the chunks of a cell in order, stopping at the first error.
func (s *Session) run(ctx context.Context, cell string, chunks []chunk, res *Result) error {
	for _, c := range chunks {
		if err := ctx.Err(); err != nil {
			return interruptError(err)
		}
		var err error
		switch c.kind {
		case chunkImport:
			src, specs := s.newImports(c.src)
			if len(specs) == 0 {
				continue
			}
			if err = s.evalChunk(cell, c, src, 0); err == nil {
				for _, sp := range specs {
					if sp.name != "_" && sp.name != "." {
						s.pkgs[sp.name] = sp.path
					}
				}
			}
		case chunkDecl:
			if err = s.evalChunk(cell, c, c.src, 0); err == nil {
				for _, n := range declNames(c.src) {
					s.decls[n] = true
				}
			}
		case chunkStmt:
			// A statement chunk that starts with a keyword yaegi takes for
			// a declaration (var, or a function literal) gets a leading
			// empty statement, so that yaegi parses it as statements.
			// x, ok := m[k] always fails, with a log line of yaegi's on
			// the process's stderr: write the types out first.
			if src, ok := s.commaOkDefine(c.src); ok {
				if err = s.evalChunk(cell, c, src, 0); err == nil {
					break
				}
			}
			err = s.evalChunk(cell, c, ";"+c.src, 1)
			if err != nil && retryTyped(err) {
				if src, ok := s.typedDefine(c.src); ok {
					err = s.evalChunk(cell, c, src, 0)
				}
			}
		case chunkBlock:
			err = s.evalChunk(cell, c, blockPrefix+c.src+"\n}()", len(blockPrefix))
		case chunkExpr:
			err = s.evalExpr(cell, c, res)
		}
		if cerr := ctx.Err(); cerr != nil {
			return interruptError(cerr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// newImports returns an import chunk without the imports the session
// already has under the same name, blanked out so that positions stay,
// and the imports left. yaegi reports importing a package twice as "fmt/_.go
// redeclared in this block", but a user often imports what a session
// pre-imports.
func (s *Session) newImports(src string) (string, []importSpec) {
	specs := importSpecs(src)
	if specs == nil {
		return src, []importSpec{{name: "_"}} // a syntax error: let yaegi report it
	}
	blank := func(b []byte, from, to int) {
		for i := from; i < to; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	b := []byte(src)
	var left []importSpec
	dup := 0 // duplicates so far in the current declaration
	for _, sp := range specs {
		if sp.declIdx == 0 {
			dup = 0
		}
		if s.pkgs[sp.name] != sp.path {
			left = append(left, sp)
			continue
		}
		dup++
		if dup == sp.declSpecs {
			blank(b, sp.declOff, sp.declEnd) // the whole declaration
			continue
		}
		end := sp.end
		for end < len(b) && (b[end] == ' ' || b[end] == '\t') {
			end++
		}
		if end < len(b) && b[end] == ';' {
			end++
		}
		blank(b, sp.off, end)
	}
	return string(b), left
}

func interruptError(err error) error {
	return &CellError{Msg: "interrupted", Err: err}
}

// evalExpr evaluates the final expression of a cell and renders its
// values. The expression is passed to the hidden variadic function
// Values, which receives all its results: yaegi's own Eval result is
// stale for a call without results (yaegi issue #1069), and this also
// handles several results. A call without results is then a compile error
// ("cannot use … as type ()"), and is evaluated again as a plain
// statement.
func (s *Session) evalExpr(cell string, c chunk, res *Result) error {
	if s.isPrint(c.expr) {
		// fmt.Println and friends return the bytes written and an error,
		// which a REPL does not show.
		return s.evalChunk(cell, c, ";"+c.src, 1)
	}
	s.mu.Lock()
	s.captured = nil
	s.mu.Unlock()
	err := s.evalChunk(cell, c, valuesCall+c.src+")", len(valuesCall))
	var ce *CellError
	if errors.As(err, &ce) && !ce.Panicked && strings.Contains(ce.Msg, "as type ()") {
		return s.evalChunk(cell, c, ";"+c.src, 1)
	}
	if err != nil {
		return err
	}
	s.mu.Lock()
	vals := s.captured
	s.captured = nil
	s.mu.Unlock()
	res.Values = vals
	if n := len(vals); n > 0 {
		// A call whose last result is a non-nil error failed, and an
		// error value on its own is shown as one: either way the cell is
		// an error (stderr and exit status 1 in a script, an error output
		// in Jupyter), not a value printed beside "<nil>".
		if e, ok := vals[n-1].(error); ok && e != nil {
			return &CellError{Msg: e.Error(), Returned: e}
		}
	}
	d := s.renderValues(vals)
	res.Value = &d
	return nil
}

// isPrint reports whether e calls one of fmt's Print functions.
func (s *Session) isPrint(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || s.pkgs[pkg.Name] != "fmt" {
		return false
	}
	switch sel.Sel.Name {
	case "Print", "Printf", "Println", "Fprint", "Fprintf", "Fprintln":
		return true
	}
	return false
}

// capture is the hidden Values function.
func (s *Session) capture(v ...any) {
	s.mu.Lock()
	s.captured = v
	s.mu.Unlock()
}

// yaegiPos matches the position yaegi puts in front of compile errors and
// of its panic trace lines: "L:C: " or "name.go:L:C: ".
var yaegiPos = regexp.MustCompile(`^(?:[^\s:]*\.go:)?(\d+):(\d+): `)

// evalChunk evaluates src, which is chunk c of cell with prefix bytes
// added in front, recovering panics, and returns a *CellError positioned
// in the cell.
func (s *Session) evalChunk(cell string, c chunk, src string, prefix int) (err error) {
	s.mu.Lock()
	s.panics = nil
	s.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			err = s.panicError(cell, c, src, prefix, r)
		}
	}()
	_, err = s.in.Eval(hideMain(src))
	if err == nil {
		return nil
	}
	var p interp.Panic
	if errors.As(err, &p) {
		return s.panicError(cell, c, src, prefix, p.Value)
	}
	msg := strings.ReplaceAll(err.Error(), hiddenMain, "main")
	if ce := s.undefinedError(cell, c, msg, false); ce != nil {
		return ce
	}
	// A scanner.ErrorList can hold several errors on several lines; the
	// first is the one to fix.
	msg, _, _ = strings.Cut(msg, "\n")
	ce := &CellError{Msg: msg}
	if m := yaegiPos.FindStringSubmatch(msg); m != nil {
		ce.Msg = msg[len(m[0]):]
		ce.Msg = strings.TrimSuffix(ce.Msg, " (and 1 more errors)")
		ce.Line, ce.Column = cellPos(cell, c, src, prefix, m[1], m[2])
	}
	return ce
}

// panicError builds the error of a panic with value r, located by the
// innermost of yaegi's panic trace lines printed for it, if any.
func (s *Session) panicError(cell string, c chunk, src string, prefix int, r any) error {
	ce := &CellError{Panicked: true, Value: r, Msg: fmt.Sprint(r)}
	if e, ok := r.(error); ok {
		ce.Msg = e.Error()
	}
	s.mu.Lock()
	trace := s.panics
	s.mu.Unlock()
	// A panic without yaegi's trace lines comes from its compiler, which
	// panics on some undefined names.
	if ue := s.undefinedError(cell, c, ce.Msg, len(trace) == 0); ue != nil {
		return ue
	}
	if len(trace) > 0 {
		if m := yaegiPos.FindStringSubmatch(trace[0]); m != nil {
			ce.Line, ce.Column = cellPos(cell, c, src, prefix, m[1], m[2])
		}
	}
	return ce
}

// undefinedError returns an "undefined: name" error for a yaegi message
// that hides one (see obscureError) or a panic of its compiler, or nil.
func (s *Session) undefinedError(cell string, c chunk, msg string, compilerPanic bool) *CellError {
	if !obscureError(msg) && !compilerPanic {
		return nil
	}
	name, off, ok := s.undefinedName(c)
	if !ok {
		return nil
	}
	line, col := lineCol(cell, c.off+off)
	return &CellError{Msg: "undefined: " + name, Line: line, Column: col}
}

// lineCol returns the 1-based line and column (in bytes) of offset off in
// text.
func lineCol(text string, off int) (line, col int) {
	off = max(0, min(off, len(text)))
	line = 1 + strings.Count(text[:off], "\n")
	col = off - (strings.LastIndexByte(text[:off], '\n') + 1) + 1
	return line, col
}

// cellPos maps a 1-based line and column in the source yaegi parsed to the
// cell. yaegi puts "package main;" in front of a declaration and
// "package main; func main() {" in front of statements, on the first line.
func cellPos(cell string, c chunk, src string, prefix int, lineStr, colStr string) (line, col int) {
	l, _ := strconv.Atoi(lineStr)
	k, _ := strconv.Atoi(colStr)
	if l < 1 {
		return 0, 0
	}
	wrap := len("package main; func main() {")
	if c.kind == chunkImport || c.kind == chunkDecl {
		wrap = len("package main;")
	}
	// Offset in src of the reported position.
	off := 0
	for i := 1; i < l; i++ {
		j := strings.IndexByte(src[off:], '\n')
		if j < 0 {
			return 0, 0
		}
		off += j + 1
	}
	if l == 1 {
		off += k - 1 - wrap
	} else {
		off += k - 1
	}
	off -= prefix // now an offset in c.src
	off = max(0, min(off, len(c.src)))
	return lineCol(cell, c.off+off)
}

// cellWriter is the interpreter's standard output or error: it appends to
// the current cell's output and copies to the session's stream. On
// standard error it also keeps yaegi's panic trace lines apart.
type cellWriter struct {
	s      *Session
	stream io.Writer
	stderr bool
}

// panicTrace matches the lines yaegi prints for each frame of a panic.
var panicTrace = regexp.MustCompile(`^(?:[^\s:]*\.go:)?\d+:\d+: panic`)

func (w cellWriter) Write(p []byte) (int, error) {
	s := w.s
	if w.stderr && panicTrace.Match(p) {
		s.mu.Lock()
		for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
			s.panics = append(s.panics, line)
		}
		s.mu.Unlock()
		return len(p), nil
	}
	s.mu.Lock()
	s.out.Write(p)
	s.mu.Unlock()
	if w.stream != nil {
		return w.stream.Write(p)
	}
	return len(p), nil
}

// show, showPNG, showSVG and showHTML are the display package.
func (s *Session) show(v any) { s.addDisplay(s.render(v)) }

func (s *Session) showPNG(b []byte) {
	s.addDisplay(Display{Text: fmt.Sprintf("[PNG image, %d bytes]", len(b)), PNG: b})
}

func (s *Session) showSVG(svg string) {
	s.addDisplay(Display{Text: fmt.Sprintf("[SVG image, %d bytes]", len(svg)), SVG: svg})
}

func (s *Session) showHTML(h string) {
	s.addDisplay(Display{Text: fmt.Sprintf("[HTML, %d bytes]", len(h)), HTML: h})
}

func (s *Session) addDisplay(d Display) {
	s.mu.Lock()
	s.displays = append(s.displays, d)
	s.mu.Unlock()
	if s.opts.OnDisplay != nil {
		s.opts.OnDisplay(d)
	}
}

// globals returns the interpreter's global variables and constants.
// yaegi's Globals panics (index out of range) after a definition failed to
// compile, until the next evaluation grows its frame; a no-op statement
// does that.
func (s *Session) globals() map[string]reflect.Value {
	try := func() (g map[string]reflect.Value, ok bool) {
		defer func() {
			if recover() != nil {
				g, ok = nil, false
			}
		}()
		return s.in.Globals(), true
	}
	if g, ok := try(); ok {
		return g
	}
	func() {
		defer func() { recover() }()
		s.in.Eval(";_ = 0")
	}()
	if g, ok := try(); ok {
		return g
	}
	return map[string]reflect.Value{}
}

// Var describes a session variable or constant, for listing.
type Var struct {
	Name, Type, Value string
}

// Vars returns the session's variables and constants sorted by name, each
// with its type and a one-line rendering of its value, and then the names
// of the functions and types it declared (with empty Type and Value).
func (s *Session) Vars() []Var {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	var vars []Var
	for name, v := range s.globals() {
		if strings.HasPrefix(name, "__") || name == "_" || !v.IsValid() {
			continue
		}
		typ := v.Type().String()
		if strings.Contains(typ, "constant.") {
			typ = "untyped constant"
		}
		text := ""
		if v.CanInterface() {
			text = oneLine(s.renderText(v.Interface()), 70)
		}
		vars = append(vars, Var{Name: name, Type: typ, Value: text})
	}
	sort.Slice(vars, func(a, b int) bool { return vars[a].Name < vars[b].Name })
	var decls []string
	for n := range s.decls {
		decls = append(decls, n)
	}
	sort.Strings(decls)
	for _, n := range decls {
		vars = append(vars, Var{Name: n})
	}
	return vars
}

// oneLine shortens text to one line of at most n runes.
func oneLine(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return text
}
