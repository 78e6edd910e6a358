package outfile

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// errNoUnnamed says that a directory cannot hold unnamed temporary files.
var errNoUnnamed = errors.New("unnamed temporary files are not available")

// openUnnamed creates an unnamed file in dir (open(2) with O_TMPFILE, mode
// 0666 less the umask), which disappears with the process unless it is
// linked into place (linkUnnamed). It returns errNoUnnamed where that is
// not possible: no O_TMPFILE support in the file system or the kernel, or
// no /proc to link it through.
func openUnnamed(dir string) (*os.File, error) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return nil, errNoUnnamed
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o666)
	switch {
	case err == nil:
		return os.NewFile(uintptr(fd), dir), nil
	case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.EISDIR), errors.Is(err, unix.EINVAL):
		// EISDIR: a kernel older than O_TMPFILE reads it as O_DIRECTORY.
		return nil, errNoUnnamed
	}
	return nil, &os.PathError{Op: "open", Path: dir, Err: err}
}

// linkUnnamed gives the unnamed file f the name target, which must not
// exist. linkat(2) through /proc/self/fd with AT_SYMLINK_FOLLOW needs no
// privilege (AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH).
func linkUnnamed(f *os.File, target string) error {
	proc := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if err := unix.Linkat(unix.AT_FDCWD, proc, unix.AT_FDCWD, target, unix.AT_SYMLINK_FOLLOW); err != nil {
		return &os.LinkError{Op: "link", Old: proc, New: target, Err: err}
	}
	return nil
}
