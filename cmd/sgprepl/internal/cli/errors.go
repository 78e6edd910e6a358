package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/cholqr/sgp/repl"
	"github.com/cholqr/sgp/sgp"
)

// exitError carries an exit status other than 1 for an error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErrorf returns an error with the usage exit status.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// Interrupt is the cause (context.Cause) with which cmd/sgprepl cancels
// the context of Main when the process receives Signal: Main stops the
// running work as for any cancellation and exits with status 130 for
// SIGINT, 143 for SIGTERM, 129 for SIGHUP.
type Interrupt struct {
	Signal os.Signal
}

func (i Interrupt) Error() string { return "signal: " + i.Signal.String() }

// interruptStatus returns the exit status of a command stopped by the
// cancellation of ctx: 143 if its cause is SIGTERM, 129 if SIGHUP, 130
// otherwise.
func interruptStatus(ctx context.Context) int {
	var in Interrupt
	if errors.As(context.Cause(ctx), &in) {
		switch in.Signal {
		case syscall.SIGTERM:
			return exitTerminated
		case syscall.SIGHUP:
			return exitHangup
		}
	}
	return exitInterrupted
}

// errInterrupted reports a fit stopped by cancellation whose partial result
// has been reported.
var errInterrupted = &exitError{code: exitInterrupted, err: errors.New("interrupted; the partial result is reported above")}

// errInterruptedAfter reports a signal that came after the fit had ended,
// while its outputs were written: they are complete, and the exit status
// still says that the process was asked to stop.
var errInterruptedAfter = &exitError{code: exitInterrupted, err: errors.New("interrupted after the fit ended; its result is complete and reported above")}

// interruptedFit returns errInterrupted for a fit that ended cancelled,
// errInterruptedAfter for one that ended on its own while ctx was
// cancelled by the time its outputs were written, and nil otherwise.
func interruptedFit(ctx context.Context, st sgp.Status) error {
	switch {
	case st == sgp.Cancelled:
		return errInterrupted
	case ctx.Err() != nil:
		return errInterruptedAfter
	}
	return nil
}

// report prints err, if any, as one line on stderr and returns its exit
// status. The "sgp: " prefix of library errors is dropped in favour of
// "sgprepl: ". A script or REPL cell that called os.Exit gives its code,
// silently, as a Go program does.
func report(e *env, err error) int {
	if err == nil {
		return exitOK
	}
	var exit *repl.ExitError
	if errors.As(err, &exit) {
		return exit.Code
	}
	msg := strings.TrimPrefix(err.Error(), "sgp: ")
	msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " ")
	fmt.Fprintf(e.stderr, "sgprepl: %s\n", msg)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailure
}

// --- demo ---

// fitError returns the error of a fit that did not produce a result worth
// reporting; a cancelled fit is reported, so it returns nil for it.
func fitError(res *sgp.Result, err error) error {
	if res == nil {
		if err == nil {
			err = errors.New("the fit returned no result")
		}
		return err
	}
	if err != nil && res.Status != sgp.Cancelled {
		return err
	}
	return nil
}

// noResult returns the error of a fit that returned no result (err, its
// error): cancelled before a first evaluation succeeded (Ctrl-C while the
// data were read, or at once), it is an interruption with exit status
// 130 (143 for SIGTERM, Main), or the time budget running out; nothing
// has been written. parent
// is the command's context, ctx the fit's (with the time budget).
func noResult(parent, ctx context.Context, err error) error {
	switch {
	case parent.Err() != nil:
		return &exitError{code: exitInterrupted, err: errors.New("interrupted before the fit reached a result; nothing was written")}
	case ctx.Err() != nil:
		return errors.New("the time budget ended before the fit reached a result; nothing was written (give a longer --time-budget)")
	case err == nil:
		return errors.New("the fit returned no result")
	}
	return err
}

// interrupted returns errInterrupted once ctx is cancelled (Ctrl-C or
// SIGTERM): the partial result has been reported and written; the exit
// status is 130 (143 for SIGTERM, Main).
func interrupted(ctx context.Context) error {
	if ctx.Err() != nil {
		return errInterrupted
	}
	return nil
}

// maxEcho is how many characters of an input (a kernel specification, a
// value) an error message quotes: a generated specification can be many
// kilobytes, and the message must stay one readable line.
const maxEcho = 80

// echo returns s for an error message: whole if it has at most maxEcho
// characters, or else its first maxEcho and "…".
func echo(s string) string {
	if r := []rune(s); len(r) > maxEcho {
		return string(r[:maxEcho]) + "…"
	}
	return s
}

// nameList lists names for an error message: at most 16 of them, then
// how many there are in all.
func nameList(names []string) string {
	const most = 16
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, … (%d in all)", strings.Join(names[:most], ", "), len(names))
}
