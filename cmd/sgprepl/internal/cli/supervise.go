package cli

import (
	"os"
	"strconv"
)

// The REPL and scripts (run, -e) run in a child process of sgprepl, the
// same binary, under a parent that waits for it (supervise_unix.go). A
// Go program that dies of a fatal error (out of memory, a stack
// overflow, a panic no one recovers) cannot clean up: it would leave the
// terminal in the line editor's raw mode (-echo -icanon) and exit with
// the Go runtime's status 2, which the command line documents as a usage
// error. The parent restores the terminal's mode, and reports a crash
// with a line on stderr and exit status 3 (exitCrash).
//
// The child tells the parent its exit status on a pipe (childEnv names
// its descriptor) before it exits; an exit without that message is a
// crash.

// childEnv is set in the child's environment to the descriptor of the
// pipe on which it reports its exit status.
const childEnv = "SGPREPL_SUPERVISED_FD"

// supervised reports whether args run the REPL or a script, which
// Supervise runs in a child process. Malformed run and -e command lines
// are not: their usage error is reported by Main, in this process.
func supervised(args []string) bool {
	switch {
	case len(args) == 0:
		return true
	case args[0] == "run":
		return len(args) == 2 && !isHelpFlag(args[1])
	case args[0] == "-e":
		return len(args) == 2
	}
	return false
}

// Exiting tells a supervising parent that the process exits with status
// code on purpose (see Supervise). cmd/sgprepl calls it just before
// os.Exit.
func Exiting(code int) {
	fd, err := strconv.Atoi(os.Getenv(childEnv))
	if err != nil || fd < 3 {
		return
	}
	f := os.NewFile(uintptr(fd), "sgprepl-status")
	f.WriteString(strconv.Itoa(code))
	f.Close()
}
