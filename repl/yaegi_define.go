package repl

import (
	"errors"
	"go/ast"
	"go/scanner"
	"go/token"
	"reflect"
	"strings"
)

// yaegi v0.16.1 cannot infer the type of a top-level definition whose
// right-hand side indexes a value of compiled code: x := p.S[0] fails with
// "constant definition loop", x := p.S[0] + 1 with a nil dereference, and
// v, ok := p.M[k] panics with "nil type" (and logs it on stderr). No
// upstream issue was found for it. The session evaluates such a statement
// alone (indexDefine in split.go) and, where it fails, again with the type
// written out (typedDefine); x, ok := m[k] is written out at once
// (commaOkDefine). TestYaegiIndexDefine and TestYaegiCommaOkDefine in
// yaegi_canary_test.go fail once yaegi infers these types itself.

// retryTyped reports whether err is how yaegi fails on a definition that
// indexDefine singles out, before it has run anything: a compile error, a
// "nil type" panic of the compiler, or the nil dereference of its
// type-less result.
func retryTyped(err error) bool {
	var ce *CellError
	if !errors.As(err, &ce) {
		return false
	}
	return strings.Contains(ce.Msg, "definition loop") ||
		(ce.Panicked && (strings.Contains(ce.Msg, "nil pointer dereference") || ce.Msg == "nil type"))
}

// typedDefine rewrites a definition singled out by indexDefine with the
// type written out, which yaegi v0.16.1 evaluates: x := a[i] becomes
// var x T = a[i] with T the element type of a, x, ok := m[k] becomes
// var x T; var ok bool; x, ok = m[k], and x := e otherwise becomes
// var x T = e with T the type of e's value. It evaluates a (or e) to learn
// the type, so that must be free of calls and channel receives, and T must
// be nameable in the session. ok is false if the statement cannot be
// rewritten.
func (s *Session) typedDefine(src string) (string, bool) {
	stmts, ok := parseStmts(src)
	if !ok || len(stmts) != 1 {
		return "", false
	}
	as := indexDefine(stmts[0].stmt)
	if as == nil || !pure(as.Rhs[0]) {
		return "", false
	}
	text := func(n ast.Node) string {
		base := int(as.Pos()) - stmts[0].off
		return src[int(n.Pos())-base : int(n.End())-base]
	}
	names := make([]string, len(as.Lhs))
	for i, l := range as.Lhs {
		names[i] = l.(*ast.Ident).Name
	}
	rhs := text(as.Rhs[0])

	var t reflect.Type
	if ix, ok := ast.Unparen(as.Rhs[0]).(*ast.IndexExpr); ok {
		// The element type of the container.
		c := s.valueType(text(ix.X))
		if c == nil {
			return "", false
		}
		switch c.Kind() {
		case reflect.Pointer:
			if c.Elem().Kind() != reflect.Array {
				return "", false
			}
			t = c.Elem().Elem()
		case reflect.Slice, reflect.Array, reflect.Map:
			t = c.Elem()
		case reflect.String:
			t = reflect.TypeFor[byte]()
		default:
			return "", false
		}
	} else if len(names) == 1 {
		t = s.valueType(rhs)
	}
	if t == nil || !s.nameable(t) {
		return "", false
	}
	typ := strings.ReplaceAll(t.String(), "interface {}", "any")
	if len(names) == 1 {
		return ";var " + names[0] + " " + typ + " = " + rhs, true
	}
	var b strings.Builder
	b.WriteString(";")
	if names[0] != "_" {
		b.WriteString("var " + names[0] + " " + typ + "; ")
	}
	if names[1] != "_" {
		b.WriteString("var " + names[1] + " bool; ")
	}
	b.WriteString(names[0] + ", " + names[1] + " = " + rhs)
	return b.String(), true
}

// commaOkDefine returns the rewrite of src if src is one statement
// x, ok := m[k] (typedDefine's) or x, ok := v.(T): var x T; var ok bool;
// x, ok = v.(T). yaegi v0.16.1 panics with "nil type" on a top-level
// comma-ok assertion written with :=, whether v holds a compiled or an
// interpreted value, and evaluates the assignment (TestYaegiCommaOkAssert
// in yaegi_canary_test.go is its canary).
func (s *Session) commaOkDefine(src string) (string, bool) {
	stmts, ok := parseStmts(src)
	if !ok || len(stmts) != 1 {
		return "", false
	}
	if as := assertDefine(stmts[0].stmt); as != nil {
		base := int(as.Pos()) - stmts[0].off
		text := func(n ast.Node) string { return src[int(n.Pos())-base : int(n.End())-base] }
		x, okName := as.Lhs[0].(*ast.Ident).Name, as.Lhs[1].(*ast.Ident).Name
		var b strings.Builder
		b.WriteString(";")
		if x != "_" {
			b.WriteString("var " + x + " " + text(ast.Unparen(as.Rhs[0]).(*ast.TypeAssertExpr).Type) + "; ")
		}
		if okName != "_" {
			b.WriteString("var " + okName + " bool; ")
		}
		b.WriteString(x + ", " + okName + " = " + text(as.Rhs[0]))
		return b.String(), true
	}
	as := indexDefine(stmts[0].stmt)
	if as == nil || len(as.Lhs) != 2 {
		return "", false
	}
	if _, ok := ast.Unparen(as.Rhs[0]).(*ast.IndexExpr); !ok {
		return "", false
	}
	return s.typedDefine(src)
}

// valueType evaluates the expression src and returns the type of its
// value, or nil.
func (s *Session) valueType(src string) reflect.Type {
	s.mu.Lock()
	s.captured = nil
	s.mu.Unlock()
	if err := s.evalText(valuesCall + src + ")"); err != nil {
		return nil
	}
	s.mu.Lock()
	vals := s.captured
	s.captured = nil
	s.mu.Unlock()
	if len(vals) != 1 || vals[0] == nil {
		return nil
	}
	return reflect.TypeOf(vals[0])
}

// pure reports whether evaluating e calls nothing and receives from no
// channel, so that evaluating it twice is harmless.
func pure(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr, *ast.FuncLit:
			ok = false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// nameable reports whether t can be written in the session's code: every
// named type in it is predeclared or comes from a package imported under
// the name its String method uses.
func (s *Session) nameable(t reflect.Type) bool {
	if t.Name() != "" {
		if t.PkgPath() == "" {
			return true // int, error, …
		}
		pkg, _, ok := strings.Cut(t.String(), ".")
		return ok && s.pkgs[pkg] == t.PkgPath()
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
		return s.nameable(t.Elem())
	case reflect.Map:
		return s.nameable(t.Key()) && s.nameable(t.Elem())
	case reflect.Interface:
		return t.NumMethod() == 0
	case reflect.Func:
		for i := 0; i < t.NumIn(); i++ {
			if !s.nameable(t.In(i)) {
				return false
			}
		}
		for i := 0; i < t.NumOut(); i++ {
			if !s.nameable(t.Out(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() || !s.nameable(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// hiddenMain is the name a session gives a function the user calls main.
const hiddenMain = "__main"

// hideMain renames the identifier main in src (not a selector's field or
// method, not a package clause) to hiddenMain. yaegi v0.16.1 runs the
// main package's func main after every evaluation once it is declared
// (interp/program.go appends it to the init nodes of each program; no
// upstream issue found; TestYaegiRerunsMain is its canary), so a
// script declaring main ran it once for its declaration and once more for
// every later chunk, and a REPL ran it before every later cell. Under
// another name it runs only when called; scripts call it once (see
// scriptSource).
func hideMain(src string) string {
	if !strings.Contains(src, "main") {
		return src
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var sc scanner.Scanner
	sc.Init(file, []byte(src), nil, 0)
	var b strings.Builder
	last, prev := 0, token.ILLEGAL
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.IDENT && lit == "main" && prev != token.PERIOD && prev != token.PACKAGE {
			off := file.Offset(pos)
			b.WriteString(src[last:off])
			b.WriteString(hiddenMain)
			last = off + len(lit)
		}
		prev = tok
	}
	if last == 0 {
		return src
	}
	b.WriteString(src[last:])
	return b.String()
}

// assertDefine returns s if it is x, ok := v.(T), which the session
// evaluates alone and written out (commaOkDefine).
func assertDefine(s ast.Stmt) *ast.AssignStmt {
	as, ok := s.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
		return nil
	}
	for _, l := range as.Lhs {
		if _, ok := l.(*ast.Ident); !ok {
			return nil
		}
	}
	if ta, ok := ast.Unparen(as.Rhs[0]).(*ast.TypeAssertExpr); !ok || ta.Type == nil {
		return nil
	}
	return as
}
