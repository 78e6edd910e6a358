package terminal

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cholqr/sgp/repl"
)

// TestResetCommand: :reset drops the variables and keeps the imports.
func TestResetCommand(t *testing.T) {
	t.Setenv("SGPREPL_OUT", t.TempDir())
	in := strings.Join([]string{
		`import "strconv"`,
		"x := 6",
		":reset",
		"x",
		`strconv.Itoa(40 + 2)`,
	}, "\n")
	var out, errOut bytes.Buffer
	if err := Interactive(context.Background(), Streams{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errOut}); err != nil {
		t.Fatalf("error %v, stderr:\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), repl.ResetMessage) || !strings.Contains(out.String(), "42") {
		t.Errorf("stdout lacks the reset message or 42:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), "undefined: x") {
		t.Errorf("x after :reset: stderr %q, want undefined: x", errOut.String())
	}
}
