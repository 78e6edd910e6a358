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

	"github.com/cholqr/sgp/sgp/data"
)

// TestParamNoise: --param takes every name of the JSON's
// "hyperparameters", noise included (the starting noise variance of fit,
// for the sparse, continuous and exact fits, and for eval the same as
// --noise), and a name given twice is a usage error that names both
// values, not the last one kept silently.
func TestParamNoise(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(80, 3)
	path := writeCSV(t, dir, "train.csv", train, false)
	objective := func(args ...string) float64 {
		t.Helper()
		code, stdout, stderr := runMain(context.Background(), append([]string{"fit", "--train", path, "--quiet", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var rep struct {
			Objective float64 `json:"objective"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		return rep.Objective
	}
	for _, sel := range [][]string{
		{"--selector", "cholqr", "--m", "8", "--max-epochs", "1"},
		{"--selector", "sgpr-continuous", "--m", "8", "--max-epochs", "1"},
		{"--selector", "exact", "--max-epochs", "1"},
	} {
		// One epoch (a few evaluations) from σ² = 100 ends elsewhere than
		// from σ² = 0.01: the start is used.
		low, high := objective(append(sel, "--param", "noise=0.01")...), objective(append(sel, "--param", "noise=100")...)
		if !(math.Abs(high-low) > 1e-6*math.Abs(low)) {
			t.Errorf("%v: F %.10g from noise=100, %.10g from noise=0.01: the starting noise was not used", sel, high, low)
		}
	}

	// eval: --param noise=V is --noise V.
	evalF := func(noise ...string) float64 {
		t.Helper()
		code, stdout, stderr := runMain(context.Background(), append([]string{"eval", "--train", path, "--inducing", "0,10,20,30",
			"--kernel", "matern52", "--param", "variance=1.5,lengthscale[0]=0.7"}, noise...)...)
		if code != 0 {
			t.Fatalf("eval %v: exit %d: %s", noise, code, stderr)
		}
		var f float64
		for _, line := range strings.Split(stdout, "\n") {
			if _, err := fmt.Sscanf(line, "VAR %g", &f); err == nil {
				return f
			}
		}
		t.Fatalf("eval %v: no VAR line in\n%s", noise, stdout)
		return 0
	}
	if a, b := evalF("--noise", "0.3"), evalF("--param", "noise=0.3"); math.Abs(a-b) > 1e-9*math.Abs(a) {
		t.Errorf("eval: VAR %.12g with --noise 0.3, %.12g with --param noise=0.3", a, b)
	}
	if code, _, stderr := runMain(context.Background(), "eval", "--train", path, "--inducing", "0,10", "--kernel", "matern52",
		"--param", "variance=1.5,lengthscale[0]=0.7,noise=0.3", "--noise", "0.2"); code != exitUsage || !strings.Contains(stderr, "given twice") {
		t.Errorf("eval with --noise and --param noise: exit %d, %q; want a usage error", code, stderr)
	}

	for _, args := range [][]string{
		{"--param", "variance=2", "--param", "variance=3"},
		{"--param", "variance=2,variance=3"},
	} {
		code, _, stderr := runMain(context.Background(), append([]string{"fit", "--train", path, "--quiet", "--m", "8"}, args...)...)
		if code != exitUsage || !strings.Contains(stderr, "variance=2 and variance=3") {
			t.Errorf("%v: exit %d, %q; want exit %d naming both values", args, code, stderr, exitUsage)
		}
	}
}

// TestLongSpecEchoed: an error about a kernel specification quotes at
// most 80 characters of it (with "…"), around the place of the error,
// not the whole specification, which can be many kilobytes; a kernel's
// list of hyperparameter names in an error is cut too.
func TestLongSpecEchoed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(40, 3)
	path := writeCSV(t, dir, "train.csv", train, false)
	sum := strings.Repeat("rbf+", 30000)
	for _, c := range []struct {
		name string
		args []string
		want string // in the message
	}{
		{"many terms", []string{"--kernel", sum + "rbf"}, `kernel "`},
		{"bad at the end", []string{"--kernel", "rbf" + strings.Repeat(" ", 120000) + "+rbx"}, `unknown kernel "rbx"`},
		{"long name", []string{"--kernel", "rbf+" + strings.Repeat("x", 120000)}, "unknown kernel"},
		{"bad parameter", []string{"--kernel", "wl:" + strings.Repeat("9", 120000)}, "must be an integer"},
		{"param names", []string{"--kernel", strings.Repeat("rbf+", 500) + "rbf", "--param", "nope=1", "--m", "5"}, "in all)"},
	} {
		code, _, stderr := runMain(context.Background(), append([]string{"fit", "--train", path, "--quiet"}, c.args...)...)
		if code == 0 || len(stderr) > 1200 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "…") {
			t.Errorf("%s: exit %d, %d bytes of stderr (want a cut message with %q): %.300s", c.name, code, len(stderr), c.want, stderr)
		}
	}
}

// TestPredictExactLimit: predict refuses an exact model file of more than
// --max-exact-n training points (default 5000) before loading it, saying
// how much memory loading would take, and loads it when the flag allows.
// A crafted file of 189 KB declares n = 20000, which loading would
// factorise in 3.2 GB.
func TestPredictExactLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(60, 3)
	trainPath := writeCSV(t, dir, "train.csv", train, false)
	model := filepath.Join(dir, "exact.json")
	if code, _, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--selector", "exact", "--quiet", "--save", model); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	code, _, stderr := runMain(context.Background(), "predict", "--model", model, "--input", trainPath, "--max-exact-n", "50")
	if code != exitFailure || !strings.Contains(stderr, "n=60") || !strings.Contains(stderr, "GB of memory") || !strings.Contains(stderr, "--max-exact-n 60") {
		t.Errorf("n=60 with --max-exact-n 50: exit %d, %q; want the memory figure and the flag", code, stderr)
	}
	if code, stdout, stderr := runMain(context.Background(), "predict", "--model", model, "--input", trainPath); code != 0 || strings.Count(stdout, "\n") != 61 {
		t.Errorf("n=60: exit %d, %d lines: %s", code, strings.Count(stdout, "\n"), stderr)
	}

	// A file of n = 20000 one-value inputs and weights.
	const n = 20000
	var b strings.Builder
	b.WriteString(`{"format":"sgp-exact-model/1","kernel":{"type":"rbf","dim":1,"names":["variance","lengthscale[0]"],"log_params":[0,0]},` +
		`"input_kind":"vectors","n":20000,"noise":1,"jitter":0,"mean":0,"train_mean":0,"train_var":1,"hyperparameters":{"variance":1,"lengthscale[0]":1,"noise":1},"inputs":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%d]", i%10)
	}
	b.WriteString(`],"alpha":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('0')
	}
	b.WriteString("]}")
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runMain(context.Background(), "predict", "--model", big, "--input", trainPath)
	if code != exitFailure || !strings.Contains(stderr, "n=20000") || !strings.Contains(stderr, "3.2 GB") {
		t.Errorf("n=20000 (%d KB file): exit %d, %q; want a refusal with the memory figure", b.Len()/1000, code, stderr)
	}
}
