// Command sgprepl fits sparse Gaussian-process regression models by CholQR
// (Cao et al., NIPS 2013) from the command line. Run "sgprepl help" for the
// subcommands; the work is done by package repl.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/cholqr/sgp/repl"
)

func main() { os.Exit(run()) }

// run lets the deferred stop run before main exits. The first Ctrl-C
// cancels the context (a running fit stops and reports); stop then restores
// the default handling, so a second Ctrl-C ends the process at once.
func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	context.AfterFunc(ctx, stop)
	return repl.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
