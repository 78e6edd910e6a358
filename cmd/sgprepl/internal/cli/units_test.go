package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// unitsReport is what TestFitUnits compares of fit's JSON.
type unitsReport struct {
	Objective       float64            `json:"objective"`
	SMSE            *float64           `json:"smse"`
	Hyperparameters map[string]float64 `json:"hyperparameters"`
	Mean            float64            `json:"mean"`
	NoiseFloor      float64            `json:"noise_floor"`
	Jitter          *float64           `json:"jitter"`
}

// unitsSet returns d with targets s·y + b, input column t times c[t] (nil:
// 1) and, for rows != nil, row i moved to rows[i].
func unitsSet(t *testing.T, d *data.Dataset, s, b float64, c []float64, rows []int) *data.Dataset {
	t.Helper()
	n, dim := d.Len(), d.X.Dim()
	xs, ys := make([]float64, n*dim), make([]float64, n)
	for i := range n {
		to := i
		if rows != nil {
			to = rows[i]
		}
		for j := range dim {
			v := d.X.At(i, j)
			if c != nil {
				v *= c[j]
			}
			xs[to*dim+j] = v
		}
		ys[to] = s*d.Y[i] + b
	}
	x, err := kernel.NewVectors(n, dim, xs)
	if err != nil {
		t.Fatal(err)
	}
	return &data.Dataset{Name: d.Name, X: x, Y: ys}
}

// TestFitUnits: sgprepl fit gives the same model in any units, for every
// --selector: with the targets × 10⁻³ + 1000, the inputs scaled by
// (10⁻³, 10³, 7) or the training rows permuted, the test SMSE is the same,
// the objective moves by n·log s, and the hyperparameters, μ, the noise
// floor and the jitter in the JSON are in the user's units, to a relative
// 10⁻⁶ (one epoch; sgp's TestUnitsEquivariance checks the library's fits
// more widely).
func TestFitUnits(t *testing.T) {
	train, test := data.SyntheticARD(200, 50, 3, 5)
	n := train.Len()
	c := []float64{1e-3, 1e3, 7}
	variants := []struct {
		name string
		s, b float64
		c    []float64
		rows []int
	}{
		{"as generated", 1, 0, nil, nil},
		{"targets × 1e-3 + 1000", 1e-3, 1000, nil, nil},
		{"inputs × (1e-3, 1e3, 7)", 1, 0, c, nil},
		{"rows permuted", 1, 0, nil, rand.New(rand.NewPCG(1, 2)).Perm(n)},
	}
	dir := t.TempDir()
	for _, sel := range []string{"cholqr", "random", "greedy-variance", "hybrid", "sgpr-continuous", "exact"} {
		t.Run(sel, func(t *testing.T) {
			var base unitsReport
			for k, v := range variants {
				tr := writeCSV(t, dir, fmt.Sprintf("%s-%d-train.csv", sel, k), unitsSet(t, train, v.s, v.b, v.c, v.rows), false)
				te := writeCSV(t, dir, fmt.Sprintf("%s-%d-test.csv", sel, k), unitsSet(t, test, v.s, v.b, v.c, nil), false)
				args := []string{"fit", "--train", tr, "--test", te, "--selector", sel, "--max-epochs", "1", "--seed", "1", "--json", "--quiet"}
				if sel != "exact" {
					args = append(args, "--m", "8")
				}
				code, stdout, stderr := runMain(context.Background(), args...)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", v.name, code, stderr)
				}
				var r unitsReport
				if err := json.Unmarshal([]byte(stdout), &r); err != nil || r.SMSE == nil {
					t.Fatalf("%s: %v: %s", v.name, err, stdout)
				}
				if k == 0 {
					base = r
					continue
				}
				compareReports(t, v.name, base, r, n, v.s, v.b, v.c)
			}
		})
	}
}

// compareReports checks report r of a fit of the data transformed by
// (s, b, c) against the fit base of the data.
func compareReports(t *testing.T, name string, base, r unitsReport, n int, s, b float64, c []float64) {
	t.Helper()
	const tol = 1e-6
	near := func(got, want, scale float64) bool { return math.Abs(got-want) <= tol*math.Abs(scale) }
	if !near(*r.SMSE, *base.SMSE, *base.SMSE) {
		t.Errorf("%s: SMSE %.10g, want %.10g", name, *r.SMSE, *base.SMSE)
	}
	if want := base.Objective + float64(n)*math.Log(s); !near(r.Objective, want, max(float64(n), math.Abs(base.Objective))) {
		t.Errorf("%s: objective %.10g, want %.10g (+ n·log s)", name, r.Objective, want)
	}
	if want := s*base.Mean + b; !near(r.Mean, want, s*math.Max(1, math.Abs(base.Mean))) {
		t.Errorf("%s: mean %.10g, want %.10g", name, r.Mean, want)
	}
	if want := s * s * base.NoiseFloor; !near(r.NoiseFloor, want, want) {
		t.Errorf("%s: noise floor %.10g, want %.10g", name, r.NoiseFloor, want)
	}
	if base.Jitter != nil && *base.Jitter > 0 {
		if want := s * s * *base.Jitter; r.Jitter == nil || !near(*r.Jitter, want, want) {
			t.Errorf("%s: jitter %v, want %.10g", name, r.Jitter, want)
		}
	}
	for key, v := range base.Hyperparameters {
		want := v
		switch {
		case key == "variance" || key == "noise":
			want *= s * s
		case strings.HasPrefix(key, "lengthscale["):
			var j int
			if _, err := fmt.Sscanf(key, "lengthscale[%d]", &j); err != nil {
				t.Fatalf("hyperparameter %q", key)
			}
			if c != nil {
				want *= c[j]
			}
		default:
			t.Fatalf("unexpected hyperparameter %q", key)
		}
		if got, ok := r.Hyperparameters[key]; !ok || !near(got, want, want) {
			t.Errorf("%s: %s = %.10g, want %.10g", name, key, got, want)
		}
	}
}
