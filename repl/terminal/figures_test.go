package terminal

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFigureSaverNumbers: the saver writes each figure as a new numbered
// file in $SGPREPL_OUT's folder, skipping the numbers an earlier run left
// (a file, or a link that points nowhere), which stay as they were, and
// leaves no temporary file.
func TestFigureSaverNumbers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fig-001.png"), []byte("earlier"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere.png", filepath.Join(dir, "fig-002.png")); err != nil {
		t.Fatal(err)
	}
	f := &figureSaver{dir: dir}
	for i, want := range []string{"fig-003.png", "fig-004.png"} {
		png := []byte{0x89, 'P', 'N', 'G', byte(i)}
		path, err := f.save(png)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(path) != want {
			t.Errorf("figure %d saved as %s, want %s", i+1, filepath.Base(path), want)
		}
		if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, png) {
			t.Errorf("%s holds %q (%v)", want, b, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "fig-001.png")); string(b) != "earlier" {
		t.Errorf("fig-001.png now holds %q", b)
	}
	if dest, err := os.Readlink(filepath.Join(dir, "fig-002.png")); err != nil || dest != "nowhere.png" {
		t.Errorf("fig-002.png is no longer the link: %q, %v", dest, err)
	}
	es, _ := os.ReadDir(dir)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "fig-001.png fig-002.png fig-003.png fig-004.png" {
		t.Errorf("the folder holds %s", got)
	}
}
