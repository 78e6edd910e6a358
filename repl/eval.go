package repl

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/traefik/yaegi/interp"
)

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
	// nil error. A cell interrupted during a fit has the fit's partial
	// Result here, beside its error, when the interrupted statement
	// received it (m.Fit() or res, err := m.Fit()).
	Value *Display
	// Values holds the final expression's values themselves, also when
	// the last is a non-nil error.
	Values []any
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
	if err := s.pendingError(); err != nil {
		return &Result{}, err
	}
	if err := armStop(s.in); err != nil {
		return &Result{}, fmt.Errorf("repl: %w", err)
	}
	cellCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	s.mu.Lock()
	s.gen++
	s.armed = true
	s.cellCtx = cellCtx
	s.out.Reset()
	s.displays = nil
	s.warnings, s.temps = nil, nil
	s.mu.Unlock()
	s.stopped = nil

	chunks := splitCell(cell)
	done := make(chan struct{})
	var (
		res  = &Result{}
		rerr error
	)
	s.enter()
	go func() {
		defer close(done)
		defer s.leave()
		defer func() {
			// Panics in the interpreter are recovered per chunk; this is
			// for the session's own code (rendering a value, callbacks).
			if r := recover(); r != nil {
				rerr = &CellError{Panicked: true, Value: r, Msg: fmt.Sprint(r)}
			}
		}()
		rerr = s.run(cellCtx, cell, chunks, res)
	}()

	select {
	case <-done:
	case <-cellCtx.Done():
		s.mu.Lock()
		s.stopLocked()
		s.mu.Unlock()
		select {
		case <-done:
		case <-time.After(s.opts.StopGrace):
			s.flushWarnings("")
			s.mu.Lock()
			out := &Result{Output: s.out.String(), Displays: append([]Display(nil), s.displays...)}
			s.cellCtx = nil
			s.gen++
			s.orphans++
			s.pendingPanics = append(s.pendingPanics, s.cellPanics...)
			s.cellPanics = nil
			s.mu.Unlock()
			go func() {
				<-done
				s.mu.Lock()
				s.orphans--
				s.mu.Unlock()
			}()
			return out, &CellError{Msg: fmt.Sprintf("interrupted; the cell was still blocked in a call to compiled code after %v and has been abandoned: its interpreted code stops when that call returns, its variables may be incomplete, and the session goes on", s.opts.StopGrace), Err: ctx.Err()}
		}
	}
	if isInterrupt(rerr) && res.Value == nil {
		s.partialResult(s.stopped, res)
	}
	shown := ""
	if res.Value != nil {
		shown = res.Value.Text
	}
	s.flushWarnings(shown)
	s.mu.Lock()
	s.cellCtx = nil
	res.Output = s.out.String()
	res.Displays = append([]Display(nil), s.displays...)
	s.mu.Unlock()
	return res, s.cellOutcome(rerr)
}

// run evaluates the chunks of a cell in order, stopping at the first error.
func (s *Session) run(ctx context.Context, cell string, chunks []chunk, res *Result) error {
	for i := range chunks {
		c := chunks[i]
		if err := ctx.Err(); err != nil {
			return interruptError(err)
		}
		s.stopped = &chunks[i] // after the check: an abandoned cell's run writes nothing more
		var err error
		if c.kind == chunkStmt || c.kind == chunkExpr || c.kind == chunkBlock {
			if err := s.checkResults(cell, c); err != nil {
				return err
			}
		}
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

// isInterrupt reports whether err is a cell's interruption.
func isInterrupt(err error) bool {
	var ce *CellError
	return errors.As(err, &ce) && ce.Err != nil
}

// evalChunk evaluates src, which is chunk c of cell with prefix bytes
// added in front, recovering panics, and returns a *CellError positioned
// in the cell. The go statements and make calls of src are rewritten
// first (instrument); if the rewritten source does not compile, src is
// evaluated as written.
func (s *Session) evalChunk(cell string, c chunk, src string, prefix int) error {
	s.noteCaptives(c)
	if ins := s.instrument(c.kind, src); len(ins.edits) > 0 {
		if compiled, err := s.evalSource(cell, c, ins, prefix); compiled {
			return err
		}
	}
	_, err := s.evalSource(cell, c, plain(src), prefix)
	return err
}

// evalSource evaluates src for evalChunk and reports whether it compiled.
func (s *Session) evalSource(cell string, c chunk, src source, prefix int) (compiled bool, err error) {
	s.mu.Lock()
	s.panics = nil
	s.mu.Unlock()
	// A panic without yaegi's trace lines comes from its compiler.
	ran := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.panics) > 0
	}
	// As evalText, with the failed definitions undone before the frame is
	// released (yaegi_failed.go).
	in := s.in
	st := s.frameBefore(in)
	var syms map[string]reflect.Value
	if c.kind == chunkStmt {
		syms = symbolsBefore(in)
	}
	defer func() {
		if r := recover(); r != nil {
			compiled = ran()
			err = s.panicError(cell, c, src, prefix, r)
		}
		if err != nil && syms != nil && s.interrupted() == nil {
			// An interruption is not the statement's failure: what it
			// defined stays, as in a cell stopped between chunks.
			undoDefinitions(in, syms, failedNames(cell, c, err, compiled))
		}
		if c.kind == chunkExpr && s.interrupted() != nil {
			s.keepTemporaries(in, st)
		}
		s.release(in, st)
	}()
	_, err = in.Eval(hideMain(src.text))
	if err == nil {
		return true, nil
	}
	var p interp.Panic
	if errors.As(err, &p) {
		return ran(), s.panicError(cell, c, src, prefix, p.Value)
	}
	msg := strings.ReplaceAll(err.Error(), hiddenMain, "main")
	if hint := limitHint(msg, c.src); hint != "" && builtinCall.MatchString(c.src) {
		return false, &CellError{Msg: hint}
	}
	if ce := s.undefinedError(cell, c, msg, false); ce != nil {
		return false, ce
	}
	// A scanner.ErrorList can hold several errors on several lines; the
	// first is the one to fix.
	msg, _, _ = strings.Cut(msg, "\n")
	msg = nameMismatch(c, msg)
	ce := &CellError{Msg: msg}
	if m := yaegiPos.FindStringSubmatch(msg); m != nil {
		ce.Msg = msg[len(m[0]):]
		ce.Msg = strings.TrimSuffix(ce.Msg, " (and 1 more errors)")
		ce.Line, ce.Column = cellPos(cell, c, src, prefix, m[1], m[2])
	}
	return false, ce
}
