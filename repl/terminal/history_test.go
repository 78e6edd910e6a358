package terminal

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cholqr/sgp/repl"
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

// TestHistoryLoadsPastBadLines: a history line longer than 4096 bytes (a
// pasted cell) or not UTF-8 does not stop the lines after it from
// loading; the long line loads too.
func TestHistoryLoadsPastBadLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	long := "x := " + strings.Repeat("1 + ", 2000) + "1"
	lines := []string{"first := 1", long, "after := 2", "bad \xff\xfe utf-8", "last := 3"}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SGP_HISTORY", path)
	s, err := repl.New(repl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lr := newLinerReader(s)
	defer lr.Close()
	var got strings.Builder
	if _, err := lr.l.WriteHistory(&got); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{"first := 1", long, "after := 2", "last := 3"}, "\n") + "\n"
	if got.String() != want {
		t.Errorf("history loaded:\n%.300q\nwant:\n%.300q", got.String(), want)
	}
}
