//go:build unix

package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/peterh/liner"
	"golang.org/x/sys/unix"
)

// Supervise runs sgprepl with args in a child process, if args run the
// REPL or a script and this process is not such a child already, and
// returns the exit status for this process and true; otherwise it does
// nothing and returns false.
//
// The child has this process's standard streams. If this process is in
// the foreground of its terminal, the child is in the same process
// group: the terminal's Ctrl-C reaches it directly, and this process
// ignores its own copy. Otherwise (no terminal, or in the background)
// the child has a group of its own and this process forwards SIGINT and
// SIGQUIT to it. SIGTERM and SIGHUP are always forwarded.
//
// When the child ends, the terminal's mode is restored to what it was
// before the child started. A child that exits without reporting its
// status (Exiting), the Go runtime's exit after a fatal error, is a
// crash: a line on stderr, and exit status 3. A child killed by a signal
// gives 128 plus the signal's number, as a shell does.
func Supervise(args []string) (int, bool) {
	if os.Getenv(childEnv) != "" || !supervised(args) {
		return 0, false
	}
	exe, err := os.Executable()
	if err != nil {
		return 0, false // run in this process
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return 0, false
	}
	defer statusR.Close()

	foreground := inForeground()
	var mode liner.ModeApplier
	if foreground && isTTY(os.Stdin) {
		if m, err := liner.TerminalMode(); err == nil {
			mode = m
		}
	}

	cmd := exec.Command(exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{statusW} // descriptor 3 in the child
	cmd.Env = append(os.Environ(), childEnv+"=3")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: !foreground}
	dieWithParent(cmd.SysProcAttr)

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		statusW.Close()
		fmt.Fprintf(os.Stderr, "sgprepl: cannot start the session's process: %v\n", err)
		return exitFailure, true
	}
	statusW.Close()
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case sig := <-sigs:
				if (sig == os.Interrupt || sig == syscall.SIGQUIT) && foreground {
					continue // the terminal sent it to the child too
				}
				cmd.Process.Signal(sig)
			}
		}
	}()
	werr := cmd.Wait()
	close(done)
	if mode != nil {
		mode.ApplyMode()
	}

	b, _ := io.ReadAll(statusR)
	if code, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
		return code, true
	}
	var ee *exec.ExitError
	if !errors.As(werr, &ee) {
		if werr == nil {
			return exitOK, true // exited 0 without reporting: an os.Exit(0) of compiled code
		}
		fmt.Fprintf(os.Stderr, "sgprepl: waiting for the session's process: %v\n", werr)
		return exitFailure, true
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig := ws.Signal()
		if sig != syscall.SIGINT {
			fmt.Fprintf(os.Stderr, "sgprepl: the session was killed by signal %d (%v)%s\n", int(sig), sig, killHint(sig))
		}
		return 128 + int(sig), true
	}
	fmt.Fprintf(os.Stderr, "sgprepl: the session crashed (the Go runtime's report is above; exit status %d); its state is lost%s\n",
		ee.ExitCode(), restoredNote(mode != nil))
	return exitCrash, true
}

// killHint explains the usual sender of sig.
func killHint(sig syscall.Signal) string {
	if sig == syscall.SIGKILL {
		return ": the system may have run out of memory"
	}
	return ""
}

// restoredNote says that the terminal was restored, if it was.
func restoredNote(restored bool) string {
	if restored {
		return "; the terminal's settings are restored"
	}
	return ""
}

// inForeground reports whether this process is in the foreground process
// group of the terminal of one of its standard streams.
func inForeground() bool {
	for _, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		if !isTTY(f) {
			continue
		}
		pgrp, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP)
		return err == nil && pgrp == unix.Getpgrp()
	}
	return false
}

// isTTY reports whether f is a terminal.
func isTTY(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
