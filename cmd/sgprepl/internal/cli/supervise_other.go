//go:build !unix

package cli

// Supervise runs the REPL and scripts in a child process on Unix only
// (supervise_unix.go); elsewhere it returns false, and they run in this
// process.
func Supervise(args []string) (int, bool) { return 0, false }
