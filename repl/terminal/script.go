package terminal

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"

	"github.com/cholqr/sgp/repl"
)

// RunScript evaluates src as one cell of a new Session, printing what it
// prints, the value of its final expression and the paths of its figures
// to e.Stdout. name, if not empty, is the file src was read from: errors
// are then located as "FILE:LINE:COL: message". An interrupted script
// returns an error that wraps context.Canceled.
func RunScript(ctx context.Context, e Streams, name, src string) error {
	figs := newFigureSaver()
	show := func(d repl.Display) {
		fmt.Fprintln(e.Stdout, d.Text)
		if d.PNG != nil {
			path, err := figs.save(d.PNG)
			if err != nil {
				fmt.Fprintf(e.Stderr, "sgprepl: cannot save a figure: %v\n", err)
				return
			}
			fmt.Fprintln(e.Stdout, figs.savedLine(path))
		}
	}
	s, err := repl.New(repl.Options{Stdout: e.Stdout, Stderr: e.Stderr, OnDisplay: show, Formats: []string{"png"}})
	if err != nil {
		return err
	}
	res, err := s.Eval(ctx, src)
	if res.Output != "" && !strings.HasSuffix(res.Output, "\n") {
		fmt.Fprintln(e.Stdout)
	}
	if err != nil {
		var ce *repl.CellError
		var exit *repl.ExitError
		switch {
		case errors.As(err, &exit):
			return exit
		case errors.As(err, &ce) && ce.Err != nil:
			return fmt.Errorf("%s: %w", ce.Msg, ce.Err)
		case errors.As(err, &ce) && ce.Line > 0 && name != "":
			return fmt.Errorf("%s:%d:%d: %s", name, ce.Line, ce.Column, ce.Message())
		}
		return err
	}
	if res.Value != nil {
		show(*res.Value)
	}
	return nil
}

// ScriptSource turns the text of a Go file into a cell: a package clause
// is blanked (keeping line and column numbers), and if the file declares
// func main a call to it is appended. Text without a package clause is a
// cell already.
func ScriptSource(src string) string {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var sc scanner.Scanner
	sc.Init(file, []byte(src), nil, 0)
	pos, tok, _ := sc.Scan()
	if tok != token.PACKAGE {
		return src
	}
	_, tok, name := sc.Scan()
	if tok != token.IDENT {
		return src
	}
	start := file.Offset(pos)
	end := strings.Index(src[start:], name) + start + len(name)
	cell := src[:start] + strings.Repeat(" ", end-start) + src[end:]

	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return cell
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "main" {
			return cell + "\nmain()\n"
		}
	}
	return cell
}
