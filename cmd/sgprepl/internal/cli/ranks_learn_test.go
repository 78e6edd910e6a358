package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// writeSmoothCSV writes n rows of a smooth function of two inputs with
// noise of variance 0.01 (after a header) and returns the path.
func writeSmoothCSV(t *testing.T, n int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	var b strings.Builder
	b.WriteString("x0,x1,y\n")
	for range n {
		x0, x1 := 4*rng.Float64(), 2*rng.Float64()
		fmt.Fprintf(&b, "%v,%v,%v\n", x0, x1, 3+math.Sin(2*x0)+x1*x1/2+0.1*rng.NormFloat64())
	}
	path := filepath.Join(t.TempDir(), "smooth.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ranksOnLocal runs fit's path across ranks (runRanks) with c's flags on
// the p ranks of comm.Local, one rank included, and returns what each
// printed and its status.
func ranksOnLocal(t *testing.T, p int, c fitConfig) []rankRun {
	t.Helper()
	return onLocal(t, p, c, (*fitConfig).runRanks)
}

// learnedJSON is the part of a fit's JSON the learning tests read.
type learnedJSON struct {
	Value        float64            `json:"value"`
	Inducing     []int              `json:"inducing_rows"`
	Hyper        map[string]float64 `json:"hyperparameters"`
	StartHyper   map[string]float64 `json:"start_hyperparameters"`
	StartMean    float64            `json:"start_mean"`
	NoiseFloor   float64            `json:"noise_floor"`
	Fixed        map[string]float64 `json:"fixed"`
	CGEvals      int                `json:"cg_evaluations"`
	CGStatus     string             `json:"cg_status"`
	AtNoiseFloor bool               `json:"at_noise_floor"`
}

// TestFitRanksLearnsFromData fits a file of 2600 rows (three blocks:
// with P = 4 one rank holds none) across P = 1…4 ranks of comm.Local
// without --param: every P starts from the θ, σ², noise floor and mean
// that fit in one process starts from on the same file (its Model's θ
// after Build, its JSON's noise_floor, ȳ), to 1e-12, and learns the
// same hyperparameters, inducing set and objective bit for bit, away
// from the start, those of fit --selector cholqr in one process (the
// objective within 1e-10, the hyperparameters 1e-7); with --fix noise the noise keeps its start and the
// JSON's fixed holds it; the summary, with progress lines on rank 0
// alone, says the hyperparameters were learned and lists them.
func TestFitRanksLearnsFromData(t *testing.T) {
	t.Parallel()
	train := writeSmoothCSV(t, 2600)
	ds, err := data.ReadCSVFile(train)
	if err != nil {
		t.Fatal(err)
	}
	kern, err := kernel.Parse("rbf", ds.X, ds.Y)
	if err != nil {
		t.Fatal(err)
	}
	md := sgp.NewModel(ds.X, ds.Y, kern).WithM(10).WithSeed(1)
	if err := md.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	start := md.Hyperparameters()
	var mean float64
	for _, v := range ds.Y {
		mean += v / float64(len(ds.Y))
	}
	config := func(json bool) fitConfig {
		return fitConfig{trainPath: train, m: 10, mSet: true, z: 16, objective: "var", meanName: "constant", maxEpochs: 2, json: json, restarts: -1, seed: 1}
	}
	one := config(true)
	one.selector = "cholqr"
	var single struct {
		NoiseFloor float64            `json:"noise_floor"`
		Objective  float64            `json:"objective"`
		Inducing   []int              `json:"inducing"`
		Hyper      map[string]float64 `json:"hyperparameters"`
	}
	var out, errOut bytes.Buffer
	if err := one.run(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}); err != nil || json.Unmarshal(out.Bytes(), &single) != nil || single.NoiseFloor == 0 {
		t.Fatalf("fit in one process: %v, floor %v in %q %q", err, single.NoiseFloor, out.String(), errOut.String())
	}
	var first *learnedJSON
	for P := 1; P <= 4; P++ {
		runs := ranksOnLocal(t, P, config(true))
		if runs[0].code != 0 {
			t.Fatalf("P=%d: status %d: %s", P, runs[0].code, runs[0].stderr)
		}
		var got learnedJSON
		if err := json.Unmarshal([]byte(runs[0].stdout), &got); err != nil {
			t.Fatalf("P=%d: %v in %q", P, err, runs[0].stdout)
		}
		for i, name := range start.Names {
			if !near(got.StartHyper[name], start.Values[i], 1e-12) {
				t.Errorf("P=%d: start %s = %.17g, one process's %.17g", P, name, got.StartHyper[name], start.Values[i])
			}
		}
		if !near(got.NoiseFloor, single.NoiseFloor, 1e-12) || !near(got.StartMean, mean, 1e-12) {
			t.Errorf("P=%d: noise floor %v and start mean %v; one process's %v and %v", P, got.NoiseFloor, got.StartMean, single.NoiseFloor, mean)
		}
		if got.CGEvals == 0 || near(got.Hyper["variance"], got.StartHyper["variance"], 1e-3) || near(got.Hyper["noise"], got.StartHyper["noise"], 1e-3) || got.Fixed != nil {
			t.Errorf("P=%d: %d evaluations (%s), θ %v from %v, fixed %v: not learned", P, got.CGEvals, got.CGStatus, got.Hyper, got.StartHyper, got.Fixed)
		}
		// The fit is the one process's (sgp.FitRanks runs Model's fit).
		if !near(got.Value, single.Objective, 1e-10) || !slices.Equal(slices.Sorted(slices.Values(got.Inducing)), single.Inducing) {
			t.Errorf("P=%d: objective %.15g, set %v; one process's %.15g, %v", P, got.Value, slices.Sorted(slices.Values(got.Inducing)), single.Objective, single.Inducing)
		}
		for name, v := range single.Hyper {
			// The starts agree to rounding (1e-12), not bit for bit:
			// CG's end point moves by some hundred times that.
			if !near(got.Hyper[name], v, 1e-7) {
				t.Errorf("P=%d: %s = %.15g, one process's %.15g", P, name, got.Hyper[name], v)
			}
		}
		if first == nil {
			first = &got
		} else if got.Value != first.Value || fmt.Sprint(got.Inducing, got.Hyper, got.StartHyper) != fmt.Sprint(first.Inducing, first.Hyper, first.StartHyper) {
			t.Errorf("P=%d: value %v set %v θ %v; P=1's %v %v %v", P, got.Value, got.Inducing, got.Hyper, first.Value, first.Inducing, first.Hyper)
		}
	}
	fix := config(true)
	if err := fix.cons.fix.Set("noise"); err != nil {
		t.Fatal(err)
	}
	runs := fitOnLocal(t, 3, fix)
	var got learnedJSON
	if err := json.Unmarshal([]byte(runs[0].stdout), &got); err != nil || runs[0].code != 0 {
		t.Fatalf("--fix noise: %v, status %d: %q %q", err, runs[0].code, runs[0].stdout, runs[0].stderr)
	}
	if got.Hyper["noise"] != got.StartHyper["noise"] || got.Fixed["noise"] != got.Hyper["noise"] || got.Hyper["variance"] == got.StartHyper["variance"] {
		t.Errorf("--fix noise: θ %v from %v, fixed %v: want the noise held at its start and the rest learned", got.Hyper, got.StartHyper, got.Fixed)
	}
	runs = fitOnLocal(t, 2, config(false))
	out0 := runs[0].stdout
	for _, want := range []string{"cholqr with learned hyperparameters (", "\nhyperparameters variance=", "\nstart           variance=", "\nkernel          "} {
		if runs[0].code != 0 || !strings.Contains(out0, want) {
			t.Errorf("summary (status %d) lacks %q:\n%s%s", runs[0].code, want, out0, runs[0].stderr)
		}
	}
	if strings.Count(runs[0].stderr, "epoch ") == 0 || runs[1].stdout+runs[1].stderr != "" {
		t.Errorf("progress on rank 0 %q, rank 1 printed %q", runs[0].stderr, runs[1].stdout+runs[1].stderr)
	}
}

// near reports whether a and b agree to a relative tol.
func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b)) }
