package repl

import (
	"go/ast"
	"reflect"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// The warnings of a fit (Result.Warnings: fewer inducing points than
// asked for, no convergence, an interruption) reach the session through
// each model's warning hook when the fit ends. The session prints each
// once, as a "warning: …" line in the cell's output, at the place it
// happened: before whatever the cell prints or displays next, or at the
// end of the cell, unless what the cell shows there says it already
// (m.Fit() as a cell's last expression, or display.Show(res), shows the
// Result, warnings included).
//
// A cell interrupted while it fits shows the fit's partial Result as its
// value, beside the interruption, when the interrupted statement received
// it: the cell's final expression (m.Fit(), whose results are read from
// the frame: the interrupted interpreter does not pass them on to
// Values) or a variable its statement assigns (res, err := m.Fit()).

// warn records a warning of the running cell's fit.
func (s *Session) warn(msg string) {
	s.mu.Lock()
	s.warnings = append(s.warnings, msg)
	s.mu.Unlock()
}

// flushWarnings prints the running cell's pending warnings, except those
// that shown (the text of what the cell shows) contains.
func (s *Session) flushWarnings(shown string) {
	s.mu.Lock()
	ws := s.warnings
	s.warnings = nil
	s.mu.Unlock()
	var b strings.Builder
	for _, w := range ws {
		if shown == "" || !strings.Contains(shown, w) {
			b.WriteString("warning: " + w + "\n")
		}
	}
	if b.Len() > 0 {
		cellWriter{s: s, stream: s.opts.Stderr, stderr: true}.Write([]byte(b.String()))
	}
}

// pendingWarnings reports whether the running cell has warnings not yet
// printed.
func (s *Session) pendingWarnings() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.warnings) > 0
}

// partialResult sets res.Value, for a cell interrupted in chunk c, to the
// value that chunk received that tells of the interruption: a value of
// its final expression or of a variable it assigns whose text holds one of
// the cell's pending warnings.
func (s *Session) partialResult(c *chunk, res *Result) {
	s.mu.Lock()
	ws := append([]string(nil), s.warnings...)
	s.mu.Unlock()
	if c == nil || len(ws) == 0 {
		return
	}
	s.mu.Lock()
	cands := append(append([]any(nil), res.Values...), s.temps...)
	s.mu.Unlock()
	if c.kind == chunkStmt {
		if stmts, ok := parseStmts(c.src); ok {
			g := s.globals()
			for _, st := range stmts {
				for _, name := range assignedNames(st.stmt) {
					if v, ok := g[name]; ok && v.IsValid() && v.CanInterface() {
						cands = append(cands, v.Interface())
					}
				}
			}
		}
	}
	for _, v := range cands {
		if v == nil {
			continue
		}
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
			continue
		}
		d := s.render(v)
		for _, w := range ws {
			if strings.Contains(d.Text, w) {
				res.Value = &d
				return
			}
		}
	}
}

// keepTemporaries records in s.temps the values of package sgp that the
// evaluation since st left in the new slots of the frame (yaegi_release.go):
// the results of a call in a final expression that was interrupted before
// they reached Values. release empties these slots next.
func (s *Session) keepTemporaries(in *interp.Interpreter, st frameState) {
	if !st.ok {
		return
	}
	f, ok := frameOf(in)
	if !ok {
		return
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	data := *f.data
	var vals []any
	for i := st.n; i < len(data); i++ {
		v := data[i]
		if !v.IsValid() || !v.CanInterface() || v.IsZero() {
			continue
		}
		t := v.Type()
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.PkgPath() == sgpPath {
			vals = append(vals, v.Interface())
		}
	}
	s.mu.Lock()
	s.temps = append(s.temps, vals...)
	s.mu.Unlock()
}

// assignedNames returns the names a top-level statement defines or
// assigns.
func assignedNames(st ast.Stmt) []string {
	as, ok := st.(*ast.AssignStmt)
	if !ok {
		return definedNames(st)
	}
	var names []string
	for _, l := range as.Lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
			names = append(names, id.Name)
		}
	}
	return names
}
