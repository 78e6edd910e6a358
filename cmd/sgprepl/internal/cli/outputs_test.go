//go:build unix

package cli

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/data"
)

// savedModel fits a small model, saves it in dir and returns the model's
// path, an input file's and what predict prints for it.
func savedModel(t *testing.T, dir string) (model, input, want string) {
	t.Helper()
	train, _ := data.SnelsonLike(60, 3)
	test, _ := data.SnelsonLike(25, 4)
	trainPath := writeCSV(t, dir, "train.csv", train, false)
	input = writeCSV(t, dir, "test.csv", test, false)
	model = filepath.Join(dir, "model.json")
	if code, _, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--m", "5", "--max-epochs", "3", "--quiet", "--save", model); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runMain(context.Background(), "predict", "--model", model, "--input", input)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	return model, input, stdout
}

// TestOutputNamedPipe: predict --output to a named pipe writes the CSV to
// its reader (it renamed a file over the pipe: the reader got 0 bytes);
// with no reader it fails at once, saying so, instead of hanging. The
// pipe stays a pipe.
func TestOutputNamedPipe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model, input, want := savedModel(t, dir)
	fifo := filepath.Join(dir, "pred.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	type result struct {
		code           int
		stdout, stderr string
	}
	predict := func() chan result {
		done := make(chan result, 1)
		go func() {
			code, stdout, stderr := runMain(context.Background(), "predict", "--model", model, "--input", input, "--output", fifo)
			done <- result{code, stdout, stderr}
		}()
		return done
	}
	select {
	case r := <-predict():
		if r.code != exitFailure || !strings.Contains(r.stderr, "no process is reading") {
			t.Errorf("no reader: exit %d, stderr %q", r.code, r.stderr)
		}
		oneErrorLine(t, r.stderr)
	case <-time.After(60 * time.Second): // a hang, not a speed bound
		t.Fatal("predict --output to a named pipe with no reader hangs")
	}

	rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	written := make(chan struct{})
	got := make(chan []byte, 1)
	go func() { got <- readPipe(rd, written) }()
	var r result
	select {
	case r = <-predict():
		close(written)
	case <-time.After(60 * time.Second):
		t.Fatal("predict --output to a named pipe with a reader did not finish")
	}
	if r.code != 0 {
		t.Fatalf("with a reader: exit %d: %s", r.code, r.stderr)
	}
	if b := <-got; string(b) != want {
		t.Errorf("the reader got %d bytes, want the %d predict prints", len(b), len(want))
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

// TestOutputDash: "-" is standard output for predict --output and for
// fit --save and --predictions (fit's summary then goes to stderr); two
// outputs on it, or one with --json, are usage errors. The test runs in a
// temporary directory, where a "-" taken for a file name would land (not
// in the package's directory), and checks that none does.
func TestOutputDash(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // not parallel: the working directory is the process's
	model, input, want := savedModel(t, dir)
	code, stdout, stderr := runMain(context.Background(), "predict", "--model", model, "--input", input, "--output", "-")
	if code != 0 || stdout != want {
		t.Errorf("predict --output -: exit %d, stderr %q, stdout differs from predict's:\n%s", code, stderr, stdout)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`predict --output - wrote a file named "-"`)
	}

	code, stdout, stderr = runMain(context.Background(), "fit", "--train", input, "--m", "3", "--max-epochs", "2", "--quiet", "--save", "-")
	if code != 0 {
		t.Fatalf("fit --save -: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`fit --save - wrote a file named "-"`)
	}
	if _, err := sgp.LoadRegressor(strings.NewReader(stdout)); err != nil {
		t.Errorf("fit --save -: stdout is not a model (%v):\n%.200s", err, stdout)
	}
	if !strings.Contains(stderr, "objective") {
		t.Errorf("fit --save -: the summary is not on stderr: %q", stderr)
	}

	for _, args := range [][]string{
		{"predict", "--model", model, "--input", input, "--output", "-", "--json"},
		{"fit", "--train", input, "--test", input, "--save", "-", "--predictions", "-"},
		{"fit", "--train", input, "--save", "-", "--json"},
	} {
		code, stdout, stderr := runMain(context.Background(), args...)
		if code != exitUsage || stdout != "" {
			t.Errorf("%v: exit %d (want %d), stdout %q", args, code, exitUsage, stdout)
		}
		oneErrorLine(t, stderr)
		if _, err := os.Stat("-"); err == nil {
			t.Fatalf(`%v wrote a file named "-"`, args)
		}
	}
}

// TestOutputDirectory: an output that is a directory is an error before
// any work, and the directory is left alone.
func TestOutputDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model, input, _ := savedModel(t, dir)
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"predict", "--model", model, "--input", input, "--output", out},
		{"fit", "--train", input, "--m", "3", "--save", out + "/"},
	} {
		code, stdout, stderr := runMain(context.Background(), args...)
		if code != exitFailure || stdout != "" || !strings.Contains(stderr, "is a directory") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args[len(args)-2:], code, stdout, stderr)
		}
	}
	if fi, err := os.Stat(out); err != nil || !fi.IsDir() {
		t.Errorf("out is no longer a directory: %v", err)
	}
}

// TestOutputStaleTemporary: a temporary file that a killed write of the
// same output left behind (".pred.csv.tmp-" and 12 hex digits, not
// locked by a live writer) is removed by the next write; other files
// that look alike are not (they stayed for ever).
func TestOutputStaleTemporary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model, input, want := savedModel(t, dir)
	stale := writeFile(t, dir, ".pred.csv.tmp-0123456789ab", "half")
	keep := []string{
		writeFile(t, dir, ".pred.csv.tmp-notmine", "x"),
		writeFile(t, dir, ".other.csv.tmp-0123456789ab", "x"),
	}
	out := filepath.Join(dir, "pred.csv")
	if code, _, stderr := runMain(context.Background(), "predict", "--model", model, "--input", input, "--output", out); code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != want {
		t.Errorf("pred.csv holds %q", b)
	}
	if _, err := os.Lstat(stale); err == nil {
		t.Error("the stale temporary file is still there")
	}
	for _, k := range keep {
		if _, err := os.Lstat(k); err != nil {
			t.Errorf("%s was removed", filepath.Base(k))
		}
	}
}

// TestOutputStdoutDescriptor runs the binary with --output /dev/stdout
// (and /proc/self/fd/1) whose standard output is a file opened for
// appending, a terminal and a pipe: the file keeps what it held and gets
// the CSV after it (it was replaced: "OLD" was gone), and the terminal
// and the pipe carry the CSV (the pipe failed with "no such file or
// directory").
func TestOutputStdoutDescriptor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs sgprepl")
	}
	t.Parallel()
	bin := buildSgprepl(t)
	dir := t.TempDir()
	model, input, want := savedModel(t, dir)
	names := []string{"/dev/stdout"}
	if _, err := os.Stat("/proc/self/fd"); err == nil {
		names = append(names, "/proc/self/fd/1")
	}
	for _, name := range names {
		t.Run(name+" >>", func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "out.txt", "OLD\n")
			before, _ := os.Stat(path)
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "predict", "--model", model, "--input", input, "--output", name)
			cmd.Stdout = f
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err = cmd.Run()
			f.Close()
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			if b, _ := os.ReadFile(path); string(b) != "OLD\n"+want {
				t.Errorf("out.txt holds %q…, want OLD and the predictions", b[:min(len(b), 40)])
			}
			if after, _ := os.Stat(path); !os.SameFile(before, after) {
				t.Error("out.txt was replaced")
			}
		})
		t.Run(name+" tty", func(t *testing.T) {
			master, slave := openPTY(t)
			defer master.Close()
			cmd := exec.Command(bin, "predict", "--model", model, "--input", input, "--output", name)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = slave, &stderr
			got := make(chan string, 1)
			go func() {
				b, _ := io.ReadAll(master) // EIO once the last slave closes
				got <- string(b)
			}()
			err := cmd.Run()
			slave.Close()
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			// The terminal turns each \n into \r\n (ONLCR).
			if s := strings.ReplaceAll(<-got, "\r\n", "\n"); s != want {
				t.Errorf("the terminal showed %q…", s[:min(len(s), 40)])
			}
		})
		t.Run(name+" |", func(t *testing.T) {
			cmd := exec.Command(bin, "predict", "--model", model, "--input", input, "--output", name)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr // a pipe to this process
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			if stdout.String() != want {
				t.Errorf("the pipe carried %q…", stdout.String()[:min(stdout.Len(), 40)])
			}
		})
	}
}
