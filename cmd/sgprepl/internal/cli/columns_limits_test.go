package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestColumnModeLongLine: a line longer than maxCSVLine (16 MiB, data.go)
// in a column-mode file fails at once with an error naming the line and
// the limit, and reading it does not take memory out of proportion to the
// limit (without the limit, --train /dev/zero grew without bound).
//
// Not parallel: the allocation count covers the whole process.
func TestColumnModeLongLine(t *testing.T) {
	dir := t.TempDir()
	long := bytes.Repeat([]byte("x"), maxCSVLine+1<<20) // 17 MiB, no line break
	for _, tc := range []struct {
		name, prefix, suffix string
		line                 string // the line the error names
	}{
		{"header", "", "", "line 1 "},
		{"data line", "smiles,y\nCCO,1\n", ",2\nCCN,3\n", "line 3 "},
		{"after a blank line", "smiles,y\n\nCCO,1\n", "\n", "line 4 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".csv")
			content := append(append([]byte(tc.prefix), long...), tc.suffix...)
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			content = nil
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := readColumnData(path, nil, "", "wl", "")
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("a 17 MiB line was read without an error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.line) || !strings.Contains(msg, "longer than 16 MiB") || len(msg) > 300 {
				t.Errorf("error %.300q (%d bytes): want it to name %q and the 16 MiB limit, in at most 300 bytes", msg, len(msg), tc.line)
			}
			// encoding/csv keeps the line it reads; the limit stops it
			// before a second growth of its buffer past 32 MiB.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
				t.Errorf("reading allocated %d MiB for a 17 MiB line", alloc>>20)
			}

			// The same through the command: one line on stderr, exit 1.
			code, stdout, stderr := runMain(context.Background(), "fit", "--train", path, "--kernel", "wl", "--m", "2")
			if code != exitFailure || stdout != "" || !strings.Contains(stderr, "longer than 16 MiB") {
				t.Errorf("fit: exit %d, stdout %q, stderr %.300q", code, stdout, stderr)
			}
			oneErrorLine(t, stderr)
		})
	}
}

// TestColumnModeBadCellExcerpt: an unreadable cell of any length is
// quoted by at most a short excerpt, and its row is named by its line in
// the file (counting the header, blank lines and rows left out by
// --where), for the target and for every kind of input column.
func TestColumnModeBadCellExcerpt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	junk := strings.Repeat("Q", 5000)
	for _, tc := range []struct {
		name   string
		kernel string
		file   string // the bad cell is on line 5
		args   []string
		run    string // the bad cell holds 5000 of it
	}{
		{"target", "wl", "smiles,split,y\nCCO,a,1\n\nCCN,b,2\n" + "CC,a," + junk + "\nCO,a,3\n", nil, "Q"},
		{"SMILES input", "wl", "smiles,split,y\nCCO,a,1\n\nCCN,b,2\n" + "C1CC" + junk + ",a,4\nCO,a,3\n", nil, "Q"},
		{"SMILES input, tanimoto", "tanimoto", "smiles,split,y\nCCO,a,1\n\nCCN,b,2\n" + "C1CC" + junk + ",a,4\nCO,a,3\n", nil, "Q"},
		{"count list, tanimoto", "tanimoto", "smiles,split,y\nCCO,a,1\n\nCCN,b,2\n" + "1:2 3:" + strings.Repeat("9", 5000) + ",a,4\nCO,a,3\n", nil, "9"},
		{"numeric input", "rbf", "x,split,y\n1,a,1\n\n2,b,2\n" + junk + ",a,4\n3,a,3\n", []string{"--target-column", "y", "--input-column", "x"}, "Q"},
		{"histogram input", "histogram", "x,split,y\n1,a,1\n\n2,b,2\n-" + strings.Repeat("1", 5000) + ",a,4\n3,a,3\n", []string{"--target-column", "y", "--input-column", "x"}, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := writeFile(t, dir, strings.NewReplacer(" ", "_", ",", "").Replace(tc.name)+".csv", tc.file)
			inputs := []string{}
			for i, a := range tc.args {
				if a == "--input-column" {
					inputs = append(inputs, tc.args[i+1])
				}
			}
			if len(inputs) == 0 {
				inputs = []string{"smiles"}
			}
			_, err := readColumnData(path, inputs, "y", tc.kernel, "split=a")
			if err == nil {
				t.Fatal("no error")
			}
			check := func(what, msg string) {
				t.Helper()
				if !strings.Contains(msg, "line 5") {
					t.Errorf("%s: %.400q does not name line 5", what, msg)
				}
				if len(msg) > 400 || strings.Contains(msg, strings.Repeat(tc.run, 60)) {
					t.Errorf("%s: %d bytes, want a short excerpt of the bad cell: %.400q", what, len(msg), msg)
				}
			}
			check("readColumnData", err.Error())
			args := append([]string{"fit", "--train", path, "--kernel", tc.kernel, "--where", "split=a", "--m", "1", "--target-column", "y"}, tc.args...)
			if !strings.Contains(strings.Join(args, " "), "--input-column") {
				args = append(args, "--input-column", "smiles")
			}
			code, stdout, stderr := runMain(context.Background(), args...)
			if code != exitFailure || stdout != "" {
				t.Errorf("fit: exit %d, stdout %q", code, stdout)
			}
			oneErrorLine(t, stderr)
			check("fit", stderr)
		})
	}
}

// TestColumnModeWideHeader: naming a column the header lacks lists the
// header's columns briefly, however wide the header.
func TestColumnModeWideHeader(t *testing.T) {
	t.Parallel()
	names := make([]string, 3000)
	for i := range names {
		names[i] = "column_" + strings.Repeat("w", 20) + strings.Repeat("z", i%3)
	}
	path := writeFile(t, t.TempDir(), "wide.csv", strings.Join(names, ",")+"\n"+strings.Repeat("1,", len(names)-1)+"1\n")
	for _, args := range [][]string{{"--target-column", "nope"}, {"--input-column", "nope"}} {
		code, stdout, stderr := runMain(context.Background(), append([]string{"fit", "--train", path, "--kernel", "wl", "--m", "1"}, args...)...)
		if code != exitFailure || stdout != "" || !strings.Contains(stderr, `no column "nope"`) || len(stderr) > 400 || !strings.Contains(stderr, "(3000 columns)") {
			t.Errorf("%v: exit %d, %d bytes on stderr: %.400q", args, code, len(stderr), stderr)
		}
	}
}

// TestColumnModeSemicolons: a semicolon-separated file reads as one column,
// and the error for a column it lacks says why.
func TestColumnModeSemicolons(t *testing.T) {
	t.Parallel()
	path := writeFile(t, t.TempDir(), "semi.csv", "smiles;y\nCCO;1,5\nCCN;2,5\nCCC;3\n")
	code, stdout, stderr := runMain(context.Background(), "fit", "--train", path, "--kernel", "wl", "--input-column", "smiles", "--target-column", "y", "--m", "1")
	if code != exitFailure || stdout != "" || !strings.Contains(stderr, `no column "y"`) || !strings.Contains(stderr, "separated by commas") {
		t.Errorf("exit %d, stdout %q, stderr %q; want the missing column and the separator named", code, stdout, stderr)
	}
	oneErrorLine(t, stderr)
}
