package repl

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
)

// yaegi v0.16.1 reports some uses of an undefined name with messages that
// do not say so: "constant definition loop" for y := nope, "incomplete
// type nope" from a CFG panic for f(nope). obscureError recognises those
// messages, and undefinedName then looks for a name the chunk uses that
// neither the chunk nor the session defines, so that the error can say
// "undefined: nope" at its position. No upstream issue was found;
// TestYaegiObscureUndefined in yaegi_canary_test.go fails once yaegi says
// "undefined".

// obscureError reports whether a yaegi error message may hide an
// undefined name.
func obscureError(msg string) bool {
	for _, m := range []string{"definition loop", "incomplete type", "CFG post-order panic", "undefined type"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// universe holds Go's predeclared names.
var universe = map[string]bool{
	"_": true, "true": true, "false": true, "nil": true, "iota": true,
	"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true, "float32": true,
	"float64": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true, "rune": true,
	"string": true, "uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"uintptr": true, "any": true, "comparable": true,
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true, "delete": true,
	"imag": true, "len": true, "make": true, "max": true, "min": true, "new": true, "panic": true,
	"print": true, "println": true, "real": true, "recover": true,
}

// undefinedName returns the first name that chunk c uses and that is
// defined neither in the chunk (anywhere, ignoring scopes) nor in the
// session, with its byte offset in c.src.
func (s *Session) undefinedName(c chunk) (name string, off int, ok bool) {
	prefix := stmtPrefix
	suffix := "\n}"
	if c.kind == chunkDecl || c.kind == chunkImport {
		prefix, suffix = "package p;", ""
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+c.src+suffix, parser.SkipObjectResolution)
	if err != nil {
		return "", 0, false
	}
	tf := fset.File(f.Pos())

	// Names defined in the chunk and the identifiers that are not
	// references (field and method names, struct literal keys, labels).
	defined := map[string]bool{}
	notRef := map[*ast.Ident]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						defined[id.Name] = true
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						defined[id.Name] = true
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				defined[id.Name] = true
			}
		case *ast.TypeSpec:
			defined[n.Name.Name] = true
		case *ast.FuncDecl:
			defined[n.Name.Name] = true
			notRef[n.Name] = true
		case *ast.Field:
			for _, id := range n.Names {
				defined[id.Name] = true // parameters; struct fields are never references
				notRef[id] = true
			}
		case *ast.ImportSpec:
			if n.Name != nil {
				defined[n.Name.Name] = true
			}
		case *ast.SelectorExpr:
			notRef[n.Sel] = true
		case *ast.CompositeLit:
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok {
						notRef[id] = true // a field name (or a map key, defined elsewhere)
					}
				}
			}
		case *ast.LabeledStmt:
			notRef[n.Label] = true
		case *ast.BranchStmt:
			if n.Label != nil {
				notRef[n.Label] = true
			}
		}
		return true
	})
	globals := s.globals()
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if found {
			return false
		}
		id, isIdent := n.(*ast.Ident)
		if !isIdent || notRef[id] || id == f.Name {
			return true
		}
		_, global := globals[id.Name]
		if defined[id.Name] || universe[id.Name] || global || s.decls[id.Name] || s.pkgs[id.Name] != "" {
			return true
		}
		o := tf.Offset(id.Pos()) - len(prefix)
		if o < 0 || o > len(c.src) {
			return true
		}
		name, off, found = id.Name, o, true
		return false
	})
	return name, off, found
}

// limitHint turns the messages yaegi v0.16.1 gives for constructs it does
// not support into one a user can act on, or returns "". yaegi
// interprets Go at about the level of Go 1.22: no range over an integer
// (upstream issue #1701: "nil type"), no min, max or clear builtins, no
// method expressions such as (*T).M. A "nil type" panic of the compiler
// otherwise means one of these. ("reflect: slice index out of range" is
// also what an index out of range in interpreted code gives, so it is left
// as it is.)
func limitHint(msg, src string) string {
	switch {
	case rangeOverInt.MatchString(src) && (strings.Contains(msg, "nil type") || strings.Contains(msg, "reflect")):
		return "the interpreter (yaegi) cannot range over an integer: write for i := 0; i < n; i++ { … }"
	case builtinCall.MatchString(src) && (strings.Contains(msg, "undefined") || strings.Contains(msg, "definition loop") || strings.Contains(msg, "nil type") || strings.Contains(msg, "reflect")):
		m := builtinCall.FindStringSubmatch(src)
		return fmt.Sprintf("the interpreter (yaegi) has no %s builtin: use math.Min/math.Max for floats, an if for ints, or a loop (for clear)", m[1])
	case methodExpr.MatchString(src) && (strings.Contains(msg, "reflect: Call with too many input arguments") || strings.Contains(msg, "Method index out of range") || strings.Contains(msg, "nil type")):
		m := methodExpr.FindStringSubmatch(src)
		return fmt.Sprintf("the interpreter (yaegi) cannot call the method expression %s: call the method on a value instead, e.g. v.%s(…), or wrap it: func(v T, …) { return v.%s(…) }", m[0], m[2], m[2])
	case msg == "nil type":
		return "the interpreter (yaegi) cannot run this construct (" + msg + "); its known limits: no range over an integer, no min/max/clear builtins, no method expressions like (*T).M — rewrite it with plain loops and calls, or move it into compiled Go"
	}
	return ""
}

var (
	rangeOverInt = regexp.MustCompile(`range\s+[0-9A-Za-z_.()]*[0-9]\s*\{|range\s+len\(`)
	builtinCall  = regexp.MustCompile(`(?:^|[^.\w])(min|max|clear)\(`)
	// methodExpr matches (*T).M, (*pkg.T).M and T.M where T is a type
	// name (capitalised after an optional package): method expressions.
	methodExpr = regexp.MustCompile(`(\(\*[A-Za-z_][\w.]*\)|\b[A-Z]\w*|\b[a-z]\w*\.[A-Z]\w*)\.([A-Z]\w*)\b`)
)
