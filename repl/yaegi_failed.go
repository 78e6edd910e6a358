package repl

import (
	"errors"
	"go/ast"
	"go/token"
	"reflect"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// yaegi v0.16.1 declares the variables of a top-level definition when it
// compiles it, so a definition that does not compile (var r sgp.Regressor
// = res) or panics before it assigns (bad := sgp.NewModel(x, y, 3)) still
// declares its names: :vars listed bad as a nil *sgp.Model, and a failed
// redefinition hid the old value behind a zero one. After a statement
// chunk fails, the session puts the symbols of the names its failed
// statements define back as they were before the chunk (undoDefinitions):
// a new name is gone, a redefined one is the old variable again. The
// symbol table is unexported and read by reflection, as in
// yaegi_release.go; if yaegi's layout changes nothing is undone, and
// TestYaegiKeepsFailedDefinitions in yaegi_canary_test.go fails, as it
// does once yaegi undoes them itself.

// mainSymbols returns the symbol table of package main of in, writable,
// or ok false if yaegi's layout is not the one this file knows.
func mainSymbols(in *interp.Interpreter) (syms reflect.Value, ok bool) {
	v := reflect.ValueOf(in).Elem()
	pkgs := v.FieldByName("srcPkg")
	if !pkgs.IsValid() || pkgs.Kind() != reflect.Map || pkgs.Type().Key().Kind() != reflect.String ||
		pkgs.Type().Elem().Kind() != reflect.Map || pkgs.Type().Elem().Key().Kind() != reflect.String {
		return reflect.Value{}, false
	}
	pkgs = reflect.NewAt(pkgs.Type(), unsafe.Pointer(pkgs.UnsafeAddr())).Elem()
	syms = pkgs.MapIndex(reflect.ValueOf("main"))
	if !syms.IsValid() || syms.IsNil() {
		return reflect.Value{}, false
	}
	return syms, true
}

// symbolsBefore returns a copy of the symbol table of package main of
// in (empty if nothing is declared yet or the layout is unknown).
func symbolsBefore(in *interp.Interpreter) map[string]reflect.Value {
	syms, ok := mainSymbols(in)
	if !ok {
		return map[string]reflect.Value{} // nothing declared yet, or unknown layout
	}
	before := make(map[string]reflect.Value, syms.Len())
	it := syms.MapRange()
	for it.Next() {
		before[it.Key().String()] = it.Value()
	}
	return before
}

// undoDefinitions puts the symbols of names back as they were in before:
// removed if they were not declared, the old symbol otherwise.
func undoDefinitions(in *interp.Interpreter, before map[string]reflect.Value, names []string) {
	if len(names) == 0 {
		return
	}
	syms, ok := mainSymbols(in)
	if !ok {
		return
	}
	for _, name := range names {
		if old, ok := before[name]; ok {
			syms.SetMapIndex(reflect.ValueOf(name), old)
		} else {
			syms.SetMapIndex(reflect.ValueOf(name), reflect.Value{})
		}
	}
}

// failedNames returns the names that the failed statements of chunk c of
// cell define at the top level: all of them if the chunk did not run (a
// compile error), those of the statement where it stopped and the ones
// after it if it ran and the error is located in the cell, none otherwise
// (what ran may have defined them).
func failedNames(cell string, c chunk, err error, ran bool) []string {
	var ce *CellError
	if c.kind != chunkStmt || !errors.As(err, &ce) || ce.Err != nil || ce.Returned != nil {
		return nil
	}
	from := 0 // cell offset from which statements failed
	if ran {
		if ce.Line == 0 {
			return nil
		}
		from = cellOffset(cell, ce.Line, ce.Column)
	}
	stmts, ok := parseStmts(c.src)
	if !ok {
		return nil
	}
	var names []string
	for _, st := range stmts {
		if c.off+st.end <= from {
			continue
		}
		names = append(names, definedNames(st.stmt)...)
	}
	return names
}

// definedNames returns the names a top-level statement defines.
func definedNames(st ast.Stmt) []string {
	var names []string
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			for _, l := range st.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
					names = append(names, id.Name)
				}
			}
		}
	case *ast.DeclStmt:
		if gd, ok := st.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, sp := range gd.Specs {
				for _, id := range sp.(*ast.ValueSpec).Names {
					if id.Name != "_" {
						names = append(names, id.Name)
					}
				}
			}
		}
	}
	return names
}

// cellOffset returns the byte offset of 1-based line and column in cell.
func cellOffset(cell string, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := 0
		for off+i < len(cell) && cell[off+i] != '\n' {
			i++
		}
		if off+i >= len(cell) {
			return len(cell)
		}
		off += i + 1
	}
	return min(off+col-1, len(cell))
}
