package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// TestFitRanksDropsMissing fits, with --drop-missing and the
// hyperparameters held, a file of 3000 rows of which 1307 have a missing
// target (every 7th, and all of rows 1024 to 2047, rank 1's span under
// P = 3, which then keeps none) across P = 2, 3 and 4 ranks of
// comm.Local: the rows kept are dealt out in whole blocks, and rank 0's
// JSON has the inducing set (indices of the rows kept), objective and
// epochs of sgp.FitRanks over the 1693 rows ReadCSV keeps in one
// process, and "dropped_rows": 1307; the summary counts them, and the
// model file names the input columns.
func TestFitRanksDropsMissing(t *testing.T) {
	t.Parallel()
	train := writeRanksCSV(t, 3000, func(i int) string {
		if i%7 == 0 || (i >= 1024 && i < 2048) {
			return "NaN"
		}
		return ""
	})
	ds, err := data.ReadCSVFileWith(train, data.ReadOptions{DropMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := sgp.FitRanks(context.Background(), comm.Single(), ds.X, ds.Y, 0, ds.Len(), kernel.NewRBF(1.5, []float64{0.4, 0.6}), 0.01,
		sgp.RanksOptions{M: 10, Objective: sgp.VAR, MaxEpochs: 4, Seed: 1, Mean: sgp.MeanZero})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Dropped != 1307 || want.Accepted == 0 {
		t.Fatalf("%d rows dropped, %d swaps accepted in one process", ds.Dropped, want.Accepted)
	}
	for P := 2; P <= 4; P++ {
		c := heldConfig(t, train)
		c.dropMissing = true
		runs := fitOnLocal(t, P, c)
		if runs[0].code != 0 {
			t.Fatalf("P=%d: status %d: %s", P, runs[0].code, runs[0].stderr)
		}
		var got struct {
			ranksFit
			Dropped *int `json:"dropped_rows"`
		}
		if err := json.Unmarshal([]byte(runs[0].stdout), &got); err != nil {
			t.Fatalf("P=%d: %v in %q", P, err, runs[0].stdout)
		}
		if got.N != ds.Len() || got.Value != want.Value || !slices.Equal(got.Inducing, want.Inducing) || got.Epochs != want.Epochs || got.Dropped == nil || *got.Dropped != 1307 {
			t.Errorf("P=%d: %+v (dropped %v), want n %d value %v set %v epochs %d, 1307 dropped", P, got.ranksFit, got.Dropped, ds.Len(), want.Value, want.Inducing, want.Epochs)
		}
	}
	c := heldConfig(t, train)
	c.dropMissing, c.json, c.savePath = true, false, filepath.Join(t.TempDir(), "model.json")
	if runs := fitOnLocal(t, 3, c); runs[0].code != 0 || !strings.Contains(runs[0].stdout, "dropped         1307 training rows and 0 test rows with a missing value (--drop-missing)") {
		t.Errorf("summary (status %d):\n%s%s", runs[0].code, runs[0].stdout, runs[0].stderr)
	}
	if p, err := sgp.LoadPredictorFile(c.savePath); err != nil || !slices.Equal(p.InputNames, []string{"x0", "x1"}) {
		t.Errorf("model file: %v, input names %v; want x0 x1 (rank 1, the first to hold rows kept, kept none of its own)", err, p.InputNames)
	}
}
