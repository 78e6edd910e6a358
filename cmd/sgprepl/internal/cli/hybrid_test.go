package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/data"
)

// TestFitHybrid runs `fit --selector hybrid` end to end: the JSON reports
// the refinement (its inducing inputs, evaluations, stop reason) and an
// objective no higher than CholQR's on the same data, and a discrete
// kernel is refused as a usage error.
func TestFitHybrid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(150, 3)
	test, _ := data.SnelsonLike(40, 4)
	trainPath := writeCSV(t, dir, "train.csv", train, true)
	testPath := writeCSV(t, dir, "test.csv", test, false)
	fit := func(sel string) map[string]any {
		t.Helper()
		args := []string{"fit", "--train", trainPath, "--test", testPath,
			"--m", "8", "--max-epochs", "10", "--json", "--quiet", "--predictions", filepath.Join(dir, sel+".csv")}
		if sel != "default" {
			args = append(args, "--selector", sel)
		}
		code, stdout, stderr := runMain(context.Background(), args...)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr:\n%s", sel, code, stderr)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%s: %v:\n%s", sel, err, stdout)
		}
		return rep
	}
	chol, hyb := fit("cholqr"), fit("hybrid")
	if def := fit("default"); def["selector"] != "hybrid" || def["objective"] != hyb["objective"] {
		t.Errorf("default selector for numeric inputs: %v (objective %v), want the hybrid's %v", def["selector"], def["objective"], hyb["objective"])
	}
	if hyb["objective"].(float64) > chol["objective"].(float64) {
		t.Errorf("hybrid objective %v above CholQR's %v", hyb["objective"], chol["objective"])
	}
	ref, ok := hyb["refined"].(map[string]any)
	if !ok {
		t.Fatalf("no refined block in %v", hyb)
	}
	if z, ok := ref["inducing_inputs"].([]any); !ok || len(z) != int(hyb["m"].(float64)) {
		t.Errorf("refined inducing_inputs %v for m = %v", ref["inducing_inputs"], hyb["m"])
	}
	if j, ok := ref["jitter"].(float64); !ok || !(j > 0) {
		t.Errorf("refined jitter %v, want the positive jitter the refinement used", ref["jitter"])
	}
	if from, _ := ref["from"].(string); !slices.Contains([]string{"the k-means centres", "the k-means++ seeds", "CholQR's set", "a random subset", "CholQR's fit"}, strings.SplitN(from, ", then", 2)[0]) {
		t.Errorf("refined from %q, want where the refinement started", from)
	}
	// The text output says where predictions come from, with the
	// refinement's hyperparameters.
	code, stdout, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--m", "8", "--max-epochs", "10", "--quiet")
	if code != 0 || !strings.Contains(stdout, "refined         from "+ref["from"].(string)+": VAR ") || !strings.Contains(stdout, "predictions use it") {
		t.Errorf("text output: exit %d, no refined line:\n%s%s", code, stdout, stderr)
	}
	hyper := hyb["hyperparameters"].(map[string]any)
	if want := fmt.Sprintf("noise=%.6g", hyper["noise"]); !strings.Contains(stdout, want) {
		t.Errorf("text output does not show the refinement's %s:\n%s", want, stdout)
	}
	if chol["refined"] != nil || chol["selector"] != "cholqr" || hyb["selector"] != "hybrid" {
		t.Errorf("cholqr fit: refined %v, selectors %v and %v", chol["refined"], chol["selector"], hyb["selector"])
	}
	code, _, stderr = runMain(context.Background(), "fit", "--train", trainPath, "--kernel", "spectrum:2", "--selector", "hybrid")
	if code != exitUsage || !strings.Contains(stderr, "hybrid") {
		t.Errorf("hybrid with a spectrum kernel: exit %d, %s", code, stderr)
	}
}
