package symbols

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// sgpKey is the key of package sgp in Symbols: import path, then name.
const sgpKey = "github.com/cholqr/sgp/sgp/sgp"

// exportedNames returns the exported, non-generic top-level names
// (functions, types, variables, constants) declared in the non-test Go
// files of dir, by parsing them: no type checking, no build.
func exportedNames(t *testing.T, dir string) (names map[string]bool, interfaces []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	names = map[string]bool{}
	fset := token.NewFileSet()
	for _, path := range files {
		// Files a default build leaves out (test files, files behind a
		// build tag such as openblas) are not extracted either.
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, filepath.Base(path)); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() && d.Type.TypeParams == nil {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() && s.TypeParams == nil {
							names[s.Name.Name] = true
							if _, ok := s.Type.(*ast.InterfaceType); ok {
								interfaces = append(interfaces, s.Name.Name)
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return names, interfaces
}

// TestSgpSymbolsComplete fails when an exported, non-generic name of sgp,
// sgp/figure or sgp/mol is missing from Symbols (or one there no longer
// exists), or when an interface's wrapper lacks one of its methods: the
// tables are stale. Run go generate ./symbols/... to refresh them.
func TestSgpSymbolsComplete(t *testing.T) {
	for _, pkg := range []struct{ dir, key string }{
		{filepath.Join("..", "sgp"), sgpKey},
		{filepath.Join("..", "sgp", "figure"), "github.com/cholqr/sgp/sgp/figure/figure"},
		{filepath.Join("..", "sgp", "mol"), "github.com/cholqr/sgp/sgp/mol/mol"},
	} {
		checkTable(t, pkg.dir, pkg.key)
	}
}

func checkTable(t *testing.T, dir, key string) {
	names, interfaces := exportedNames(t, dir)
	if len(names) == 0 {
		t.Fatalf("no exported names found in %s", dir)
	}
	table := Symbols[key]
	if table == nil {
		t.Fatalf("Symbols[%q] is missing; run go generate ./symbols/...", key)
	}
	var missing, extra []string
	for n := range names {
		if _, ok := table[n]; !ok {
			missing = append(missing, n)
		}
	}
	for n := range table {
		if !strings.HasPrefix(n, "_") && !names[n] {
			extra = append(extra, n)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("exported names of %s missing from the yaegi symbols: %v; run go generate ./symbols/...", dir, missing)
	}
	if len(extra) > 0 {
		t.Errorf("the yaegi symbols hold names %s no longer exports: %v; run go generate ./symbols/...", dir, extra)
	}

	// Each interface has a wrapper that implements it: a method added to
	// the interface after generation would be missing from the wrapper.
	for _, name := range interfaces {
		iface, ok1 := table[name]
		wrapper, ok2 := table["_"+name]
		if !ok1 || !ok2 {
			t.Errorf("interface %s or its wrapper _%s is missing; run go generate ./symbols/...", name, name)
			continue
		}
		it := iface.Type().Elem()
		if sealed(it) {
			continue // no type outside its package implements it, the wrapper included
		}
		wt := wrapper.Type().Elem()
		if !wt.Implements(it) && !reflect.PointerTo(wt).Implements(it) {
			t.Errorf("the wrapper of interface %s does not implement it; run go generate ./symbols/...", name)
		}
	}
}

// sealed reports whether the interface type it has an unexported method,
// which only types of its own package can implement (sgp.Fitted).
func sealed(it reflect.Type) bool {
	for i := range it.NumMethod() {
		if !it.Method(i).IsExported() {
			return true
		}
	}
	return false
}

// TestGeneratedFilesAreListed checks that every package named on a
// go:generate line has a table, so that a package added to the lines and
// never generated is noticed.
func TestGeneratedFilesAreListed(t *testing.T) {
	src, err := os.ReadFile("symbols.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(src), "\n") {
		args, ok := strings.CutPrefix(line, "//go:generate go tool yaegi extract ")
		if !ok {
			continue
		}
		for _, path := range strings.Fields(args) {
			key := path + "/" + path[strings.LastIndex(path, "/")+1:]
			if len(Symbols[key]) == 0 {
				t.Errorf("no symbols for %s (key %q); run go generate ./symbols/...", path, key)
			}
		}
	}
}
