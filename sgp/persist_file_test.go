//go:build unix

package sgp

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSaveFileThroughLink: SaveFile on a symbolic link writes the file
// the link names, which keeps its permissions, and the link stays a
// link, for both kinds of model (it replaced the link with a 0600 file
// and left the real file stale).
func TestSaveFileThroughLink(t *testing.T) {
	t.Parallel()
	saved := savedSnelson(t)
	sparse, err := LoadPredictor(bytes.NewReader(saved))
	if err != nil {
		t.Fatal(err)
	}
	exact, _ := fittedExact(t)
	for _, tc := range []struct {
		name string
		r    Regressor
	}{{"sparse", sparse}, {"exact", exact.Predictor}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			real := filepath.Join(dir, "real.json")
			if err := os.WriteFile(real, []byte("stale"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(real, 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, "model.json")
			if err := os.Symlink("real.json", link); err != nil {
				t.Fatal(err)
			}
			if err := tc.r.SaveFile(link); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("model.json is no longer a link: %v, %v", fi.Mode(), err)
			}
			fi, err := os.Stat(real)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o644 {
				t.Errorf("real.json mode %v, want -rw-r--r--", fi.Mode())
			}
			var want bytes.Buffer
			if err := tc.r.Save(&want); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(real); !bytes.Equal(got, want.Bytes()) {
				t.Errorf("real.json holds %.40q…, want the saved model", got)
			}
			if _, err := LoadRegressorFile(link); err != nil {
				t.Errorf("loading through the link: %v", err)
			}
			if es, _ := os.ReadDir(dir); len(es) != 2 {
				t.Errorf("%d entries in the directory, want 2 (no temporary files)", len(es))
			}
		})
	}
}

// TestSaveFileNamedPipe: SaveFile to a named pipe writes the model to its
// reader and the pipe stays a pipe (it renamed a temporary file over the
// pipe: the reader got nothing and waited for ever).
func TestSaveFileNamedPipe(t *testing.T) {
	t.Parallel()
	p, err := LoadPredictor(bytes.NewReader(savedSnelson(t)))
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "model.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	written := make(chan struct{})
	got := make(chan []byte, 1)
	go func() { got <- readPipe(r, written) }()
	saved := make(chan error, 1)
	go func() {
		saved <- p.SaveFile(fifo)
		close(written)
	}()
	var b []byte
	select {
	case err := <-saved:
		if err != nil {
			t.Fatal(err)
		}
		b = <-got
	case <-time.After(60 * time.Second): // a hang, not a speed bound
		t.Fatal("SaveFile to a named pipe with a reader did not finish")
	}
	if q, err := LoadPredictor(bytes.NewReader(b)); err != nil || !strings.Contains(string(b), "sgp-model") {
		t.Errorf("the reader got %d bytes that do not load: %v", len(b), err)
	} else if q.NoiseV != p.NoiseV {
		t.Errorf("the model read back has σ² %v, want %v", q.NoiseV, p.NoiseV)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the named pipe became %v (%v)", fi.Mode(), err)
	}
}

// readPipe reads the named pipe r, opened with O_NONBLOCK so that opening
// does not wait for a writer, until the writer has closed it (written is
// closed after that): an end of file before then only means that no
// writer has opened the pipe yet.
func readPipe(r *os.File, written <-chan struct{}) []byte {
	var b []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		b = append(b, buf[:n]...)
		if err == nil {
			continue
		}
		select {
		case <-written:
			rest, _ := io.ReadAll(r)
			return append(b, rest...)
		default:
			time.Sleep(time.Millisecond)
		}
	}
}
