package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/data"
)

// TestConventions checks the command line's conventions for a new user:
// --version works as the version command does, a command's --help goes to
// stdout with exit status 0, a flag value outside its range is a usage
// error (2), the unknown-selector message lists every selector fit takes,
// m ≥ n points to the exact GP, and fit's help names the columns that
// --predictions writes.
func TestConventions(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--version", "-version"} {
		code, stdout, stderr := runMain(context.Background(), arg)
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "sgprepl ") || !strings.Contains(stdout, "BLAS: ") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, code, stdout, stderr)
		}
	}
	for _, cmd := range []string{"fit", "predict", "eval", "demo"} {
		for _, arg := range []string{"--help", "-h"} {
			code, stdout, stderr := runMain(context.Background(), cmd, arg)
			if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: sgprepl "+cmd) {
				t.Errorf("%s %s: exit %d, stderr %q, stdout starts %q", cmd, arg, code, stderr, stdout[:min(len(stdout), 40)])
			}
		}
	}
	_, help, _ := runMain(context.Background(), "help", "fit")
	i := strings.Index(help, "-predictions")
	if i < 0 || !strings.Contains(help[i:i+200], "mean,variance,latent_variance") {
		t.Errorf("help fit: --predictions does not name the columns mean,variance,latent_variance:\n%s", help)
	}

	dir := t.TempDir()
	train, _ := data.SnelsonLike(30, 6)
	good := writeCSV(t, dir, "good.csv", train, true)
	for _, tc := range []struct {
		args []string
		code int
		want []string // in the error line
	}{
		{[]string{"--m", "0"}, 2, []string{"--m 0"}},
		{[]string{"--m", "0", "--selector", "sgpr-continuous"}, 2, []string{"--m 0"}},
		{[]string{"--z", "-1"}, 2, []string{"--z -1"}},
		{[]string{"--max-epochs", "0", "--selector", "sgpr-continuous"}, 2, []string{"--max-epochs"}},
		{[]string{"--selector", "bogus"}, 2, []string{"sgpr-continuous", "exact", "hybrid", "cholqr", "titsias:S"}},
		{[]string{"--m", "30"}, 1, []string{"must be below n = 30", "--selector exact"}},
		{[]string{"--m", "40", "--selector", "sgpr-continuous"}, 1, []string{"must be below n = 30", "--selector exact"}},
	} {
		code, stdout, stderr := runMain(context.Background(), append([]string{"fit", "--train", good, "--quiet"}, tc.args...)...)
		if code != tc.code || stdout != "" {
			t.Errorf("%v: exit %d (want %d), stdout %q, stderr %q", tc.args, code, tc.code, stdout, stderr)
		}
		oneErrorLine(t, stderr)
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: error %q does not mention %q", tc.args, stderr, w)
			}
		}
	}
}
