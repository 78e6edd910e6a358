//go:build unix

package figure

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSaveNotRegular: Save to a named pipe with no reader fails at once
// and says why (it blocked for ever opening the pipe), and through a
// symbolic link it writes the link's target and keeps the link.
func TestSaveNotRegular(t *testing.T) {
	t.Parallel()
	f := Curves("t", "x", "y", false, []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{3, 4}}})
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fig.png")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- f.Save(fifo) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no process is reading") {
			t.Errorf("Save to a pipe with no reader: %v", err)
		}
	case <-time.After(60 * time.Second): // a hang, not a speed bound
		t.Fatal("Save to a named pipe with no reader blocks")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the named pipe became %v (%v)", fi.Mode(), err)
	}

	target := filepath.Join(dir, "real.png")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.png")
	if err := os.Symlink("real.png", link); err != nil {
		t.Fatal(err)
	}
	if err := f.Save(link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link.png is no longer a link (%v)", err)
	}
	if b, _ := os.ReadFile(target); !bytes.Equal(b, f.PNG()) {
		t.Errorf("real.png holds %d bytes, not the figure's PNG", len(b))
	}
}
