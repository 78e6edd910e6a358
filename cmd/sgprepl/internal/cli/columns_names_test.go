package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/data"
)

// tableCSV writes a CSV file of d's inputs and targets, its columns named
// names (nil: no header row) and written in the order perm (indices into
// names, the target being the last; nil: in order); target, if not
// empty, replaces every target value.
func tableCSV(t *testing.T, dir, file string, d *data.Dataset, names []string, perm []int, target string) string {
	t.Helper()
	dim := d.X.Dim()
	if perm == nil {
		for j := 0; j <= dim; j++ {
			perm = append(perm, j)
		}
	}
	var b strings.Builder
	if names != nil {
		cells := make([]string, len(perm))
		for c, j := range perm {
			cells[c] = names[j]
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
	for i := 0; i < d.Len(); i++ {
		cells := make([]string, len(perm))
		for c, j := range perm {
			switch {
			case j < dim:
				cells[c] = fmt.Sprint(d.X.At(i, j))
			case target != "":
				cells[c] = target
			default:
				cells[c] = fmt.Sprint(d.Y[i])
			}
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
	return writeFile(t, dir, file, b.String())
}

// TestPredictColumnNames: a model fit on a CSV file with a header knows
// its columns by name. predict reads an input with the same
// header in another order in the model's order; a missing or unknown
// column, --input-column naming other columns, a headerless input without
// --no-header, a pandas index column, are errors naming them (exit 1),
// not predictions from the wrong columns. The target column
// is not read, so NA, nan or nothing there is no error,
// with a header or without (d+1 columns). fit --test matches the test
// file's columns by name too.
func TestPredictColumnNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, test := data.SyntheticARD(100, 15, 4, 5)
	names := []string{"age", "sex", "bmi", "bp", "y"}
	trainPath := tableCSV(t, dir, "train.csv", train, names, nil, "")
	model := filepath.Join(dir, "model.json")
	fit := func(args ...string) (int, string, string) {
		return runMain(context.Background(), append([]string{"fit", "--train", trainPath, "--selector", "cholqr", "--m", "8", "--max-epochs", "3", "--quiet"}, args...)...)
	}
	if code, _, stderr := fit("--save", model); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	var saved struct {
		InputNames []string `json:"input_names"`
		TargetName string   `json:"target_name"`
	}
	if b, err := os.ReadFile(model); err != nil || json.Unmarshal(b, &saved) != nil {
		t.Fatal(err)
	}
	if strings.Join(saved.InputNames, ",") != "age,sex,bmi,bp" || saved.TargetName != "y" {
		t.Errorf("the model file names %q, target %q", saved.InputNames, saved.TargetName)
	}
	predict := func(model, input string, args ...string) (int, string, string) {
		return runMain(context.Background(), append([]string{"predict", "--model", model, "--input", input}, args...)...)
	}
	code, want, stderr := predict(model, tableCSV(t, dir, "test.csv", test, names, nil, ""))
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		name  string
		input string
		args  []string
	}{
		{"reordered", tableCSV(t, dir, "reordered.csv", test, names, []int{4, 2, 0, 3, 1}, ""), nil},
		{"target NA", tableCSV(t, dir, "na.csv", test, names, []int{1, 0, 4, 3, 2}, "NA"), nil},
		{"target nan", tableCSV(t, dir, "nan.csv", test, names, nil, "nan"), nil},
		{"no header, --no-header", tableCSV(t, dir, "nohdr.csv", test, nil, nil, ""), []string{"--no-header"}},
		{"no header, empty target, --no-header", tableCSV(t, dir, "nohdr-empty.csv", test, nil, nil, " "), []string{"--no-header"}},
		{"no header, inputs only, --no-header", tableCSV(t, dir, "nohdr-x.csv", test, nil, []int{0, 1, 2, 3}, ""), []string{"--no-header"}},
		{"--input-column in another order", tableCSV(t, dir, "cols.csv", test, names, []int{3, 4, 1, 2, 0}, "NA"),
			[]string{"--input-column", "bp", "--input-column", "age", "--input-column", "sex", "--input-column", "bmi"}},
	} {
		code, stdout, stderr := predict(model, tc.input, tc.args...)
		if code != 0 || stdout != want {
			t.Errorf("%s: exit %d, %s; the predictions differ from the model's order's: %v", tc.name, code, stderr, stdout != want)
		}
	}
	for _, tc := range []struct {
		name  string
		input string
		args  []string
		want  []string
	}{
		{"a missing column", tableCSV(t, dir, "missing.csv", test, []string{"age", "sex", "bmi", "s1", "y"}, nil, ""), nil, []string{`no column "bp"`, `"s1"`}},
		{"an unknown column", writeFile(t, dir, "unknown.csv", "age,sex,bmi,bp,s1,y\n1,2,3,4,5,6\n"), nil, []string{`"s1" is not among`, "--input-column"}},
		{"no header", tableCSV(t, dir, "nohdr2.csv", test, nil, nil, ""), nil, []string{"no header row", "age, sex, bmi, bp", "--no-header"}},
		{"pandas index", writeFile(t, dir, "index.csv", ",age,sex,bmi,bp,y\n0,1,2,3,4,5\n"), nil, []string{"line 1", "pandas", "index=False"}},
		{"other --input-column", tableCSV(t, dir, "cols2.csv", test, names, nil, ""),
			[]string{"--input-column", "age", "--input-column", "sex", "--input-column", "bmi", "--input-column", "y"}, []string{`input "bp"`, `"y"`}},
	} {
		code, stdout, stderr := predict(model, tc.input, tc.args...)
		if code != 1 || stdout != "" {
			t.Errorf("%s: exit %d (want 1), stdout %q", tc.name, code, stdout)
		}
		oneErrorLine(t, stderr)
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: error %q does not mention %q", tc.name, stderr, w)
			}
		}
	}

	// A model fit without a header row reads by position; a last, target,
	// column is not read.
	plain := filepath.Join(dir, "plain.json")
	if code, _, stderr := runMain(context.Background(), "fit", "--train", tableCSV(t, dir, "train-plain.csv", train, nil, nil, ""), "--selector", "cholqr",
		"--m", "8", "--max-epochs", "3", "--quiet", "--save", plain); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	code, want, stderr = predict(plain, tableCSV(t, dir, "plain-x.csv", test, nil, []int{0, 1, 2, 3}, ""))
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	for _, target := range []string{"NA", "nan", " ", "None"} {
		if code, stdout, stderr := predict(plain, tableCSV(t, dir, "plain-t.csv", test, nil, nil, target)); code != 0 || stdout != want {
			t.Errorf("a headerless model, target %q: exit %d, %s; predictions differ: %v", target, code, stderr, stdout != want)
		}
	}

	// A pandas index in the training file is refused, in column mode too.
	index := writeFile(t, dir, "train-index.csv", ",age,sex,bmi,bp,y\n0,1,2,3,4,5\n1,2,3,4,5,6\n2,3,4,5,6,8\n")
	for _, args := range [][]string{{"fit", "--train", index}, {"fit", "--train", index, "--target-column", "y"}} {
		code, _, stderr := runMain(context.Background(), args...)
		if code != 1 || !strings.Contains(stderr, "pandas") || !strings.Contains(stderr, "index=False") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}

	// Column mode: the model records the columns named; predict reads
	// them by name, and refuses others.
	colModel := filepath.Join(dir, "columns.json")
	if code, _, stderr := fit("--input-column", "age", "--input-column", "bmi", "--input-column", "bp", "--save", colModel); code != 0 {
		t.Fatalf("fit in column mode: exit %d: %s", code, stderr)
	}
	wide := tableCSV(t, dir, "wide.csv", test, names, []int{2, 4, 1, 0, 3}, "NA")
	code, want, stderr = predict(colModel, wide, "--input-column", "age", "--input-column", "bmi", "--input-column", "bp")
	if code != 0 {
		t.Fatalf("predict in column mode: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := predict(colModel, wide, "--input-column", "bp", "--input-column", "age", "--input-column", "bmi"); code != 0 || stdout != want {
		t.Errorf("--input-column in another order: exit %d, %s; predictions differ: %v", code, stderr, stdout != want)
	}
	if code, _, stderr := predict(colModel, wide, "--input-column", "sex", "--input-column", "age", "--input-column", "y"); code != 1 ||
		!strings.Contains(stderr, `"bmi", "bp"`) || !strings.Contains(stderr, `"sex", "y"`) {
		t.Errorf("--input-column naming other columns: exit %d, %s", code, stderr)
	}

	// fit --test: the test file's columns are matched by name.
	run := func(testPath string) map[string]any {
		t.Helper()
		code, stdout, stderr := fit("--test", testPath, "--json")
		if code != 0 {
			t.Fatalf("fit --test %s: exit %d: %s", testPath, code, stderr)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	a := run(tableCSV(t, dir, "test-a.csv", test, names, nil, ""))
	b := run(tableCSV(t, dir, "test-b.csv", test, names, []int{3, 1, 0, 2, 4}, ""))
	if a["smse"] != b["smse"] || a["snlp"] != b["snlp"] {
		t.Errorf("fit --test with the test file's columns in another order: SMSE %v, SNLP %v; in order %v, %v", b["smse"], b["snlp"], a["smse"], a["snlp"])
	}
	if code, _, stderr := fit("--test", tableCSV(t, dir, "test-c.csv", test, []string{"age", "sex", "bmi", "s1", "y"}, nil, "")); code != 1 || !strings.Contains(stderr, `"bp"`) {
		t.Errorf("fit --test with another column: exit %d, %s", code, stderr)
	}
}
