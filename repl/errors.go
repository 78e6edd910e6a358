package repl

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

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

// yaegiPos matches the position yaegi puts in front of compile errors and
// of its panic trace lines: "L:C: " or "name.go:L:C: ".
var yaegiPos = regexp.MustCompile(`^(?:[^\s:]*\.go:)?(\d+):(\d+): `)

// panicError builds the error of a panic with value r, located by the
// innermost of yaegi's panic trace lines printed for it, if any.
func (s *Session) panicError(cell string, c chunk, src source, prefix int, r any) error {
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
	if m := yaegiPos.FindStringSubmatch(ce.Msg); m != nil {
		// A panic of yaegi's own carries its position in the source it
		// parsed: the cell's is what the user can read.
		ce.Msg = ce.Msg[len(m[0]):]
		ce.Line, ce.Column = cellPos(cell, c, src, prefix, m[1], m[2])
		if ae := s.interfaceArgError(cell, c, src, prefix, m[1], m[2], ce.Msg); ae != nil {
			return ae
		}
	}
	if ae := s.variadicArgError(cell, c, ce.Msg); ae != nil {
		return ae
	}
	if hint := limitHint(ce.Msg, c.src); hint != "" {
		ce.Msg = hint
		ce.Panicked = false
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
func cellPos(cell string, c chunk, src source, prefix int, lineStr, colStr string) (line, col int) {
	off, ok := chunkOffset(c, src, prefix, lineStr, colStr)
	if !ok {
		return 0, 0
	}
	return lineCol(cell, c.off+off)
}

// chunkOffset maps a 1-based line and column in the source yaegi parsed to
// a byte offset in c.src (see cellPos).
func chunkOffset(c chunk, src source, prefix int, lineStr, colStr string) (int, bool) {
	l, _ := strconv.Atoi(lineStr)
	k, _ := strconv.Atoi(colStr)
	if l < 1 {
		return 0, false
	}
	wrap := len("package main; func main() {")
	if c.kind == chunkImport || c.kind == chunkDecl {
		wrap = len("package main;")
	}
	// Offset in src.text of the reported position.
	off := 0
	for i := 1; i < l; i++ {
		j := strings.IndexByte(src.text[off:], '\n')
		if j < 0 {
			return 0, false
		}
		off += j + 1
	}
	if l == 1 {
		off += k - 1 - wrap
	} else {
		off += k - 1
	}
	off = src.origOffset(off) - prefix // now an offset in c.src
	return max(0, min(off, len(c.src))), true
}
