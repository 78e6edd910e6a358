package cli

import (
	"bufio"
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
	"syscall"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/data"
)

// ardData writes n rows of d inputs and a target that depends on every
// input, so that a hybrid fit runs CholQR and then continuous fits of a
// few seconds each.
func ardData(t *testing.T, dir, name string, n, d int, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	var b strings.Builder
	for range n {
		y := 0.1 * rng.NormFloat64()
		for j := range d {
			x := 4*rng.Float64() - 2
			y += math.Sin(float64(j+1) * x)
			fmt.Fprintf(&b, "%.5f,", x)
		}
		fmt.Fprintf(&b, "%.5f\n", y)
	}
	return writeFile(t, dir, name, b.String())
}

// signalled is the outcome of runSignalled.
type signalled struct {
	code           int
	stdout, stderr string
}

// runSignalled runs sgprepl with args and sends it sig once a line of its
// stderr contains marker (or, with marker "", once ready is closed),
// closing sent (if not nil) once it has. It fails the test if the marker
// never appears or the process hangs.
func runSignalled(t *testing.T, bin string, args []string, marker string, ready <-chan struct{}, sent chan<- struct{}, sig syscall.Signal) signalled {
	t.Helper()
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
	var stderr lockedBuffer
	seen := make(chan struct{})
	exited := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderrR)
		closed := false
		for sc.Scan() {
			stderr.Write(append(sc.Bytes(), '\n'))
			if marker != "" && !closed && strings.Contains(sc.Text(), marker) {
				close(seen)
				closed = true
			}
		}
		io.Copy(io.Discard, stderrR)
		exited <- cmd.Wait()
	}()
	if marker == "" {
		seen = nil
	}
	select {
	case <-seen:
	case <-ready:
	case err := <-exited:
		t.Fatalf("sgprepl exited (%v) before %q; stderr:\n%s", err, marker, stderr.String())
	case <-time.After(120 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("no %q after 120 s; stderr:\n%s", marker, stderr.String())
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	if sent != nil {
		close(sent)
	}
	var werr error
	select {
	case werr = <-exited:
	case <-time.After(60 * time.Second): // a hang, not a latency bound
		cmd.Process.Kill()
		<-exited
		t.Fatalf("sgprepl still running 60 s after %v; stderr:\n%s", sig, stderr.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	} else if werr != nil {
		t.Fatal(werr)
	}
	return signalled{code, stdout.String(), stderr.String()}
}

// TestFitSignalPhases sends SIGINT, SIGTERM or SIGHUP to a hybrid fit in
// each of its phases: CholQR's epochs, the continuous parent that runs
// after them, the refinement from CholQR's fit, and the writing of the
// outputs after the fit. Every one must save a model that loads, exit
// 128 + the signal (SIGHUP is treated as SIGTERM: the terminal or ssh
// connection that closed cannot see the output, but the saved model and
// the exit status remain), end stderr with the "interrupted" line, and,
// when the signal stopped the fit, say in the summary that it was
// cancelled. The signal is sent when the phase's progress line appears
// on stderr: "epoch   1" in CholQR's epochs, its last epoch (of
// --max-epochs 3) just before the continuous parent, the continuous
// parent's outcome
// just before the refinement; for the outputs, when the predictions'
// reader (a named pipe) has received their first bytes, the pipe holding
// the rest back.
func TestFitSignalPhases(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs sgprepl")
	}
	t.Parallel()
	bin := buildSgprepl(t)
	dir := t.TempDir()
	train := ardData(t, dir, "train.csv", 1500, 8, 1)
	test := ardData(t, dir, "test.csv", 3000, 8, 2) // predictions beyond a pipe's buffer
	for _, tc := range []struct {
		name   string
		marker string // "": the predictions' pipe
		sig    syscall.Signal
	}{
		{"CholQR SIGHUP", "epoch   1", syscall.SIGHUP},
		{"continuous parent SIGINT", "epoch   3", syscall.SIGINT},
		{"continuous parent SIGHUP", "epoch   3", syscall.SIGHUP},
		{"refinement SIGTERM", "hybrid: continuous refinement from a random subset", syscall.SIGTERM},
		{"refinement SIGHUP", "hybrid: continuous refinement from a random subset", syscall.SIGHUP},
		{"outputs SIGINT", "", syscall.SIGINT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			model := filepath.Join(out, "m.json")
			args := []string{"fit", "--train", train, "--m", "30", "--max-epochs", "3", "--save", model}
			var ready, sent chan struct{}
			read := make(chan int, 1)
			if tc.marker == "" {
				fifo := filepath.Join(out, "pred.csv")
				if err := syscall.Mkfifo(fifo, 0o600); err != nil {
					t.Skipf("no named pipes: %v", err)
				}
				args = append(args, "--test", test, "--predictions", fifo)
				ready, sent = make(chan struct{}), make(chan struct{})
				go func() {
					f, err := os.Open(fifo) // waits for sgprepl to open it
					if err != nil {
						close(ready)
						read <- -1
						return
					}
					defer f.Close()
					first := make([]byte, 100)
					n, _ := io.ReadFull(f, first)
					close(ready)
					// The signal lands while sgprepl is blocked writing:
					// the rest is read only once it is sent, however long
					// the sending takes on a loaded machine.
					<-sent
					time.Sleep(200 * time.Millisecond)
					rest, _ := io.ReadAll(f)
					read <- strings.Count(string(first[:n])+string(rest), "\n")
				}()
			}
			r := runSignalled(t, bin, args, tc.marker, ready, sent, tc.sig)
			if want := 128 + int(tc.sig); r.code != want {
				t.Fatalf("exit status %d, want %d; stdout:\n%s\nstderr:\n%s", r.code, want, r.stdout, r.stderr)
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "sgprepl: interrupted") {
				t.Errorf("last stderr line %q, want \"sgprepl: interrupted…\"", last)
			}
			if _, err := sgp.LoadRegressorFile(model); err != nil {
				t.Errorf("the model: %v\nstderr:\n%s", err, r.stderr)
			}
			if tc.marker == "" {
				if n := <-read; n != 3001 {
					t.Errorf("the predictions have %d lines, want 3001 (the header and one per test row)", n)
				}
				if !strings.Contains(r.stderr, "after the fit ended") {
					t.Errorf("stderr does not say the signal came after the fit:\n%s", r.stderr)
				}
				return
			}
			// CholQR's epochs line, or the kept continuous fit's
			// evaluations line, says why the fit stopped.
			if !strings.Contains(r.stdout, "complete (cancelled") && !strings.Contains(r.stdout, "(cancelled: during") {
				t.Errorf("the summary does not say the fit was cancelled:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			}
		})
	}
}

// TestPredictCancelled: predict, which cannot stop midway, exits with the
// signal's status (130 for SIGINT, 129 for SIGHUP) rather than 0 when its
// context is cancelled: before loading the model it writes nothing.
func TestPredictCancelled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(40, 3)
	path := writeCSV(t, dir, "train.csv", train, false)
	model := filepath.Join(dir, "m.json")
	if code, _, stderr := runMain(context.Background(), "fit", "--train", path, "--m", "5", "--quiet", "--save", model); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		sig  os.Signal
		want int
	}{{os.Interrupt, exitInterrupted}, {syscall.SIGHUP, exitHangup}} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(Interrupt{Signal: c.sig})
		code, stdout, stderr := runMain(ctx, "predict", "--model", model, "--input", path)
		if code != c.want || stdout != "" || !strings.Contains(stderr, "interrupted") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, nothing written", c.sig, code, stdout, stderr, c.want)
		}
	}
}
