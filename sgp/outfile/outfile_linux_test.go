package outfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDeviceWrittenInPlace: a device node (made with mknod, as root) is
// written to, never replaced, directly and through a link. (The null
// device's numbers, 1 and 3 on Linux; /dev/null itself is not used.)
func TestDeviceWrittenInPlace(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("mknod: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("null", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{null, link} {
		if _, err := Check(p); err != nil {
			t.Errorf("Check(%s): %v", filepath.Base(p), err)
		}
		if err := Write(p, writeString("predictions\n")); err != nil {
			t.Errorf("Write(%s): %v", filepath.Base(p), err)
		}
		fi, err := os.Stat(null)
		if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("after writing %s the device is %v (%v)", filepath.Base(p), fi.Mode(), err)
		}
	}
	if ns := names(t, dir); strings.Join(ns, " ") != "link null" {
		t.Errorf("the directory holds %v", ns)
	}
}
