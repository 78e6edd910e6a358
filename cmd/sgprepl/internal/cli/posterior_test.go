package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// readNumbers reads a CSV file of numbers, with a header row if header.
func readNumbers(t *testing.T, path string, header bool) ([]string, [][]float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var head []string
	if header {
		head, recs = recs[0], recs[1:]
	}
	rows := make([][]float64, len(recs))
	for i, r := range recs {
		for _, c := range r {
			v, err := strconv.ParseFloat(c, 64)
			if err != nil {
				t.Fatalf("%s row %d: %v", path, i, err)
			}
			rows[i] = append(rows[i], v)
		}
	}
	return head, rows
}

// checkPosteriorFiles checks a predictions file with --interval 0.95
// --samples 3 and the --cov file beside it: the columns, the interval
// around the mean, the covariance's diagonal against the variance column
// and its symmetry, and, given the model r and the inputs x, the draws
// against the library's with seed.
func checkPosteriorFiles(t *testing.T, name, predPath, covPath string, r sgp.Regressor, x kernel.Inputs, seed uint64) {
	t.Helper()
	head, rows := readNumbers(t, predPath, true)
	want := "mean,variance,latent_variance,lower,upper,sample_1,sample_2,sample_3"
	if strings.Join(head, ",") != want {
		t.Fatalf("%s: header %v, want %s", name, head, want)
	}
	_, cov := readNumbers(t, covPath, false)
	if len(cov) != len(rows) {
		t.Fatalf("%s: covariance of %d rows for %d predictions", name, len(cov), len(rows))
	}
	const z = 1.959963984540054
	draws, err := r.SampleWith(x, 3, rand.New(rand.NewPCG(seed, sampleStream)), sgp.SampleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		m, v := row[0], row[1]
		sd := math.Sqrt(v)
		if math.Abs(row[3]-(m-z*sd)) > 1e-12*(1+math.Abs(m)+sd) || math.Abs(row[4]-(m+z*sd)) > 1e-12*(1+math.Abs(m)+sd) {
			t.Errorf("%s row %d: interval [%g, %g] around %g ± 1.96·%g", name, i, row[3], row[4], m, sd)
		}
		if len(cov[i]) != len(rows) || math.Abs(cov[i][i]-v) > 1e-12*v {
			t.Errorf("%s row %d: covariance diagonal %g, variance %g", name, i, cov[i][i], v)
		}
		for j := range cov[i] {
			if math.Abs(cov[i][j]-cov[j][i]) > 1e-14*v {
				t.Errorf("%s: covariance (%d, %d) = %g, (%d, %d) = %g", name, i, j, cov[i][j], j, i, cov[j][i])
			}
		}
		for j := 0; j < 3; j++ {
			if row[5+j] != draws.At(i, j) {
				t.Errorf("%s row %d: sample_%d = %v, the library's %v", name, i, j+1, row[5+j], draws.At(i, j))
			}
		}
	}
}

// TestPredictPosteriorFlags fits a sparse and an exact model, and checks
// predict's --interval, --samples, --seed and --cov for both, and that
// fit --predictions writes the same.
func TestPredictPosteriorFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(80, 3)
	test, _ := data.SnelsonLike(25, 4)
	trainPath := writeCSV(t, dir, "train.csv", train, true)
	testPath := writeCSV(t, dir, "test.csv", test, true)
	for _, sel := range [][]string{{"--selector", "cholqr", "--m", "10"}, {"--selector", "exact"}, {"--selector", "sgpr-continuous", "--m", "8", "--max-epochs", "2"}} {
		name := sel[1]
		model := filepath.Join(dir, name+".json")
		fitPred, fitCov := filepath.Join(dir, name+"-fit.csv"), filepath.Join(dir, name+"-fitcov.csv")
		args := append([]string{"fit", "--train", trainPath, "--test", testPath, "--save", model, "--quiet",
			"--predictions", fitPred, "--interval", "0.95", "--samples", "3", "--sample-seed", "5", "--cov", fitCov}, sel...)
		if code, _, stderr := runMain(context.Background(), args...); code != 0 {
			t.Fatalf("%s: fit exit %d: %s", name, code, stderr)
		}
		r, err := sgp.LoadRegressorFile(model)
		if err != nil {
			t.Fatal(err)
		}
		xs, err := readPredictInputs(testPath, r, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		checkPosteriorFiles(t, name+" fit", fitPred, fitCov, r, xs, 5)
		pred, cov := filepath.Join(dir, name+"-pred.csv"), filepath.Join(dir, name+"-cov.csv")
		code, _, stderr := runMain(context.Background(), "predict", "--model", model, "--input", testPath, "--output", pred,
			"--interval", "0.95", "--samples", "3", "--seed", "7", "--cov", cov)
		if code != 0 {
			t.Fatalf("%s: predict exit %d: %s", name, code, stderr)
		}
		checkPosteriorFiles(t, name+" predict", pred, cov, r, xs, 7)
		// JSON: the interval and the draws, a row per input row.
		code, stdout, stderr := runMain(context.Background(), "predict", "--model", model, "--input", testPath, "--json",
			"--interval", "0.9", "--samples", "2", "--noisy-samples")
		if code != 0 {
			t.Fatalf("%s: predict --json exit %d: %s", name, code, stderr)
		}
		var obj struct {
			Interval float64     `json:"interval"`
			Lower    []float64   `json:"lower"`
			Upper    []float64   `json:"upper"`
			Samples  [][]float64 `json:"samples"`
		}
		if err := json.Unmarshal([]byte(stdout), &obj); err != nil {
			t.Fatal(err)
		}
		if obj.Interval != 0.9 || len(obj.Lower) != test.Len() || len(obj.Upper) != test.Len() || len(obj.Samples) != test.Len() || len(obj.Samples[0]) != 2 {
			t.Errorf("%s: JSON %.300s", name, stdout)
		}
	}
}

// TestPosteriorFlagErrors checks the errors for bad values of the
// posterior flags and for a covariance that would not fit in memory.
func TestPosteriorFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(40, 3)
	trainPath := writeCSV(t, dir, "train.csv", train, true)
	model := filepath.Join(dir, "m.json")
	if code, _, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--m", "5", "--selector", "cholqr", "--save", model, "--quiet"); code != 0 {
		t.Fatalf("fit: %s", stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--interval", "1"}, "strictly between 0 and 1"},
		{[]string{"--interval", "0"}, "strictly between 0 and 1"},
		{[]string{"--interval", "-0.5"}, "strictly between 0 and 1"},
		{[]string{"--interval", "NaN"}, "strictly between 0 and 1"},
		{[]string{"--samples", "-1"}, "must be ≥ 0"},
		{[]string{"--noisy-samples"}, "needs --samples"},
		{[]string{"--cov", "-"}, "share standard output"},
	} {
		args := append([]string{"predict", "--model", model, "--input", trainPath}, c.args...)
		code, _, stderr := runMain(context.Background(), args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want a usage error with %q", c.args, code, stderr, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--interval", "0.9"}, "add columns to --predictions"},
		{[]string{"--samples", "2"}, "add columns to --predictions"},
		{[]string{"--cov", filepath.Join(dir, "c.csv")}, "--cov needs --test"},
		{[]string{"--interval", "2", "--predictions", filepath.Join(dir, "p.csv"), "--test", trainPath}, "strictly between 0 and 1"},
	} {
		args := append([]string{"fit", "--train", trainPath, "--m", "5", "--quiet"}, c.args...)
		code, _, stderr := runMain(context.Background(), args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("fit %v: exit %d, %q; want a usage error with %q", c.args, code, stderr, c.want)
		}
	}
	// An exact model draws at up to sgp.MaxJointSample rows: more are
	// refused before any work, as is an exact fit with that many test rows.
	exact := filepath.Join(dir, "exact.json")
	if code, _, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--selector", "exact", "--save", exact, "--quiet"); code != 0 {
		t.Fatalf("fit: %s", stderr)
	}
	var many strings.Builder
	many.WriteString("x0,y\n")
	for i := 0; i <= sgp.MaxJointSample; i++ {
		many.WriteString(strconv.FormatFloat(float64(i)/300, 'g', -1, 64) + ",0\n")
	}
	manyPath := writeFile(t, dir, "many.csv", many.String())
	code, _, stderr := runMain(context.Background(), "predict", "--model", exact, "--input", manyPath, "--samples", "1")
	if code != exitUsage || !strings.Contains(stderr, "exact model draws jointly") {
		t.Errorf("exact model, %d rows: exit %d, %q", sgp.MaxJointSample+1, code, stderr)
	}
	code, _, stderr = runMain(context.Background(), "fit", "--train", trainPath, "--selector", "exact", "--test", manyPath, "--quiet",
		"--predictions", filepath.Join(dir, "many-pred.csv"), "--samples", "1")
	if code != exitUsage || !strings.Contains(stderr, "exact model draws jointly") {
		t.Errorf("exact fit, %d test rows: exit %d, %q", sgp.MaxJointSample+1, code, stderr)
	}
	// A covariance larger than half the machine's memory is refused
	// before any prediction, with its size, and nothing is written.
	rows := int(math.Sqrt(sgp.MachineMemory()/8)) + 1
	var b strings.Builder
	b.WriteString("x0\n")
	for i := 0; i < rows; i++ {
		b.WriteString(strconv.Itoa(i%7) + "\n")
	}
	big := writeFile(t, dir, "big.csv", b.String())
	covPath := filepath.Join(dir, "big-cov.csv")
	code, _, stderr = runMain(context.Background(), "predict", "--model", model, "--input", big, "--cov", covPath, "--output", filepath.Join(dir, "big-pred.csv"))
	if code == 0 || !strings.Contains(stderr, "GB of memory") || !strings.Contains(stderr, strconv.Itoa(rows)+"×"+strconv.Itoa(rows)) {
		t.Errorf("covariance of %d rows: exit %d, %q", rows, code, stderr)
	}
	if _, err := os.Stat(covPath); err == nil {
		t.Error("the refused covariance was written")
	}
}
