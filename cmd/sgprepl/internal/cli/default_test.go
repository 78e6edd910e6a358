package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/data"
)

// TestFitDefaultExact checks fit's default without --m or --selector: the
// exact GP where sgp.ChooseDefault finds it affordable, said in the JSON
// (selector "exact" and a note) and the text summary; a sparse fit where
// it is not (a time budget too short for it); and every explicit request
// kept as it is.
func TestFitDefaultExact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(200, 3)
	trainPath := writeCSV(t, dir, "train.csv", train, true)
	fit := func(args ...string) map[string]any {
		t.Helper()
		code, stdout, stderr := runMain(context.Background(), append([]string{"fit", "--train", trainPath, "--json", "--quiet", "--max-epochs", "3"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%v: %v: %s", args, err, stdout)
		}
		return rep
	}
	notes := func(rep map[string]any) string {
		var s []string
		for _, v := range rep["notes"].([]any) {
			s = append(s, v.(string))
		}
		return strings.Join(s, " | ")
	}
	rep := fit()
	if rep["selector"] != "exact" || rep["m"].(float64) != 200 || !strings.Contains(notes(rep), "the exact GP is affordable") {
		t.Errorf("default at n = 200: selector %v, m %v, notes %q; want the exact GP and a note why", rep["selector"], rep["m"], notes(rep))
	}
	// The exact GP's estimated time at n = 200 is about 34 ms: a budget of
	// 10 ms leaves the sparse default.
	rep = fit("--time-budget", "10ms")
	if rep["selector"] != "hybrid" || rep["m"].(float64) > 100 || strings.Contains(notes(rep), "exact GP is affordable") {
		t.Errorf("default with a short budget: selector %v, m %v, notes %q; want the sparse hybrid", rep["selector"], rep["m"], notes(rep))
	}
	for _, args := range [][]string{{"--m", "20"}, {"--selector", "cholqr"}, {"--selector", "hybrid"}} {
		if rep := fit(args...); rep["selector"] == "exact" || rep["objective_kind"] == "exact" {
			t.Errorf("%v: selector %v, want the sparse fit asked for", args, rep["selector"])
		}
	}
	code, stdout, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--quiet", "--max-epochs", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "exact GP (m = n, the default at this n)") || !strings.Contains(stdout, "note            default without --m or --selector") {
		t.Errorf("text summary does not say the default is the exact GP:\n%s", stdout)
	}
}
