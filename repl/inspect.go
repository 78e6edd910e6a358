package repl

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Inspection (Jupyter's Shift-Tab and "?"): the documentation of the name
// under the cursor. sgp names show their doc comments, from the table in
// inspect_docs_gen.go that `go generate ./repl` extracts from the sgp
// sources with go/doc; other packages' names show their Go type; session
// variables show their type and value, and the doc of their sgp type.

//go:generate go test -run ^TestSGPDocsUpToDate$ -update-docs .

// displayDocs documents the session's display package.
var displayDocs = map[string]string{
	"Show": "func Show(v any)\n\nShow shows v now, rendered as a cell's value would be: as an image if it has a PNG\nor SVG method, as HTML if it has an HTML method, and as text.",
	"PNG":  "func PNG(b []byte)\n\nPNG shows a PNG image given by its bytes.",
	"SVG":  "func SVG(s string)\n\nSVG shows an SVG image given by its source.",
	"HTML": "func HTML(s string)\n\nHTML shows an HTML fragment.",
}

// Inspect returns the documentation of the name at byte offset cursor
// of code, or "" if there is none.
func (s *Session) Inspect(code string, cursor int) string {
	path := nameAt(code, cursor)
	if len(path) == 0 {
		return ""
	}
	s.evalMu.Lock()
	defer s.evalMu.Unlock()

	if p, ok := s.pkgs[path[0]]; ok {
		return s.inspectPackage(path[0], p, path[1:])
	}
	v, ok := s.in.Globals()[path[0]]
	if !ok || !v.IsValid() {
		return ""
	}
	var b strings.Builder
	for i, name := range path[1:] {
		// A method ends the path; a field goes on.
		if m, ok := methodOf(v, name); ok {
			fmt.Fprintf(&b, "%s: method %s\n", strings.Join(path[:i+2], "."), strings.TrimPrefix(m.Type().String(), "func"))
			if doc := typeDoc(v.Type(), name); doc != "" {
				b.WriteString("\n" + doc)
			}
			return b.String()
		}
		e := indirect(v)
		if !e.IsValid() || e.Kind() != reflect.Struct {
			return ""
		}
		f, ok := e.Type().FieldByName(name)
		if !ok || !f.IsExported() {
			return ""
		}
		v = e.FieldByIndex(f.Index)
	}
	text := ""
	if v.CanInterface() {
		text = s.renderText(v.Interface())
		if len(text) > 600 {
			text = text[:600] + "…"
		}
	}
	fmt.Fprintf(&b, "%s: %s\n%s", strings.Join(path, "."), v.Type(), text)
	if len(path) == 1 {
		if doc := typeDoc(v.Type(), ""); doc != "" {
			b.WriteString("\n\n" + doc)
		}
	}
	return b.String()
}

// inspectPackage documents pkg.Name (or pkg itself when rest is empty).
func (s *Session) inspectPackage(name, path string, rest []string) string {
	if len(rest) == 0 {
		text := fmt.Sprintf("package %s // import %q", name, path)
		if d := pkgDocs[path][""]; d != "" {
			text += "\n\n" + d
		}
		return text
	}
	sym := rest[0]
	if path == displayPath {
		return displayDocs[sym]
	}
	key := sym
	if len(rest) > 1 {
		key += "." + rest[1]
	}
	if doc := pkgDoc(path, key); doc != "" {
		return doc
	}
	v, ok := s.exports[path][sym]
	if !ok || !v.IsValid() {
		return ""
	}
	switch {
	case v.Kind() == reflect.Func:
		return fmt.Sprintf("func %s.%s%s", name, sym, strings.TrimPrefix(v.Type().String(), "func"))
	case v.Kind() == reflect.Pointer && v.IsNil():
		// A type is exported as a nil pointer to it.
		t := v.Type().Elem()
		text := fmt.Sprintf("type %s.%s %s", name, sym, t.Kind())
		if ms := methodList(reflect.PointerTo(t)); ms != "" {
			text += "\n\nmethods:\n" + ms
		}
		return text
	default:
		text := fmt.Sprintf("%s.%s %s", name, sym, v.Type())
		if v.CanInterface() {
			text += " = " + oneLine(fmt.Sprint(v.Interface()), 200)
		}
		return text
	}
}

// methodOf returns the method name of v, or false.
func methodOf(v reflect.Value, name string) (reflect.Value, bool) {
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if m := v.MethodByName(name); m.IsValid() {
		return m, true
	}
	if v.CanAddr() {
		if m := v.Addr().MethodByName(name); m.IsValid() {
			return m, true
		}
	}
	return reflect.Value{}, false
}

// methodList lists the exported methods of t, one per line.
func methodList(t reflect.Type) string {
	var b strings.Builder
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		if m.IsExported() {
			// The method type includes the receiver as first argument.
			in := make([]string, 0, m.Type.NumIn())
			for j := 1; j < m.Type.NumIn(); j++ {
				in = append(in, m.Type.In(j).String())
			}
			out := make([]string, 0, m.Type.NumOut())
			for j := 0; j < m.Type.NumOut(); j++ {
				out = append(out, m.Type.Out(j).String())
			}
			res := strings.Join(out, ", ")
			if len(out) > 1 {
				res = "(" + res + ")"
			}
			fmt.Fprintf(&b, "  %s(%s) %s\n", m.Name, strings.Join(in, ", "), res)
		}
	}
	return b.String()
}

// typeDoc returns the documentation of type t (through pointers) of one
// of the documented packages, or of its method if method is not "".
func typeDoc(t reflect.Type, method string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	key := t.Name()
	if method != "" {
		key += "." + method
	}
	return pkgDoc(t.PkgPath(), key)
}

// pkgDoc returns the documentation of a name of a documented package
// ("Model", "Model.Fit", "NewModel" of sgp), or "".
func pkgDoc(path, key string) string {
	if key == "" || strings.HasPrefix(key, ".") {
		return ""
	}
	return pkgDocs[path][key]
}

// nameAt returns the selector chain (x, x.f, pkg.Name…) at byte offset
// cursor of code: the identifiers and dots around the cursor, or just
// before an opening parenthesis the cursor follows (a call being typed).
func nameAt(code string, cursor int) []string {
	if cursor < 0 || cursor > len(code) {
		cursor = len(code)
	}
	isName := func(r rune) bool { return r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	// Back over the arguments of a call being typed: "f(a, b|" documents f.
	if cursor > 0 {
		r, _ := utf8.DecodeLastRuneInString(code[:cursor])
		if !isName(r) {
			depth := 0
			for i := cursor - 1; i >= 0; i-- {
				switch code[i] {
				case ')':
					depth++
				case '(':
					if depth == 0 {
						cursor = i
						i = -1
						continue
					}
					depth--
				case '\n':
					if depth == 0 {
						i = -1
					}
				}
			}
		}
	}
	start, end := cursor, cursor
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(code[:start])
		if !isName(r) {
			break
		}
		start -= size
	}
	for end < len(code) {
		r, size := utf8.DecodeRuneInString(code[end:])
		if !isName(r) || r == '.' {
			break
		}
		end += size
	}
	word := strings.Trim(code[start:end], ".")
	if word == "" {
		return nil
	}
	parts := strings.Split(word, ".")
	for _, p := range parts {
		if p == "" {
			return nil
		}
		if r, _ := utf8.DecodeRuneInString(p); unicode.IsDigit(r) {
			return nil
		}
	}
	return parts
}
