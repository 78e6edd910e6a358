//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestColumnModeOpenQuote: a column-mode file that is a pipe carrying a
// quoted field that is never closed, followed by endless short lines,
// fails once the record passes maxCSVRecord bytes, naming the last good
// record's line, instead of being read without bound.
func TestColumnModeOpenQuote(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "endless.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		_, _ = w.Write([]byte("smiles,y\nCCO,1\n\"CCN,2\n"))
		block := bytes.Repeat([]byte("C,1\n"), 1<<14)
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := w.Write(block); err != nil {
				return
			}
		}
	}()
	_, err := readColumnData(fifo, nil, "", "wl", "")
	if err == nil || !strings.Contains(err.Error(), "record after line 2 is longer than 64 MiB") {
		t.Fatalf("got %v, want the record limit naming line 2", err)
	}
}
