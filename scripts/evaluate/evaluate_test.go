package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSplit checks that a set's split is the same on every call, that its
// parts are disjoint and together the sample, and that another set's name
// draws another split.
func TestSplit(t *testing.T) {
	rows := make([][]float64, 100)
	for i := range rows {
		rows[i] = []float64{float64(i), float64(i * i)}
	}
	tr1, te1, err := split("a", rows, 60, 15)
	if err != nil {
		t.Fatal(err)
	}
	tr2, te2, _ := split("a", rows, 60, 15)
	if len(tr1) != 45 || len(te1) != 15 {
		t.Fatalf("split sizes %d/%d, want 45/15", len(tr1), len(te1))
	}
	ids := func(rs [][]float64) []int {
		var out []int
		for _, r := range rs {
			out = append(out, int(r[0]))
		}
		return out
	}
	if !slices.Equal(ids(tr1), ids(tr2)) || !slices.Equal(ids(te1), ids(te2)) {
		t.Error("the same set's split differs between calls")
	}
	all := append(ids(tr1), ids(te1)...)
	slices.Sort(all)
	if len(slices.Compact(all)) != 60 {
		t.Errorf("train and test share rows: %d distinct of 60", len(slices.Compact(all)))
	}
	_, teB, _ := split("b", rows, 60, 15)
	if slices.Equal(ids(te1), ids(teB)) {
		t.Error("sets a and b drew the same test rows")
	}
	if _, _, err := split("a", rows, 0, 100); err == nil {
		t.Error("a split with no training rows was accepted")
	}
}

// readBack reads a numeric CSV written by writeNumeric.
func readBack(t *testing.T, path string) [][]float64 {
	t.Helper()
	_, recs, err := readCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := numericRows(path, recs)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestTrendOracle recomputes the oracle SMSE of synth-trend from the
// written test rows and issue 32's formula, and checks the training mean.
func TestTrendOracle(t *testing.T) {
	dir := t.TempDir()
	m, err := makeTrend(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	test := readBack(t, filepath.Join(dir, "test.csv"))
	var se, mu float64
	for _, r := range test {
		f := 50 + 3*math.Sin(r[0]) + r[1]*r[1]/100
		se += (r[2] - f) * (r[2] - f)
		mu += r[2]
	}
	mu /= float64(len(test))
	var v float64
	for _, r := range test {
		v += (r[2] - mu) * (r[2] - mu)
	}
	if m.OracleSMSE == nil || math.Abs(*m.OracleSMSE-se/v) > 1e-9*se/v {
		t.Errorf("oracle SMSE %v, recomputed %g", m.OracleSMSE, se/v)
	}
	// The noise variance is 0.25: the residuals' mean square is near it.
	if ms := se / float64(len(test)); math.Abs(ms-0.25) > 0.05 {
		t.Errorf("mean square of y − f = %g, want about 0.25", ms)
	}
	train := readBack(t, filepath.Join(dir, "train.csv"))
	y := make([]float64, len(train))
	for i, r := range train {
		y[i] = r[2]
	}
	if want, _ := meanSD(y); math.Abs(m.YMean-want) > 1e-9*math.Abs(want) || m.NTrain != 2000 || m.NTest != 1000 || m.D != 2 {
		t.Errorf("meta %+v does not describe the files (training mean %g)", m, want)
	}
}

// TestTwoValuedUnseen checks synth-twovalued's design: the indicator
// inputs take only 0 and 1e-4, no training row has the first three on,
// some test rows do, and the training targets are standardised.
func TestTwoValuedUnseen(t *testing.T) {
	dir := t.TempDir()
	m, err := makeTwoValued(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	allOn := func(r []float64) bool { return r[0] > 0 && r[1] > 0 && r[2] > 0 }
	for _, part := range []string{"train", "test"} {
		rows := readBack(t, filepath.Join(dir, part+".csv"))
		unseen := 0
		for _, r := range rows {
			for j := range 5 {
				if r[j] != 0 && math.Abs(r[j]-1e-4) > 1e-18 {
					t.Fatalf("%s: indicator %d is %g, want 0 or 1e-4", part, j, r[j])
				}
			}
			if allOn(r) {
				unseen++
			}
		}
		if part == "train" && unseen > 0 {
			t.Errorf("%d training rows have the combination kept for the test set", unseen)
		}
		if part == "test" && (unseen < len(rows)/16 || unseen > len(rows)/4) {
			t.Errorf("%d of %d test rows have the unseen combination, want about one in eight", unseen, len(rows))
		}
	}
	if math.Abs(m.YMean) > 1e-9 || math.Abs(m.YSD-1) > 1e-9 {
		t.Errorf("training targets not standardised: mean %g, sd %g", m.YMean, m.YSD)
	}
}

// TestFitOne runs fitOne against a stand-in for sgprepl that prints a
// fixed report, and checks what the row takes from it: the drift from the
// set's targets, the signal variance summed over the kernel's variances,
// the arguments of an explicit selector.
func TestFitOne(t *testing.T) {
	dir := t.TempDir()
	argsFile := filepath.Join(dir, "args")
	bin := filepath.Join(dir, "fake-sgprepl")
	script := "#!/bin/sh\necho \"$@\" > " + argsFile + "\n" +
		`echo '{"objective":12.5,"smse":0.25,"snlp":-1.5,"seconds":3,"stopped":"converged","converged":true,` +
		`"mean":14,"hyperparameters":{"variance[0]":1.5,"variance[1]":0.5,"noise":0.1},"m":7,"m_requested":8,` +
		`"warnings":["w1","w2"],"refined":null}'` + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := &prepared{set: &set{name: "s", group: groupChecking, molecule: true, kernel: "wl-depth:3", inputs: []string{"smiles"}, target: "y"},
		train: "tr.csv", test: "te.csv", meta: &meta{NTrain: 40, NTest: 10, D: 1, YMean: 10, YSD: 2}}
	c := config{bin: bin, budget: 7 * time.Second}
	r := fitOne(context.Background(), c, p, "cholqr", 3, dir)
	if r.Err != "" {
		t.Fatal(r.Err)
	}
	near := func(v *float64, want float64) bool {
		return v != nil && math.Abs(*v-want) <= 1e-12*math.Max(1, math.Abs(want))
	}
	if !near(r.F, 12.5) || !near(r.SMSE, 0.25) || !near(r.Drift, 2) || !near(r.Signal, 2) || !near(r.Noise, 0.1) ||
		r.M != 7 || r.MRequested != 8 || len(r.Warnings) != 2 || r.Refined || r.Stopped != "converged" {
		t.Errorf("row %+v does not hold the report", r)
	}
	b, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(string(b))
	for _, want := range [][]string{{"--selector", "cholqr"}, {"--m", strconv.Itoa(explicitM(40, 0))}, {"--seed", "3"},
		{"--time-budget", "7s"}, {"--kernel", "wl-depth:3"}, {"--input-column", "smiles"}, {"--target-column", "y"}} {
		i := slices.Index(args, want[0])
		if i < 0 || i+1 >= len(args) || args[i+1] != want[1] {
			t.Errorf("arguments %q lack %s %s", args, want[0], want[1])
		}
	}
}

// TestBaselineRoundTrip writes rows as CSV and reads them back as a
// baseline.
func TestBaselineRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.csv")
	rows := []row{
		{Set: "x", Group: groupTuning, Selector: "hybrid", Seed: 1, F: ptr(-3.25), SMSE: ptr(0.125), Warnings: []string{"a, b", "c"}},
		{Set: "x", Group: groupTuning, Selector: "exact", Seed: 2, Err: "exit status 1: no"},
	}
	if err := writeCSV(path, rows); err != nil {
		t.Fatal(err)
	}
	base, err := readBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := base[key(rows[0])]
	if !ok || got.F == nil || math.Abs(*got.F+3.25) > 1e-12 || got.SMSE == nil || math.Abs(*got.SMSE-0.125) > 1e-12 {
		t.Errorf("baseline row %+v, want F −3.25 and SMSE 0.125", got)
	}
	if got, ok := base[key(rows[1])]; !ok || got.F != nil {
		t.Errorf("a failed fit reads back as %+v, want no F", got)
	}
}

// TestFitOneKernel checks that --kernel reaches the fits of a numeric set
// and that a molecule set keeps its graph kernel.
func TestFitOneKernel(t *testing.T) {
	dir := t.TempDir()
	argsFile := filepath.Join(dir, "args")
	bin := filepath.Join(dir, "fake-sgprepl")
	script := "#!/bin/sh\necho \"$@\" > " + argsFile + "\n" + `echo '{"objective":1,"m":7,"m_requested":8}'` + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	kernelArg := func(p *prepared) string {
		c := config{bin: bin, budget: 7 * time.Second, kernel: "matern52"}
		fitOne(context.Background(), c, p, "cholqr", 1, dir)
		b, err := os.ReadFile(argsFile)
		if err != nil {
			t.Fatal(err)
		}
		args := strings.Fields(string(b))
		i := slices.Index(args, "--kernel")
		if i < 0 || i+1 >= len(args) {
			return ""
		}
		return args[i+1]
	}
	numeric := &prepared{set: &set{name: "n", group: groupChecking}, train: "tr.csv", test: "te.csv", meta: &meta{NTrain: 40, NTest: 10, D: 2, YSD: 1}}
	if got := kernelArg(numeric); got != "matern52" {
		t.Errorf("numeric set: --kernel %q, want matern52", got)
	}
	mol := &prepared{set: &set{name: "m", group: groupChecking, molecule: true, kernel: "wl-depth:3", inputs: []string{"smiles"}, target: "y"},
		train: "tr.csv", test: "te.csv", meta: &meta{NTrain: 40, NTest: 10, D: 1, YSD: 1}}
	if got := kernelArg(mol); got != "wl-depth:3" {
		t.Errorf("molecule set: --kernel %q, want wl-depth:3", got)
	}
}
