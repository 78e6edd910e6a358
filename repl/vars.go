package repl

import (
	"reflect"
	"sort"
	"strings"
)

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

// Import is a package imported in a session: the name it is used by and
// its import path.
type Import struct {
	Name, Path string
}

// Imports returns the packages the session has imported: first those
// every session starts with, in a fixed order, then the cell's imports
// sorted by name.
func (s *Session) Imports() []Import {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	var imps []Import
	pre := map[string]bool{}
	for _, p := range preimports {
		name := pathBase(p)
		if s.pkgs[name] == p {
			imps = append(imps, Import{Name: name, Path: p})
			pre[name] = true
		}
	}
	var rest []Import
	for name, p := range s.pkgs {
		if !pre[name] {
			rest = append(rest, Import{Name: name, Path: p})
		}
	}
	sort.Slice(rest, func(a, b int) bool { return rest[a].Name < rest[b].Name })
	return append(imps, rest...)
}
