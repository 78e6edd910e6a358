package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp"
)

// TestFitHybrid runs `fit --selector hybrid` end to end: the JSON reports
// the refinement (its inducing inputs, evaluations, stop reason) and an
// objective no higher than CholQR's on the same data, and a discrete
// kernel is refused as a usage error.
func TestFitHybrid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := sgp.SnelsonLike(150, 3)
	test, _ := sgp.SnelsonLike(40, 4)
	trainPath := writeCSV(t, dir, "train.csv", train, true)
	testPath := writeCSV(t, dir, "test.csv", test, false)
	fit := func(sel string) map[string]any {
		t.Helper()
		code, stdout, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--test", testPath,
			"--m", "8", "--max-epochs", "10", "--json", "--quiet", "--selector", sel,
			"--predictions", filepath.Join(dir, sel+".csv"))
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
	if _, ok := chol["refined"]; ok {
		t.Errorf("cholqr fit reports a refinement: %v", chol["refined"])
	}
	code, _, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--kernel", "spectrum:2", "--selector", "hybrid")
	if code != exitUsage || !strings.Contains(stderr, "hybrid") {
		t.Errorf("hybrid with a spectrum kernel: exit %d, %s", code, stderr)
	}
}
