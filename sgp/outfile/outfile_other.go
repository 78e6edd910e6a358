//go:build !unix

package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
)

// isDescriptorDir reports false: descriptors are named by path only on
// Unix systems.
func isDescriptorDir(string) bool { return false }

// ownDescriptor reports false: descriptors are named by path only on Unix
// systems.
func ownDescriptor(string, string) (int, bool) { return 0, false }

// checkWritable leaves the check to opening the file.
func checkWritable(string) error { return nil }

// checkDescriptor is never called: ownDescriptor finds none.
func checkDescriptor(int) error { return errors.New("descriptors are not supported on this system") }

// openDescriptor is never called: ownDescriptor finds none.
func openDescriptor(int) (io.Writer, io.Closer, error) {
	return nil, nil, errors.New("descriptors are not supported on this system")
}

// openStream opens the device name for writing in place.
func openStream(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	return f, unwrapPath(err)
}

// lockFile does nothing: an open file cannot be removed on Windows, which
// is the lock removeIfAbandoned needs.
func lockFile(*os.File) error { return nil }

// removeIfAbandoned removes the temporary file path on Windows, where that
// fails while its writer has it open; elsewhere it leaves it.
func removeIfAbandoned(path string) {
	if runtime.GOOS == "windows" {
		os.Remove(path)
	}
}

// keepOwner does nothing: ownership is the system's.
func keepOwner(*os.File, fs.FileInfo) {}
