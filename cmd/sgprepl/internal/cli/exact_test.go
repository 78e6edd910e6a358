package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// TestFitExact runs `fit --selector exact` on small CSV files, numeric and
// in column mode (strings, spectrum kernel), and checks its report, its
// predictions file and the settings it refuses.
func TestFitExact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(60, 3)
	test, _ := data.SnelsonLike(30, 4)
	trainPath := writeCSV(t, dir, "train.csv", train, true)
	testPath := writeCSV(t, dir, "test.csv", test, true)
	predPath := filepath.Join(dir, "pred.csv")
	code, stdout, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--test", testPath, "--selector", "exact",
		"--predictions", predPath, "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	for _, key := range []string{"objective", "smse", "snlp", "evaluations", "seconds", "stopped", "converged", "hyperparameters", "mean", "n", "m", "warnings", "blas", "jitter"} {
		if _, ok := rep[key]; !ok {
			t.Errorf("report lacks %q: %s", key, stdout)
		}
	}
	if rep["n"].(float64) != 60 || rep["m"].(float64) != 60 || rep["objective_kind"] != "exact" || rep["converged"] != true ||
		rep["smse"] == nil || !(rep["smse"].(float64) < 0.5) || !(rep["evaluations"].(float64) > 1) || rep["epochs"] != nil {
		t.Errorf("report %s", stdout)
	}
	hyp := rep["hyperparameters"].(map[string]any)
	if _, ok := hyp["noise"]; !ok {
		t.Errorf("hyperparameters %v", hyp)
	}
	// The reported objective is the exact GP's at the reported state.
	x := train.X
	k := kernel.NewRBF(hyp["variance"].(float64), []float64{hyp["lengthscale[0]"].(float64)})
	res, err := sgp.NewExact(x, train.Y, k).WithNoise(hyp["noise"].(float64)).WithFixedHyperparameters(true).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Objective - rep["objective"].(float64); d > 1e-6 || d < -1e-6 {
		t.Errorf("objective %v, re-evaluated %v", rep["objective"], res.Objective)
	}
	b, err := os.ReadFile(predPath)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 31 || lines[0] != "mean,variance,latent_variance" {
		t.Errorf("predictions file: %d lines, header %q", len(lines), lines[0])
	}

	// --save writes the exact model, and predict reads it back: the same
	// file fit --predictions wrote, and "exact" in its JSON.
	modelPath, pred2 := filepath.Join(dir, "exact.json"), filepath.Join(dir, "pred2.csv")
	code, _, stderr = runMain(context.Background(), "fit", "--train", trainPath, "--test", testPath, "--selector", "exact",
		"--save", modelPath, "--predictions", pred2, "--quiet")
	if code != 0 {
		t.Fatalf("--save: exit %d: %s", code, stderr)
	}
	samePredictions(t, pred2, "predict", "--model", modelPath, "--input", testPath)
	code, stdout, stderr = runMain(context.Background(), "predict", "--model", modelPath, "--input", testPath, "--json")
	if code != 0 || !strings.Contains(stdout, `"model_kind":"exact"`) {
		t.Errorf("predict --json: exit %d: %s %s", code, stdout, stderr)
	}

	// Text output and column mode with a discrete kernel; the saved exact
	// model predicts, through predict, what fit wrote for the same rows.
	strs := filepath.Join(dir, "strings.csv")
	os.WriteFile(strs, []byte("seq,y\nACGTAC,1\nACGTTT,2\nTTTTAC,3\nGGGACG,1.5\nACACAC,2.5\nCGCGCG,0.5\nAAACCC,1.2\n"), 0o644)
	strModel, strPred := filepath.Join(dir, "strings-model.json"), filepath.Join(dir, "strings-pred.csv")
	code, stdout, stderr = runMain(context.Background(), "fit", "--train", strs, "--test", strs, "--kernel", "spectrum:2", "--selector", "exact", "--max-epochs", "2",
		"--save", strModel, "--predictions", strPred)
	if code != 0 {
		t.Fatalf("spectrum: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "exact GP (m = n)") || !strings.Contains(stdout, "objective") || !strings.Contains(stderr, "exact: evaluation 1") ||
		!strings.Contains(stdout, "model           "+strModel) {
		t.Errorf("spectrum: stdout\n%s\nstderr\n%s", stdout, stderr)
	}
	samePredictions(t, strPred, "predict", "--model", strModel, "--input", strs, "--input-column", "seq")

	// Refused settings.
	for _, args := range [][]string{
		{"fit", "--train", trainPath, "--selector", "exact", "--m", "10"},
		{"fit", "--train", trainPath, "--selector", "exact", "--max-epochs", "0"},
	} {
		code, _, stderr := runMain(context.Background(), args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
		oneErrorLine(t, stderr)
	}
}

// samePredictions runs the command args, which prints predictions as CSV,
// and checks that it prints the file want byte for byte.
func samePredictions(t *testing.T, want string, args ...string) {
	t.Helper()
	code, stdout, stderr := runMain(context.Background(), args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(b) {
		t.Errorf("%v printed\n%s\nbut %s holds\n%s", args, shorten(stdout), want, shorten(string(b)))
	}
}
