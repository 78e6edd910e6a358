package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/data"
)

// TestEvalMean: eval --mean C gives the objective of the zero-mean GP for
// y − C (eval.go): the same as eval of a file holding y − C, and the dense
// oracle's; the JSON reports C. Non-finite or malformed values are usage
// errors.
func TestEvalMean(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 16
	rng := rand.New(rand.NewPCG(3, 9))
	x := make([][]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i] = []float64{4 * rng.Float64()}
		y[i] = 7 + math.Sin(2*x[i][0]) + 0.1*rng.NormFloat64()
	}
	file := func(name string, shift float64) string {
		var b strings.Builder
		for i := range x {
			fmt.Fprintf(&b, "%s,%s\n", strconv.FormatFloat(x[i][0], 'g', -1, 64), strconv.FormatFloat(y[i]-shift, 'g', -1, 64))
		}
		return writeFile(t, dir, name, b.String())
	}
	path := file("y.csv", 0)
	base := []string{"eval", "--inducing", "2,9,13,5", "--variance", "1.3", "--lengthscales", "0.8", "--noise", "0.02", "--json"}
	run := func(args ...string) map[string]float64 {
		t.Helper()
		code, stdout, stderr := runMain(context.Background(), append(append([]string{}, base...), args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var raw map[string]any
		if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
			t.Fatalf("%v: %v: %s", args, err, stdout)
		}
		r := make(map[string]float64)
		for k, v := range raw {
			if f, ok := v.(float64); ok {
				r[k] = f
			}
		}
		return r
	}
	zero := run("--train", path)
	if zero["mean"] != 0 {
		t.Errorf("default mean %v, want 0", zero["mean"])
	}
	for _, c := range []float64{7, -3.25, 0.5, 1e3} {
		name := strconv.FormatFloat(c, 'g', -1, 64)
		got := run("--train", path, "--mean", name)
		want := run("--train", file("shifted"+name+".csv", c))
		if got["mean"] != c {
			t.Errorf("--mean %s: JSON mean %v", name, got["mean"])
		}
		for _, key := range []string{"objective", "mle", "var", "data_fit", "complexity", "trace"} {
			if !scalar.EqualWithinAbsOrRel(got[key], want[key], 1e-12, 1e-12) {
				t.Errorf("--mean %s: %s = %v, zero-mean eval of y − C gives %v", name, key, got[key], want[key])
			}
		}
		yc := make([]float64, n)
		for i := range y {
			yc[i] = y[i] - c
		}
		mle, vfe := denseObjectives(t, x, yc, []int{2, 9, 13, 5}, 1.3, []float64{0.8}, 0.02)
		if !scalar.EqualWithinRel(got["mle"], mle, 1e-9) || !scalar.EqualWithinRel(got["var"], vfe, 1e-9) {
			t.Errorf("--mean %s: MLE %v VAR %v, dense oracle %v %v", name, got["mle"], got["var"], mle, vfe)
		}
		if got["objective"] == zero["objective"] {
			t.Errorf("--mean %s: the objective equals the zero-mean one: --mean is ignored", name)
		}
	}
	// The readable output takes --mean too.
	code, stdout, _ := runMain(context.Background(), "eval", "--train", path, "--inducing", "2,9,13,5", "--variance", "1.3",
		"--lengthscales", "0.8", "--noise", "0.02", "--mean", "7")
	if f := strings.Fields(stdout); code != 0 || len(f) < 2 || f[1] != strconv.FormatFloat(run("--train", path, "--mean", "7")["objective"], 'g', -1, 64) {
		t.Errorf("readable --mean 7: exit %d, %q", code, stdout)
	}

	for _, bad := range []string{"NaN", "nan", "Inf", "+Inf", "-Inf", "1e400", "abc", "", "7,8"} {
		code, stdout, stderr := runMain(context.Background(), append(append([]string{}, base...), "--train", path, "--mean", bad)...)
		if code != exitUsage || stdout != "" {
			t.Errorf("--mean %q: exit %d (want %d), stdout %q, stderr %q", bad, code, exitUsage, stdout, stderr)
		}
		oneErrorLine(t, stderr)
		if !strings.Contains(stderr, "mean") {
			t.Errorf("--mean %q: the error does not name the flag: %q", bad, stderr)
		}
	}
}

// TestFitShortfallWarning: asking CholQR for m = 400 inducing points on
// 5000 smooth points (SnelsonLike, small noise) gets fewer; the CLI says
// so on stderr (the model's warning line with progress, "sgprepl:
// warning:" with --quiet), in the JSON (m is the number used, m_requested
// 400, the warning in "warnings", with --m) and in the readable summary.
func TestFitShortfallWarning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(5000, 1)
	path := writeCSV(t, dir, "train.csv", train, false)
	for _, quiet := range []bool{false, true} {
		args := []string{"fit", "--train", path, "--m", "400", "--max-epochs", "2", "--json", "--selector", "cholqr"}
		prefix := "warning: only "
		if quiet {
			args = append(args, "--quiet")
			prefix = "sgprepl: warning: only "
		}
		code, stdout, stderr := runMain(context.Background(), args...)
		if code != 0 {
			t.Fatalf("quiet=%v: exit %d: %s", quiet, code, stderr)
		}
		var r struct {
			M          int      `json:"m"`
			MRequested int      `json:"m_requested"`
			Inducing   []int    `json:"inducing"`
			Warnings   []string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("quiet=%v: %v: %s", quiet, err, stdout)
		}
		if r.MRequested != 400 || r.M >= 400 || r.M < 1 || r.M != len(r.Inducing) {
			t.Fatalf("quiet=%v: m %d, m_requested %d, %d inducing: want fewer than 400 used", quiet, r.M, r.MRequested, len(r.Inducing))
		}
		want := fmt.Sprintf("only %d of the m=400", r.M)
		if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], want) || !strings.Contains(r.Warnings[0], "(see --m)") {
			t.Errorf("quiet=%v: JSON warnings %q, want %q first", quiet, r.Warnings, want)
		}
		var line string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(l, prefix) {
				line = l
			}
		}
		if !strings.Contains(line, want) {
			t.Errorf("quiet=%v: no %q… line with %q on stderr:\n%s", quiet, prefix, want, stderr)
		}
	}
	code, stdout, _ := runMain(context.Background(), "fit", "--train", path, "--m", "400", "--max-epochs", "2", "--quiet", "--selector", "cholqr")
	if code != 0 || !strings.Contains(stdout, "of m=400: the kernel cannot tell more points apart") {
		t.Errorf("readable summary: exit %d, no shortfall note:\n%s", code, stdout)
	}
}

// TestOutputUnderFile: an output path whose directory is a regular file
// (<tmp>/file.txt/out.json) cannot be written by anyone, root included
// (TestOutputsNeverOverwriteInputs' unwritable directory is skipped as
// root). It is reported before the data are fitted — no progress line,
// on a training set that takes seconds to fit — and nothing is written,
// for every selector and for predict --output.
func TestOutputUnderFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train := roughData(t, dir, "train.csv", 3000, 4)
	test := roughData(t, dir, "test.csv", 20, 5)
	plain := writeFile(t, dir, "file.txt", "keep me\n")
	under := func(name string) string { return filepath.Join(plain, name) }
	small, _ := data.SnelsonLike(60, 2)
	smallPath := writeCSV(t, dir, "small.csv", small, false)
	model := filepath.Join(dir, "model.json")
	if code, _, stderr := runMain(context.Background(), "fit", "--train", smallPath, "--m", "4", "--max-epochs", "2", "--quiet", "--save", model); code != 0 {
		t.Fatalf("fit for the model: exit %d: %s", code, stderr)
	}
	entries := func() []string {
		es, _ := os.ReadDir(dir)
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
	before := entries()

	fit := []string{"fit", "--train", train, "--test", test, "--m", "200", "--max-epochs", "1000"}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"--save", append(fit[:len(fit):len(fit)], "--save", under("out.json"))},
		{"--predictions", append(fit[:len(fit):len(fit)], "--predictions", under("pred.csv"))},
		{"--predictions, good --save", append(fit[:len(fit):len(fit)], "--save", filepath.Join(dir, "new.json"), "--predictions", under("pred.csv"))},
		{"hybrid --save", append(fit[:len(fit):len(fit)], "--selector", "hybrid", "--save", under("out.json"))},
		{"sgpr-continuous --save", append(fit[:len(fit):len(fit)], "--selector", "sgpr-continuous", "--save", under("out.json"))},
		{"exact --predictions", []string{"fit", "--train", train, "--test", test, "--selector", "exact", "--predictions", under("pred.csv")}},
		{"column mode --save", []string{"fit", "--train", writeFile(t, t.TempDir(), "s.csv", "smiles,y\nCCO,1\nCCN,2\nCCC,3\n"), "--kernel", "wl", "--m", "2", "--save", under("out.json")}},
		{"predict --output", []string{"predict", "--model", model, "--input", test, "--output", under("pred.csv")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			code, stdout, stderr := runMain(context.Background(), tc.args...)
			// Fitting these data takes minutes for the continuous and
			// exact selectors, which print no progress: a generous bound
			// catches a check made after the fit.
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("the error came after %v", d)
			}
			if code == 0 || stdout != "" {
				t.Errorf("exit %d, stdout %q", code, stdout)
			}
			oneErrorLine(t, stderr)
			if !strings.Contains(stderr, "file.txt") || strings.Contains(stderr, "epoch") {
				t.Errorf("stderr %q: want the output's error before any progress line", stderr)
			}
		})
	}
	if b, err := os.ReadFile(plain); err != nil || string(b) != "keep me\n" {
		t.Errorf("file.txt changed: %q, %v", b, err)
	}
	if after := entries(); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("the folder held %v, now %v", before, after)
	}
}

// TestShiftedSnelson is the exact repro of the non-zero-mean defect: the
// real Snelson 1-D data with +100 added to the targets, fit --m 10. It
// must converge to the objective and training SMSE of the unshifted fit,
// with the prior mean shifted by 100 (it reported the starting
// hyperparameters, F = 12409.7, "converged"). The data: $SGP_DATA, else
// ../shared/data from the repository's root (data.Dir); skipped when
// absent.
func TestShiftedSnelson(t *testing.T) {
	t.Parallel()
	dataDir := data.Dir("../../../../shared/data")
	if fi, err := os.Stat(filepath.Join(dataDir, "snelson1d")); err != nil || !fi.IsDir() {
		t.Skipf("%s not found; set SGP_DATA to the folder holding snelson1d/", filepath.Join(dataDir, "snelson1d"))
	}
	train, _, err := data.LoadSnelson(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	type report struct {
		Objective float64
		SMSE      float64
		Stopped   string
		Converged bool
		Mean      float64
		Warnings  []string
	}
	fit := func(shift float64) report {
		t.Helper()
		d := &data.Dataset{X: train.X, Y: make([]float64, train.Len())}
		for i, v := range train.Y {
			d.Y[i] = v + shift
		}
		path := writeCSV(t, dir, fmt.Sprintf("snelson%g.csv", shift), d, false)
		code, stdout, stderr := runMain(context.Background(), "fit", "--train", path, "--test", path, "--m", "10", "--json", "--quiet")
		if code != 0 {
			t.Fatalf("shift %g: exit %d: %s", shift, code, stderr)
		}
		var r report
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("shift %g: %v: %s", shift, err, stdout)
		}
		if r.Stopped != "converged" || !r.Converged || len(r.Warnings) != 0 {
			t.Errorf("shift %g: stopped %q, converged %v, warnings %q", shift, r.Stopped, r.Converged, r.Warnings)
		}
		return r
	}
	base, shifted := fit(0), fit(100)
	t.Logf("unshifted: F %v SMSE %v mean %v; +100: F %v SMSE %v mean %v", base.Objective, base.SMSE, base.Mean, shifted.Objective, shifted.SMSE, shifted.Mean)
	if !scalar.EqualWithinRel(shifted.Objective, base.Objective, 1e-6) {
		t.Errorf("objective %v with +100, %v without", shifted.Objective, base.Objective)
	}
	if !scalar.EqualWithinRel(shifted.SMSE, base.SMSE, 1e-3) {
		t.Errorf("training SMSE %v with +100, %v without", shifted.SMSE, base.SMSE)
	}
	if math.Abs(shifted.Mean-(base.Mean+100)) > 1e-3 {
		t.Errorf("prior mean %v with +100, want %v + 100", shifted.Mean, base.Mean)
	}
	if base.Objective > 100 {
		t.Errorf("unshifted objective %v: not a fitted Snelson model (about 58)", base.Objective)
	}
}
