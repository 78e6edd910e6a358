package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// typo returns name with two letters swapped (or, for a short name, one
// letter added), a misspelling at edit distance 1 or 2.
func typo(name string) string {
	if len(name) < 4 {
		return name + "q"
	}
	b := []byte(name)
	b[1], b[2] = b[2], b[1]
	return string(b)
}

// TestUnknownFlagSuggests checks that a misspelt flag of every subcommand
// is answered with the flag meant, and the issue's --selecter with
// --selector.
func TestUnknownFlagSuggests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	code, _, stderr := runMain(ctx, "fit", "--selecter", "exact")
	if code != exitUsage || !strings.Contains(stderr, "did you mean --selector?") {
		t.Errorf("fit --selecter: exit %d, %q; want 2 and \"did you mean --selector?\"", code, stderr)
	}
	oneErrorLine(t, stderr)
	for i := range commands {
		c := &commands[i]
		fs, _ := c.newFlagSet()
		fs.VisitAll(func(f *flag.Flag) {
			bad := typo(f.Name)
			if bad == f.Name || fs.Lookup(bad) != nil {
				return
			}
			code, _, stderr := runMain(ctx, c.name, "--"+bad)
			if code != exitUsage || !strings.Contains(stderr, "--"+f.Name) || !strings.Contains(stderr, "did you mean") {
				t.Errorf("%s --%s: exit %d, %q; want a suggestion of --%s", c.name, bad, code, stderr, f.Name)
			}
		})
	}
	if code, _, stderr := runMain(ctx, "fti", "--train", "x.csv"); code != exitUsage || !strings.Contains(stderr, "did you mean fit?") {
		t.Errorf("sgprepl fti: exit %d, %q; want did you mean fit?", code, stderr)
	}
	// A name far from every flag gets no guess.
	if _, _, stderr := runMain(ctx, "fit", "--frobnicate"); strings.Contains(stderr, "did you mean") {
		t.Errorf("fit --frobnicate: %q suggests a flag", stderr)
	}
}

// TestFitMessagesCount checks the summary's "1 input column" (singular)
// and that --m ≥ n names the command line's --selector exact, not the
// library's NewExact.
func TestFitMessagesCount(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train := writeFile(t, dir, "one.csv", "x,y\n1,2\n2,3.5\n3,3\n4,5\n5,6.5\n6,6\n7,8\n8,8.5\n")
	ctx := context.Background()
	code, stdout, stderr := runMain(ctx, "fit", "--train", train, "--m", "3", "--selector", "cholqr", "--quiet", "--max-epochs", "2")
	if code != 0 || !strings.Contains(stdout, ", 1 input column, ") {
		t.Errorf("fit: exit %d, %q, stderr %q; want \", 1 input column, \"", code, stdout, stderr)
	}
	for _, sel := range []string{"", "cholqr", "sgpr-continuous"} {
		args := []string{"fit", "--train", train, "--m", "8", "--quiet"}
		if sel != "" {
			args = append(args, "--selector", sel)
		}
		code, _, stderr = runMain(ctx, args...)
		if code != exitFailure || !strings.Contains(stderr, "--selector exact") || strings.Contains(stderr, "NewExact") {
			t.Errorf("fit --m 8 of 8 rows (selector %q): exit %d, %q; want 1 and --selector exact, not NewExact", sel, code, stderr)
		}
		oneErrorLine(t, stderr)
	}
}

// TestMissingValues: rows with missing values are counted in one error
// that offers --drop-missing; fit and eval drop them with it and count
// them (summary line, JSON); predict refuses them, keeping its rows
// aligned with the input's.
func TestMissingValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("year,co2\n")
	for i := range 30 {
		v := fmt.Sprintf("%g", 315+0.5*float64(i)+0.3*math.Sin(float64(i)))
		switch i {
		case 4:
			v = ""
		case 9:
			v = "NaN"
		case 17:
			v = "NA"
		}
		fmt.Fprintf(&b, "%d,%s\n", 1958+i, v)
	}
	train := writeFile(t, dir, "co2.csv", b.String())
	test := writeFile(t, dir, "test.csv", "year,co2\n1990,331\n1991,\n")
	ctx := context.Background()
	code, _, stderr := runMain(ctx, "fit", "--train", train, "--quiet")
	if code != exitFailure || !strings.Contains(stderr, "3 rows have a missing value") || !strings.Contains(stderr, `line 6, column 2 ("co2")`) || !strings.Contains(stderr, "--drop-missing") {
		t.Errorf("fit: exit %d, %q; want 3 rows counted, the first on line 6, and --drop-missing", code, stderr)
	}
	oneErrorLine(t, stderr)
	for _, sel := range []string{"cholqr", "sgpr-continuous", "exact"} {
		args := []string{"fit", "--train", train, "--test", test, "--drop-missing", "--quiet", "--selector", sel, "--max-epochs", "2"}
		if sel != "exact" {
			args = append(args, "--m", "5")
		}
		code, stdout, stderr := runMain(ctx, args...)
		if code != 0 || !strings.Contains(stdout, "3 training rows and 1 test row with a missing value (--drop-missing)") {
			t.Errorf("fit --drop-missing --selector %s: exit %d, %q, %q", sel, code, stdout, stderr)
		}
		code, stdout, stderr = runMain(ctx, append(args, "--json")...)
		var r struct {
			N           int
			DroppedTest *int `json:"dropped_test_rows"`
		}
		var raw map[string]any
		if code != 0 || json.Unmarshal([]byte(stdout), &raw) != nil || json.Unmarshal([]byte(stdout), &r) != nil {
			t.Fatalf("fit --json --selector %s: exit %d, %q, %q", sel, code, stdout, stderr)
		}
		if raw["dropped_rows"] != 3.0 || r.DroppedTest == nil || *r.DroppedTest != 1 || r.N != 27 {
			t.Errorf("fit --json --selector %s: dropped_rows %v, dropped_test_rows %v, n %d; want 3, 1, 27", sel, raw["dropped_rows"], r.DroppedTest, r.N)
		}
	}
	code, stdout, stderr := runMain(ctx, "fit", "--train", writeFile(t, dir, "ok.csv", "x,y\n1,2\n2,3\n3,5\n4,4\n5,6\n"), "--m", "2", "--quiet", "--json", "--selector", "cholqr")
	if code != 0 || !strings.Contains(stdout, `"dropped_rows":null`) {
		t.Errorf("fit --json without --drop-missing: exit %d, %q, %q; want dropped_rows null", code, stdout, stderr)
	}
	evalArgs := []string{"eval", "--train", train, "--inducing", "0,3", "--variance", "1", "--lengthscales", "3", "--noise", "0.1"}
	if code, _, stderr := runMain(ctx, evalArgs...); code != exitFailure || !strings.Contains(stderr, "--drop-missing") {
		t.Errorf("eval: exit %d, %q; want --drop-missing offered", code, stderr)
	}
	if code, stdout, stderr := runMain(ctx, append(evalArgs, "--drop-missing")...); code != 0 || !strings.Contains(stdout, "dropped    3 rows") || !strings.Contains(stdout, "n=27 ") {
		t.Errorf("eval --drop-missing: exit %d, %q, %q", code, stdout, stderr)
	}
	model := filepath.Join(dir, "m.json")
	if code, _, stderr := runMain(ctx, "fit", "--train", train, "--drop-missing", "--m", "5", "--selector", "cholqr", "--quiet", "--save", model); code != 0 {
		t.Fatalf("fit --save: %d %s", code, stderr)
	}
	input := writeFile(t, dir, "in.csv", "year\n1990\n\n1991\nNaN\n")
	code, stdout, stderr = runMain(ctx, "predict", "--model", model, "--input", input)
	if code != exitFailure || stdout != "" || !strings.Contains(stderr, "1 row has a missing value") || !strings.Contains(stderr, "one output row per input row") {
		t.Errorf("predict: exit %d, %q, %q; want the row refused, rows kept aligned", code, stdout, stderr)
	}
}

// TestTextColumnMessages: a column of text read as numbers is named, with
// how to read the file: by the numeric file reader, and in column mode in
// one message naming the column, not one per row.
func TestTextColumnMessages(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("firm,year,value\n")
	for i := range 12 {
		fmt.Fprintf(&b, "%s,%d,%g\n", []string{"General Motors", "Chrysler", "IBM"}[i%3], 1935+i/3, 10+float64(i))
	}
	train := writeFile(t, t.TempDir(), "grunfeld.csv", b.String())
	ctx := context.Background()
	code, _, stderr := runMain(ctx, "fit", "--train", train)
	if code != exitFailure || !strings.Contains(stderr, `column 1 ("firm")`) || !strings.Contains(stderr, "--input-column") || !strings.Contains(stderr, "--kernel spectrum") {
		t.Errorf("fit: exit %d, %q; want the column named and --input-column offered", code, stderr)
	}
	oneErrorLine(t, stderr)
	code, _, stderr = runMain(ctx, "fit", "--train", train, "--input-column", "firm", "--kernel", "rbf")
	if code != exitFailure || !strings.Contains(stderr, `column "firm" holds text (12 cells, the first on line 2: "General Motors")`) ||
		strings.Count(stderr, "General Motors") != 1 || strings.Contains(stderr, "input column 1") {
		t.Errorf("fit --input-column firm --kernel rbf: exit %d, %q; want one message naming firm", code, stderr)
	}
	oneErrorLine(t, stderr)
	// The numeric columns alone fit.
	if code, _, stderr := runMain(ctx, "fit", "--train", train, "--input-column", "year", "--m", "3", "--quiet", "--selector", "cholqr", "--max-epochs", "2"); code != 0 {
		t.Errorf("fit --input-column year: exit %d, %q", code, stderr)
	}
}
