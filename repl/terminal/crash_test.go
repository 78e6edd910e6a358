package terminal

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestTerminalRestoredAfterCrash runs sgprepl in a real pseudo-terminal
// (tmux) and ends its session with a fatal error of the Go runtime, which
// nothing in the process can recover: the terminal must be back in its
// cooked mode (echo, icanon), not in the line editor's raw mode, and the
// exit status 3, not the runtime's 2.
func TestTerminalRestoredAfterCrash(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install tmux); skipping the terminal test")
	}
	t.Parallel()
	bin := buildREPL(t)
	dir := t.TempDir()
	tm := newTmux(t, dir)
	tm.text("SGP_HISTORY=" + dir + "/history " + bin)
	tm.send("Enter")
	tm.waitPrompt(1)
	for i, line := range []string{`import "sync"`, "var mu sync.Mutex"} {
		tm.text(line)
		tm.send("Enter")
		tm.waitPrompt(i + 2)
	}
	tm.text("mu.Unlock()")
	tm.send("Enter")
	tm.waitFor("the shell prompt after the crash", 60*time.Second, func(s string) bool {
		return strings.Contains(s, "fatal error: sync: unlock of unlocked mutex") && lastLine(s) == "$"
	})
	tm.text(`echo "status=$?"; stty -a | tr ' ;' '\n\n' | grep -x -e '-*icanon' -e '-*echo'`)
	tm.send("Enter")
	s := tm.waitFor("the terminal's mode", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "status=") && lastLine(s) == "$"
	})
	for _, want := range []string{"status=3", "\nicanon\n", "\necho\n", "sgprepl: the session crashed"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
}
