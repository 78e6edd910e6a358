package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replicateCSV returns a CSV with columns x, y, s2 of locs inputs drawn
// on [0, 10], each measured reps times with noise of standard deviation
// 0.05 left of x = 5 and 1 right of it; s2 is each row's noise variance
// as its replicates estimate it (their sample variance).
func replicateCSV(rng *rand.Rand, locs, reps int) string {
	var b strings.Builder
	b.WriteString("x,y,s2\n")
	ys := make([]float64, reps)
	for range locs {
		x := 10 * rng.Float64()
		sd := 0.05
		if x >= 5 {
			sd = 1
		}
		var m float64
		for r := range ys {
			ys[r] = math.Sin(x) + 0.3*x + sd*rng.NormFloat64()
			m += ys[r] / float64(reps)
		}
		var v float64
		for _, y := range ys {
			v += (y - m) * (y - m) / float64(reps-1)
		}
		for _, y := range ys {
			fmt.Fprintf(&b, "%.6f,%.6f,%.6g\n", x, y, v)
		}
	}
	return b.String()
}

// TestFitNoiseColumnReplicates fits replicate measurements whose noise
// varies twentyfold in standard deviation, with their replicate
// variances as --noise-column and without, and checks that the known
// noise gives the better test SNLP (the test rows' own replicate
// variances added to their noisy variances), by more than 0.2 nats.
func TestFitNoiseColumnReplicates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(41, 7))
	train := writeFile(t, dir, "train.csv", replicateCSV(rng, 40, 5))
	test := writeFile(t, dir, "test.csv", replicateCSV(rng, 30, 5))
	ctx := context.Background()
	type report struct {
		SNLP        *float64
		Selector    string
		NoiseColumn *string `json:"noise_column"`
		Notes       []string
	}
	fit := func(args ...string) report {
		t.Helper()
		args = append([]string{"fit", "--train", train, "--test", test, "--quiet", "--json"}, args...)
		code, stdout, stderr := runMain(ctx, args...)
		var r report
		if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil || r.SNLP == nil {
			t.Fatalf("%v: exit %d, %q, %q", args, code, stdout, stderr)
		}
		return r
	}
	// From the data's start, the first L-BFGS step of the fit with known
	// noise lands in the local optimum of a lengthscale ≈ 0, where every
	// input location is independent (F = 48.3 against −16.9 at the smooth
	// fit); restarts (both fits alike) find the smooth one.
	het := fit("--noise-column", "s2", "--restarts", "3")
	hom := fit("--input-column", "x", "--target-column", "y", "--selector", "exact", "--restarts", "3")
	t.Logf("test SNLP: %.4f with --noise-column, %.4f without", *het.SNLP, *hom.SNLP)
	if het.Selector != "exact" || het.NoiseColumn == nil || *het.NoiseColumn != "s2" || hom.NoiseColumn != nil {
		t.Errorf("selector %q, noise_column %v; without it %v", het.Selector, het.NoiseColumn, hom.NoiseColumn)
	}
	if !(*het.SNLP < *hom.SNLP-0.2) {
		t.Errorf("test SNLP %.4f with known noise, %.4f without: want it lower by more than 0.2", *het.SNLP, *hom.SNLP)
	}
	// sgpr-continuous, which --m with --noise-column selects, against
	// the same files without the noise column.
	cut := func(path string) string {
		var b strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(readFile(t, path)), "\n") {
			b.WriteString(line[:strings.LastIndexByte(line, ',')] + "\n")
		}
		return writeFile(t, dir, "plain-"+filepath.Base(path), b.String())
	}
	chet := fit("--noise-column", "s2", "--m", "15", "--restarts", "2")
	code, stdout, stderr := runMain(ctx, "fit", "--train", cut(train), "--test", cut(test), "--quiet", "--json", "--selector", "sgpr-continuous", "--m", "15", "--restarts", "2")
	var chom report
	if code != 0 || json.Unmarshal([]byte(stdout), &chom) != nil || chom.SNLP == nil {
		t.Fatalf("sgpr-continuous without --noise-column: exit %d, %q, %q", code, stdout, stderr)
	}
	t.Logf("sgpr-continuous, m = 15: test SNLP %.4f with --noise-column, %.4f without", *chet.SNLP, *chom.SNLP)
	if chet.Selector != "sgpr-continuous" || !(*chet.SNLP < *chom.SNLP-0.2) {
		t.Errorf("selector %q: test SNLP %.4f with known noise, %.4f without: want sgpr-continuous, lower by more than 0.2", chet.Selector, *chet.SNLP, *chom.SNLP)
	}
	// CholQR and the hybrid, which take the same known noise, against
	// the same files without the noise column.
	for _, sel := range []string{"cholqr", "hybrid"} {
		shet := fit("--noise-column", "s2", "--selector", sel, "--m", "15", "--restarts", "2")
		code, stdout, stderr := runMain(ctx, "fit", "--train", cut(train), "--test", cut(test), "--quiet", "--json", "--selector", sel, "--m", "15", "--restarts", "2")
		var shom report
		if code != 0 || json.Unmarshal([]byte(stdout), &shom) != nil || shom.SNLP == nil {
			t.Fatalf("%s without --noise-column: exit %d, %q, %q", sel, code, stdout, stderr)
		}
		t.Logf("%s, m = 15: test SNLP %.4f with --noise-column, %.4f without", sel, *shet.SNLP, *shom.SNLP)
		if shet.Selector != sel || shet.NoiseColumn == nil || *shet.NoiseColumn != "s2" || !(*shet.SNLP < *shom.SNLP-0.2) {
			t.Errorf("selector %q, noise_column %v: test SNLP %.4f with known noise, %.4f without: want %s, lower by more than 0.2", shet.Selector, shet.NoiseColumn, *shet.SNLP, *shom.SNLP, sel)
		}
	}
	code, stdout, stderr = runMain(ctx, "fit", "--train", train, "--test", test, "--noise-column", "s2", "--selector", "cholqr", "--m", "15", "--quiet")
	if code != 0 || !strings.Contains(stdout, "noise column    s2: known variances") || !strings.Contains(stdout, "added to its rows' noisy variances") {
		t.Errorf("fit --noise-column --selector cholqr: exit %d, %q, %q", code, stdout, stderr)
	}
	code, stdout, stderr = runMain(ctx, "fit", "--train", train, "--noise-column", "s2", "--quiet")
	if code != 0 || !strings.Contains(stdout, "noise column    s2: known variances") || !strings.Contains(stdout, "default with --noise-column") {
		t.Errorf("fit --noise-column: exit %d, %q, %q", code, stdout, stderr)
	}
}

// TestFitNoiseColumnErrors checks fit's errors for --noise-column: a
// missing column, bad values named by their line, missing values under
// --drop-missing's rule, and the selectors that do not take it.
func TestFitNoiseColumnErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	good := writeFile(t, dir, "good.csv", "x,y,s2\n1,2,0.1\n2,3,0.1\n3,5,0.2\n4,4,0.1\n5,6,0\n6,5,0.3\n")
	for _, tc := range []struct {
		file string
		args []string
		code int
		want string
	}{
		{good, []string{"--noise-column", "sd"}, exitFailure, `no column "sd" for --noise-column`},
		{good, []string{"--noise-column", "y", "--target-column", "y"}, exitFailure, `column "y" is both the target and --noise-column`},
		{good, []string{"--noise-column", "s2", "--input-column", "s2"}, exitFailure, `column "s2" is both an input and --noise-column`},
		{writeFile(t, dir, "neg.csv", "x,y,s2\n1,2,0.1\n2,3,-0.5\n3,5,0.2\n4,4,0.1\n"), []string{"--noise-column", "s2"}, exitFailure, "line 3: noise variance -0.5 is negative"},
		{writeFile(t, dir, "text.csv", "x,y,s2\n1,2,0.1\n2,3,0.2\n3,5,big\n4,4,0.1\n"), []string{"--noise-column", "s2"}, exitFailure, `line 4: noise variance "big" is not a finite number`},
		{writeFile(t, dir, "nan.csv", "x,y,s2\n1,2,0.1\n2,3,NaN\n3,5,0.2\n4,4,0.1\n"), []string{"--noise-column", "s2"}, exitFailure, `line 3, column 3 ("s2")`},
		{good, []string{"--noise-column", "s2", "--selector", "random", "--m", "2"}, exitUsage, "not supported by --selector random; the selectors that take known noise variances: exact, sgpr-continuous, cholqr, hybrid"},
		{good, []string{"--noise-column", "s2", "--selector", "titsias:4", "--m", "2"}, exitUsage, "not supported by --selector titsias:4"},
		{good, []string{"--noise-column", "s2", "--selector", "sgpr-continuous", "--kernel", "wl"}, exitUsage, "--selector sgpr-continuous moves inducing inputs continuously"},
	} {
		args := append([]string{"fit", "--train", tc.file, "--quiet"}, tc.args...)
		code, _, stderr := runMain(ctx, args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	nan := writeFile(t, dir, "nan2.csv", "x,y,s2\n1,2,0.1\n2,3,NA\n3,5,0.2\n4,4,0.1\n5,6,0.1\n")
	code, stdout, stderr := runMain(ctx, "fit", "--train", nan, "--noise-column", "s2", "--drop-missing", "--quiet")
	if code != 0 || !strings.Contains(stdout, "1 training row") {
		t.Errorf("--drop-missing with a missing noise variance: exit %d, %q, %q", code, stdout, stderr)
	}
}

// readFile returns the contents of path.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
