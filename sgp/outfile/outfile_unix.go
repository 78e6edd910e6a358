//go:build unix

package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// isDescriptorDir reports whether dir, with its links resolved, is a
// directory of open descriptors: /dev/fd, or /proc/PID/fd and
// /proc/PID/task/TID/fd of any process.
func isDescriptorDir(dir string) bool {
	if dir == "/dev/fd" {
		return true
	}
	rest, ok := strings.CutPrefix(dir, "/proc/")
	if !ok {
		return false
	}
	rest, ok = strings.CutSuffix(rest, "/fd")
	if !ok {
		return false
	}
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) == 1:
		return parts[0] == "self" || parts[0] == "thread-self" || isNumber(parts[0])
	case len(parts) == 3:
		return isNumber(parts[0]) && parts[1] == "task" && isNumber(parts[2])
	}
	return false
}

// ownDescriptor returns N if dir/base names this process's descriptor N:
// dir (links resolved) is /dev/fd, /proc/self/fd or /proc/PID/fd (or a
// thread's, /proc/PID/task/TID/fd) with PID this process, and base is N.
func ownDescriptor(dir, base string) (int, bool) {
	if !isNumber(base) || !isDescriptorDir(dir) {
		return 0, false
	}
	if dir != "/dev/fd" {
		pid := strings.Split(strings.TrimPrefix(dir, "/proc/"), "/")[0]
		if pid != "self" && pid != "thread-self" && pid != strconv.Itoa(os.Getpid()) {
			return 0, false
		}
	}
	fd, err := strconv.Atoi(base)
	if err != nil {
		return 0, false
	}
	return fd, true
}

// isNumber reports whether s is a non-empty string of decimal digits.
func isNumber(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// checkWritable reports whether this process may write the device, pipe
// or socket name (access(2) with W_OK).
func checkWritable(name string) error {
	return unix.Access(name, unix.W_OK)
}

// checkDescriptor reports whether descriptor fd is open for writing.
func checkDescriptor(fd int) error {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		if errors.Is(err, unix.EBADF) {
			return fmt.Errorf("descriptor %d is not open", fd)
		}
		return err
	}
	if flags&unix.O_ACCMODE == unix.O_RDONLY {
		return fmt.Errorf("descriptor %d is open for reading only", fd)
	}
	return nil
}

// openDescriptor returns a writer to this process's descriptor fd, and
// the closer to call when done: standard output and error are written
// through os.Stdout and os.Stderr (a closed pipe then ends the process
// with SIGPIPE, as it does any program writing there) and left open;
// another descriptor is duplicated, so that the output shares its file
// offset and flags (O_APPEND) and closing it leaves fd open.
func openDescriptor(fd int) (io.Writer, io.Closer, error) {
	if err := checkDescriptor(fd); err != nil {
		return nil, nil, err
	}
	switch fd {
	case 1:
		return os.Stdout, nil, nil
	case 2:
		return os.Stderr, nil, nil
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, nil, err
	}
	f := os.NewFile(uintptr(dup), "/dev/fd/"+strconv.Itoa(fd))
	return f, f, nil
}

// openStream opens the device or named pipe name for writing in place,
// without truncating it or making a terminal the controlling one. A
// named pipe is opened without blocking: with no reader that fails at
// once (ENXIO), and openStream says so.
func openStream(name string) (*os.File, error) {
	flag := os.O_WRONLY | syscall.O_NOCTTY
	fi, err := os.Stat(name)
	if err != nil {
		return nil, unwrapPath(err)
	}
	fifo := fi.Mode()&fs.ModeNamedPipe != 0
	if fifo {
		flag |= syscall.O_NONBLOCK
	}
	f, err := os.OpenFile(name, flag, 0)
	if err != nil {
		if fifo && errors.Is(err, unix.ENXIO) {
			return nil, errors.New("no process is reading this named pipe; start its reader before the output is written")
		}
		return nil, unwrapPath(err)
	}
	// The path named a stream when it was resolved; it must still.
	if fi, err := f.Stat(); err != nil || fi.Mode().IsRegular() || fi.IsDir() {
		f.Close()
		return nil, errors.New("it changed into a regular file or a directory while it was opened; try again")
	}
	return f, nil
}

// lockFile takes an exclusive lock (flock(2)) on the temporary file f,
// held until f is closed, so that removeStale leaves it alone while its
// writer lives. A file system without locks gives no error: its
// temporary files are then never taken for abandoned ones.
func lockFile(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if err == nil || errors.Is(err, unix.ENOLCK) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EINVAL) {
		return nil
	}
	return &os.PathError{Op: "flock", Path: f.Name(), Err: err}
}

// removeIfAbandoned removes the temporary file path if no process holds
// its lock: its writer was killed. It takes the lock first, so that no
// writer can be writing it while it is removed.
func removeIfAbandoned(path string) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if li, err := os.Lstat(path); err == nil && os.SameFile(fi, li) {
			os.Remove(filepath.Clean(path))
		}
	}
}

// keepOwner gives f the owner and group of fi where the process may (as
// root, or the group for a member of it); otherwise f keeps the process's.
func keepOwner(f *os.File, fi fs.FileInfo) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	if cur, err := f.Stat(); err == nil {
		if cs, ok := cur.Sys().(*syscall.Stat_t); ok && cs.Uid == st.Uid && cs.Gid == st.Gid {
			return
		}
	}
	if f.Chown(int(st.Uid), int(st.Gid)) != nil {
		f.Chown(-1, int(st.Gid))
	}
}
