package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/figure"
)

// runExperiment runs the command with args and returns the exit status
// and outputs.
func runExperiment(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = runMain(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestExperimentChecksOutputsFirst: an output directory that cannot take
// the tables fails before the experiment runs, and writes nothing.
func TestExperimentChecksOutputsFirst(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "snelson.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runExperiment("--out", dir, "snelson")
	if code == 0 || !strings.Contains(stderr, "is a directory") {
		t.Fatalf("exit %d, stderr %q; want a failure naming the directory", code, stderr)
	}
	if stdout != "" {
		t.Errorf("the experiment ran: stdout %q", stdout)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files written: %v", ents)
	}
}

// TestExperimentSeedsFlag: --seeds below 1 is a usage error that names the
// flag, before any data is read or file written.
func TestExperimentSeedsFlag(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"0", "-2"} {
		code, stdout, stderr := runExperiment("--out", dir, "--seeds", v, "hybrid")
		if code != exitUsage || !strings.Contains(stderr, "--seeds") || stdout != "" {
			t.Errorf("--seeds %s: exit %d, stdout %q, stderr %q; want a usage error naming --seeds", v, code, stdout, stderr)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files written: %v", ents)
	}
}

// TestExperimentWritesAllOrNothing: plots are kept until the tables are
// written, then all land together; an experiment that fails before
// writeAll leaves the directory as it was.
func TestExperimentWritesAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	x := &expEnv{e: &env{stdout: &out}, out: dir}
	fig := figure.Curves("c", "x", "y", false, []figure.Series{{Name: "a", X: []float64{1, 2}, Y: []float64{3, 4}}})
	if err := x.savePlot(fig, "c.png"); err != nil {
		t.Fatal(err)
	}
	if err := x.savePlot(fig, "c.gif"); err == nil {
		t.Error("savePlot accepted a .gif")
	}
	x.add(expRow{Dataset: "d", Method: "m", M: 3, Kind: "VAR"})
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("written before the end: %v", ents)
	}
	if err := x.writeAll(filepath.Join(dir, "e.csv"), filepath.Join(dir, "e.md")); err != nil {
		t.Fatal(err)
	}
	var names []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{"c.png", "e.csv", "e.md"}; !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "c.png")); !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Error("c.png is not a PNG")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "e.csv")); !strings.HasPrefix(string(b), "dataset,method,") || !strings.Contains(string(b), "\nd,m,3,") {
		t.Errorf("e.csv:\n%s", b)
	}
	if !strings.Contains(out.String(), "wrote "+filepath.Join(dir, "c.png")) {
		t.Errorf("stdout does not name the plot:\n%s", out.String())
	}
}

// TestMedianRow checks the hybrid experiment's medians (each column on its
// own, for odd and even counts, with the first row's labels) and its worst
// rows (the whole row with the highest objective).
func TestMedianRow(t *testing.T) {
	rows := []expRow{
		{Dataset: "d", Method: "m", M: 8, Objective: 3, SMSE: 0.3, SNLP: -1, Seconds: 9, Epochs: 4},
		{Dataset: "d", Method: "m", M: 8, Objective: 1, SMSE: 0.5, SNLP: -3, Seconds: 7, Epochs: 5},
		{Dataset: "d", Method: "m", M: 8, Objective: 2, SMSE: 0.1, SNLP: -2, Seconds: 8, Epochs: 6},
	}
	r := medianRow(rows, "median")
	if r.Objective != 2 || r.SMSE != 0.3 || r.SNLP != -2 || r.Seconds != 8 || r.Epochs != 5 || r.Note != "median" || r.Dataset != "d" || r.M != 8 {
		t.Errorf("median of three: %+v", r)
	}
	r = medianRow(rows[:2], "median")
	if math.Abs(r.Objective-2) > 1e-15 || math.Abs(r.SMSE-0.4) > 1e-15 || math.Abs(r.SNLP+2) > 1e-15 || math.Abs(r.Seconds-8) > 1e-15 || r.Epochs != 4 {
		t.Errorf("median of two: %+v", r)
	}
	rows[1].Note = "seed 2"
	if w := worstRow(rows, "worst"); w.Objective != 3 || w.SMSE != 0.3 || w.Epochs != 4 || w.Note != "worst: " {
		t.Errorf("worst of three: %+v", w)
	}
	rows[0].Objective = -1
	if w := worstRow(rows, "worst"); w.Objective != 2 || w.Epochs != 6 {
		t.Errorf("worst of three, last row: %+v", w)
	}
	rows[2].Objective = math.Inf(-1)
	if w := worstRow(rows, "worst"); w.Objective != 1 || w.Note != "worst: seed 2" {
		t.Errorf("worst of three, middle row: %+v", w)
	}
}

// TestWriteMarkdownEscapesPipes: a note quoting |∂F| stays in its cell, so
// every row of the table has the header's ten cells.
func TestWriteMarkdownEscapesPipes(t *testing.T) {
	x := &expEnv{rows: []expRow{
		{Dataset: "kin40k", Method: "SGPR-continuous", M: 64, Kind: "VAR", Objective: 5680.7, SMSE: 0.092, SNLP: -1.12, Seconds: 16.5, Epochs: 2201,
			Note: "stalled: F changed by less than a relative 1e-09 over 20 iterations, at max |∂F| = 0.0473"},
		{Dataset: "a|b", Method: "Hybrid-VAR", M: 64, Z: 16, Kind: "VAR", Objective: 5674.8, Note: "refined"},
	}}
	var b strings.Builder
	if err := x.writeMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), b.String())
	}
	for _, l := range lines {
		if c := strings.Count(l, "|") - strings.Count(l, `\|`); c != 11 {
			t.Errorf("%d unescaped pipes (want 11) in %q", c, l)
		}
	}
	if !strings.Contains(lines[2], `max \|∂F\| = 0.0473 |`) {
		t.Errorf("note not escaped: %q", lines[2])
	}
}

// TestExperimentNames: a wrong name is a usage error that lists the
// experiments, and -h describes every one.
func TestExperimentNames(t *testing.T) {
	code, stdout, stderr := runExperiment("foo")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "snelson, kin40k, thrombin, hybrid, z") {
		t.Errorf("foo: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runExperiment("-h")
	if code != 0 || !strings.Contains(stderr, "  thrombin ") || !strings.Contains(stderr, "  z ") || !strings.Contains(stderr, "  hybrid ") {
		t.Errorf("-h: exit %d; it does not describe every experiment:\n%s", code, stderr)
	}
}
