package terminal

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHistoryFile: the history is private (0600), appended, and two
// sessions writing at once lose no entry.
func TestHistoryFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sgp", "history")
	done := make(chan bool)
	for s := range 2 {
		go func() {
			for i := range 50 {
				appendHistory(path, strings.Repeat(string(rune('a'+s)), 10)+strconv.Itoa(i))
			}
			done <- true
		}()
	}
	<-done
	<-done
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 100 {
		t.Errorf("%d entries, want 100", n)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %o, want 600", fi.Mode().Perm())
	}
}
