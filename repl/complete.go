package repl

import (
	"go/token"
	"reflect"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// builtins are Go's predeclared functions and constants that yaegi
// v0.16.1 knows (it lacks min, max and clear).
var builtins = []string{
	"append", "cap", "close", "complex", "copy", "delete", "imag", "len", "make", "new", "panic",
	"print", "println", "real", "recover", "true", "false", "nil", "iota",
}

// Complete returns completions of the identifier or selector that ends at
// byte offset cursor of code: the offset where the completed word starts
// and the candidates that replace code[start:cursor], sorted. It
// completes
//
//   - a plain identifier from the session's variables, the functions and
//     types it declared, its imported packages, Go's keywords and builtins;
//   - pkg.Name from the package's exported names;
//   - x.Name, where x is a session variable or a chain of field selections
//     from one (x.f.g), from the fields and methods of its value (methods
//     of types declared in the session are not visible to it).
//
// It evaluates nothing: nothing is called and the session does not change.
func (s *Session) Complete(code string, cursor int) (start int, candidates []string) {
	defer func() {
		// Completion must never take a REPL down.
		if recover() != nil {
			start, candidates = cursor, nil
		}
	}()
	if cursor < 0 || cursor > len(code) {
		return cursor, nil
	}
	start = cursor
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(code[:start])
		if r != '.' && r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		start -= size
	}
	word := code[start:cursor]
	if word == "" || unicode.IsDigit(rune(word[0])) {
		return cursor, nil
	}

	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	var names []string
	dot := strings.LastIndexByte(word, '.')
	if dot < 0 {
		names = s.topNames()
	} else {
		names = s.memberNames(strings.Split(word[:dot], "."))
	}
	prefix, partial := word[:dot+1], word[dot+1:]
	seen := map[string]bool{}
	for _, n := range names {
		if strings.HasPrefix(n, partial) && !seen[n] {
			seen[n] = true
			candidates = append(candidates, prefix+n)
		}
	}
	sort.Strings(candidates)
	return start, candidates
}

// topNames returns the names a plain identifier can complete to.
func (s *Session) topNames() []string {
	var names []string
	for n := range s.globals() {
		if !strings.HasPrefix(n, "__") {
			names = append(names, n)
		}
	}
	for n := range s.decls {
		names = append(names, n)
	}
	for n := range s.pkgs {
		names = append(names, n)
	}
	for t := token.BREAK; t <= token.VAR; t++ {
		if t.IsKeyword() {
			names = append(names, t.String())
		}
	}
	names = append(names, builtins...)
	for _, t := range []string{"bool", "byte", "complex128", "error", "float32", "float64", "int", "int64", "rune", "string", "uint", "any"} {
		names = append(names, t)
	}
	return names
}

// memberNames returns the names that can follow path + ".": the exported
// names of a package, or the fields and methods of a variable's value
// reached through field selections.
func (s *Session) memberNames(path []string) []string {
	if len(path) == 1 {
		if p, ok := s.pkgs[path[0]]; ok {
			var names []string
			for n := range s.exports[p] {
				if !strings.HasPrefix(n, "_") {
					names = append(names, n)
				}
			}
			return names
		}
	}
	v, ok := s.globals()[path[0]]
	if !ok || !v.IsValid() {
		return nil
	}
	for _, field := range path[1:] {
		v = indirect(v)
		if !v.IsValid() || v.Kind() != reflect.Struct {
			return nil
		}
		v = v.FieldByName(field)
		if !v.IsValid() {
			return nil
		}
	}
	return members(v)
}

// indirect follows pointers and interfaces to a concrete value, or returns
// the zero Value at a nil.
func indirect(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// members returns the exported methods of v's type (and of a pointer to
// it) and the exported fields of the struct it points to.
func members(v reflect.Value) []string {
	var names []string
	add := func(t reflect.Type) {
		for i := 0; i < t.NumMethod(); i++ {
			if m := t.Method(i); m.IsExported() {
				names = append(names, m.Name)
			}
		}
	}
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	t := v.Type()
	add(t)
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		add(reflect.PointerTo(t))
	}
	if e := indirect(v); e.IsValid() && e.Kind() == reflect.Struct {
		et := e.Type()
		for i := 0; i < et.NumField(); i++ {
			if f := et.Field(i); f.IsExported() {
				names = append(names, f.Name)
			}
		}
	}
	return names
}
