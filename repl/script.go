package repl

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"strings"
)

// scriptUsage is the usage error of run and -e.
const scriptUsage = "usage: sgprepl run FILE.go, or sgprepl -e 'CODE'"

// runFile runs `sgprepl run FILE.go`.
func runFile(ctx context.Context, e *env, args []string) int {
	if len(args) != 1 {
		return report(e, usageErrorf("run takes one Go file, got %d arguments; %s", len(args), scriptUsage))
	}
	src, err := os.ReadFile(args[0])
	if err != nil {
		return report(e, fmt.Errorf("cannot read %s: %w", args[0], errors.Unwrap(err)))
	}
	return runScript(ctx, e, args[0], scriptSource(string(src)))
}

// runCode runs `sgprepl -e 'CODE'`.
func runCode(ctx context.Context, e *env, args []string) int {
	if len(args) != 1 {
		return report(e, usageErrorf("-e takes one argument, the code, got %d; %s", len(args), scriptUsage))
	}
	return runScript(ctx, e, "", args[0])
}

// runScript evaluates src as one cell of a new Session, printing what it
// prints, the value of its final expression and the paths of its figures.
// An error is one line on stderr ("sgprepl: FILE:LINE:COL: message") and
// exit status 1; an interruption exits with 130.
func runScript(ctx context.Context, e *env, name, src string) int {
	figs := newFigureSaver()
	show := func(d Display) {
		fmt.Fprintln(e.stdout, d.Text)
		if d.PNG != nil {
			path, err := figs.save(d.PNG)
			if err != nil {
				fmt.Fprintf(e.stderr, "sgprepl: cannot save a figure: %v\n", err)
				return
			}
			fmt.Fprintf(e.stdout, "figure saved: %s\n", path)
		}
	}
	s, err := New(Options{Stdout: e.stdout, Stderr: e.stderr, OnDisplay: show, Formats: []string{"png"}})
	if err != nil {
		return report(e, err)
	}
	res, err := s.Eval(ctx, src)
	if res.Output != "" && !strings.HasSuffix(res.Output, "\n") {
		fmt.Fprintln(e.stdout)
	}
	if err != nil {
		var ce *CellError
		switch {
		case errors.As(err, &ce) && ce.Err != nil:
			return report(e, &exitError{code: exitInterrupted, err: errors.New(ce.Msg)})
		case errors.As(err, &ce) && ce.Line > 0 && name != "":
			return report(e, fmt.Errorf("%s:%d:%d: %s", name, ce.Line, ce.Column, ce.message()))
		}
		return report(e, err)
	}
	if res.Value != nil {
		show(*res.Value)
	}
	return exitOK
}

// scriptSource turns the text of a Go file into a cell: a package clause
// is blanked (keeping line and column numbers), and if the file declares
// func main a call to it is appended. Text without a package clause is a
// cell already.
func scriptSource(src string) string {
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
