package cli

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cholqr/sgp/sgp"
)

// exitCode returns the exit status of a finished command, 128 + the
// signal's number for one killed by a signal (as a shell reports it).
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// TestFitClosedPipes runs the sgprepl binary with a closed pipe for
// standard error or standard output. A reader of stderr that stops after
// the first line (fit … 2>&1 | head -1) must stop only the progress
// lines: the fit goes on, saves its model and exits 0, where the Go
// runtime ends a process that writes to a broken pipe on descriptor 2
// with SIGPIPE (exit 141, no model) unless SIGPIPE is handled. A closed
// stdout that was to receive the predictions (--predictions -) must fail
// with exit status 1 and say that standard output could not be written,
// not exit 0 (or die of SIGPIPE) as if it had.
func TestFitClosedPipes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs sgprepl")
	}
	t.Parallel()
	bin := buildSgprepl(t)
	dir := t.TempDir()
	train := roughData(t, dir, "train.csv", 2000, 1)
	test := roughData(t, dir, "test.csv", 200, 2)

	t.Run("stderr", func(t *testing.T) {
		model := filepath.Join(t.TempDir(), "m.json")
		cmd := exec.Command(bin, "fit", "--train", train, "--m", "40", "--max-epochs", "8", "--selector", "cholqr", "--save", model)
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = w
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		line, err := bufio.NewReader(r).ReadString('\n')
		r.Close() // as head -1 does after its line
		if err != nil {
			t.Fatalf("no first line on stderr: %v", err)
		}
		if code := exitCode(t, cmd.Wait()); code != 0 {
			t.Fatalf("exit status %d after stderr closed (first line %q), want 0", code, line)
		}
		if _, err := sgp.LoadRegressorFile(model); err != nil {
			t.Errorf("the model: %v", err)
		}
	})

	t.Run("stdout", func(t *testing.T) {
		model := filepath.Join(t.TempDir(), "m.json")
		cmd := exec.Command(bin, "fit", "--train", train, "--test", test, "--m", "20", "--max-epochs", "2", "--selector", "cholqr", "--quiet",
			"--save", model, "--predictions", "-")
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close() // nobody reads the predictions
		cmd.Stdout = w
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err = cmd.Run()
		w.Close()
		if code := exitCode(t, err); code != exitFailure {
			t.Fatalf("exit status %d with stdout closed, want %d; stderr:\n%s", code, exitFailure, stderr.String())
		}
		if !strings.Contains(stderr.String(), "cannot write to standard output") || !strings.Contains(stderr.String(), model+" written") {
			t.Errorf("stderr does not say the predictions were not written (and the model was):\n%s", stderr.String())
		}
	})
}
