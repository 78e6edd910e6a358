package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/cholqr/sgp/repl/terminal"
)

// scriptUsage is the usage error of run and -e.
const scriptUsage = "usage: sgprepl run FILE.go, or sgprepl -e 'CODE'"

// scriptHelp is the help of run and -e.
const scriptHelp = `usage: sgprepl run FILE.go
       sgprepl -e 'CODE'

Runs Go statements and declarations (a file, or a package main whose main
runs once) in a new interactive session with fmt, math, sgp, kernel, data,
figure, mol, mat and display imported, printing what it prints and the value of its final
expression; figures are saved as PNG files ($SGPREPL_OUT chooses the
folder). A compile error, a panic or a final expression whose last value is
a non-nil error is one line on stderr and exit status 1; Ctrl-C (SIGINT)
stops the script with exit status 130, SIGTERM with 143; os.Exit(n) ends it
with status n.`

// runFile runs `sgprepl run FILE.go`.
func runFile(ctx context.Context, e *env, args []string) int {
	if len(args) == 1 && isHelpFlag(args[0]) {
		fmt.Fprintln(e.stdout, scriptHelp)
		return exitOK
	}
	if len(args) != 1 {
		return report(e, usageErrorf("run takes one Go file, got %d arguments; %s", len(args), scriptUsage))
	}
	src, err := os.ReadFile(args[0])
	if err != nil {
		return report(e, fmt.Errorf("cannot read %s: %w", args[0], errors.Unwrap(err)))
	}
	return report(e, scriptError(terminal.RunScript(ctx, e.streams(), args[0], terminal.ScriptSource(string(src)))))
}

// isHelpFlag reports whether arg asks for help.
func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// runCode runs `sgprepl -e 'CODE'`.
func runCode(ctx context.Context, e *env, args []string) int {
	if len(args) != 1 {
		return report(e, usageErrorf("-e takes one argument, the code, got %d; %s", len(args), scriptUsage))
	}
	return report(e, scriptError(terminal.RunScript(ctx, e.streams(), "", args[0])))
}

// scriptError gives an interrupted script its exit status, 130 (143 for
// SIGTERM, Main).
func scriptError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &exitError{code: exitInterrupted, err: err}
	}
	return err
}
