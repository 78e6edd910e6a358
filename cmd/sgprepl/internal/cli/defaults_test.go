package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/data"
)

// TestFitDefaultM: a sparse fit without --m asks for sgp.DefaultM(n)
// inducing points, the m sgp.NewModel takes without WithM, and says so
// in the JSON report (m_requested).
func TestFitDefaultM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, n := range []int{40, 199, 400} {
		train, _ := data.SnelsonLike(n, 1)
		path := writeCSV(t, dir, fmt.Sprintf("train%d.csv", n), train, false)
		code, stdout, stderr := runMain(context.Background(), "fit", "--train", path, "--selector", "cholqr", "--max-epochs", "1", "--json", "--quiet")
		if code != 0 {
			t.Fatalf("n=%d: exit %d: %s", n, code, stderr)
		}
		var r struct {
			MRequested int `json:"m_requested"`
		}
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("n=%d: %v: %s", n, err, stdout)
		}
		if r.MRequested != sgp.DefaultM(n) {
			t.Errorf("n=%d: the CLI asked for m = %d, sgp.DefaultM says %d", n, r.MRequested, sgp.DefaultM(n))
		}
	}
}
