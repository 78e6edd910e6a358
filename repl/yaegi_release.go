package repl

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// Upstream yaegi issue #1678 (open; v0.16.1): every Eval keeps what it
// computed. The interpreter's global frame (interp.frame.data) gets a new
// slot for each top-level definition, a redefinition x := … included
// (the old slot keeps the old value), and for each temporary of
// top-level code (the arguments of a call, the value of a cell's final
// expression). Nothing frees them, so a notebook that refits a model in a
// loop would keep every model.
//
// After each evaluation the session gives a new zero value to the slots
// the evaluation added that no variable holds (its temporaries) and to
// the old slot of each variable it redefined, unless code that lives on
// may still read that slot: a function or function literal (top-level
// code runs once) whose body refers to the name declared outside it
// (noteCaptives notes such names). The frame and the symbol table are unexported, so
// this reads them by reflection (frameOf); if yaegi's layout changes the
// session keeps everything, and TestYaegiKeepsRedefinedValues
// in yaegi_canary_test.go fails, as it does once yaegi frees the values
// itself.

// yaegiFrame is the interpreter's global frame: its slots and the mutex
// yaegi holds while it resizes or writes them.
type yaegiFrame struct {
	data *[]reflect.Value
	mu   *sync.RWMutex
	in   reflect.Value // the interp.Interpreter, for srcPkg
}

// frameOf returns the global frame of in, or ok false if yaegi's layout is
// not the one this file knows.
func frameOf(in *interp.Interpreter) (f yaegiFrame, ok bool) {
	v := reflect.ValueOf(in).Elem()
	fr := v.FieldByName("frame")
	if !fr.IsValid() || fr.Kind() != reflect.Pointer || fr.IsNil() {
		return f, false
	}
	data := fr.Elem().FieldByName("data")
	mu := fr.Elem().FieldByName("mutex")
	if !data.IsValid() || data.Type() != reflect.TypeFor[[]reflect.Value]() ||
		!mu.IsValid() || mu.Type() != reflect.TypeFor[sync.RWMutex]() {
		return f, false
	}
	f.data = (*[]reflect.Value)(unsafe.Pointer(data.UnsafeAddr()))
	f.mu = (*sync.RWMutex)(unsafe.Pointer(mu.UnsafeAddr()))
	f.in = v
	return f, true
}

// slots returns the frame index of each symbol of package main that has
// one (its variables), or ok false if yaegi's layout is not the one this
// file knows.
func (f yaegiFrame) slots() (m map[string]int, ok bool) {
	pkgs := f.in.FieldByName("srcPkg")
	if !pkgs.IsValid() || pkgs.Kind() != reflect.Map || pkgs.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	m = map[string]int{}
	syms := pkgs.MapIndex(reflect.ValueOf("main"))
	if !syms.IsValid() {
		return m, true // nothing declared yet
	}
	if syms.Kind() != reflect.Map {
		return nil, false
	}
	it := syms.MapRange()
	for it.Next() {
		sym := it.Value()
		if sym.Kind() != reflect.Pointer || sym.IsNil() {
			return nil, false
		}
		index := sym.Elem().FieldByName("index")
		if !index.IsValid() || index.Kind() != reflect.Int {
			return nil, false
		}
		if i := int(index.Int()); i >= 0 {
			m[it.Key().String()] = i
		}
	}
	return m, true
}

// frameState is what release needs from before an evaluation.
type frameState struct {
	ok    bool
	n     int            // number of slots
	slots map[string]int // variable → slot
	gen   uint64         // Session.gen
}

// frameBefore records the frame of in before an evaluation.
func (s *Session) frameBefore(in *interp.Interpreter) frameState {
	f, ok := frameOf(in)
	if !ok {
		return frameState{}
	}
	slots, ok := f.slots()
	if !ok {
		return frameState{}
	}
	f.mu.RLock()
	n := len(*f.data)
	f.mu.RUnlock()
	s.mu.Lock()
	gen := s.gen
	s.mu.Unlock()
	return frameState{ok: true, n: n, slots: slots, gen: gen}
}

// release empties the slots that the evaluation since st added and that
// no variable holds, and the old slots of the variables it redefined
// that no function may read. It does nothing for a cell that Eval has
// abandoned (see Session.gen): a later cell may be running.
func (s *Session) release(in *interp.Interpreter, st frameState) {
	if !st.ok {
		return
	}
	f, ok := frameOf(in)
	if !ok {
		return
	}
	now, ok := f.slots()
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != st.gen {
		return
	}
	live := make(map[int]bool, len(now))
	for _, i := range now {
		live[i] = true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	data := *f.data
	empty := func(i int) {
		if i < len(data) && data[i].IsValid() && !live[i] {
			// A new zero value, not data[i].SetZero(): a slot may alias
			// memory that lives on (yaegi stores the field of a variable
			// as the reflect.Value of that field), and a pointer taken to
			// an old variable must still see its value.
			data[i] = reflect.New(data[i].Type()).Elem()
		}
	}
	for i := st.n; i < len(data); i++ {
		empty(i)
	}
	if s.orphans > 0 {
		return // an abandoned cell still running may read a variable this one redefined
	}
	for name, i := range st.slots {
		if j, ok := now[name]; ok && j != i && !s.captive[name] {
			empty(i)
		}
	}
}

// noteCaptives adds to s.captive the names that the bodies of functions and
// function literals in chunk c refer to without declaring them: their
// slots may be read after the chunk has run. If c does not parse, every
// name in it is taken.
func (s *Session) noteCaptives(c chunk) {
	src := c.src
	prefix, suffix := stmtPrefix, "\n}"
	if c.kind == chunkDecl || c.kind == chunkImport {
		if c.kind == chunkImport {
			return
		}
		prefix, suffix = "package p;", ""
	}
	if !strings.Contains(src, "func") {
		return // no function, no body that outlives the chunk
	}
	names := map[string]bool{}
	defer func() {
		s.mu.Lock()
		for n := range names {
			s.captive[n] = true
		}
		s.mu.Unlock()
	}()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+src+suffix, 0)
	if err != nil {
		for _, name := range identifiers(src) {
			names[name] = true
		}
		return
	}
	var funcs []ast.Node // function declarations and literals of the chunk
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Name.Name != "_" || n.Recv != nil || c.kind == chunkDecl {
				funcs = append(funcs, n)
			}
		case *ast.FuncLit:
			funcs = append(funcs, n)
		}
		return true
	})
	for _, fn := range funcs {
		ast.Inspect(fn, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				ast.Inspect(n.X, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok {
						noteFree(names, fn, id)
					}
					return true
				})
				return false // n.Sel is a field or method
			case *ast.Ident:
				noteFree(names, fn, n)
			}
			return true
		})
	}
}

// noteFree adds id's name to names if id is not declared inside fn.
func noteFree(names map[string]bool, fn ast.Node, id *ast.Ident) {
	if id.Name == "_" {
		return
	}
	if id.Obj != nil {
		if d, ok := id.Obj.Decl.(ast.Node); ok && d.Pos() >= fn.Pos() && d.End() <= fn.End() {
			return
		}
	}
	names[id.Name] = true
}

// identifiers returns the identifiers of src.
func identifiers(src string) []string {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var sc scanner.Scanner
	sc.Init(file, []byte(src), nil, 0)
	var out []string
	for {
		_, t, lit := sc.Scan()
		if t == token.EOF {
			return out
		}
		if t == token.IDENT {
			out = append(out, lit)
		}
	}
}

// evalText evaluates src and then releases what the evaluation left in
// the frame that nothing reads any more.
func (s *Session) evalText(src string) error {
	in := s.in // Reset may replace it while an abandoned cell runs
	st := s.frameBefore(in)
	defer s.release(in, st)
	_, err := in.Eval(src)
	return err
}
