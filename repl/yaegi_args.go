package repl

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
)

// yaegi v0.16.1 does not check at compile time that an untyped constant
// passed to a compiled function's interface parameter implements the
// interface: the call panics when it runs, with "method not found: M" for
// the first method the argument lacks (interp/run.go,
// genInterfaceWrapper), located at the argument, or for a variadic
// parameter with "reflect: cannot use T as type I in Call", located at
// the statement. sgp.NewModel(x, y, 3) gave "panic: 1:76: method not
// found: Accepts". interfaceArgError turns these into what the Go compiler
// would say: which argument of which function must be of which type.

var (
	// methodNotFound matches yaegi's message, without its position.
	methodNotFound = regexp.MustCompile(`^method not found: (\w+)$`)
	// reflectCall matches reflect's message for a variadic argument.
	reflectCall = regexp.MustCompile(`^reflect: cannot use (\S+) as type (\S+) in Call$`)
)

// interfaceArgError returns the error for yaegi's panic msg at line
// lineStr, column colStr of src (chunk c of cell with prefix bytes in
// front) when msg says that a call's argument lacks a method of its
// interface parameter: "argument 3 of sgp.NewModel must be of type
// kernel.Kernel (got int, which lacks method Accepts)"; for a value that is
// not an argument, that it does not implement the interface it is used
// as. It returns nil for other panics (see variadicArgError for reflect's
// message). The function's parameter type comes from its signature,
// found through the session's packages, the function's value, or for a
// method the type of its receiver; the argument's type from its value
// when evaluating it has no effect (a name, a literal, a field).
func (s *Session) interfaceArgError(cell string, c chunk, src source, prefix int, lineStr, colStr, msg string) *CellError {
	m := methodNotFound.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	method := m[1]
	off, ok := chunkOffset(c, src, prefix, lineStr, colStr)
	if !ok {
		return nil
	}
	calls, base := parseChunk(c)
	text := func(e ast.Node) string { return c.src[int(e.Pos())-base : int(e.End())-base] }
	var call *ast.CallExpr
	argIdx := 0
	for _, ce := range calls {
		for i, a := range ce.Args {
			if int(a.Pos())-base == off {
				call, argIdx = ce, i // calls come outermost first: keep the innermost
			}
		}
	}
	if call == nil {
		e := exprAt(c, off)
		if e == "" {
			return nil
		}
		line, col := lineCol(cell, c.off+off)
		return &CellError{Line: line, Column: col,
			Msg: fmt.Sprintf("%s does not implement the interface it is used as: it lacks method %s", e, method)}
	}
	arg := call.Args[argIdx]
	line, col := lineCol(cell, c.off+off)
	fn := text(call.Fun)
	got := s.argType(arg, text)
	param := s.paramType(call.Fun, text, argIdx)
	if param == nil || param.Kind() != reflect.Interface {
		what := "its value"
		if got != "" {
			what = got
		}
		return &CellError{Line: line, Column: col,
			Msg: fmt.Sprintf("argument %d of %s does not implement the interface its parameter needs: %s lacks method %s", argIdx+1, fn, what, method)}
	}
	if _, has := param.MethodByName(method); !has {
		return nil // another cause
	}
	return argError(line, col, argIdx, fn, param.String(), got, method)
}

// argError returns the error of argument i of fn, of type got ("" if
// unknown), which lacks method of the parameter's interface type param.
func argError(line, col, i int, fn, param, got, method string) *CellError {
	if got == "" {
		return &CellError{Line: line, Column: col,
			Msg: fmt.Sprintf("argument %d of %s must be of type %s (its value lacks method %s)", i+1, fn, param, method)}
	}
	return &CellError{Line: line, Column: col,
		Msg: fmt.Sprintf("argument %d of %s must be of type %s (got %s, which lacks method %s)", i+1, fn, param, got, method)}
}

// variadicArgError returns the error for a panic msg of reflect's "cannot
// use got as type want in Call", which has no position: the first
// argument of a call in c whose value is of type got where a parameter of
// interface type want is expected; nil for another msg or none found.
func (s *Session) variadicArgError(cell string, c chunk, msg string) *CellError {
	mm := reflectCall.FindStringSubmatch(msg)
	if mm == nil {
		return nil
	}
	got, want := mm[1], mm[2]
	calls, base := parseChunk(c)
	text := func(e ast.Node) string { return c.src[int(e.Pos())-base : int(e.End())-base] }
	for _, call := range calls {
		for i, a := range call.Args {
			param := s.paramType(call.Fun, text, i)
			if param == nil || param.String() != want || param.Kind() != reflect.Interface || s.argType(a, text) != got {
				continue
			}
			method := missingMethod(s.valueType(text(a)), param)
			if method == "" {
				continue
			}
			line, col := lineCol(cell, c.off+int(a.Pos())-base)
			return argError(line, col, i, text(call.Fun), want, got, method)
		}
	}
	return nil
}

// missingMethod returns the first method of the interface type iface
// that type t lacks, or "".
func missingMethod(t, iface reflect.Type) string {
	if t == nil {
		return ""
	}
	for j := 0; j < iface.NumMethod(); j++ {
		if _, ok := t.MethodByName(iface.Method(j).Name); !ok {
			return iface.Method(j).Name
		}
	}
	return ""
}

// argType returns the type of the argument a, if evaluating it has no
// effect and its type can be written in the session, or "".
func (s *Session) argType(a ast.Expr, text func(ast.Node) string) string {
	if !pure(a) {
		return ""
	}
	if t := s.valueType(text(a)); t != nil && s.nameable(t) {
		return t.String()
	}
	return ""
}

// parseChunk returns the calls in c.src, outermost first, and the file
// offset base of c.src's first byte in their positions (Pos − base is an
// offset in c.src).
func parseChunk(c chunk) (calls []*ast.CallExpr, base int) {
	f, base := parseChunkFile(c)
	if f == nil {
		return nil, 0
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if ce, ok := n.(*ast.CallExpr); ok {
			calls = append(calls, ce)
		}
		return true
	})
	return calls, base
}

// parseChunkFile parses c.src as statements, or as declarations for a
// declaration chunk, and returns the file and the base of c.src's first
// byte (see parseChunk); nil if it does not parse.
func parseChunkFile(c chunk) (*ast.File, int) {
	fset := token.NewFileSet()
	prefix, suffix := stmtPrefix, "\n}"
	if c.kind == chunkDecl {
		prefix, suffix = "package p;", ""
	}
	f, err := parser.ParseFile(fset, "", prefix+c.src+suffix, parser.SkipObjectResolution)
	if err != nil {
		return nil, 0
	}
	return f, fset.File(f.Pos()).Base() + len(prefix)
}

// exprAt returns the text of the outermost expression of c.src that starts
// at byte offset off, or "".
func exprAt(c chunk, off int) string {
	f, base := parseChunkFile(c)
	if f == nil {
		return ""
	}
	text := ""
	ast.Inspect(f, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && text == "" && int(e.Pos())-base == off {
			text = c.src[off : int(e.End())-base]
		}
		return text == ""
	})
	return text
}

// paramType returns the type of parameter i of the function or method fun
// calls, or nil if it cannot be known without running code: fun is
// pkg.Func of a package of the session, or recv.Method with a receiver
// whose evaluation has no effect.
func (s *Session) paramType(fun ast.Expr, text func(ast.Node) string, i int) reflect.Type {
	if id, ok := fun.(*ast.Ident); ok {
		// A function declared in the session.
		if t := s.valueType(id.Name); t != nil && t.Kind() == reflect.Func {
			return funcParam(t, i)
		}
		return nil
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	var ft reflect.Type
	shift := 0
	if id, ok := sel.X.(*ast.Ident); ok && s.pkgs[id.Name] != "" {
		if _, shadowed := s.globals()[id.Name]; !shadowed {
			if v, ok := s.exports[s.pkgs[id.Name]][sel.Sel.Name]; ok && v.Kind() == reflect.Func {
				ft = v.Type()
			}
		}
	}
	if ft == nil && pure(sel.X) {
		if t := s.valueType(text(sel.X)); t != nil {
			if m, ok := t.MethodByName(sel.Sel.Name); ok {
				ft, shift = m.Type, 1 // the receiver is In(0)
			}
		}
	}
	if ft == nil {
		return nil
	}
	return funcParam(ft, i+shift)
}

// funcParam returns the type of the i-th argument of a call of a function
// of type ft, or nil if it takes fewer.
func funcParam(ft reflect.Type, i int) reflect.Type {
	switch {
	case ft.IsVariadic() && i >= ft.NumIn()-1:
		return ft.In(ft.NumIn() - 1).Elem()
	case i < ft.NumIn():
		return ft.In(i)
	}
	return nil
}
