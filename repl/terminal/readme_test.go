package terminal

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeWalkthrough returns the Go code block of README.md between the
// walkthrough markers.
func readmeWalkthrough(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok1 := strings.Cut(string(b), "<!-- walkthrough:begin -->")
	block, _, ok2 := strings.Cut(rest, "<!-- walkthrough:end -->")
	_, code, ok3 := strings.Cut(block, "```go\n")
	code, _, ok4 := strings.Cut(code, "```")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		t.Fatal("README.md has no ```go block between <!-- walkthrough:begin --> and <!-- walkthrough:end -->")
	}
	return code
}

// TestReadmeWalkthrough types the README's REPL walkthrough into sgprepl,
// line by line as a user would, and checks that every cell succeeds and
// that it shows what the README says it shows.
func TestReadmeWalkthrough(t *testing.T) {
	figs := t.TempDir()
	t.Setenv("SGPREPL_OUT", figs)
	code := readmeWalkthrough(t)
	var out, errOut bytes.Buffer
	err := Interactive(context.Background(), Streams{Stdin: strings.NewReader(code), Stdout: &out, Stderr: &errOut})
	if err != nil || errOut.Len() > 0 {
		t.Fatalf("the walkthrough failed: %v, stderr:\n%s\nstdout:\n%s", err, errOut.String(), out.String())
	}
	stdout := out.String()
	for _, want := range []string{
		`sgp.Dataset "snelson-like": 200 points`,
		"swap: ",
		"200×3 *mat.Dense",
		"MLE ",
		"fit converged",
		"\n  lengthscale[0]  ",
		"sgp.Trace: ",
		"sgp.Comparison of 2 models, scored on",
		"cost ranking after removing point",
		"Spearman ρ(exact, approx)",
		"figure saved: " + filepath.Join(figs, "fig-003.png"),
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the walkthrough's output lacks %q:\n%s", want, stdout)
		}
	}
	if n := strings.Count(stdout, "swap: "); n != 6 {
		t.Errorf("%d swaps shown, want 6:\n%s", n, stdout)
	}
}
