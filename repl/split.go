package repl

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

// A cell is what a user types at one prompt, or one notebook cell: Go
// statements and top-level declarations in any order. yaegi v0.16.1 parses
// each Eval either as a file (when it starts with import, type, func, var
// or const) or as the body of a function, so it cannot evaluate a
// declaration followed by statements ("expected declaration, found x").
// splitCell cuts a cell into chunks that yaegi can evaluate one after the
// other with the same meaning.

// chunkKind says how a chunk is evaluated.
type chunkKind int

const (
	chunkImport chunkKind = iota // import declarations
	chunkDecl                    // type, func (with a name) and const declarations
	chunkStmt                    // statements, including var declarations and := definitions
	chunkExpr                    // the cell's final expression statement, whose value is shown
	chunkBlock                   // one compound statement (for, if, switch, select, block), run in a function literal
)

// chunk is a piece of a cell that yaegi evaluates on its own.
type chunk struct {
	kind chunkKind
	src  string // the cell's text, unchanged
	off  int    // byte offset of src in the cell
	expr ast.Expr
}

// tok is a token of a cell at bracket depth 0 or the first after an
// opening bracket; end is the offset just past it.
type tok struct {
	tok      token.Token
	off, end int
	depth    int // bracket depth before the token
}

// scanCell returns the tokens of src, or ok=false if src does not scan
// (an illegal character, an unterminated literal or comment).
func scanCell(src string) (toks []tok, ok bool) {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	bad := false
	s.Init(file, []byte(src), func(token.Position, string) { bad = true }, 0)
	depth := 0
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		off := file.Offset(pos)
		end := off + len(lit)
		if lit == "" || t == token.SEMICOLON {
			end = off + len(t.String())
			if t == token.SEMICOLON && lit == "\n" {
				end = off // an inserted semicolon takes no room
			}
		}
		toks = append(toks, tok{tok: t, off: off, end: end, depth: depth})
		switch t {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
	}
	return toks, !bad
}

// IsComplete reports whether src is a complete cell: brackets balanced,
// literals and comments closed, and not ending in a token that continues
// on the next line (an operator, a comma, a dot). A terminal REPL reads
// more lines while it is false. A complete cell may still hold errors.
func IsComplete(src string) bool {
	if strings.TrimSpace(src) == "" {
		return true
	}
	toks, ok := scanCell(src)
	if !ok {
		// An unterminated raw string or block comment continues; other
		// scanning errors are reported when the cell is evaluated.
		return !unterminated(src)
	}
	depth := 0
	last := token.ILLEGAL
	for _, t := range toks {
		switch t.tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
		if t.tok != token.SEMICOLON {
			last = t.tok
		}
	}
	if depth > 0 {
		return false
	}
	// A line ending in a binary operator, an assignment, a comma or a dot
	// goes on, as in Go source (no semicolon is inserted after them).
	switch last {
	case token.RPAREN, token.RBRACK, token.RBRACE, token.INC, token.DEC, token.ELLIPSIS:
		return true
	}
	return !last.IsOperator()
}

// unterminated reports whether src ends inside a raw string literal or a
// block comment.
func unterminated(src string) bool {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	found := false
	s.Init(file, []byte(src), func(_ token.Position, msg string) {
		if msg == "raw string literal not terminated" || msg == "comment not terminated" {
			found = true
		}
	}, scanner.ScanComments)
	for {
		if _, t, _ := s.Scan(); t == token.EOF {
			break
		}
	}
	return found
}

// item is a top-level piece of a cell between semicolons at bracket depth
// 0, classified by its first tokens.
type item struct {
	kind     chunkKind
	off, end int
}

// splitCell cuts cell into chunks: runs of imports, runs of other
// declarations and runs of statements, in order, with a final expression
// statement in a chunk of its own so that its value can be shown. A cell
// that does not scan or parse is returned as one statement chunk, for
// yaegi to report the error.
func splitCell(cell string) []chunk {
	toks, ok := scanCell(cell)
	whole := []chunk{{kind: chunkStmt, src: cell}}
	if !ok {
		return whole
	}
	var items []item
	for i := 0; i < len(toks); {
		// One item: tokens up to a semicolon at depth 0.
		j := i
		for j < len(toks) && (toks[j].tok != token.SEMICOLON || toks[j].depth > 0) {
			j++
		}
		if j > i {
			items = append(items, item{kind: classify(toks[i:j]), off: toks[i].off, end: toks[j-1].end})
		}
		i = j + 1
	}
	if len(items) == 0 {
		return nil
	}

	// Merge runs of items of one kind.
	var runs []item
	for _, it := range items {
		if n := len(runs); n > 0 && runs[n-1].kind == it.kind {
			runs[n-1].end = it.end
			continue
		}
		runs = append(runs, it)
	}

	var chunks []chunk
	for i, r := range runs {
		src := cell[r.off:r.end]
		if r.kind != chunkStmt {
			chunks = append(chunks, chunk{kind: r.kind, src: src, off: r.off})
			continue
		}
		stmts, ok := parseStmts(src)
		if !ok {
			return whole
		}
		// The last statement of the cell, if an expression, is shown.
		var last *stmtSpan
		if i == len(runs)-1 && len(stmts) > 0 {
			if _, isExpr := stmts[len(stmts)-1].stmt.(*ast.ExprStmt); isExpr {
				last = &stmts[len(stmts)-1]
				stmts = stmts[:len(stmts)-1]
			}
		}
		// Runs of simple statements, and each compound statement and each
		// definition from an index expression or a comma-ok type
		// assertion alone.
		for j := 0; j < len(stmts); {
			if compound(stmts[j].stmt) {
				chunks = append(chunks, chunk{kind: chunkBlock, src: src[stmts[j].off:stmts[j].end], off: r.off + stmts[j].off})
				j++
				continue
			}
			if singled(stmts[j].stmt) {
				chunks = append(chunks, chunk{kind: chunkStmt, src: src[stmts[j].off:stmts[j].end], off: r.off + stmts[j].off})
				j++
				continue
			}
			k := j
			for k < len(stmts) && !compound(stmts[k].stmt) && !singled(stmts[k].stmt) {
				k++
			}
			chunks = append(chunks, chunk{kind: chunkStmt, src: src[stmts[j].off:stmts[k-1].end], off: r.off + stmts[j].off})
			j = k
		}
		if last != nil {
			chunks = append(chunks, chunk{kind: chunkExpr, src: src[last.off:last.end], off: r.off + last.off, expr: last.stmt.(*ast.ExprStmt).X})
		}
	}
	return chunks
}

// compound reports whether s is a statement with a block: yaegi v0.16.1
// fails on r, err := f() inside such a block at the top level ("undefined:
// r"), so the session runs each one in a function literal. That keeps Go's
// scoping: what a for, if, switch or block declares is local to it (yaegi
// would otherwise make a for loop's variable a session variable, upstream
// issue #1053, open). TestYaegiTopLevelBlocks in yaegi_canary_test.go
// fails once yaegi gets both right.
func compound(s ast.Stmt) bool {
	switch s.(type) {
	case *ast.ForStmt, *ast.RangeStmt, *ast.IfStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt,
		*ast.SelectStmt, *ast.BlockStmt, *ast.LabeledStmt:
		return true
	}
	return false
}

// singled reports whether s is a definition the session evaluates in a
// chunk of its own: see indexDefine and assertDefine (yaegi_define.go).
func singled(s ast.Stmt) bool {
	return indexDefine(s) != nil || assertDefine(s) != nil
}

// indexDefine returns s if it is x := e or x, ok := e where e indexes a
// slice, array, map or string somewhere: yaegi v0.16.1 cannot infer the
// type of such a definition at the top level when the indexed value comes
// from compiled code ("constant definition loop", a nil dereference, or a
// wrong frame index when it is defined in the same Eval). The session
// evaluates such a statement alone and, if it fails, again with the type
// written out (see Session.typedDefine).
func indexDefine(s ast.Stmt) *ast.AssignStmt {
	as, ok := s.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Rhs) != 1 || len(as.Lhs) > 2 {
		return nil
	}
	for _, l := range as.Lhs {
		if _, ok := l.(*ast.Ident); !ok {
			return nil
		}
	}
	found := false
	ast.Inspect(as.Rhs[0], func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IndexExpr:
			found = true
		}
		return !found
	})
	if !found {
		return nil
	}
	return as
}

// classify says whether the tokens of one top-level item start an import,
// a declaration or a statement. var declarations are statements: yaegi
// evaluates them in the global scope either way, and as statements they
// can be followed by other statements in the same chunk.
func classify(ts []tok) chunkKind {
	switch ts[0].tok {
	case token.IMPORT:
		return chunkImport
	case token.TYPE, token.CONST:
		return chunkDecl
	case token.FUNC:
		// func Name(…) and func (recv) Name(…) declare; func(…) {…}(…)
		// is a function literal in a statement.
		if len(ts) > 1 && ts[1].tok == token.IDENT {
			return chunkDecl
		}
		if len(ts) > 1 && ts[1].tok == token.LPAREN {
			for k := 2; k < len(ts); k++ {
				if ts[k].tok == token.RPAREN && ts[k].depth == 1 {
					// A method name follows the receiver, then its
					// parameters; a literal's result type is not followed
					// by "(".
					if k+2 < len(ts) && ts[k+1].tok == token.IDENT && ts[k+2].tok == token.LPAREN {
						return chunkDecl
					}
					break
				}
			}
		}
	}
	return chunkStmt
}

// stmtSpan is a statement of a chunk and its byte range in the chunk.
type stmtSpan struct {
	stmt     ast.Stmt
	off, end int
}

// stmtPrefix wraps statements so that go/parser reads them as a function
// body.
const stmtPrefix = "package p; func _() {\n"

// parseStmts parses src as a list of statements.
func parseStmts(src string) ([]stmtSpan, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", stmtPrefix+src+"\n}", parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return nil, false
	}
	fn, ok := f.Decls[0].(*ast.FuncDecl)
	if !ok || fn.Body == nil {
		return nil, false
	}
	tf := fset.File(f.Pos())
	spans := make([]stmtSpan, 0, len(fn.Body.List))
	for _, s := range fn.Body.List {
		if _, empty := s.(*ast.EmptyStmt); empty {
			continue
		}
		off := tf.Offset(s.Pos()) - len(stmtPrefix)
		end := tf.Offset(s.End()) - len(stmtPrefix)
		if off < 0 || end > len(src) || off > end {
			return nil, false
		}
		spans = append(spans, stmtSpan{stmt: s, off: off, end: end})
	}
	return spans, true
}

// declNames returns the names declared at top level by a declaration
// chunk (types, functions, constants), for completion.
func declNames(src string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", "package p;"+src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

// importSpec is one import of an import chunk: its package name in the
// session, its path, and the byte range of the spec and of the import
// declaration holding it in the chunk.
type importSpec struct {
	name, path         string
	off, end           int
	declOff, declEnd   int
	declSpecs, declIdx int // number of specs in the declaration, index of this one
}

// importSpecs returns the imports of an import chunk, or nil if it does
// not parse.
func importSpecs(src string) []importSpec {
	const prefix = "package p;"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+src, parser.ImportsOnly|parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	tf := fset.File(f.Pos())
	off := func(p token.Pos) int { return tf.Offset(p) - len(prefix) }
	var specs []importSpec
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		for i, sp := range gd.Specs {
			is := sp.(*ast.ImportSpec)
			p := strings.Trim(is.Path.Value, "\"`")
			name := pathBase(p)
			if is.Name != nil {
				name = is.Name.Name
			}
			specs = append(specs, importSpec{name: name, path: p, off: off(is.Pos()), end: off(is.End()),
				declOff: off(gd.Pos()), declEnd: off(gd.End()), declSpecs: len(gd.Specs), declIdx: i})
		}
	}
	return specs
}
