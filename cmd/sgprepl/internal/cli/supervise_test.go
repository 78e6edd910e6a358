//go:build unix

package cli

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// crashCell ends a Go process with a fatal error that no recover catches.
const crashCell = "import \"sync\"\nvar mu sync.Mutex\nmu.Unlock()"

// TestSuperviseCrash: the REPL and scripts run under a supervising
// process, so that a fatal error of the Go runtime exits with status 3
// and a line saying so, not the runtime's 2 (the usage error's status);
// statuses the session chose pass through, os.Exit(2) included.
func TestSuperviseCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs sgprepl")
	}
	t.Parallel()
	bin := buildSgprepl(t)
	for _, c := range []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stderr []string
	}{
		{"-e crash", []string{"-e", crashCell}, "", exitCrash, []string{"fatal error: sync: unlock of unlocked mutex", "sgprepl: the session crashed"}},
		{"REPL crash", nil, crashCell + "\n", exitCrash, []string{"fatal error: sync: unlock of unlocked mutex", "sgprepl: the session crashed"}},
		{"os.Exit(2)", []string{"-e", "import \"os\"\nos.Exit(2)"}, "", 2, nil},
		{"error", []string{"-e", "panic(\"boom\")"}, "", exitFailure, []string{"sgprepl: 1:1: panic: boom"}},
		{"usage", []string{"-e"}, "", exitUsage, []string{"sgprepl: -e takes one argument"}},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Stdin = strings.NewReader(c.stdin)
		cmd.Env = append(os.Environ(), "SGPREPL_OUT="+t.TempDir())
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if code != c.code {
			t.Errorf("%s: exit status %d, want %d; stderr:\n%s", c.name, code, c.code, stderr.String())
		}
		for _, want := range c.stderr {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, want, stderr.String())
			}
		}
	}
}

// TestSuperviseForwardsSIGINT: without a terminal, the script's process
// has a process group of its own, and SIGINT sent to sgprepl reaches it:
// the script stops with status 130.
func TestSuperviseForwardsSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs sgprepl")
	}
	t.Parallel()
	bin := buildSgprepl(t)
	cmd := exec.Command(bin, "-e", "fmt.Println(\"looping\")\nx := 0\nfor {\n\tx++\n}")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	looping := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "looping" {
				looping <- true
			}
		}
		exited <- cmd.Wait()
	}()
	select {
	case <-looping:
	case err := <-exited:
		t.Fatalf("sgprepl exited (%v) before looping; stderr:\n%s", err, stderr.String())
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the script did not start in 60 s; stderr:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
			t.Errorf("exit %v, want status %d; stderr:\n%s", err, exitInterrupted, stderr.String())
		}
	case <-time.After(60 * time.Second): // a hang, not a latency bound
		cmd.Process.Kill()
		t.Fatalf("sgprepl still running 60 s after SIGINT; stderr:\n%s", stderr.String())
	}
}
