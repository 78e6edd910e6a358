package cli

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/cholqr/sgp/sgp"
)

// TestOutputDevice: an output that is a device node (made with mknod, as
// root: the null device's numbers) is written in place, directly or
// through a link, and stays a device; two outputs may name it (it
// replaced the node with a regular file holding the predictions). A
// device that fails the write does so after the regular files are
// written, and the error line names them.
func TestOutputDevice(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	dir := t.TempDir()
	model, input, _ := savedModel(t, dir)
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("mknod: %v", err)
	}
	link := filepath.Join(dir, "null-link")
	if err := os.Symlink("null", link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"predict", "--model", model, "--input", input, "--output", null},
		{"predict", "--model", model, "--input", input, "--output", link},
		{"fit", "--train", input, "--test", input, "--m", "3", "--max-epochs", "2", "--quiet", "--save", null, "--predictions", link},
	} {
		if code, _, stderr := runMain(context.Background(), args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args[len(args)-2:], code, stderr)
		}
		if fi, err := os.Lstat(null); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("after %v the device is %v (%v)", args[len(args)-2:], fi.Mode(), err)
		}
	}

	// A device that refuses the write (the full device, 1 and 7) is
	// written after the files, and the error says they were written.
	full := filepath.Join(dir, "full")
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, int(unix.Mkdev(1, 7))); err != nil {
		t.Skipf("mknod: %v", err)
	}
	saved := filepath.Join(dir, "saved.json")
	code, _, stderr := runMain(context.Background(), "fit", "--train", input, "--test", input, "--m", "3", "--max-epochs", "2", "--quiet",
		"--save", saved, "--predictions", full)
	if code != exitFailure || !strings.Contains(stderr, "no space left") || !strings.Contains(stderr, "saved.json written") {
		t.Errorf("--predictions to the full device: exit %d, stderr %q", code, stderr)
	}
	oneErrorLine(t, stderr)
	if _, err := sgp.LoadRegressorFile(saved); err != nil {
		t.Errorf("the model written before the failed device: %v", err)
	}
	if fi, err := os.Lstat(full); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("the full device became %v (%v)", fi.Mode(), err)
	}
}

// openPTY opens a pseudo-terminal pair (Linux: /dev/ptmx, unlocked, and
// its /dev/pts/N).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the terminal: %v", err)
	}
	return m, s
}
