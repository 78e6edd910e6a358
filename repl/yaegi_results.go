package repl

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strings"
)

// yaegi v0.16.1 accepts a call with several results where one value is
// needed: e := m.Fit() keeps the *Result and drops the error (e is nil
// when the fit failed, and the next line panics in reflect), and
// m.Inducing()[0] indexes the first result. Go refuses both at compile
// time. When the counts differ the other way (mu, v := m.Predict(x)) yaegi
// refuses, but its message names no function ("2 variables but  returns
// 3 values"). The session checks each statement chunk before running it
// (checkResults) and refuses such a call as the Go compiler does, naming
// the function and its results. The check knows the types of compiled
// functions and methods (the symbol tables), of the session's variables
// and functions, of the methods of a session variable (by evaluating the
// method value, which has no effect) and of what the chunk itself defines
// at its top level; where it cannot know a call's results (a name declared
// inside a function literal or block, a method of a value returned by a
// call of an interpreted type) it lets yaegi compile the code, and
// nameMismatch puts the function's name into yaegi's message.
// TestYaegiDropsResults in yaegi_canary_test.go fails once yaegi refuses
// these calls itself.

// checkResults returns the error of the first call in chunk c of cell
// whose number of results does not fit where it is used, or nil.
func (s *Session) checkResults(cell string, c chunk) error {
	f, base := parseChunkFile(c)
	if f == nil || len(f.Decls) != 1 {
		return nil
	}
	fn, ok := f.Decls[0].(*ast.FuncDecl)
	if !ok || fn.Body == nil {
		return nil
	}
	rc := &resultCheck{s: s, env: map[string]reflect.Type{}, nested: nestedNames(fn.Body)}
	for _, st := range fn.Body.List {
		if n, msg := rc.check(st); n != nil {
			line, col := lineCol(cell, c.off+int(n.Pos())-base)
			return &CellError{Line: line, Column: col, Msg: msg}
		}
		rc.define(st)
	}
	return nil
}

// resultCheck is the state of checkResults over the statements of a chunk.
type resultCheck struct {
	s *Session
	// env holds the types of the names the chunk's top-level statements
	// defined so far; nil for a name whose type is not known.
	env map[string]reflect.Type
	// nested holds the names declared inside function literals and
	// blocks of the chunk: their types are not known.
	nested  map[string]bool
	globals map[string]reflect.Value
}

// check returns the first call in st used with a number of results that
// does not fit, and the error's message.
func (rc *resultCheck) check(st ast.Stmt) (bad ast.Node, msg string) {
	var stack []ast.Node
	ast.Inspect(st, func(n ast.Node) bool {
		if bad != nil {
			return false
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		var parent ast.Node
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Rhs) == 1 && len(n.Lhs) > 0 {
				bad, msg = rc.mismatch(n.Rhs[0], len(n.Lhs))
			}
		case *ast.ValueSpec:
			if len(n.Values) == 1 {
				bad, msg = rc.mismatch(n.Values[0], len(n.Names))
			}
		case *ast.CallExpr:
			if multiAllowed(parent, n) && !rc.builtinCall(parent) {
				break
			}
			if call := rc.describe(n); call != nil && call.ft.NumOut() > 1 {
				bad = n
				msg = fmt.Sprintf("multiple-value %s in single-value context: %s returns %d values %s; assign them to as many variables first",
					exprText(n), call.name, call.ft.NumOut(), call.results())
			}
		}
		return bad == nil
	})
	return bad, msg
}

// mismatch returns rhs and the error's message if rhs is a call whose
// number of results differs from the n variables it is assigned to.
func (rc *resultCheck) mismatch(rhs ast.Expr, n int) (ast.Node, string) {
	ce, ok := rhs.(*ast.CallExpr)
	if !ok {
		return nil, ""
	}
	call := rc.describe(ce)
	if call == nil || call.ft.NumOut() == n || call.ft.NumOut() == 0 {
		return nil, ""
	}
	if n == 1 || call.ft.NumOut() > 1 {
		return rhs, fmt.Sprintf("assignment mismatch: %s but %s returns %s %s",
			count(n, "variable"), call.name, count(call.ft.NumOut(), "value"), call.results())
	}
	return nil, ""
}

// nameMismatch puts the called function's name into yaegi's message
// "assignment mismatch: 2 variables but  returns 3 values", for the calls
// checkResults cannot type (a method of a type declared in the session):
// the function of the first assignment in c of one call to as many
// variables as the message says.
func nameMismatch(c chunk, msg string) string {
	const gap = " but  returns "
	i := strings.Index(msg, gap)
	if i < 0 {
		return msg
	}
	var vars int
	if _, err := fmt.Sscanf(msg[strings.Index(msg, "assignment mismatch: ")+len("assignment mismatch: "):], "%d", &vars); err != nil {
		return msg
	}
	f, _ := parseChunkFile(c)
	if f == nil {
		return msg
	}
	name := ""
	ast.Inspect(f, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && name == "" && len(as.Rhs) == 1 && len(as.Lhs) == vars {
			if call, ok := as.Rhs[0].(*ast.CallExpr); ok {
				name = exprText(call.Fun)
			}
		}
		return name == ""
	})
	if name == "" {
		return msg
	}
	return msg[:i] + " but " + name + " returns " + msg[i+len(gap):]
}

// count returns "1 variable", "2 variables".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// multiAllowed reports whether a call with several results may stand
// where it is, under parent: as a statement, the only value of an
// assignment (checked by mismatch), the only argument of a call or the
// only result of a return.
func multiAllowed(parent ast.Node, call *ast.CallExpr) bool {
	switch p := parent.(type) {
	case *ast.ExprStmt, *ast.GoStmt, *ast.DeferStmt:
		return true
	case *ast.AssignStmt:
		return len(p.Rhs) == 1
	case *ast.ValueSpec:
		return len(p.Values) == 1
	case *ast.CallExpr:
		return len(p.Args) == 1 && p.Args[0] == call
	case *ast.ReturnStmt:
		return len(p.Results) == 1
	}
	return false
}

// builtinCall reports whether n calls a predeclared function (len,
// append, …), which takes no call with several results as its argument.
func (rc *resultCheck) builtinCall(n ast.Node) bool {
	call, ok := n.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	return ok && goBuiltins[id.Name] && !rc.shadowed(id.Name) && rc.identType(id.Name) == nil
}

// define records the types of the names a top-level statement defines.
func (rc *resultCheck) define(st ast.Stmt) {
	var names []*ast.Ident
	var values []ast.Expr
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok != token.DEFINE {
			return
		}
		for _, l := range st.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				names = append(names, id)
			}
		}
		if len(names) != len(st.Lhs) {
			return
		}
		values = st.Rhs
	case *ast.DeclStmt:
		gd, ok := st.Decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			return
		}
		for _, sp := range gd.Specs {
			vs := sp.(*ast.ValueSpec)
			for _, id := range vs.Names {
				rc.env[id.Name] = nil // declared with a type the check does not read
			}
		}
		return
	default:
		return
	}
	types := make([]reflect.Type, len(names))
	switch {
	case len(values) == len(names):
		for i, v := range values {
			types[i] = rc.typeOf(v)
		}
	case len(values) == 1:
		if ce, ok := values[0].(*ast.CallExpr); ok {
			if call := rc.describe(ce); call != nil && call.ft.NumOut() == len(names) {
				for i := range names {
					types[i] = call.ft.Out(i)
				}
			}
		}
	}
	for i, id := range names {
		if id.Name != "_" {
			rc.env[id.Name] = types[i]
		}
	}
}

// nestedNames returns the names declared inside the function literals and
// blocks of body's statements (not by the statements themselves).
func nestedNames(body *ast.BlockStmt) map[string]bool {
	names := map[string]bool{}
	add := func(e ast.Expr) {
		if id, ok := e.(*ast.Ident); ok {
			names[id.Name] = true
		}
	}
	fields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			for _, id := range f.Names {
				names[id.Name] = true
			}
		}
	}
	top := map[ast.Node]bool{}
	for _, st := range body.List {
		top[st] = true
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			fields(n.Type.Params)
			fields(n.Type.Results)
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && !top[n] {
				for _, l := range n.Lhs {
					add(l)
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				add(n.Key)
				if n.Value != nil {
					add(n.Value)
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				names[id.Name] = true // top-level ones are in env as unknown too
			}
		case *ast.TypeSpec:
			names[n.Name.Name] = true
		case *ast.LabeledStmt:
			names[n.Label.Name] = true
		}
		return true
	})
	return names
}

// callInfo is what the check knows of a call: the function's type
// (without a method's receiver) and a name for messages.
type callInfo struct {
	ft   reflect.Type
	name string // "sgp.NewModel", "(*sgp.Model).Fit", "f"
	doc  string // the documentation's signature line, if any
}

// results lists the call's result types, with the names the
// documentation's signature gives them: "(mean []float64, variance
// []float64, err error)".
func (ci *callInfo) results() string {
	names := docResultNames(ci.doc)
	parts := make([]string, ci.ft.NumOut())
	for i := range parts {
		parts[i] = ci.ft.Out(i).String()
		if len(names) == len(parts) && names[i] != "" {
			parts[i] = names[i] + " " + parts[i]
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// docResultNames returns the names of the results of a documentation
// entry whose first line is a function's or method's signature, one per
// result, or nil if they have none.
func docResultNames(doc string) []string {
	sig, _, _ := strings.Cut(doc, "\n")
	if !strings.HasPrefix(sig, "func ") {
		return nil
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p;"+sig, parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return nil
	}
	fd, ok := f.Decls[0].(*ast.FuncDecl)
	if !ok || fd.Type.Results == nil {
		return nil
	}
	var names []string
	for _, fl := range fd.Type.Results.List {
		if len(fl.Names) == 0 {
			return nil
		}
		for _, id := range fl.Names {
			names = append(names, id.Name)
		}
	}
	return names
}

// describe returns what is known of the function that call calls, or nil.
func (rc *resultCheck) describe(call *ast.CallExpr) *callInfo {
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		t := rc.identType(fun.Name)
		if t == nil && rc.s.decls[fun.Name] && !rc.shadowed(fun.Name) {
			t = rc.s.valueType(fun.Name) // a function declared in the session
		}
		if t == nil || t.Kind() != reflect.Func {
			return nil
		}
		return &callInfo{ft: t, name: fun.Name}
	case *ast.SelectorExpr:
		if path := rc.pkgPath(fun.X); path != "" {
			v, ok := rc.s.exports[path][fun.Sel.Name]
			if !ok || v.Kind() != reflect.Func {
				return nil
			}
			pkg := fun.X.(*ast.Ident).Name
			return &callInfo{ft: v.Type(), name: pkg + "." + fun.Sel.Name, doc: pkgDoc(path, fun.Sel.Name)}
		}
		t := rc.typeOf(fun.X)
		if t == nil {
			return rc.methodValue(fun)
		}
		if ft, recv, ok := methodType(t, fun.Sel.Name); ok {
			return &callInfo{ft: ft, name: typeName(recv) + "." + fun.Sel.Name, doc: typeDoc(recv, fun.Sel.Name)}
		}
		if ft := fieldType(t, fun.Sel.Name); ft != nil && ft.Kind() == reflect.Func {
			return &callInfo{ft: ft, name: exprText(fun)}
		}
		return rc.methodValue(fun)
	}
	return nil
}

// methodValue describes the method or function-valued field sel of a
// session variable whose type the check cannot read (a type declared in
// the session: its methods are not in its reflect type) by evaluating the
// method value sel, when that has no effect: sel.X calls nothing and its
// variables are the session's, not the chunk's.
func (rc *resultCheck) methodValue(sel *ast.SelectorExpr) *callInfo {
	if !pure(sel.X) {
		return nil
	}
	local := false
	ast.Inspect(sel.X, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && rc.shadowed(id.Name) {
			local = true
		}
		return !local
	})
	if local {
		return nil
	}
	t := rc.s.valueType(exprText(sel))
	if t == nil || t.Kind() != reflect.Func {
		return nil
	}
	return &callInfo{ft: t, name: exprText(sel)}
}

// methodType returns the type, without the receiver, of method name of a
// value of type t (or of its address), and the receiver's type.
func methodType(t reflect.Type, name string) (reflect.Type, reflect.Type, bool) {
	if t.Kind() == reflect.Interface {
		if m, ok := t.MethodByName(name); ok {
			return m.Type, t, true
		}
		return nil, nil, false
	}
	for _, r := range []reflect.Type{t, reflect.PointerTo(t)} {
		if m, ok := r.MethodByName(name); ok {
			return dropReceiver(m.Type), r, true
		}
	}
	return nil, nil, false
}

// dropReceiver returns the type of a method value of the method type ft,
// whose first parameter is the receiver.
func dropReceiver(ft reflect.Type) reflect.Type {
	in := make([]reflect.Type, ft.NumIn()-1)
	for i := range in {
		in[i] = ft.In(i + 1)
	}
	out := make([]reflect.Type, ft.NumOut())
	for i := range out {
		out[i] = ft.Out(i)
	}
	return reflect.FuncOf(in, out, ft.IsVariadic())
}

// typeName names a receiver type as Go's method expressions do:
// "(*sgp.Model)", "sgp.Regressor".
func typeName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		return "(" + t.String() + ")"
	}
	return t.String()
}

// fieldType returns the type of field name of a struct of type t (through
// pointers), or nil.
func fieldType(t reflect.Type, name string) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	if f, ok := t.FieldByName(name); ok {
		return f.Type
	}
	return nil
}

// typeOf returns the static type of the value of e, or nil if the check
// does not know it. e is not evaluated.
func (rc *resultCheck) typeOf(e ast.Expr) reflect.Type {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return rc.typeOf(e.X)
	case *ast.Ident:
		return rc.identType(e.Name)
	case *ast.SelectorExpr:
		if rc.pkgPath(e.X) != "" {
			return nil // a package's variable or constant: its type is not read here
		}
		if t := rc.typeOf(e.X); t != nil {
			return fieldType(t, e.Sel.Name)
		}
	case *ast.CallExpr:
		if call := rc.describe(e); call != nil && call.ft.NumOut() == 1 {
			return call.ft.Out(0)
		}
	case *ast.IndexExpr:
		t := rc.typeOf(e.X)
		if t == nil {
			return nil
		}
		if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Array {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map:
			return t.Elem()
		}
	case *ast.StarExpr:
		if t := rc.typeOf(e.X); t != nil && t.Kind() == reflect.Pointer {
			return t.Elem()
		}
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			if t := rc.typeOf(e.X); t != nil {
				return reflect.PointerTo(t)
			}
		}
	}
	return nil
}

// shadowed reports whether name is declared by the chunk, where the
// session's variable or package of that name is not what it refers to.
func (rc *resultCheck) shadowed(name string) bool {
	_, inEnv := rc.env[name]
	return inEnv || rc.nested[name]
}

// identType returns the type of the variable name: one the chunk defined
// or the session's.
func (rc *resultCheck) identType(name string) reflect.Type {
	if rc.nested[name] {
		return nil
	}
	if t, ok := rc.env[name]; ok {
		return t
	}
	if rc.globals == nil {
		rc.globals = rc.s.globals()
	}
	if v, ok := rc.globals[name]; ok && v.IsValid() {
		if t := v.Type(); !strings.Contains(t.String(), "constant.") {
			return t
		}
	}
	return nil
}

// pkgPath returns the import path of the package x names, or "" if x is
// not the name of a package of the session.
func (rc *resultCheck) pkgPath(x ast.Expr) string {
	id, ok := x.(*ast.Ident)
	if !ok || rc.shadowed(id.Name) {
		return ""
	}
	path := rc.s.pkgs[id.Name]
	if path == "" {
		return ""
	}
	if rc.globals == nil {
		rc.globals = rc.s.globals()
	}
	if _, ok := rc.globals[id.Name]; ok {
		return ""
	}
	return path
}

// exprText returns the source text of e, printed from its syntax tree.
func exprText(e ast.Expr) string { return types.ExprString(e) }
