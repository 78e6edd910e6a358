package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/data"
)

// TestFitNoiseFloor: --noise-floor sets the least σ², and a fit that ends
// there says so on the summary (a "noise floor" line), in the warnings on
// stderr and in JSON (noise_floor, at_noise_floor); a negative floor is a
// usage error.
func TestFitNoiseFloor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(120, 3)
	trainPath := writeCSV(t, dir, "train.csv", train, true)
	for _, sel := range []string{"cholqr", "exact", "sgpr-continuous"} {
		args := []string{"fit", "--train", trainPath, "--max-epochs", "5", "--selector", sel, "--noise-floor", "1", "--json"}
		if sel != "exact" {
			args = append(args, "--m", "8")
		}
		code, stdout, stderr := runMain(context.Background(), args...)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr:\n%s", sel, code, stderr)
		}
		var rep struct {
			NoiseFloor      float64            `json:"noise_floor"`
			AtNoiseFloor    bool               `json:"at_noise_floor"`
			Hyperparameters map[string]float64 `json:"hyperparameters"`
			Warnings        []string           `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%s: %v:\n%s", sel, err, stdout)
		}
		if rep.NoiseFloor != 1 || !rep.AtNoiseFloor || !(rep.Hyperparameters["noise"] >= 1) ||
			!strings.Contains(strings.Join(rep.Warnings, "\n"), "floor") || !strings.Contains(stderr, "floor") {
			t.Errorf("%s: noise_floor %v, at_noise_floor %v, σ² %v, warnings %q, stderr %q", sel, rep.NoiseFloor, rep.AtNoiseFloor, rep.Hyperparameters["noise"], rep.Warnings, stderr)
		}
	}
	code, stdout, _ := runMain(context.Background(), "fit", "--train", trainPath, "--m", "8", "--max-epochs", "5",
		"--selector", "cholqr", "--noise-floor", "1", "--quiet")
	if code != 0 || !strings.Contains(stdout, "noise floor") {
		t.Errorf("exit %d; the summary has no noise floor line:\n%s", code, stdout)
	}
	if code, _, _ := runMain(context.Background(), "fit", "--train", trainPath, "--noise-floor", "-1"); code != exitUsage {
		t.Errorf("--noise-floor -1: exit %d, want %d", code, exitUsage)
	}
}

// TestEpochsLine: swaps made by an epoch that the time budget cut short
// are counted apart from the complete epochs, so that the line does not
// say "0 epochs" and "10 of 25 swaps accepted" as if they were one.
func TestEpochsLine(t *testing.T) {
	t.Parallel()
	res := &sgp.Result{Epochs: 0, FitSummary: sgp.FitSummary{Status: sgp.TimeBudget}, Stats: sgp.Stats{Swaps: 25, Accepted: 10}}
	line := epochsLine(res, nil)
	if !strings.Contains(line, "0 complete (time budget)") || !strings.Contains(line, "25 of them in an epoch cut short by the time budget") {
		t.Errorf("line %q", line)
	}
	res = &sgp.Result{Epochs: 2, FitSummary: sgp.FitSummary{Status: sgp.Converged}, Stats: sgp.Stats{Swaps: 16, Accepted: 3}}
	if line := epochsLine(res, sgp.Trace{{Swaps: 8}, {Swaps: 8}}); strings.Contains(line, "cut short") {
		t.Errorf("line %q", line)
	}
}

// TestReadProgress: reading a CSV file reports how far it has got at
// every period (here 0, so that no assertion depends on the machine's
// speed), then the rows read; the data read are those of ReadCSVFile.
func TestReadProgress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(120, 3)
	path := writeCSV(t, dir, "train.csv", train, true)
	var buf strings.Builder
	d, err := readCSVProgress(path, &buf, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	want, err := data.ReadCSVFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != want.Len() || d.X.Dim() != want.X.Dim() {
		t.Errorf("read %d×%d, ReadCSVFile %d×%d", d.Len(), d.X.Dim(), want.Len(), want.X.Dim())
	}
	if out := buf.String(); !strings.Contains(out, "reading "+path+": ") || !strings.Contains(out, "(100%)") || !strings.Contains(out, "read "+path+": 120 rows") {
		t.Errorf("progress:\n%s", out)
	}
}
