//go:build !unix

package jupyter

import (
	"errors"
	"os"
	"runtime"
)

// redirectFD is not supported here: the kernel runs without capturing the
// output of compiled code.
func redirectFD(fd int, w *os.File) (orig int, err error) {
	return -1, errors.New("redirecting file descriptors is not supported on " + runtime.GOOS)
}

func restoreFD(fd, orig int) {}

// processAlive reports whether process pid exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
