package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp"
)

// TestFitColumnMode fits molecules (SMILES column, WL kernel) and strings
// (spectrum kernel) from CSV files with named columns, with a baseline
// selector, and checks the bad-row reporting.
func TestFitColumnMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mols := []string{"CCO", "CCN", "CCC", "c1ccccc1", "c1ccccc1O", "CC(=O)O", "CCOC", "CN(C)C", "C1CCCCC1", "CC#N",
		"OCCO", "NCCN", "c1ccncc1", "CCCl", "CCBr", "C=CC", "CC(C)O", "COC", "CS", "CCS"}
	var b strings.Builder
	b.WriteString("id,smiles,split,pKi\n")
	for i, s := range mols {
		split := "train"
		if i%5 == 4 {
			split = "test"
		}
		b.WriteString(strings.Join([]string{string(rune('a' + i)), s, split, []string{"5.1", "6.2", "4.8"}[i%3]}, ",") + "\n")
	}
	data := filepath.Join(dir, "mols.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"fit", "--train", data, "--test", data, "--where", "split=train", "--test-where", "split=test",
		"--input-column", "smiles", "--target-column", "pKi", "--kernel", "wl:2", "--selector", "greedy-variance", "--m", "4", "--max-epochs", "2", "--json", "--quiet"},
		nil, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep map[string]any
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep["n"].(float64) != 16 || rep["smse"] == nil || len(rep["inducing"].([]any)) != 4 {
		t.Errorf("report %v", rep)
	}
	// Strings with the spectrum kernel, all non-target columns as input.
	strs := filepath.Join(dir, "strings.csv")
	os.WriteFile(strs, []byte("seq,y\nACGTAC,1\nACGTTT,2\nTTTTAC,3\nGGGACG,1.5\nACACAC,2.5\nCGCGCG,0.5\n"), 0o644)
	out.Reset()
	errb.Reset()
	if code := Main(context.Background(), []string{"fit", "--train", strs, "--kernel", "spectrum:2", "--m", "2", "--max-epochs", "2", "--quiet"}, nil, &out, &errb); code != 0 {
		t.Fatalf("spectrum fit: exit %d: %s", code, errb.String())
	}
	// Bad rows are reported by line; nothing on stdout.
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("smiles,y\nCCO,1\nC1CC,2\nCCN,x\n"), 0o644)
	for _, args := range [][]string{
		{"fit", "--train", bad, "--kernel", "wl", "--m", "1"},
		{"fit", "--train", data, "--input-column", "nope", "--kernel", "wl"},
		{"fit", "--train", data, "--input-column", "smiles", "--kernel", "kernel-x"},
		{"fit", "--train", data, "--selector", "nope"},
		{"fit", "--train", data, "--input-column", "smiles", "--kernel", "wl", "--where", "split"},
	} {
		out.Reset()
		errb.Reset()
		code := Main(context.Background(), args, nil, &out, &errb)
		if code == 0 || out.Len() != 0 || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 || !strings.HasPrefix(errb.String(), "sgprepl: ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
	}
	errb.Reset()
	Main(context.Background(), []string{"fit", "--train", bad, "--kernel", "wl", "--m", "1"}, nil, &out, &errb)
	if !strings.Contains(errb.String(), "line 4") {
		t.Errorf("bad target row not named by line: %q", errb.String())
	}
}

func TestFitContinuousSelector(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 120; i++ {
		x := 6 * float64(i) / 120
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64) + "," + strconv.FormatFloat(math.Sin(2*x)+0.1*math.Cos(13*x), 'g', -1, 64) + "\n")
	}
	data := filepath.Join(dir, "d.csv")
	os.WriteFile(data, []byte(b.String()), 0o644)
	model := filepath.Join(dir, "model.json")
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"fit", "--train", data, "--test", data, "--selector", "sgpr-continuous", "--m", "6",
		"--max-epochs", "10", "--save", model, "--json"}, nil, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep map[string]any
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep["inducing_inputs"].([]any)) != 6 || rep["smse"].(float64) > 0.2 {
		t.Errorf("report %v", rep)
	}
	if _, err := sgp.LoadPredictorFile(model); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := Main(context.Background(), []string{"fit", "--train", data, "--selector", "sgpr-continuous", "--kernel", "wl"}, nil, &out, &errb); code != 2 {
		t.Errorf("continuous with a discrete kernel: exit %d, %s", code, errb.String())
	}
}
