package data

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

const dataTol = 1e-12

// checkDataset compares a dataset with the expected inputs (row-major) and targets.
func checkDataset(t *testing.T, ds *Dataset, n, d int, x, y []float64) {
	t.Helper()
	if ds.Len() != n || ds.X.Len() != n || ds.X.Dim() != d || len(ds.Y) != n {
		t.Fatalf("shape: Len=%d X=%d×%d len(Y)=%d, want %d×%d", ds.Len(), ds.X.Len(), ds.X.Dim(), len(ds.Y), n, d)
	}
	for i, want := range x {
		if got := ds.X.RawData()[i]; !scalar.EqualWithinAbs(got, want, dataTol) {
			t.Errorf("X[%d,%d] = %v, want %v", i/d, i%d, got, want)
		}
	}
	for i, want := range y {
		if !scalar.EqualWithinAbs(ds.Y[i], want, dataTol) {
			t.Errorf("Y[%d] = %v, want %v", i, ds.Y[i], want)
		}
	}
}

func TestReadCSVGood(t *testing.T) {
	t.Parallel()
	x := []float64{1, 2, 4, 5, -0.5, 1e3}
	y := []float64{3, 6, 2.5e-2}
	for _, tc := range []struct{ name, in string }{
		{"no header", "1,2,3\n4,5,6\n-0.5,1e3,2.5e-2\n"},
		{"header", "x1,x2,y\n1,2,3\n4,5,6\n-0.5,1e3,2.5e-2\n"},
		{"quoted header and spaces", "\"x1\", \"x2\", \"y\"\r\n1, 2, 3\r\n 4 ,5,6\r\n-0.5,1e3,\"2.5e-2\""},
		{"whitespace", "1 2 3\n4\t5   6\n  -0.5 1e3 2.5e-2  \n"},
		{"whitespace header", "a b target\n1 2 3\n4 5 6\n-0.5 1e3 2.5e-2\n"},
		{"comments and blank lines", "# generated\n\nx1,x2,y\n# a comment\n1,2,3\n\n   \n4,5,6\n# end?\n-0.5,1e3,2.5e-2\n\n"},
		{"bom", "\uFEFFx1,x2,y\n1,2,3\n4,5,6\n-0.5,1e3,2.5e-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ds, err := ReadCSV(strings.NewReader(tc.in), "toy")
			if err != nil {
				t.Fatalf("ReadCSV: %v", err)
			}
			if ds.Name != "toy" {
				t.Errorf("Name = %q, want toy", ds.Name)
			}
			checkDataset(t, ds, 3, 2, x, y)
		})
	}
}

func TestReadCSVTwoColumns(t *testing.T) {
	t.Parallel()
	ds, err := ReadCSV(strings.NewReader("x,y\n0.5,-1\n"), "one")
	if err != nil {
		t.Fatal(err)
	}
	checkDataset(t, ds, 1, 1, []float64{0.5}, []float64{-1})
}

func TestReadCSVErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     []string // substrings of the error message
	}{
		{"empty", "", []string{"no data rows"}},
		{"only blanks and comments", "\n# nothing\n  \n", []string{"no data rows"}},
		{"header only", "a,b,c\n", []string{"no data rows", "header on line 1"}},
		{"header only after comment", "# c\nx,y\n\n", []string{"no data rows", "line 2"}},
		{"ragged short", "x,y,z\n1,2,3\n# c\n4,5,6\n7,8\n", []string{"line 5", "2 columns", "line 2"}},
		{"ragged long", "1,2\n3,4,5\n", []string{"line 2", "3 columns"}},
		{"ragged whitespace", "1 2 3\n\n4 5\n", []string{"line 3", "2 columns"}},
		{"non-number", "x,y\n1,2\n3,abc\n", []string{"line 3", "column 2", `"abc"`}},
		{"non-number first column", "1,2\nq,2\n", []string{"line 2", "column 1", `"q"`}},
		{"empty cell", "1,2,3\n4,,6\n", []string{"line 2", "column 2", "empty"}},
		{"trailing comma", "1,2,\n", []string{"line 1", "column 3", "empty"}},
		{"NaN", "x,y\n1,2\nNaN,3\n", []string{"1 row has a missing value", "line 3", "column 1 (\"x\")"}},
		{"nan lower", "1 nan\n", []string{"1 row has a missing value", "line 1", "column 2"}},
		{"Inf", "1,2\n3,Inf\n", []string{"line 2", "column 2", "not finite"}},
		{"-Inf", "1,2\n-inf,3\n", []string{"line 2", "column 1", "not finite"}},
		{"overflow", "1,2\n1e999,3\n", []string{"line 2", "column 1", "range"}},
		{"overflow first line", "1e999,3\n", []string{"line 1", "column 1", "range"}},
		{"one column", "y\n1\n2\n", []string{"line 2", "at least 2"}},
		{"one column no header", "1.5\n", []string{"line 1", "at least 2"}},
		{"semicolons", "x;y\n1.5;2\n", []string{"line 2", "at least 2", "holds ';'", "commas or whitespace"}},
		{"semicolons, decimal commas", "x;y;z\n1,5;2;3\n4,5;6;7\n", []string{"line 2", "column 2", `"5;2;3"`, "holds ';'"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ds, err := ReadCSV(strings.NewReader(tc.in), "bad.csv")
			if err == nil {
				t.Fatalf("ReadCSV(%q) = %d rows, want an error", tc.in, ds.Len())
			}
			msg := err.Error()
			for _, w := range append(tc.want, "bad.csv") {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
		})
	}
}

func TestReadCSVFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "toy.csv")
	if err := os.WriteFile(path, []byte("a,b\n1,2\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := ReadCSVFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Name != "toy" {
		t.Errorf("Name = %q, want toy", ds.Name)
	}
	checkDataset(t, ds, 2, 1, []float64{1, 3}, []float64{2, 4})

	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("1,2\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCSVFile(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("ReadCSVFile(ragged) error = %v, want one naming %s and line 2", err, bad)
	}
}

func TestReadCSVFileMissing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nope.csv")
	_, err := ReadCSVFile(path)
	if err == nil {
		t.Fatal("ReadCSVFile on a missing file succeeded")
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name %s", err, path)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %q does not wrap fs.ErrNotExist", err)
	}
}

func TestDatasetSubset(t *testing.T) {
	t.Parallel()
	ds, err := ReadCSV(strings.NewReader("1,2,10\n3,4,20\n5,6,30\n"), "s")
	if err != nil {
		t.Fatal(err)
	}
	sub := ds.Subset([]int{2, 0})
	checkDataset(t, sub, 2, 2, []float64{5, 6, 1, 2}, []float64{30, 10})
	sub.Y[0] = -1
	sub.X.RawData()[0] = -1
	if !scalar.EqualWithinAbs(ds.Y[2], 30, dataTol) || !scalar.EqualWithinAbs(ds.X.At(2, 0), 5, dataTol) {
		t.Error("Subset shares memory with the original")
	}
	if sub.Name != "s" {
		t.Errorf("Name = %q", sub.Name)
	}
	if empty := ds.Subset(nil); empty.Len() != 0 {
		t.Errorf("Subset(nil).Len() = %d", empty.Len())
	}
}

// TestDatasetDataDir changes the environment, so it cannot run in parallel.
func TestDatasetDataDir(t *testing.T) {
	t.Setenv("SGP_DATA", "")
	if got := Dir("../x"); got != "../x" {
		t.Errorf("Dir with SGP_DATA unset = %q, want ../x", got)
	}
	t.Setenv("SGP_DATA", "/some/where")
	if got := Dir("../x"); got != "/some/where" {
		t.Errorf("Dir with SGP_DATA set = %q, want /some/where", got)
	}
}

func TestSnelsonLike(t *testing.T) {
	t.Parallel()
	const n = 200
	train, test := SnelsonLike(n, 7)
	if train.Len() != n || train.X.Len() != n || train.X.Dim() != 1 {
		t.Fatalf("train shape %d×%d, want %d×1", train.X.Len(), train.X.Dim(), n)
	}
	if test.Len() != 301 || test.X.Dim() != 1 {
		t.Fatalf("test shape %d×%d, want 301×1", test.X.Len(), test.X.Dim())
	}
	again, againTest := SnelsonLike(n, 7)
	for i := range n {
		if !scalar.EqualWithinAbs(train.X.At(i, 0), again.X.At(i, 0), 0) || !scalar.EqualWithinAbs(train.Y[i], again.Y[i], 0) {
			t.Fatalf("row %d differs between two calls with the same seed", i)
		}
	}
	for i := range 301 {
		if !scalar.EqualWithinAbs(test.Y[i], againTest.Y[i], 0) {
			t.Fatalf("grid %d differs between calls", i)
		}
	}
	other, _ := SnelsonLike(n, 8)
	same := 0
	for i := range n {
		if scalar.EqualWithinAbs(train.X.At(i, 0), other.X.At(i, 0), 1e-15) {
			same++
		}
	}
	if same == n {
		t.Error("seeds 7 and 8 give the same inputs")
	}

	var sumRes, sumRes2, minY, maxY float64 = 0, 0, math.Inf(1), math.Inf(-1)
	for i := range n {
		x := train.X.At(i, 0)
		if x < 0 || x > 6 {
			t.Errorf("x[%d] = %v outside [0, 6]", i, x)
		}
		r := train.Y[i] - snelsonF(x)
		sumRes += r
		sumRes2 += r * r
		minY, maxY = math.Min(minY, train.Y[i]), math.Max(maxY, train.Y[i])
	}
	mean := sumRes / n
	sd := math.Sqrt(sumRes2/n - mean*mean)
	if math.Abs(mean) > 0.1 || math.Abs(sd-0.25) > 0.05 {
		t.Errorf("noise mean %v sd %v, want about 0 and 0.25", mean, sd)
	}
	if minY > -1 || minY < -3 || maxY < 0.5 || maxY > 2 {
		t.Errorf("target range [%v, %v], want about [-2, 1.3]", minY, maxY)
	}
	for i := range 301 {
		x := test.X.At(i, 0)
		if !scalar.EqualWithinAbs(x, -1+8*float64(i)/300, 1e-12) {
			t.Fatalf("grid x[%d] = %v", i, x)
		}
		if !scalar.EqualWithinAbs(test.Y[i], snelsonF(x), 1e-15) {
			t.Fatalf("grid y[%d] = %v, want f(x) = %v", i, test.Y[i], snelsonF(x))
		}
	}
	small, _ := SnelsonLike(1, 0)
	if small.Len() != 1 {
		t.Errorf("SnelsonLike(1, 0).Len() = %d", small.Len())
	}
}

func TestSnelsonLikePanicsOnZero(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("SnelsonLike(0, 1) did not panic")
		}
	}()
	SnelsonLike(0, 1)
}

// realDataDir returns the shared data folder holding sub, or skips the test.
func realDataDir(t *testing.T, sub string) string {
	t.Helper()
	dir := Dir("../../../shared/data")
	if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
		t.Skipf("data folder %s not found; set SGP_DATA to the folder holding snelson1d/, kin40k/, kin8nm/ to run this test", filepath.Join(dir, sub))
	}
	return dir
}

// checkFinite fails if a dataset holds a non-finite value.
func checkFinite(t *testing.T, ds *Dataset) {
	t.Helper()
	for i, v := range ds.X.RawData() {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%s: X value %d is %v", ds.Name, i, v)
		}
	}
	for i, v := range ds.Y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%s: Y[%d] is %v", ds.Name, i, v)
		}
	}
}

// meanOf returns the mean of v.
func meanOf(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func TestLoadSnelson(t *testing.T) {
	t.Parallel()
	dir := realDataDir(t, "snelson1d")
	train, testX, err := LoadSnelson(dir)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 200 || train.X.Len() != 200 || train.X.Dim() != 1 {
		t.Fatalf("train shape %d×%d, want 200×1", train.X.Len(), train.X.Dim())
	}
	if testX.Len() != 301 || testX.Dim() != 1 {
		t.Fatalf("test shape %d×%d, want 301×1", testX.Len(), testX.Dim())
	}
	checkFinite(t, train)
	if !scalar.EqualWithinAbs(train.X.At(0, 0), 5.7007757, 1e-9) || !scalar.EqualWithinAbs(train.Y[0], -0.4536778, 1e-9) {
		t.Errorf("first point (%v, %v), want (5.7007757, -0.4536778)", train.X.At(0, 0), train.Y[0])
	}
	if m := meanOf(train.Y); !scalar.EqualWithinAbs(m, -0.3427, 1e-3) {
		t.Errorf("train target mean %v, want about -0.3427", m)
	}
	if !scalar.EqualWithinAbs(testX.At(0, 0), -3, 1e-9) || !scalar.EqualWithinAbs(testX.At(300, 0), 10, 1e-6) {
		t.Errorf("test grid runs %v..%v, want -3..10", testX.At(0, 0), testX.At(300, 0))
	}
}

func TestLoadKIN40K(t *testing.T) {
	t.Parallel()
	dir := realDataDir(t, "kin40k")
	train, test, err := LoadKIN40K(dir)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 10000 || train.X.Len() != 10000 || train.X.Dim() != 8 {
		t.Fatalf("train shape %d×%d, want 10000×8", train.X.Len(), train.X.Dim())
	}
	if test.Len() != 30000 || test.X.Len() != 30000 || test.X.Dim() != 8 {
		t.Fatalf("test shape %d×%d, want 30000×8", test.X.Len(), test.X.Dim())
	}
	checkFinite(t, train)
	checkFinite(t, test)
	if m := meanOf(train.Y); !scalar.EqualWithinAbs(m, 0, 1e-3) {
		t.Errorf("train label mean %v, want about 0 (the copy is standardised)", m)
	}
	if !scalar.EqualWithinAbs(train.X.At(0, 0), 1.5519641, 1e-9) || !scalar.EqualWithinAbs(train.Y[0], 0.57637391, 1e-9) {
		t.Errorf("first training point starts %v with label %v", train.X.At(0, 0), train.Y[0])
	}
	for _, v := range train.X.RawData() {
		if math.Abs(v) > 1.75 {
			t.Fatalf("input %v outside the standardised range [-1.7445, 1.7445]", v)
		}
	}
}

func TestLoadKin8nm(t *testing.T) {
	t.Parallel()
	dir := realDataDir(t, "kin8nm")
	train, test, err := LoadKin8nm(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 7373 || train.X.Dim() != 8 {
		t.Fatalf("train shape %d×%d, want 7373×8", train.X.Len(), train.X.Dim())
	}
	if test.Len() != 819 || test.X.Dim() != 8 {
		t.Fatalf("test shape %d×%d, want 819×8", test.X.Len(), test.X.Dim())
	}
	checkFinite(t, train)
	checkFinite(t, test)
	// Row 3894 of data.txt is the first training row of split 0.
	all, err := ReadCSVFile(filepath.Join(dir, "kin8nm", "data.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if all.Len() != 8192 {
		t.Fatalf("data.txt has %d rows via ReadCSVFile, want 8192", all.Len())
	}
	for c := range 8 {
		if !scalar.EqualWithinAbs(train.X.At(0, c), all.X.At(3894, c), 0) {
			t.Errorf("train row 0 column %d = %v, want data row 3894 value %v", c, train.X.At(0, c), all.X.At(3894, c))
		}
	}
	if !scalar.EqualWithinAbs(train.Y[0], all.Y[3894], 0) {
		t.Errorf("train target 0 = %v, want %v", train.Y[0], all.Y[3894])
	}
	for _, ds := range []*Dataset{train, test} {
		for i, y := range ds.Y {
			if y < 0.04 || y > 1.46 {
				t.Fatalf("%s target %d = %v outside [0.0402, 1.4585]", ds.Name, i, y)
			}
		}
	}
	if m := meanOf(train.Y); !scalar.EqualWithinAbs(m, 0.714, 0.02) {
		t.Errorf("train target mean %v, want about 0.714", m)
	}

	for _, bad := range []int{-1, 20} {
		if _, _, err := LoadKin8nm(dir, bad); err == nil || !strings.Contains(err.Error(), "split") {
			t.Errorf("LoadKin8nm(split %d) error = %v, want a split range error", bad, err)
		}
	}
}

func TestLoadDatasetMissingFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	check := func(what string, err error, file string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s on an empty folder succeeded", what)
		}
		for _, w := range []string{file, "missing", "SGP_DATA"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s error %q does not mention %q", what, err, w)
			}
		}
	}
	_, _, err := LoadSnelson(dir)
	check("LoadSnelson", err, filepath.Join(dir, "snelson1d", "train_inputs"))
	_, _, err = LoadKIN40K(dir)
	check("LoadKIN40K", err, filepath.Join(dir, "kin40k", "kin40k_train_data.asc"))
	_, _, err = LoadKin8nm(dir, 0)
	check("LoadKin8nm", err, filepath.Join(dir, "kin8nm", "n_splits.txt"))
}

func TestReadMatrixFileErrorsDataset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ name, body, want string }{
		{"ragged.txt", "1 2\n3 4\n5\n", "line 3"},
		{"word.txt", "1 2\n3 x\n", "line 2, column 2"},
		{"nan.txt", "NaN\n", "line 1, column 1"},
		{"empty.txt", "\n\n", "no numbers"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, _, err := readMatrixFile(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("readMatrixFile(%s) error = %v, want one naming the file and %q", tc.name, err, tc.want)
		}
	}
	// Index files must hold integer row numbers in range.
	idx := filepath.Join(dir, "idx.txt")
	if err := os.WriteFile(idx, []byte("0\n2.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readIndexFile(idx, 10); err == nil || !strings.Contains(err.Error(), "entry 2") {
		t.Errorf("readIndexFile(non-integer) error = %v", err)
	}
	if err := os.WriteFile(idx, []byte("0\n10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readIndexFile(idx, 10); err == nil || !strings.Contains(err.Error(), "[0, 10)") {
		t.Errorf("readIndexFile(out of range) error = %v", err)
	}
}
