package terminal

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestVarsHidesInternalNames: :vars lists what the user defined — with a
// user's func main under its own name — and never `_`, nor the session's
// internal names (repl/vars.go: names starting with "__", such as the
// helper package __sgprepl and the renamed __main of
// repl/yaegi_define.go).
func TestVarsHidesInternalNames(t *testing.T) {
	t.Setenv("SGPREPL_OUT", t.TempDir())
	in := strings.Join([]string{
		"x := 6",
		"_ = x",
		"var _ = 7",
		"_, y := 1, 2",
		"func main() { x++ }",
		"main()",
		"type T struct{ A int }",
		"x * 7",
		":vars",
	}, "\n")
	var out, errOut bytes.Buffer
	if err := Interactive(context.Background(), Streams{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errOut}); err != nil {
		t.Fatalf("error %v, stderr:\n%s", err, errOut.String())
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr:\n%s", errOut.String())
	}
	_, listing, ok := strings.Cut("\n"+out.String(), "\n49\n")
	if !ok {
		t.Fatalf("x * 7 did not print 49 (main not run once?):\n%s", out.String())
	}
	names := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(listing), "\n") {
		name := strings.Fields(line)[0]
		names[name] = true
		if strings.HasPrefix(name, "_") {
			t.Errorf(":vars lists %q:\n%s", name, listing)
		}
	}
	for _, want := range []string{"x", "y", "main", "T"} {
		if !names[want] {
			t.Errorf(":vars lacks %s:\n%s", want, listing)
		}
	}
	if strings.Contains(listing, "sgprepl") {
		t.Errorf(":vars shows the session's helper package:\n%s", listing)
	}
}
