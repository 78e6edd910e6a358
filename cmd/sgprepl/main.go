// Command sgprepl fits sparse Gaussian-process regression models by CholQR
// (Cao et al., NIPS 2013) from the command line, and runs Go interactively
// with the sgp library loaded. Run "sgprepl help" for the subcommands; the
// work is done by package cmd/sgprepl/internal/cli.
package main

import (
	"context"
	"log"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/cholqr/sgp/cmd/sgprepl/internal/cli"
	"github.com/cholqr/sgp/repl"
)

func main() {
	// A fit's heap is mostly a few large pointer-free float slices (the
	// factors G and Q, the gradient phase's Gᵀ), which the collector does
	// not scan, while its garbage is small blocks of rows. Go's default
	// (GOGC=100) lets the heap grow to twice the live data before
	// collecting: at n = 10⁶ that is 6 GB more than needed. Collecting at
	// 20% growth bounds the peak at 1.2× the live data for a few percent
	// of CPU. GOGC in the environment overrides this.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(20)
	}
	log.SetOutput(repl.YaegiLogFilter(os.Stderr))
	// The REPL and scripts run in a child process, so that the terminal
	// is restored and the exit status says so if the Go runtime ends
	// their session (see cli.Supervise).
	if code, ok := cli.Supervise(os.Args[1:]); ok {
		os.Exit(code)
	}
	code := run()
	cli.Exiting(code)
	os.Exit(code)
}

// run lets the deferred stop run before main exits.
//
// With no arguments sgprepl is the interactive REPL, which handles Ctrl-C
// itself: it stops the running cell and never ends the REPL. Otherwise the
// first Ctrl-C cancels the context (a running fit or script stops and
// reports); stop then restores the default handling, so a second Ctrl-C
// ends the process at once.
func run() int {
	args := os.Args[1:]
	if len(args) == 0 {
		return cli.Main(context.Background(), args, os.Stdin, os.Stdout, os.Stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	context.AfterFunc(ctx, stop)
	return cli.Main(ctx, args, os.Stdin, os.Stdout, os.Stderr)
}
