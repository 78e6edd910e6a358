package repl

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// A session rewrites two constructs of the code it evaluates, so that a
// cell cannot end the process:
//
//   - go f(a, b) starts its goroutine through the session (goCall),
//     which recovers a panic there and reports it as an error of the
//     cell (guard.go). yaegi v0.16.1 runs an interpreted goroutine with a
//     bare go statement (interp/run.go, call), and Go cannot recover
//     another goroutine's panic: it would end the process. The function value
//     and the arguments are evaluated where the go statement is, as Go
//     does, into variables of a function literal that the session's
//     goroutine calls.
//   - make(T, n) asks the session first whether n elements of T fit in
//     the machine's memory (makeLen): a fatal "out of memory" cannot be
//     recovered. A size that is a small integer literal is left alone.
//
// A rewritten chunk that does not compile is evaluated as it was
// written, so that its errors are the user's.

// edit replaces src[start:end] by what render returns.
type edit struct {
	start, end int
	render     func() string
}

// source is the text evaluated for a chunk: the chunk's source with the
// edits applied.
type source struct {
	text  string
	orig  string // the source without the edits
	edits []span // sorted by start
}

// span is the place of an edit: orig[start:end] became text[at:at+n].
type span struct{ start, end, at, n int }

// origOffset maps an offset in s.text to the source without the edits: a
// place inside an edit maps to the edit's start.
func (s source) origOffset(off int) int {
	shift := 0
	for _, e := range s.edits {
		switch {
		case off < e.at:
			return off - shift
		case off < e.at+e.n:
			return e.start
		}
		shift = e.at + e.n - e.end
	}
	return off - shift
}

// plain returns src unchanged as a source.
func plain(src string) source { return source{text: src, orig: src} }

// goBuiltins are the predeclared functions a go statement can call; they
// are not values, so the call keeps them as they are.
var goBuiltins = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true,
	"delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true, "new": true,
	"panic": true, "print": true, "println": true, "real": true, "recover": true,
}

// instrument rewrites the go statements and make calls of src, the text
// of a chunk of the given kind (with what evalChunk puts around it).
func (s *Session) instrument(kind chunkKind, src string) source {
	if kind == chunkImport || !(strings.Contains(src, "go") || strings.Contains(src, "make")) {
		return plain(src)
	}
	prefix, suffix := stmtPrefix, "\n}"
	if kind == chunkDecl {
		prefix, suffix = "package p;", ""
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+src+suffix, 0)
	if err != nil {
		return plain(src)
	}
	tf := fset.File(f.Pos())
	rw := &rewriter{s: s, src: src, off: func(p token.Pos) int { return tf.Offset(p) - len(prefix) }}
	rw.findStatements(kind, f)
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			rw.rewriteGo(n)
		case *ast.CallExpr:
			rw.rewriteMake(n)
		}
		return true
	})
	return rw.apply()
}

// rewriter collects the edits of one chunk's source for instrument.
type rewriter struct {
	s     *Session
	src   string
	off   func(token.Pos) int // the offset in src of a position of the parsed file
	edits []*edit
	// consts are the session's constants, read when first needed.
	consts map[string]bool
	// stmtOf is the innermost statement of a statement list around each
	// call; topLevel holds the statements of the chunk's top level
	// (which run once).
	stmtOf   map[*ast.CallExpr]ast.Stmt
	topLevel map[ast.Stmt]bool
	goCount  int
}

// text returns src[lo:hi] with the outermost edits inside it applied,
// except an edit of that very span (the one rendering it).
func (rw *rewriter) text(lo, hi int) string {
	var b strings.Builder
	pos := lo
	for _, e := range rw.edits {
		if e.start < pos || e.end > hi || (e.start == lo && e.end == hi) {
			continue
		}
		b.WriteString(rw.src[pos:e.start])
		b.WriteString(e.render())
		pos = e.end
	}
	b.WriteString(rw.src[pos:hi])
	return b.String()
}

// node returns the text of n with the edits inside it applied.
func (rw *rewriter) node(n ast.Node) string { return rw.text(rw.off(n.Pos()), rw.off(n.End())) }

// constant reports whether e is a constant expression: literals, the
// chunk's constants and the session's.
func (rw *rewriter) constant(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil, *ast.BasicLit, *ast.ParenExpr, *ast.BinaryExpr:
		case *ast.UnaryExpr:
			ok = ok && n.Op != token.ARROW && n.Op != token.AND
		case *ast.Ident:
			switch {
			case n.Obj != nil:
				ok = ok && n.Obj.Kind == ast.Con
			case n.Name == "true" || n.Name == "false" || n.Name == "nil" || n.Name == "iota":
			default:
				if rw.consts == nil {
					rw.consts = rw.s.constants()
				}
				ok = ok && rw.consts[n.Name]
			}
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// findStatements sets stmtOf and topLevel for the parsed chunk f.
func (rw *rewriter) findStatements(kind chunkKind, f *ast.File) {
	rw.stmtOf = map[*ast.CallExpr]ast.Stmt{}
	rw.topLevel = map[ast.Stmt]bool{}
	if kind != chunkDecl && len(f.Decls) == 1 {
		if fd, ok := f.Decls[0].(*ast.FuncDecl); ok && fd.Body != nil {
			for _, st := range fd.Body.List {
				rw.topLevel[st] = true
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var list []ast.Stmt
		switch n := n.(type) {
		case *ast.BlockStmt:
			list = n.List
		case *ast.CaseClause:
			list = n.Body
		case *ast.CommClause:
			list = n.Body
		}
		for _, st := range list {
			if _, ok := st.(*ast.GoStmt); ok {
				continue // its make calls are wrapped
			}
			if _, ok := st.(*ast.DeferStmt); ok {
				continue
			}
			ast.Inspect(st, func(m ast.Node) bool {
				if call, ok := m.(*ast.CallExpr); ok {
					if old, ok := rw.stmtOf[call]; !ok || old.Pos() <= st.Pos() && st.End() <= old.End() {
						rw.stmtOf[call] = st
					}
				}
				return true
			})
		}
		return true
	})
}

// rewriteGo replaces the go statement n by a call of goCall with a
// closure that evaluates the function value and the arguments at the go
// statement, as Go does, and calls the function in the new goroutine.
func (rw *rewriter) rewriteGo(n *ast.GoStmt) {
	call := n.Call
	k := rw.goCount
	rw.goCount++
	rw.edits = append(rw.edits, &edit{start: rw.off(n.Pos()), end: rw.off(n.End()), render: func() string {
		var defs, args []string
		name := func(i int) string { return "__go" + strconv.Itoa(k) + "_" + strconv.Itoa(i) }
		fn := rw.node(call.Fun)
		if !rw.calledByName(call.Fun) {
			defs = append(defs, name(0)+" := "+fn)
			fn = name(0)
		}
		for i, a := range call.Args {
			if rw.constant(a) {
				args = append(args, rw.node(a))
				continue
			}
			defs = append(defs, name(i+1)+" := "+rw.node(a))
			args = append(args, name(i+1))
		}
		dots := ""
		if call.Ellipsis.IsValid() {
			dots = "..."
		}
		return goCall + "func() func() { " + strings.Join(append(defs, ""), "; ") +
			"return func() { " + fn + "(" + strings.Join(args, ", ") + dots + ") } }())"
	}})
}

// calledByName reports whether the function of a go statement is called
// as written rather than through a variable: a function literal, or a
// builtin, declared or imported function, none of which changes (and a
// generic function is not a value).
func (rw *rewriter) calledByName(fun ast.Expr) bool {
	fun = ast.Unparen(fun)
	switch x := fun.(type) {
	case *ast.IndexExpr: // an instantiation f[T]
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	switch fun := fun.(type) {
	case *ast.FuncLit:
		return true
	case *ast.Ident:
		return (fun.Obj != nil && fun.Obj.Kind == ast.Fun) || (fun.Obj == nil && (goBuiltins[fun.Name] || rw.s.decls[fun.Name]))
	case *ast.SelectorExpr:
		id, ok := fun.X.(*ast.Ident)
		return ok && id.Obj == nil && rw.s.pkgs[id.Name] != ""
	}
	return false
}

// rewriteMake checks the sizes of the make call n, if it is one, before
// it runs: each size that is not a small literal goes through
// makeLenCall.
func (rw *rewriter) rewriteMake(n *ast.CallExpr) {
	id, ok := n.Fun.(*ast.Ident)
	if !ok || id.Name != "make" || id.Obj != nil || len(n.Args) < 2 || n.Ellipsis.IsValid() {
		return
	}
	for _, a := range n.Args[1:] {
		if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.INT {
			if v, err := strconv.ParseInt(lit.Value, 0, 64); err == nil && v < smallMake {
				continue
			}
		}
		typ := n.Args[0]
		check := func() string { return makeLenCall + "(" + rw.node(typ) + ")(nil), " + rw.node(a) + ")" }
		if st := rw.stmtOf[n]; st != nil && !rw.topLevel[st] && rereadable(a) {
			// Inside a function or a loop: an interpreted test
			// before the statement, and the call only for a large
			// size, so that small makes in a hot loop stay cheap.
			at := rw.off(st.Pos())
			rw.edits = append(rw.edits, &edit{start: at, end: at, render: func() string {
				return "if uint64(" + rw.node(a) + ") >= " + strconv.Itoa(smallMake) + " { " + check() + " }; "
			}})
			continue
		}
		rw.edits = append(rw.edits, &edit{start: rw.off(a.Pos()), end: rw.off(a.End()), render: check})
	}
}

// apply returns the source with the outermost edits applied, and where
// each one went.
func (rw *rewriter) apply() source {
	src := rw.src
	if len(rw.edits) == 0 {
		return plain(src)
	}
	sort.SliceStable(rw.edits, func(i, j int) bool { return rw.edits[i].start < rw.edits[j].start })
	out := source{orig: src}
	var b strings.Builder
	pos := 0
	for _, e := range rw.edits {
		if e.start < pos {
			continue // inside an outer edit, which renders it
		}
		b.WriteString(src[pos:e.start])
		r := e.render()
		out.edits = append(out.edits, span{start: e.start, end: e.end, at: b.Len(), n: len(r)})
		b.WriteString(r)
		pos = e.end
	}
	b.WriteString(src[pos:])
	out.text = b.String()
	return out
}

// smallMake is the size below which make is not checked: 2²⁰ elements
// of at most a few hundred bytes fit in any machine's memory.
const smallMake = 1 << 20

// rereadable reports whether evaluating e twice gives the same value and
// has no effect: names, literals, fields, indexing, arithmetic, len, cap
// and integer conversions.
func rereadable(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil, *ast.Ident, *ast.BasicLit, *ast.SelectorExpr, *ast.IndexExpr, *ast.ParenExpr, *ast.BinaryExpr:
		case *ast.UnaryExpr:
			ok = ok && n.Op != token.ARROW
		case *ast.CallExpr:
			id, isIdent := n.Fun.(*ast.Ident)
			ok = ok && isIdent && id.Obj == nil && len(n.Args) == 1 && !n.Ellipsis.IsValid()
			if ok {
				switch id.Name {
				case "len", "cap", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr":
				default:
					ok = false
				}
			}
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// constants returns the names of the session's constants.
func (s *Session) constants() map[string]bool {
	c := map[string]bool{}
	for name, v := range s.globals() {
		if v.IsValid() && strings.Contains(v.Type().String(), "constant.") {
			c[name] = true
		}
	}
	return c
}
