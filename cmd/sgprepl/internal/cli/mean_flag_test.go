package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitMeanFlag: fit --mean chooses the prior mean of every selector:
// zero and a number are kept as given, gls and constant are estimated
// near the targets' level; the JSON, its mean_function and the saved
// model agree. An unknown mean is a usage error.
func TestFitMeanFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("x,y\n")
	for i := range 80 {
		x := float64(i) / 8
		fmt.Fprintf(&b, "%g,%g\n", x, 10+math.Sin(x))
	}
	train := writeFile(t, dir, "level.csv", b.String())
	for _, sel := range [][]string{{"--selector", "cholqr", "--m", "10"}, {"--selector", "exact"}, {"--selector", "sgpr-continuous", "--m", "10"}} {
		for _, tc := range []struct {
			mean, function string
			lo, hi         float64
		}{{"zero", "zero", 0, 0}, {"5", "5", 5, 5}, {"gls", "gls", 8, 12}, {"constant", "constant", 9, 11}} {
			save := filepath.Join(dir, sel[1]+"-"+tc.mean+".json")
			args := append([]string{"fit", "--train", train, "--quiet", "--json", "--max-epochs", "3", "--mean", tc.mean, "--save", save}, sel...)
			code, stdout, stderr := runMain(context.Background(), args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			var rep struct {
				Mean         float64 `json:"mean"`
				MeanFunction string  `json:"mean_function"`
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.MeanFunction != tc.function || !(rep.Mean >= tc.lo && rep.Mean <= tc.hi) {
				t.Errorf("%s --mean %s: mean %g (%q), want in [%g, %g] (%q)", sel[1], tc.mean, rep.Mean, rep.MeanFunction, tc.lo, tc.hi, tc.function)
			}
			raw, err := os.ReadFile(save)
			if err != nil {
				t.Fatal(err)
			}
			var saved struct {
				Mean float64 `json:"mean"`
			}
			if err := json.Unmarshal(raw, &saved); err != nil {
				t.Fatal(err)
			}
			if saved.Mean != rep.Mean {
				t.Errorf("%s --mean %s: saved mean %v, reported %v", sel[1], tc.mean, saved.Mean, rep.Mean)
			}
		}
	}
	if code, _, stderr := runMain(context.Background(), "fit", "--train", train, "--mean", "foo"); code != exitUsage || !strings.Contains(stderr, `unknown mean "foo"`) {
		t.Errorf("--mean foo: exit %d, %q; want exit %d naming the mean", code, stderr, exitUsage)
	}
}
