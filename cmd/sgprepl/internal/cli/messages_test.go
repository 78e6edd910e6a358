package cli

import (
	"context"
	"flag"
	"strings"
	"testing"
)

// typo returns name with two letters swapped (or, for a short name, one
// letter added), a misspelling at edit distance 1 or 2.
func typo(name string) string {
	if len(name) < 4 {
		return name + "q"
	}
	b := []byte(name)
	b[1], b[2] = b[2], b[1]
	return string(b)
}

// TestUnknownFlagSuggests checks that a misspelt flag of every subcommand
// is answered with the flag meant, and the issue's --selecter with
// --selector.
func TestUnknownFlagSuggests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	code, _, stderr := runMain(ctx, "fit", "--selecter", "exact")
	if code != exitUsage || !strings.Contains(stderr, "did you mean --selector?") {
		t.Errorf("fit --selecter: exit %d, %q; want 2 and \"did you mean --selector?\"", code, stderr)
	}
	oneErrorLine(t, stderr)
	for i := range commands {
		c := &commands[i]
		fs, _ := c.newFlagSet()
		fs.VisitAll(func(f *flag.Flag) {
			bad := typo(f.Name)
			if bad == f.Name || fs.Lookup(bad) != nil {
				return
			}
			code, _, stderr := runMain(ctx, c.name, "--"+bad)
			if code != exitUsage || !strings.Contains(stderr, "--"+f.Name) || !strings.Contains(stderr, "did you mean") {
				t.Errorf("%s --%s: exit %d, %q; want a suggestion of --%s", c.name, bad, code, stderr, f.Name)
			}
		})
	}
	// A name far from every flag gets no guess.
	if _, _, stderr := runMain(ctx, "fit", "--frobnicate"); strings.Contains(stderr, "did you mean") {
		t.Errorf("fit --frobnicate: %q suggests a flag", stderr)
	}
}

// TestFitMessagesCount checks the summary's "1 input column" (singular)
// and that --m ≥ n names the command line's --selector exact, not the
// library's NewExact.
func TestFitMessagesCount(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train := writeFile(t, dir, "one.csv", "x,y\n1,2\n2,3.5\n3,3\n4,5\n5,6.5\n6,6\n7,8\n8,8.5\n")
	ctx := context.Background()
	code, stdout, stderr := runMain(ctx, "fit", "--train", train, "--m", "3", "--selector", "cholqr", "--quiet", "--max-epochs", "2")
	if code != 0 || !strings.Contains(stdout, ", 1 input column, ") {
		t.Errorf("fit: exit %d, %q, stderr %q; want \", 1 input column, \"", code, stdout, stderr)
	}
	for _, sel := range []string{"", "cholqr", "sgpr-continuous"} {
		args := []string{"fit", "--train", train, "--m", "8", "--quiet"}
		if sel != "" {
			args = append(args, "--selector", sel)
		}
		code, _, stderr = runMain(ctx, args...)
		if code != exitFailure || !strings.Contains(stderr, "--selector exact") || strings.Contains(stderr, "NewExact") {
			t.Errorf("fit --m 8 of 8 rows (selector %q): exit %d, %q; want 1 and --selector exact, not NewExact", sel, code, stderr)
		}
		oneErrorLine(t, stderr)
	}
}
