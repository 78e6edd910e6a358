package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/cholqr/sgp/repl/jupyter"

	"github.com/cholqr/sgp/sgp/data"
)

// TestPredictCommand: predict with a saved model gives the same file as
// fit --predictions for the same rows, from labelled or unlabelled rows
// (a model fit on a file without a header row reads them by position;
// TestPredictColumnNames covers named columns).
func TestPredictCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(100, 5)
	test, _ := data.SnelsonLike(30, 6)
	trainPath := writeCSV(t, dir, "train.csv", train, false)
	testPath := writeCSV(t, dir, "test.csv", test, false)
	var unlabelled strings.Builder
	for i := range test.Len() {
		unlabelled.WriteString(strings.TrimRight(strings.Fields(strings.ReplaceAll(fmtRow(test.X.Row(i)), ",", " "))[0], " ") + "\n")
	}
	xPath := writeFile(t, dir, "x.csv", unlabelled.String())
	modelPath := filepath.Join(dir, "model.json")
	predPath := filepath.Join(dir, "pred.csv")
	if code, _, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--test", testPath, "--m", "6",
		"--max-epochs", "5", "--quiet", "--save", modelPath, "--predictions", predPath); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	want, _ := os.ReadFile(predPath)
	for _, in := range []string{testPath, xPath} {
		code, stdout, stderr := runMain(context.Background(), "predict", "--model", modelPath, "--input", in)
		if code != 0 || stdout != string(want) {
			t.Errorf("predict --input %s: exit %d, stderr %q; output differs from fit --predictions:\n%s\nwant\n%s", filepath.Base(in), code, stderr, stdout, want)
		}
	}
	out := filepath.Join(dir, "out.csv")
	code, stdout, stderr := runMain(context.Background(), "predict", "--model", modelPath, "--input", xPath, "--output", out, "--json")
	got, _ := os.ReadFile(out)
	var rep struct {
		Rows int       `json:"rows"`
		Mean []float64 `json:"mean"`
	}
	if code != 0 || string(got) != string(want) || json.Unmarshal([]byte(stdout), &rep) != nil || rep.Rows != test.Len() {
		t.Errorf("predict --output --json: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	// Errors: a missing model, too many columns, the model as output.
	for _, args := range [][]string{
		{"predict", "--model", filepath.Join(dir, "none.json"), "--input", xPath},
		{"predict", "--model", modelPath, "--input", writeFile(t, dir, "wide.csv", "1,2,3\n4,5,6\n")},
		{"predict", "--model", modelPath, "--input", xPath, "--output", modelPath},
	} {
		if code, _, stderr := runMain(context.Background(), args...); code == 0 {
			t.Errorf("%v: exit 0", args)
		} else {
			oneErrorLine(t, stderr)
		}
	}
	if after, _ := os.ReadFile(modelPath); len(after) == 0 {
		t.Error("the model file was damaged")
	}
}

func fmtRow(r []float64) string {
	b, _ := json.Marshal(r)
	return strings.Trim(string(b), "[]")
}

// TestOutputsNeverOverwriteInputs: --save or --predictions naming an input
// (by any path) is refused before the fit, and nothing is written.
func TestOutputsNeverOverwriteInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(60, 1)
	test, _ := data.SnelsonLike(20, 2)
	trainPath := writeCSV(t, dir, "train.csv", train, false)
	testPath := writeCSV(t, dir, "test.csv", test, false)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(trainPath, link); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(trainPath)
	beforeTest, _ := os.ReadFile(testPath)
	for _, args := range [][]string{
		{"--save", trainPath},
		{"--save", filepath.Join(dir, ".", "train.csv")},
		{"--save", link},
		{"--predictions", testPath},
		{"--save", filepath.Join(dir, "m.json"), "--predictions", filepath.Join(dir, "m.json")},
	} {
		code, stdout, stderr := runMain(context.Background(), append([]string{"fit", "--train", trainPath, "--test", testPath, "--m", "4", "--max-epochs", "2", "--quiet"}, args...)...)
		if code != exitUsage || stdout != "" {
			t.Errorf("%v: exit %d (want %d), stdout %q, stderr %q", args, code, exitUsage, stdout, stderr)
		}
	}
	if after, _ := os.ReadFile(trainPath); string(after) != string(before) {
		t.Error("the training file changed")
	}
	if after, _ := os.ReadFile(testPath); string(after) != string(beforeTest) {
		t.Error("the test file changed")
	}
	// An unwritable directory is reported before the fit.
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		code, _, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--m", "4", "--save", filepath.Join(ro, "m.json"))
		if code == 0 || strings.Contains(stderr, "epoch") {
			t.Errorf("unwritable directory: exit %d, stderr %q", code, stderr)
		}
	}
}

// TestOutputFileModes: an existing output keeps its mode, a new one
// follows the umask, and a symbolic link is written through.
func TestOutputFileModes(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	train, _ := data.SnelsonLike(60, 1)
	trainPath := writeCSV(t, dir, "train.csv", train, false)
	existing := writeFile(t, dir, "existing.json", "old")
	if err := os.Chmod(existing, 0o600); err != nil {
		t.Fatal(err)
	}
	target := writeFile(t, dir, "target.json", "old")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("target.json", link); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "fresh.json")
	for _, out := range []string{existing, link, fresh} {
		if code, _, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--m", "4", "--max-epochs", "2", "--quiet", "--save", out); code != 0 {
			t.Fatalf("--save %s: exit %d: %s", out, code, stderr)
		}
	}
	mode := func(p string) os.FileMode {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	if m := mode(existing); m != 0o600 {
		t.Errorf("existing file: mode %o, want 600", m)
	}
	if m := mode(fresh); m != 0o640 {
		t.Errorf("new file: mode %o, want 640 (0666 less umask 027)", m)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), "sgp-model") {
		t.Errorf("the link's target was not written: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 5 {
		t.Errorf("%d files in the directory, want 5 (no temporary files)", len(entries))
	}
}

// TestFitUndefinedMetrics: a test set of one row, or with constant
// targets, still gets predictions; SMSE and SNLP are null with a note.
func TestFitUndefinedMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(60, 1)
	trainPath := writeCSV(t, dir, "train.csv", train, false)
	for name, content := range map[string]string{"one": "0.5,1\n", "constant": "0.5,1\n1.5,1\n2.5,1\n"} {
		testPath := writeFile(t, dir, name+".csv", content)
		predPath := filepath.Join(dir, name+"-pred.csv")
		code, stdout, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--test", testPath, "--m", "4",
			"--max-epochs", "2", "--quiet", "--json", "--predictions", predPath)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if v, ok := rep["smse"]; !ok || v != nil || rep["notes"] == nil {
			t.Errorf("%s: smse %v, notes %v", name, v, rep["notes"])
		}
		b, err := os.ReadFile(predPath)
		if err != nil || strings.Count(string(b), "\n") != strings.Count(content, "\n")+1 {
			t.Errorf("%s: predictions %q, %v", name, b, err)
		}
	}
}

// TestUsageErrorsExitTwo: every usage error — unknown flag values
// included — exits 2; bad data exits 1.
func TestUsageErrorsExitTwo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(30, 1)
	trainPath := writeCSV(t, dir, "train.csv", train, false)
	for _, args := range [][]string{
		{"fit", "--train", trainPath, "--objective", "nope"},
		{"fit", "--train", trainPath, "--selector", "nope"},
		{"fit", "--train", trainPath, "--kernel", "nope"},
		{"fit", "--bogus"},
		{"eval", "--train", trainPath, "--inducing", "1", "--variance", "1", "--lengthscales", "1", "--noise", "0.1", "--objective", "nope"},
		{"predict", "--input", trainPath},
	} {
		if code, _, stderr := runMain(context.Background(), args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, exitUsage, stderr)
		}
	}
	code, _, stderr := runMain(context.Background(), "eval", "--train", trainPath, "--inducing", "1,3", "--variance", "1",
		"--lengthscales", "1", "--noise", "1e-320")
	if code != exitFailure || !strings.Contains(stderr, "not finite") {
		t.Errorf("eval --noise 1e-320: exit %d, stderr %q", code, stderr)
	}
}

// TestKernelNames: install-kernel refuses names that leave the kernels
// folder.
func TestKernelNames(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "..", ".", "../x", "a/b", `a\b`, "a b", ".hidden", strings.Repeat("x", 65)} {
		if jupyter.ValidName(bad) {
			t.Errorf("%q accepted", bad)
		}
		if code, _, _ := runMain(context.Background(), "install-kernel", "--prefix", t.TempDir(), "--name", bad); code != exitUsage {
			t.Errorf("install-kernel --name %q: exit %d", bad, code)
		}
	}
	for _, good := range []string{"sgp", "sgp-2", "go_sgp.v1"} {
		if !jupyter.ValidName(good) {
			t.Errorf("%q refused", good)
		}
	}
}

// TestVersion: sgprepl version names the Go version and the BLAS in use.
func TestVersion(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runMain(context.Background(), "version")
	if code != 0 || !strings.Contains(stdout, "sgprepl ") || !strings.Contains(stdout, runtime.Version()) || !strings.Contains(stdout, "BLAS: ") {
		t.Errorf("version: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, stdout, _ := runMain(context.Background(), "help"); !strings.Contains(stdout, "version") || !strings.Contains(stdout, "eval") || !strings.Contains(stdout, "predict") {
		t.Errorf("help does not list every subcommand:\n%s", stdout)
	}
}

// TestHelpTexts: help for run and -e, with -h, --help or help COMMAND.
func TestHelpTexts(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"help", "run"}, {"run", "--help"}, {"help", "-e"}} {
		if code, stdout, _ := runMain(context.Background(), args...); code != 0 || !strings.Contains(stdout, "sgprepl run FILE.go") {
			t.Errorf("%v: exit %d, stdout %q", args, code, stdout)
		}
	}
}
