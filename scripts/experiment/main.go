// Command experiment runs one of the experiments of the paper (Cao et al.
// 2013, §5) and of the project's hybrid selector on the shared data sets
// ($SGP_DATA, default ../shared/data) and writes its results table as
// NAME.csv and NAME.md, with its PNG plots, to --out. docs/results.md
// holds the tables and the commands that reproduce them; scripts/results.sh
// runs them all. It is a measurement, not a test.
//
//	go run ./scripts/experiment [flags] NAME
//
// The experiments are snelson, kin40k, thrombin, hybrid and z (-h lists
// them with what each compares).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/cholqr/sgp/sgp/outfile"
)

// exitUsage is the exit status of a usage error; other failures exit 1.
const exitUsage = 2

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// env is where an experiment writes its progress lines and rows.
type env struct {
	stdout io.Writer
}

// usageError is a bad command line: the name or a flag.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, a ...any) error {
	return &usageError{fmt.Sprintf(format, a...)}
}

// runMain parses args (flags before or after the experiment's name), runs
// the experiment and returns the exit status: 0, 1 for a failure, 2 for
// a usage error.
func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("experiment", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./scripts/experiment [--out DIR] [--data DIR] [--budget D] [--m M1,M2,…] [--seed S] [--seeds K] NAME")
		for _, x := range experiments() {
			fmt.Fprintf(stderr, "  %-9s %s\n", x.name, x.doc)
		}
		fs.PrintDefaults()
	}
	run := experimentFlags(fs)
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		// "NAME --flag …": the flag package stops at the first positional
		// argument, so parse the flags first.
		args = append(append([]string(nil), args[1:]...), args[0])
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	err := run(ctx, &env{stdout: stdout})
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "experiment:", err)
	if ue := (*usageError)(nil); errors.As(err, &ue) {
		return exitUsage
	}
	return 1
}

// stopText returns how a fit stopped: the status, then ": " and the
// reason of a fit that gives one (as sgprepl's "stopped").
func stopText(s fmt.Stringer, reason string) string {
	if reason == "" {
		return s.String()
	}
	return s.String() + ": " + reason
}

// output is one file an experiment writes: its path and its contents.
type output struct {
	path  string
	write func(io.Writer) error
}

// checkOutputs returns an error, before the long run, for a path that
// cannot take a file (a directory, a missing or unwritable directory).
func checkOutputs(paths ...string) error {
	for _, p := range paths {
		if _, err := outfile.Check(p); err != nil {
			return err
		}
	}
	return nil
}

// writeOutputs writes every output to a temporary file of its own and
// renames them into place only once all are complete (outfile): a failed
// write leaves every path as it was.
func writeOutputs(outs ...output) error {
	files := make([]*outfile.File, 0, len(outs))
	defer func() {
		for _, f := range files {
			f.Discard()
		}
	}()
	for _, o := range outs {
		f, err := outfile.Create(o.path)
		if err != nil {
			return err
		}
		files = append(files, f)
		if err := o.write(f); err != nil {
			return err
		}
	}
	for i, f := range files {
		if err := f.Commit(); err != nil {
			return fmt.Errorf("%w (%d of %d files written)", err, i, len(files))
		}
	}
	return nil
}
