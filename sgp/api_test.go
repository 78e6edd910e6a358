package sgp

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// TestExportedAPIHasNoUnexportedTypes checks the public packages for an
// exported function, or an exported method of an exported type, whose
// parameters or results name one of the package's unexported types: a
// caller outside the package cannot make or name such a value, so the
// function is public in name only (and the REPL's symbols export it).
func TestExportedAPIHasNoUnexportedTypes(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{".", "kernel", "data", "figure", "mol", "outfile"} {
		for _, bad := range unexportedInAPI(t, dir) {
			t.Errorf("%s: %s", dir, bad)
		}
	}
}

// unexportedInAPI returns the exported functions and methods of the
// package in dir whose signatures name an unexported type of that
// package, each with the type.
func unexportedInAPI(t *testing.T, dir string) []string {
	t.Helper()
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	unexported := map[string]bool{}
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					if n := s.(*ast.TypeSpec).Name; !n.IsExported() {
						unexported[n.Name] = true
					}
				}
			}
		}
	}
	var bad []string
	// check reports the unexported types named in the signature ft of
	// the function called name.
	check := func(name string, ft *ast.FuncType) {
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field:
				ast.Inspect(n.Type, visit) // its type, not its names
				return false
			case *ast.SelectorExpr:
				return false // another package's name
			case *ast.Ident:
				if unexported[n.Name] {
					bad = append(bad, name+" names the unexported type "+n.Name)
				}
			}
			return true
		}
		ast.Inspect(ft, visit)
	}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					recv := receiverName(d.Recv.List[0].Type)
					if !ast.IsExported(recv) {
						continue
					}
					name = recv + "." + name
				}
				check(name, d.Type)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					if it, ok := ts.Type.(*ast.InterfaceType); ok {
						for _, m := range it.Methods.List {
							if ft, ok := m.Type.(*ast.FuncType); ok && len(m.Names) > 0 && m.Names[0].IsExported() {
								check(ts.Name.Name+"."+m.Names[0].Name, ft)
							}
						}
					}
				}
			}
		}
	}
	return bad
}

// receiverName returns the name of a method's receiver type, without its
// pointer and type parameters.
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
