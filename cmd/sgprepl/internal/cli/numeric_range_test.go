package cli

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitOutOfRangeData: data too large or too small for the fits, and
// starting values or a mean out of range, end fit with status 1 and one
// line saying what to scale, on every selector, with no model written and
// no panic (status 2) or raw JSON error; a spec beyond the limits on
// nesting is refused before the fit (status 2). Whatever fit saves,
// predict loads.
func TestFitOutOfRangeData(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csv := func(name string, x func(i int) float64, y func(i int) float64) string {
		var b strings.Builder
		b.WriteString("x,y\n")
		for i := range 80 {
			fmt.Fprintf(&b, "%g,%g\n", x(i), y(i))
		}
		return writeFile(t, dir, name, b.String())
	}
	u := func(i int) float64 { return math.Sin(float64(7 * i)) } // spread in [−1, 1]
	plain := csv("plain.csv", u, func(i int) float64 { return math.Sin(3*u(i)) + 0.3*math.Cos(float64(11*i)) })
	cases := []struct {
		name  string
		train string
		args  []string
		want  string
	}{
		{"targets 1e155", csv("bigy.csv", u, func(i int) float64 { return 1e155 * u(i+3) }), nil, "targets' variance"},
		{"input range overflows", csv("bigx.csv", func(i int) float64 { return 1.7e308 * u(i) }, u), nil, "scale the inputs"},
		{"inputs 1e-300", csv("tinyx.csv", func(i int) float64 { return 1e-300 * u(i) }, u), nil, "scale the inputs"},
		{"lengthscale 1e300", plain, []string{"--param", "lengthscale[0]=1e300"}, "lengthscale[0]"},
		{"variance 1e308", plain, []string{"--param", "variance=1e308"}, "variance"},
		{"mean 1e308", plain, []string{"--mean", "1e308"}, "prior mean"},
		{"linear of zeros", csv("zerox.csv", func(int) float64 { return 0 }, u), []string{"--kernel", "linear"}, "0 at every training input"},
	}
	for _, c := range cases {
		for _, sel := range []string{"cholqr", "exact", "sgpr-continuous"} {
			model := filepath.Join(dir, "m.json")
			args := append([]string{"fit", "--train", c.train, "--selector", sel, "--max-epochs", "2", "--save", model}, c.args...)
			if sel != "exact" {
				args = append(args, "--m", "8")
			}
			code, _, stderr := runMain(context.Background(), args...)
			if code != 1 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "panic") || strings.Contains(stderr, "json:") {
				t.Errorf("%s, %s: exit %d, stderr %q; want 1 and %q", c.name, sel, code, stderr, c.want)
			}
			if _, err := os.Stat(model); err == nil {
				t.Errorf("%s, %s: a model was written", c.name, sel)
				os.Remove(model)
			}
		}
	}
	spec := "((((rbf*rbf+rbf)*const+const)*const+const)*const+const)*const+const"
	if code, _, stderr := runMain(context.Background(), "fit", "--train", plain, "--kernel", spec); code != 2 || !strings.Contains(stderr, "at most 8") {
		t.Errorf("%s: exit %d, stderr %q", spec, code, stderr)
	}
}

// TestReportNonFinite: a JSON report holding a value JSON cannot (NaN,
// ±Inf) is an error of sgprepl's saying which, not encoding/json's.
func TestReportNonFinite(t *testing.T) {
	t.Parallel()
	for _, v := range []float64{math.NaN(), math.Inf(-1)} {
		r := &fitReport{Objective: v}
		_, err := r.encode()
		if err == nil || strings.Contains(err.Error(), "json: unsupported") || !strings.Contains(err.Error(), "not finite") {
			t.Errorf("objective %v: %v", v, err)
		}
	}
}
