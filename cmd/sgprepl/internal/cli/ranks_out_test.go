package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// fitOnLocalCtx is fitOnLocal with rank r's context ctx(r).
func fitOnLocalCtx(t *testing.T, p int, c fitConfig, ctx func(r int) context.Context) []rankRun {
	t.Helper()
	runs := make([]rankRun, p)
	var wg sync.WaitGroup
	for r, world := range comm.Local(p) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out, errOut bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
			cr := c
			code := report(e, cr.runOn(ctx(r), e, world))
			runs[r] = rankRun{out.String(), errOut.String(), code}
		}()
	}
	wg.Wait()
	return runs
}

// ranksOutJSON is the part of a fit across ranks' JSON about its outputs.
type ranksOutJSON struct {
	ranksFit
	Stopped     bool     `json:"stopped"`
	TestRows    int      `json:"test_rows"`
	SMSE        *float64 `json:"smse"`
	SNLP        *float64 `json:"snlp"`
	Model       string   `json:"model"`
	Predictions string   `json:"predictions"`
}

// readPredictionColumns reads the mean and variance columns of a
// predictions file.
func readPredictionColumns(t *testing.T, path string) (mean, variance []float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) < 2 || !slices.Equal(recs[0][:2], []string{"mean", "variance"}) {
		t.Fatalf("%s: %v, %d records, header %v", path, err, len(recs), recs[0])
	}
	for _, rec := range recs[1:] {
		m, err1 := strconv.ParseFloat(rec[0], 64)
		v, err2 := strconv.ParseFloat(rec[1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: record %v", path, rec)
		}
		mean, variance = append(mean, m), append(variance, v)
	}
	return mean, variance
}

// TestFitRanksOutputs fits across P = 2, 3 and 4 ranks of comm.Local (with
// P = 4 a rank holds no rows) with
// --save, --test and --predictions: every rank exits 0 and only rank 0
// prints; the JSON has the test scores and names the files; the model
// file loads, has the fitted inducing set, and predicts, as the
// predictions file holds in test row order, the predictive of
// sgp.FitRanks over all rows in one process within 1e-10; its SMSE and
// SNLP are that Predictor's.
func TestFitRanksOutputs(t *testing.T) {
	t.Parallel()
	train := writeRanksCSV(t, 2600, func(int) string { return "" })
	testPath := writeRanksCSV(t, 3000, func(int) string { return "" })
	test, err := data.ReadCSVFile(testPath)
	if err != nil {
		t.Fatal(err)
	}
	test = test.Subset(slices.Collect(func(yield func(int) bool) {
		for i := 2600; i < 2640; i++ {
			if !yield(i) {
				return
			}
		}
	}))
	testFile := filepath.Join(t.TempDir(), "test.csv")
	var tb strings.Builder
	tb.WriteString("x0,x1,y\n")
	for i := range test.Len() {
		tb.WriteString(strconv.FormatFloat(test.X.At(i, 0), 'g', -1, 64) + "," + strconv.FormatFloat(test.X.At(i, 1), 'g', -1, 64) + "," + strconv.FormatFloat(test.Y[i], 'g', -1, 64) + "\n")
	}
	if err := os.WriteFile(testFile, []byte(tb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := data.ReadCSVFile(train)
	if err != nil {
		t.Fatal(err)
	}
	one, err := sgp.FitRanks(context.Background(), comm.Single(), ds.X, ds.Y, 0, ds.X.Len(), kernel.NewRBF(1.5, []float64{0.4, 0.6}), 0.01,
		sgp.RanksOptions{M: 10, Objective: sgp.VAR, MaxEpochs: 4, Seed: 1, Mean: sgp.MeanZero})
	if err != nil {
		t.Fatal(err)
	}
	wm, wv, err := one.Predictor().PredictNoisy(test.X)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := one.Predictor().Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-10*math.Max(1, math.Abs(b)) }
	for P := 2; P <= 4; P++ {
		dir := t.TempDir()
		c := heldConfig(t, train)
		c.testPath, c.savePath, c.predPath = testFile, filepath.Join(dir, "model.json"), filepath.Join(dir, "pred.csv")
		runs := fitOnLocal(t, P, c)
		for r, run := range runs {
			if run.code != 0 || (r > 0 && run.stdout+run.stderr != "") {
				t.Fatalf("P=%d rank %d: status %d, printed %q %q", P, r, run.code, run.stdout, run.stderr)
			}
		}
		var got ranksOutJSON
		if err := json.Unmarshal([]byte(runs[0].stdout), &got); err != nil {
			t.Fatalf("P=%d: %v in %q", P, err, runs[0].stdout)
		}
		if got.Ranks != P || got.TestRows != test.Len() || got.Model != c.savePath || got.Predictions != c.predPath ||
			got.SMSE == nil || got.SNLP == nil || !close(*got.SMSE, ev.SMSE) || !close(*got.SNLP, ev.SNLP) {
			t.Errorf("P=%d: JSON %+v (smse %v snlp %v); want test rows %d, SMSE %v SNLP %v", P, got, got.SMSE, got.SNLP, test.Len(), ev.SMSE, ev.SNLP)
		}
		p, err := sgp.LoadPredictorFile(c.savePath)
		if err != nil {
			t.Fatalf("P=%d: %v", P, err)
		}
		if p.X.Len() != len(one.Inducing) || !slices.Equal(p.InputNames, []string{"x0", "x1"}) || p.TargetName != "y" {
			t.Errorf("P=%d: model of %d inducing inputs, columns %v → %q; want %d, [x0 x1] → y", P, p.X.Len(), p.InputNames, p.TargetName, len(one.Inducing))
		}
		pm, pv, err := p.PredictNoisy(test.X)
		if err != nil {
			t.Fatal(err)
		}
		fm, fv := readPredictionColumns(t, c.predPath)
		if len(fm) != test.Len() {
			t.Fatalf("P=%d: %d predictions for %d test rows", P, len(fm), test.Len())
		}
		for i := range wm {
			if !close(pm[i], wm[i]) || !close(pv[i], wv[i]) || !close(fm[i], wm[i]) || !close(fv[i], wv[i]) {
				t.Errorf("P=%d test row %d: model %v %v, file %v %v; want %v %v", P, i, pm[i], pv[i], fm[i], fv[i], wm[i], wv[i])
			}
		}
	}
}

// TestFitRanksInterrupted cancels the context of rank 1 of 3 only, as a
// signal does: every rank exits with the interrupted status, rank 0 alone
// prints the JSON (stopped) and the one message, and the model file holds
// the partial model, the greedy set the fit starts from.
func TestFitRanksInterrupted(t *testing.T) {
	t.Parallel()
	train := writeRanksCSV(t, 2600, func(int) string { return "" })
	c := heldConfig(t, train)
	c.savePath = filepath.Join(t.TempDir(), "model.json")
	done, cancel := context.WithCancel(context.Background())
	cancel()
	runs := fitOnLocalCtx(t, 3, c, func(r int) context.Context {
		if r == 1 {
			return done
		}
		return context.Background()
	})
	for r, run := range runs {
		if run.code != exitInterrupted || (r > 0 && run.stdout+run.stderr != "") {
			t.Errorf("rank %d: status %d, printed %q %q; want %d and only rank 0 printing", r, run.code, run.stdout, run.stderr, exitInterrupted)
		}
	}
	var got ranksOutJSON
	if err := json.Unmarshal([]byte(runs[0].stdout), &got); err != nil || !got.Stopped || got.Epochs != 0 || got.Model != c.savePath {
		t.Errorf("rank 0 JSON %q (%v); want stopped after 0 epochs, model %s", runs[0].stdout, err, c.savePath)
	}
	if !strings.Contains(runs[0].stderr, "interrupted; the partial result") {
		t.Errorf("rank 0 stderr %q; want the interrupted message", runs[0].stderr)
	}
	p, err := sgp.LoadPredictorFile(c.savePath)
	if err != nil {
		t.Fatal(err)
	}
	if p.X.Len() != len(got.Inducing) || len(got.Inducing) != 10 {
		t.Errorf("partial model of %d inducing inputs, JSON %d; want 10", p.X.Len(), len(got.Inducing))
	}
}
