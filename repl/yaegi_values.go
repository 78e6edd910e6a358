package repl

import (
	"errors"
	"go/ast"
	"strings"
)

// Upstream yaegi issue #1069 (open; seen in v0.16.1): Eval of a call
// without results, of a function registered with Use, returns the value
// of the previous Eval. A session therefore never reads Eval's result for
// a cell's final expression: it passes the expression to the hidden
// function Values (valuesCall), which records what it receives.
// TestYaegiStaleEvalResult in yaegi_canary_test.go fails once yaegi no
// longer shows the bug.

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
	if vals == nil && s.interrupted() != nil {
		return nil // stopped before Values received anything: no value
	}
	res.Values = vals // also for an error: an interrupted fit's partial Result (partialResult)
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
