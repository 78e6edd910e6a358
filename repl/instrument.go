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
	off := func(p token.Pos) int { return tf.Offset(p) - len(prefix) }
	var edits []*edit
	// text returns src[lo:hi] with the outermost edits inside it applied,
	// except an edit of that very span (the one rendering it).
	var text func(lo, hi int) string
	text = func(lo, hi int) string {
		var b strings.Builder
		pos := lo
		for _, e := range edits {
			if e.start < pos || e.end > hi || (e.start == lo && e.end == hi) {
				continue
			}
			b.WriteString(src[pos:e.start])
			b.WriteString(e.render())
			pos = e.end
		}
		b.WriteString(src[pos:hi])
		return b.String()
	}
	node := func(n ast.Node) string { return text(off(n.Pos()), off(n.End())) }

	var consts map[string]bool // the session's constants, read when needed
	constant := func(e ast.Expr) bool {
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
					if consts == nil {
						consts = s.constants()
					}
					ok = ok && consts[n.Name]
				}
			default:
				ok = false
			}
			return ok
		})
		return ok
	}

	// The innermost statement of a statement list around each call, and
	// the statements of the chunk's top level (which run once).
	stmtOf := map[*ast.CallExpr]ast.Stmt{}
	topLevel := map[ast.Stmt]bool{}
	if kind != chunkDecl && len(f.Decls) == 1 {
		if fd, ok := f.Decls[0].(*ast.FuncDecl); ok && fd.Body != nil {
			for _, st := range fd.Body.List {
				topLevel[st] = true
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
					if old, ok := stmtOf[call]; !ok || old.Pos() <= st.Pos() && st.End() <= old.End() {
						stmtOf[call] = st
					}
				}
				return true
			})
		}
		return true
	})

	goCount := 0
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			call := n.Call
			k := goCount
			goCount++
			edits = append(edits, &edit{start: off(n.Pos()), end: off(n.End()), render: func() string {
				var defs, args []string
				name := func(i int) string { return "__go" + strconv.Itoa(k) + "_" + strconv.Itoa(i) }
				fn := node(call.Fun)
				fun := ast.Unparen(call.Fun)
				switch x := fun.(type) {
				case *ast.IndexExpr: // an instantiation f[T]
					fun = x.X
				case *ast.IndexListExpr:
					fun = x.X
				}
				switch fun := fun.(type) {
				case *ast.FuncLit:
				case *ast.Ident:
					// A builtin or a declared function is called by
					// name: neither changes, and a generic function
					// is not a value.
					declared := (fun.Obj != nil && fun.Obj.Kind == ast.Fun) || (fun.Obj == nil && (goBuiltins[fun.Name] || s.decls[fun.Name]))
					if !declared {
						defs = append(defs, name(0)+" := "+fn)
						fn = name(0)
					}
				case *ast.SelectorExpr:
					if id, ok := fun.X.(*ast.Ident); !ok || id.Obj != nil || s.pkgs[id.Name] == "" {
						defs = append(defs, name(0)+" := "+fn)
						fn = name(0)
					}
				default:
					defs = append(defs, name(0)+" := "+fn)
					fn = name(0)
				}
				for i, a := range call.Args {
					if constant(a) {
						args = append(args, node(a))
						continue
					}
					defs = append(defs, name(i+1)+" := "+node(a))
					args = append(args, name(i+1))
				}
				dots := ""
				if call.Ellipsis.IsValid() {
					dots = "..."
				}
				return goCall + "func() func() { " + strings.Join(append(defs, ""), "; ") +
					"return func() { " + fn + "(" + strings.Join(args, ", ") + dots + ") } }())"
			}})
		case *ast.CallExpr:
			id, ok := n.Fun.(*ast.Ident)
			if !ok || id.Name != "make" || id.Obj != nil || len(n.Args) < 2 || n.Ellipsis.IsValid() {
				return true
			}
			for _, a := range n.Args[1:] {
				if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.INT {
					if v, err := strconv.ParseInt(lit.Value, 0, 64); err == nil && v < smallMake {
						continue
					}
				}
				typ := n.Args[0]
				check := func() string { return makeLenCall + "(" + node(typ) + ")(nil), " + node(a) + ")" }
				if st := stmtOf[n]; st != nil && !topLevel[st] && rereadable(a) {
					// Inside a function or a loop: an interpreted test
					// before the statement, and the call (about 1 µs)
					// only for a large size.
					at := off(st.Pos())
					edits = append(edits, &edit{start: at, end: at, render: func() string {
						return "if uint64(" + node(a) + ") >= " + strconv.Itoa(smallMake) + " { " + check() + " }; "
					}})
					continue
				}
				edits = append(edits, &edit{start: off(a.Pos()), end: off(a.End()), render: check})
			}
		}
		return true
	})
	if len(edits) == 0 {
		return plain(src)
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	out := source{orig: src}
	var b strings.Builder
	pos := 0
	for _, e := range edits {
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
