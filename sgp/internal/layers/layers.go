// Package layers checks, from a package's tests, that its files are
// layered: each file refers only to declarations of the files listed
// before it (or its own), never to a file above it, so that the package
// reads from its foundations up. It type-checks the package's files for
// the current platform from source.
package layers

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Check type-checks the non-test Go files of the package in dir and
// reports, through t, every reference from a file to a declaration in a
// file that comes after it in order, and every file missing from order.
func Check(t *testing.T, dir string, order []string) {
	t.Helper()
	back, missing, err := Violations(dir, order)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range missing {
		t.Errorf("%s is not in the list of layers", f)
	}
	for _, v := range back {
		t.Errorf("%s refers to %s, a layer above it: %s", v.From, v.To, strings.Join(v.Names, ", "))
	}
}

// Violation is a file's references to a file above it.
type Violation struct {
	From, To string
	Names    []string // the declarations referred to
}

// Violations returns the references of the package in dir that go up
// the layers of order, and the files order does not list.
func Violations(dir string, order []string) (back []Violation, missing []string, err error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil, nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
		if !slices.Contains(order, name) {
			missing = append(missing, name)
		}
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, err := conf.Check(bp.ImportPath, fset, files, info)
	if err != nil {
		return nil, nil, fmt.Errorf("type-checking %s: %w", dir, err)
	}
	pos := make(map[string]int, len(order))
	for i, name := range order {
		pos[name] = i
	}
	refs := map[[2]string]map[string]bool{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !declared(obj, pkg) {
			continue
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		pf, okf := pos[from]
		pt, okt := pos[to]
		if from == to || !okf || !okt || pt < pf {
			continue
		}
		k := [2]string{from, to}
		if refs[k] == nil {
			refs[k] = map[string]bool{}
		}
		refs[k][name(obj)] = true
	}
	for k, names := range refs {
		v := Violation{From: k[0], To: k[1]}
		for n := range names {
			v.Names = append(v.Names, n)
		}
		sort.Strings(v.Names)
		back = append(back, v)
	}
	sort.Slice(back, func(a, b int) bool {
		if back[a].From != back[b].From {
			return pos[back[a].From] < pos[back[b].From]
		}
		return pos[back[a].To] < pos[back[b].To]
	})
	return back, missing, nil
}

// declared reports whether obj is declared at package level: a package
// name, function or method, or a field of a package-level type.
func declared(obj types.Object, pkg *types.Package) bool {
	switch o := obj.(type) {
	case *types.Func:
		return true
	case *types.Var:
		return o.IsField() || o.Parent() == pkg.Scope()
	case *types.TypeName, *types.Const:
		return obj.Parent() == pkg.Scope()
	}
	return false
}

// name returns obj's name, a method's with its receiver type.
func name(obj types.Object) string {
	if f, ok := obj.(*types.Func); ok {
		if r := f.Type().(*types.Signature).Recv(); r != nil {
			return types.TypeString(r.Type(), func(*types.Package) string { return "" }) + "." + f.Name()
		}
	}
	return obj.Name()
}
