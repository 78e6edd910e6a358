package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/comm"
)

// writeRanksCSV writes a numeric file of rows data rows (after a header)
// in which bad(i) gives the cell of data row i's target, "" for a number,
// and returns its path.
func writeRanksCSV(t *testing.T, rows int, bad func(i int) string) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 9))
	var b strings.Builder
	b.WriteString("x0,x1,y\n")
	for i := range rows {
		x0, x1 := rng.Float64(), rng.Float64()
		y := fmt.Sprint(x0 - x1)
		if c := bad(i); c != "" {
			y = c
		}
		fmt.Fprintf(&b, "%v,%v,%s\n", x0, x1, y)
	}
	path := filepath.Join(t.TempDir(), "train.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rankRun is what one rank of fit printed and its exit status.
type rankRun struct {
	stdout, stderr string
	code           int
}

// fitOnLocal runs fit with c's flags on the p ranks of comm.Local, each
// with its own copy of c, and returns what each printed and its status.
func fitOnLocal(t *testing.T, p int, c fitConfig) []rankRun {
	t.Helper()
	return onLocal(t, p, c, (*fitConfig).runOn)
}

// onLocal runs run with c's flags on the p ranks of comm.Local, each with
// its own copy of c, and returns what each printed and its status.
func onLocal(t *testing.T, p int, c fitConfig, run func(*fitConfig, context.Context, *env, *comm.Comm) error) []rankRun {
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
			code := report(e, run(&cr, context.Background(), e, world))
			runs[r] = rankRun{out.String(), errOut.String(), code}
		}()
	}
	wg.Wait()
	return runs
}

// checkOneMessage checks that rank 0 alone printed, one line on stderr
// matching want, and that every rank exits with status code.
func checkOneMessage(t *testing.T, runs []rankRun, want string, code int) {
	t.Helper()
	for r, run := range runs {
		if run.code != code {
			t.Errorf("rank %d: exit status %d, want %d", r, run.code, code)
		}
		if r > 0 && (run.stdout != "" || run.stderr != "") {
			t.Errorf("rank %d printed %q and %q; only rank 0 prints", r, run.stdout, run.stderr)
		}
	}
	if lines := strings.Split(strings.TrimSuffix(runs[0].stderr, "\n"), "\n"); len(lines) != 1 || !regexp.MustCompile(want).MatchString(lines[0]) {
		t.Errorf("rank 0 printed\n%s\nwant one line matching %s", runs[0].stderr, want)
	}
}

// TestFitRanksErrors checks fit across the ranks of one process
// (comm.Local): a bad row, rows with a missing value and a file that does
// not exist each end every rank with one message from rank 0, naming the
// rank and the line, and no output written, as does a test file that
// does not exist; a good file reaches the fit, which refuses a selector
// other than cholqr, bounds, restarts and column mode, naming what runs
// across ranks.
func TestFitRanksErrors(t *testing.T) {
	t.Parallel()
	const rows = 3000 // 3 blocks of comm.BlockRows: rank 2 holds rows 2048 on
	save := filepath.Join(t.TempDir(), "model.json")
	base := fitConfig{z: 16, objective: "var", meanName: "constant", maxEpochs: 50, restarts: -1, seed: 1, savePath: save}

	c := base
	c.trainPath = writeRanksCSV(t, rows, func(i int) string {
		if i == 2500 || i == 2900 {
			return "oops"
		}
		return ""
	})
	checkOneMessage(t, fitOnLocal(t, 3, c), `^sgprepl: rank 2 of 3: .*train\.csv: line 2502, column 3 \("y"\): cannot parse "oops" as a number`, exitFailure)

	c.trainPath = writeRanksCSV(t, rows, func(i int) string {
		if i == 1500 || i == 2100 || i == 2200 {
			return "NA"
		}
		return ""
	})
	checkOneMessage(t, fitOnLocal(t, 3, c), `^sgprepl: rank 1 of 3: .*train\.csv: 3 rows have a missing value .*the first on line 1502, column 3 \("y"\); .*--drop-missing`, exitFailure)

	c.trainPath = filepath.Join(t.TempDir(), "absent.csv")
	checkOneMessage(t, fitOnLocal(t, 3, c), `^sgprepl: rank 0 of 3: cannot open CSV file: .*absent\.csv`, exitFailure)

	c.trainPath = writeRanksCSV(t, rows, func(int) string { return "" })
	if err := c.cons.bound.Set("noise=0.001:1"); err != nil {
		t.Fatal(err)
	}
	checkOneMessage(t, fitOnLocal(t, 3, c), `^sgprepl: fit: under 3 ranks fit bounds no hyperparameter \(--bound\)`, exitUsage)
	c.cons.bound, c.restarts = nil, 2
	checkOneMessage(t, fitOnLocal(t, 3, c), `^sgprepl: fit: under 3 ranks fit runs from one start, not --restarts 2`, exitUsage)
	c.restarts = -1
	c.selector = "hybrid"
	checkOneMessage(t, fitOnLocal(t, 3, c), `^sgprepl: fit: under 3 ranks fit runs the cholqr selector only`, exitUsage)
	c.selector = ""

	c = heldConfig(t, writeRanksCSV(t, rows, func(int) string { return "" }))
	c.savePath, c.testPath = save, filepath.Join(t.TempDir(), "absent-test.csv")
	checkOneMessage(t, fitOnLocal(t, 2, c), `^sgprepl: rank 0 of 2: cannot open CSV file: .*absent-test\.csv`, exitFailure)
	c.testPath, c.inputCols = "", stringList{"x0"}
	checkOneMessage(t, fitOnLocal(t, 2, c), `^sgprepl: fit: under 2 ranks, fit reads numeric files \(--train, --test\) only`, exitUsage)

	if _, err := os.Stat(save); !os.IsNotExist(err) {
		t.Errorf("%s: %v; a failed fit writes nothing", save, err)
	}
}

// TestFitMPI runs sgprepl built with -tags mpi (its path in
// SGP_MPI_SGPREPL, as .ci/run sets it) under mpirun: a bad row on rank 2's
// rows under -np 3 ends the job with one message naming rank 2 and the
// line, a non-zero status and no model file; under -np 1 fit fits as
// without MPI, its JSON saying "ranks": 1; under -np 2, 3 and 4 with the
// hyperparameters held, the JSON of every P has the inducing set,
// objective and epochs of sgp.FitRanks in one process, and rank 0 writes
// the model file, the test scores and the predictions.
func TestFitMPI(t *testing.T) {
	bin := os.Getenv("SGP_MPI_SGPREPL")
	if bin == "" {
		t.Skip("SGP_MPI_SGPREPL does not name an sgprepl built with -tags mpi")
	}
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("no mpirun")
	}
	run := func(np int, args ...string) (stdout, stderr string, code int) {
		cmd := exec.Command(mpirun, append([]string{"-np", fmt.Sprint(np), "--allow-run-as-root", "--oversubscribe", "--mca", "btl", "self,tcp", bin}, args...)...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
	}
	save := filepath.Join(t.TempDir(), "model.json")
	bad := writeRanksCSV(t, 3000, func(i int) string {
		if i == 2500 {
			return "oops"
		}
		return ""
	})
	_, stderr, code := run(3, "fit", "--train", bad, "--m", "8", "--save", save)
	if code == 0 {
		t.Errorf("-np 3, a bad row: exit status 0")
	}
	var ours []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "sgprepl: ") {
			ours = append(ours, l)
		}
	}
	if len(ours) != 1 || !strings.Contains(ours[0], "rank 2 of 3: ") || !strings.Contains(ours[0], "line 2502, column 3") {
		t.Errorf("-np 3, a bad row: sgprepl's messages %q, want one naming rank 2 and line 2502; stderr:\n%s", ours, stderr)
	}
	if _, err := os.Stat(save); !os.IsNotExist(err) {
		t.Errorf("-np 3, a bad row: %s: %v; want no model file", save, err)
	}

	good := writeRanksCSV(t, 200, func(int) string { return "" })
	stdout, stderr, code := run(1, "fit", "--train", good, "--m", "8", "--max-epochs", "3", "--json", "--save", save)
	var rep struct {
		Ranks int `json:"ranks"`
		N     int `json:"n"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || rep.Ranks != 1 || rep.N != 200 {
		t.Errorf("-np 1: exit status %d, JSON %s (stderr %s); want 0 and \"ranks\": 1, \"n\": 200", code, stdout, stderr)
	}
	if _, err := os.Stat(save); err != nil {
		t.Errorf("-np 1: %v", err)
	}

	// Across ranks with the hyperparameters held: the fit of every P is
	// sgp.FitRanks over all rows in one process.
	held := writeRanksCSV(t, 2600, func(int) string { return "" })
	want := singleFit(t, held)
	test := writeRanksCSV(t, 30, func(int) string { return "" })
	for np := 2; np <= 4; np++ {
		dir := t.TempDir()
		save, pred := filepath.Join(dir, "model.json"), filepath.Join(dir, "pred.csv")
		stdout, stderr, code := run(np, "fit", "--train", held, "--m", "10", "--max-epochs", "4", "--mean", "zero", "--json", "--fix", heldFix,
			"--save", save, "--test", test, "--predictions", pred)
		var got ranksOutJSON
		if code != 0 || json.Unmarshal([]byte(stdout), &got) != nil {
			t.Errorf("-np %d, held: exit status %d, stdout %q, stderr %s", np, code, stdout, stderr)
			continue
		}
		if got.Ranks != np {
			t.Errorf("-np %d, held: JSON ranks %d", np, got.Ranks)
		}
		checkSameAsSingle(t, fmt.Sprintf("-np %d, held", np), got.ranksFit, want)
		// The outputs, written by rank 0: the model file, the test
		// scores and one prediction per test row.
		if p, err := sgp.LoadPredictorFile(save); err != nil || p.X.Len() != 10 {
			t.Errorf("-np %d: model file %s: %v", np, save, err)
		}
		if mean, _ := readPredictionColumns(t, pred); len(mean) != 30 || got.TestRows != 30 || got.SMSE == nil || got.SNLP == nil {
			t.Errorf("-np %d: %d predictions, JSON test rows %d, SMSE %v, SNLP %v; want 30 and both scores", np, len(mean), got.TestRows, got.SMSE, got.SNLP)
		}
	}
}

// heldFix holds every hyperparameter of an RBF kernel on writeRanksCSV's
// two inputs, for a fit across ranks.
const heldFix = "variance=1.5,lengthscale[0]=0.4,lengthscale[1]=0.6,noise=0.01"

// ranksFit is the part of the JSON of a fit across ranks that must not
// depend on P.
type ranksFit struct {
	Ranks     int     `json:"ranks"`
	N         int     `json:"n"`
	Value     float64 `json:"value"`
	Inducing  []int   `json:"inducing_rows"`
	Epochs    int     `json:"epochs"`
	Accepted  int     `json:"accepted"`
	Converged bool    `json:"converged"`
}

// heldConfig is fit --train train --m 10 --max-epochs 4 --mean zero
// --json --fix heldFix.
func heldConfig(t *testing.T, train string) fitConfig {
	t.Helper()
	c := fitConfig{trainPath: train, m: 10, mSet: true, z: 16, objective: "var", meanName: "zero", maxEpochs: 4, json: true, restarts: -1, seed: 1}
	if err := c.cons.fix.Set(heldFix); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFitRanksSameForEveryP fits a file of 2600 rows (three blocks: with
// P = 4 one rank holds none) across P = 2, 3 and 4 ranks of comm.Local
// with the hyperparameters held: rank 0 alone prints one JSON object,
// with "ranks": P, the same inducing set, objective, epochs and accepted
// swaps for every P, and those of the single-process fit with
// --selector cholqr (checkSameAsSingle).
func TestFitRanksSameForEveryP(t *testing.T) {
	t.Parallel()
	train := writeRanksCSV(t, 2600, func(int) string { return "" })
	want := singleFit(t, train)
	var first *ranksFit
	for P := 2; P <= 4; P++ {
		runs := fitOnLocal(t, P, heldConfig(t, train))
		for r, run := range runs {
			if run.code != 0 || (r > 0 && run.stdout+run.stderr != "") {
				t.Fatalf("P=%d rank %d: status %d, printed %q %q", P, r, run.code, run.stdout, run.stderr)
			}
		}
		var got ranksFit
		if err := json.Unmarshal([]byte(runs[0].stdout), &got); err != nil {
			t.Fatalf("P=%d: %v in %q", P, err, runs[0].stdout)
		}
		if got.Ranks != P || got.N != 2600 {
			t.Errorf("P=%d: ranks %d, n %d", P, got.Ranks, got.N)
		}
		checkSameAsSingle(t, fmt.Sprintf("P=%d", P), got, want)
		if first == nil {
			first = &got
			if got.Accepted == 0 {
				t.Fatal("no swap accepted: the fit tests no decision")
			}
		} else if got.Value != first.Value || !slices.Equal(got.Inducing, first.Inducing) || got.Accepted != first.Accepted {
			t.Errorf("P=%d: %+v, P=2 %+v", P, got, *first)
		}
	}
}

// singleJSON is the part of the JSON of a single-process fit that a fit
// across ranks must reproduce.
type singleJSON struct {
	Objective float64 `json:"objective"`
	Inducing  []int   `json:"inducing"` // sorted
	Epochs    int     `json:"epochs"`
	Converged bool    `json:"converged"`
}

// singleFit is fit with heldConfig's flags and --selector cholqr on all
// rows of train in one process: sgp.Model.
func singleFit(t *testing.T, train string) singleJSON {
	t.Helper()
	c := heldConfig(t, train)
	c.selector = "cholqr"
	runs := fitOnLocal(t, 1, c)
	var s singleJSON
	if runs[0].code != 0 || json.Unmarshal([]byte(runs[0].stdout), &s) != nil {
		t.Fatalf("one process: status %d, stdout %q, stderr %s", runs[0].code, runs[0].stdout, runs[0].stderr)
	}
	return s
}

// checkSameAsSingle checks that a fit across ranks has the inducing set,
// epochs and convergence of the single-process fit want and its
// objective within 1e-10 relative.
func checkSameAsSingle(t *testing.T, name string, got ranksFit, want singleJSON) {
	t.Helper()
	if !slices.Equal(slices.Sorted(slices.Values(got.Inducing)), want.Inducing) || got.Epochs != want.Epochs || got.Converged != want.Converged ||
		math.Abs(got.Value-want.Objective) > 1e-10*math.Abs(want.Objective) {
		t.Errorf("%s: objective %.15g, inducing %v, %d epochs, converged %v; one process %.15g, %v, %d, %v",
			name, got.Value, slices.Sorted(slices.Values(got.Inducing)), got.Epochs, got.Converged, want.Objective, want.Inducing, want.Epochs, want.Converged)
	}
}

// TestCheckRanksMemory checks that the ranks of one machine are refused,
// on every rank and naming the first, when their rows and factors would
// not fit in the memory given, and let through when they would.
func TestCheckRanksMemory(t *testing.T) {
	const P, nl, m, z, d = 3, 4096, 256, 16, 8
	need := float64(P) * rankBytes(nl, m, z, d) // every rank of comm.Local is on this host
	for _, tc := range []struct {
		avail float64
		fail  bool
	}{{need / maxRanksShare * 1.01, false}, {need / maxRanksShare * 0.99, true}} {
		errs := make([]error, P)
		var wg sync.WaitGroup
		for r, c := range comm.Local(P) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[r] = checkRanksMemory(c, nl, m, z, d, tc.avail)
			}()
		}
		wg.Wait()
		for r, err := range errs {
			if (err != nil) != tc.fail {
				t.Errorf("avail %.4g GB, need %.4g GB: rank %d: %v; want an error %v", tc.avail/1e9, need/1e9, r, err, tc.fail)
			}
			if err != nil && (!strings.Contains(err.Error(), "rank 0 of 3") || !strings.Contains(err.Error(), "4096 rows")) {
				t.Errorf("rank %d: %v; want it to name rank 0 and its rows", r, err)
			}
		}
	}
}
