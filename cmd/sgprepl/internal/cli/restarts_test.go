package cli

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/data"
)

// TestFitRestarts: fit restarts a periodic kernel sgp.DefaultRestarts
// times without --restarts, and as often as --restarts says otherwise;
// the JSON lists every start ("starts", "best_start"), the top level is
// the kept start's fit, the progress lines and the text name the
// restarts, and a kernel without a period is fitted once.
func TestFitRestarts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, test := data.CO2Like(20, 12, 1)
	trainPath := writeCSV(t, dir, "train.csv", train, true)
	testPath := writeCSV(t, dir, "test.csv", test, true)
	type report struct {
		Objective       float64            `json:"objective"`
		Hyperparameters map[string]float64 `json:"hyperparameters"`
		BestStart       *int               `json:"best_start"`
		Starts          []struct {
			From      string             `json:"from"`
			Objective *float64           `json:"objective"`
			End       map[string]float64 `json:"end"`
		} `json:"starts"`
	}
	fit := func(args ...string) (report, string) {
		t.Helper()
		args = append([]string{"fit", "--train", trainPath, "--test", testPath, "--m", "40", "--json"}, args...)
		code, stdout, stderr := runMain(context.Background(), args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr:\n%s", args, code, stderr)
		}
		var rep report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%v\n%s", err, stdout)
		}
		return rep, stderr
	}
	rep, progress := fit("--kernel", "periodic+rbf")
	if len(rep.Starts) != 1+sgp.DefaultRestarts || rep.BestStart == nil {
		t.Fatalf("periodic+rbf without --restarts: %d starts, best_start %v; want %d", len(rep.Starts), rep.BestStart, 1+sgp.DefaultRestarts)
	}
	best := rep.Starts[*rep.BestStart]
	if rep.Starts[0].From != "the data" || best.Objective == nil || math.Abs(*best.Objective-rep.Objective) > 1e-9*math.Abs(rep.Objective) {
		t.Errorf("first start from %q; kept start's objective %v, the fit's %v", rep.Starts[0].From, best.Objective, rep.Objective)
	}
	for i, s := range rep.Starts {
		if s.Objective != nil && *s.Objective < rep.Objective {
			t.Errorf("start %d ended at %v, below the kept %v", i, *s.Objective, rep.Objective)
		}
	}
	if p, q := rep.Hyperparameters["k0.period[0]"], best.End["k0.period[0]"]; math.Abs(p-q) > 1e-9*q {
		t.Errorf("hyperparameters' period %v, the kept start's %v", p, q)
	}
	if !strings.Contains(progress, "restart 0/4: ") || !strings.Contains(progress, "restart 4/4: ") || !strings.Contains(progress, "restarts: kept restart") {
		t.Errorf("progress lines do not name the restarts:\n%s", progress)
	}
	if rep, _ := fit("--kernel", "periodic+rbf", "--restarts", "1", "--quiet"); len(rep.Starts) != 2 {
		t.Errorf("--restarts 1: %d starts, want 2", len(rep.Starts))
	}
	if rep, _ := fit("--kernel", "periodic+rbf", "--restarts", "0", "--quiet"); rep.Starts != nil || rep.BestStart != nil {
		t.Errorf("--restarts 0: starts %v, best_start %v; want null", rep.Starts, rep.BestStart)
	}
	if rep, _ := fit("--kernel", "rbf", "--quiet"); rep.Starts != nil {
		t.Errorf("rbf without --restarts: %d starts, want null", len(rep.Starts))
	}
	code, stdout, _ := runMain(context.Background(), "fit", "--train", trainPath, "--m", "40", "--kernel", "periodic+rbf", "--restarts", "2", "--quiet", "--selector", "exact")
	if code == 0 {
		t.Error("--selector exact with --m succeeded")
	}
	code, stdout, _ = runMain(context.Background(), "fit", "--train", trainPath, "--kernel", "periodic+rbf", "--restarts", "2", "--quiet", "--selector", "exact", "--max-epochs", "5")
	if code != 0 || !strings.Contains(stdout, "starts          3 (1 + 2 restarts), F ") {
		t.Errorf("exit %d; the exact fit's text has no starts line:\n%s", code, stdout)
	}
	code, _, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--restarts", "-2")
	if code != exitUsage {
		t.Errorf("--restarts -2: exit %d, want %d", code, exitUsage)
	}
	oneErrorLine(t, stderr)
}
