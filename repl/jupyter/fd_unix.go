//go:build unix

package jupyter

import (
	"os"

	"golang.org/x/sys/unix"
)

// redirectFD points file descriptor fd at w and returns a duplicate of
// what fd was, for restoreFD; the duplicate is closed on exec.
func redirectFD(fd int, w *os.File) (orig int, err error) {
	orig, err = unix.Dup(fd)
	if err != nil {
		return -1, err
	}
	unix.CloseOnExec(orig)
	if err := unix.Dup2(int(w.Fd()), fd); err != nil {
		unix.Close(orig)
		return -1, err
	}
	return orig, nil
}

// restoreFD points fd back at orig.
func restoreFD(fd, orig int) { unix.Dup2(orig, fd) }

// processAlive reports whether process pid exists.
func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}
