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
	"syscall"

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

// run lets the deferred cleanup run before main exits.
//
// With no arguments sgprepl is the interactive REPL, which handles Ctrl-C
// itself: it stops the running cell and never ends the REPL. Otherwise the
// first SIGINT (Ctrl-C), SIGTERM (timeout, Slurm, docker stop, systemd) or
// SIGHUP (the terminal or the ssh connection closed) cancels the context
// with the signal as its cause (cli.Interrupt): a running fit or script
// stops, writes what it has and reports, and Main returns 130, 143 or 129.
// The signals then get their default handling back, so a second one ends
// the process at once. The Jupyter kernel (sgprepl kernel) leaves SIGTERM
// and SIGHUP to their default, which ends it: Jupyter sends SIGTERM to a
// kernel that does not answer a shutdown request.
//
// For the commands (not scripts: run and -e), SIGPIPE is handled (and
// dropped), so that a write to a closed pipe on stdout or stderr fails
// with EPIPE instead of ending the process, as the Go runtime does for
// those two descriptors otherwise (os/signal): a closed stderr then stops
// only the progress lines, and output lost on a closed stdout is reported
// by Main and its exit status.
func run() int {
	args := os.Args[1:]
	if len(args) == 0 {
		return cli.Main(context.Background(), args, os.Stdin, os.Stdout, os.Stderr)
	}
	if args[0] != "run" && args[0] != "-e" {
		// Scripts keep Go's default: a Go program writing to a closed
		// stdout ends there, as `yes | head` does.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	}
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}
	if args[0] == "kernel" {
		sigs = sigs[:1]
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	defer signal.Stop(ch)
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(cli.Interrupt{Signal: s})
		case <-ctx.Done():
		}
	}()
	return cli.Main(ctx, args, os.Stdin, os.Stdout, os.Stderr)
}
