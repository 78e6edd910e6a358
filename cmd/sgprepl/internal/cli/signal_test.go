package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/data"
)

// buildSgprepl builds cmd/sgprepl into a temporary folder and returns its
// path; the packages are in the build cache from compiling this test, so
// it mostly links (as repl/terminal's buildREPL does).
func buildSgprepl(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; cannot build sgprepl")
	}
	bin := filepath.Join(t.TempDir(), "sgprepl")
	if out, err := exec.Command(goTool, "build", "-o", bin, "github.com/cholqr/sgp/cmd/sgprepl").CombinedOutput(); err != nil {
		t.Fatalf("go build cmd/sgprepl: %v\n%s", err, out)
	}
	return bin
}

// roughData writes n points of a rough 1-D function (many inducing points
// needed, so that a fit runs for many epochs) to dir/name.
func roughData(t *testing.T, dir, name string, n int, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	for range n {
		x := 10 * rng.Float64()
		fmt.Fprintf(&b, "%.6f,%.6f\n", x, math.Sin(7*x)+0.5*math.Sin(23*x)+0.03*rng.NormFloat64())
	}
	return writeFile(t, dir, name, b.String())
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestFitSIGINT runs the sgprepl binary on a long fit and sends it SIGINT
// (os.Interrupt, as Ctrl-C does): plain fit and fit --selector
// sgpr-continuous must stop and exit 130 (cli.go's exitInterrupted, which
// the help promises) with the "interrupted" line, never 0 or a crash.
// SIGTERM (as timeout, Slurm, docker stop and systemd send it) must do the
// same with exit status 143 and save the partial model, not end the
// process at once with no model and no line.
//
// The test set is a named pipe: the binary blocks opening it after
// cmd/sgprepl/main.go has installed its SIGINT handling
// (signal.NotifyContext), so the signal cannot arrive before it. The
// continuous fit prints nothing while it runs; the signal then comes a
// moment after the test rows were handed over (in the fit, or just
// before it: both must give 130). The plain fit is interrupted after its
// first progress line.
func TestFitSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs sgprepl")
	}
	t.Parallel()
	bin := buildSgprepl(t)
	dir := t.TempDir()
	train := roughData(t, dir, "train.csv", 5000, 1)
	testRows, err := os.ReadFile(roughData(t, dir, "rows.csv", 50, 2))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		// waitProgress: interrupt after the first "epoch" line on stderr.
		waitProgress bool
		sig          syscall.Signal
		save         bool // --save a model, which must load
	}{
		{"fit", []string{"--m", "300", "--max-epochs", "1000"}, true, syscall.SIGINT, false},
		{"fit --json", []string{"--m", "300", "--max-epochs", "1000", "--json"}, true, syscall.SIGINT, false},
		{"sgpr-continuous", []string{"--selector", "sgpr-continuous", "--m", "300", "--max-epochs", "100000"}, false, syscall.SIGINT, false},
		{"sgpr-continuous --json", []string{"--selector", "sgpr-continuous", "--m", "300", "--max-epochs", "100000", "--json"}, false, syscall.SIGINT, false},
		{"fit SIGTERM --save", []string{"--m", "300", "--max-epochs", "1000"}, true, syscall.SIGTERM, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "test.csv")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no named pipes: %v", err)
			}
			args := append([]string{"fit", "--train", train, "--test", fifo}, tc.args...)
			model := filepath.Join(t.TempDir(), "m.json")
			if tc.save {
				args = append(args, "--save", model)
			}
			cmd := exec.Command(bin, args...)
			var stdout lockedBuffer
			cmd.Stdout = &stdout
			stderrR, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			var stderr lockedBuffer
			progress := make(chan struct{})
			go func() {
				sc := bufio.NewScanner(stderrR)
				once := sync.Once{}
				for sc.Scan() {
					stderr.Write(append(sc.Bytes(), '\n'))
					if strings.HasPrefix(sc.Text(), "epoch") {
						once.Do(func() { close(progress) })
					}
				}
				io.Copy(io.Discard, stderrR)
				exited <- cmd.Wait()
			}()
			done := false
			defer func() {
				if !done {
					cmd.Process.Kill()
					<-exited
				}
			}()

			// Opening the pipe for writing waits for sgprepl to open it for
			// reading, which it does after its signal handling is set up.
			opened := make(chan *os.File, 1)
			go func() {
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					t.Error(err)
					w = nil
				}
				opened <- w
			}()
			var w *os.File
			select {
			case w = <-opened:
			case err := <-exited:
				done = true
				t.Fatalf("sgprepl exited (%v) before reading the test file; stderr:\n%s", err, stderr.String())
			case <-time.After(60 * time.Second):
				t.Fatalf("sgprepl did not open the test file; stderr:\n%s", stderr.String())
			}
			if w == nil {
				return
			}
			w.Write(testRows)
			w.Close()

			if tc.waitProgress {
				select {
				case <-progress:
				case err := <-exited:
					done = true
					t.Fatalf("the fit ended (%v) before its first progress line; stderr:\n%s", err, stderr.String())
				case <-time.After(120 * time.Second):
					t.Fatalf("no progress line after 120 s; stderr:\n%s", stderr.String())
				}
			} else {
				time.Sleep(500 * time.Millisecond)
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			var werr error
			select {
			case werr = <-exited:
				done = true
			case <-time.After(60 * time.Second): // a hang, not a latency bound
				t.Fatalf("sgprepl still running 60 s after %v; stderr:\n%s", tc.sig, stderr.String())
			}
			var ee *exec.ExitError
			if want := 128 + int(tc.sig); !errors.As(werr, &ee) || ee.ExitCode() != want {
				t.Fatalf("exit %v, want status %d; stderr:\n%s", werr, want, stderr.String())
			}
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "sgprepl: interrupted") {
				t.Errorf("last stderr line %q, want \"sgprepl: interrupted…\"; stderr:\n%s", last, stderr.String())
			}
			if strings.Contains(stderr.String(), "goroutine ") {
				t.Errorf("a stack trace on stderr:\n%s", stderr.String())
			}
			if tc.save {
				if _, err := sgp.LoadRegressorFile(model); err != nil {
					t.Errorf("the partial model: %v", err)
				}
			}
		})
	}
}

// TestFitCancelledEarly: a fit cancelled before its first evaluation (a
// Ctrl-C while the data is read) exits 130 with the "interrupted" line,
// for every selector, and never blames the data (the continuous fit
// reported "kernel matrix … not positive definite" and exited 1). With
// SIGTERM as the cause (as cmd/sgprepl cancels on it) the status is 143,
// for fits and scripts.
func TestFitCancelledEarly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(60, 5)
	path := writeCSV(t, dir, "train.csv", train, false)
	for _, tc := range []struct {
		cause error // nil: a plain cancel
		want  int
	}{
		{nil, exitInterrupted},
		{Interrupt{Signal: os.Interrupt}, exitInterrupted},
		{Interrupt{Signal: syscall.SIGTERM}, exitTerminated},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(tc.cause)
		for _, sel := range [][]string{
			{"--selector", "cholqr", "--m", "6"},
			{"--selector", "hybrid", "--m", "6"},
			{"--selector", "sgpr-continuous", "--m", "6"},
			{"--selector", "sgpr-continuous", "--m", "6", "--json"},
			{"--selector", "exact"},
		} {
			code, _, stderr := runMain(ctx, append([]string{"fit", "--train", path, "--test", path, "--quiet"}, sel...)...)
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if code != tc.want || !strings.HasPrefix(lines[len(lines)-1], "sgprepl: interrupted") {
				t.Errorf("%v, cause %v: exit %d, want %d with the interrupted line; stderr:\n%s", sel, tc.cause, code, tc.want, stderr)
			}
			if strings.Contains(stderr, "positive definite") {
				t.Errorf("%v: the cancellation is blamed on the data:\n%s", sel, stderr)
			}
		}
		if code, _, stderr := runMain(ctx, "-e", "for {}"); code != tc.want {
			t.Errorf("-e, cause %v: exit %d, want %d; stderr:\n%s", tc.cause, code, tc.want, stderr)
		}
	}
}
