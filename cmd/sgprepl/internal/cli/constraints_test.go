package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFitFixBound: fit --fix noise=0.01 --bound lengthscale[0]=LO:HI, on
// every selector: the JSON's hyperparameters hold the fixed noise
// exactly, fixed and bounds report them, the lengthscale ends within its
// bounds, and a bound below the free fit's lengthscale binds and is
// named in at_bound, in a warning and on the summary's bounds line.
func TestFitFixBound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 2))
	var b strings.Builder
	b.WriteString("x,y\n")
	for i := range 80 {
		x := 10 * float64(i) / 80
		fmt.Fprintf(&b, "%g,%g\n", x, math.Sin(x)+0.1*rng.NormFloat64())
	}
	train := writeFile(t, t.TempDir(), "sin.csv", b.String())
	type report struct {
		Hyperparameters map[string]float64 `json:"hyperparameters"`
		Fixed           map[string]float64 `json:"fixed"`
		Bounds          map[string]struct {
			Lo, Hi float64
			At     string
		} `json:"bounds"`
		AtBound  []string `json:"at_bound"`
		Warnings []string `json:"warnings"`
		Parents  *struct {
			CholQR, Continuous struct {
				Hyperparameters map[string]float64 `json:"hyperparameters"`
			}
		} `json:"parents"`
	}
	for _, sel := range []string{"cholqr", "hybrid", "sgpr-continuous", "exact"} {
		t.Run(sel, func(t *testing.T) {
			t.Parallel()
			args := []string{"fit", "--train", train, "--selector", sel, "--max-epochs", "3", "--quiet"}
			if sel != "exact" {
				args = append(args, "--m", "8")
			}
			code, stdout, stderr := runMain(context.Background(), append(args, "--json", "--fix", "noise=0.01", "--bound", "lengthscale[0]=0.1:0.4")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var rep report
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Hyperparameters["noise"] != 0.01 || rep.Fixed["noise"] != 0.01 {
				t.Errorf("noise %v, fixed %v; want 0.01 exactly", rep.Hyperparameters["noise"], rep.Fixed)
			}
			ls := rep.Hyperparameters["lengthscale[0]"]
			bd := rep.Bounds["lengthscale[0]"]
			if !(ls >= 0.1 && ls <= 0.4) || bd.Lo != 0.1 || bd.Hi != 0.4 || bd.At != "upper" {
				t.Errorf("lengthscale %v, bounds %+v; want within [0.1, 0.4], at the upper bound", ls, bd)
			}
			if rep.Parents != nil {
				for who, h := range map[string]map[string]float64{"cholqr": rep.Parents.CholQR.Hyperparameters, "continuous": rep.Parents.Continuous.Hyperparameters} {
					if h["noise"] != 0.01 {
						t.Errorf("the %s parent's noise %v, want 0.01 exactly", who, h["noise"])
					}
				}
			}
			if len(rep.AtBound) != 1 || rep.AtBound[0] != "lengthscale[0]" {
				t.Errorf("at_bound %v", rep.AtBound)
			}
			if !strings.Contains(strings.Join(rep.Warnings, "\n"), "lengthscale[0] ended at its upper bound") {
				t.Errorf("warnings %q", rep.Warnings)
			}
			code, stdout, stderr = runMain(context.Background(), append(args, "--fix", "noise=0.01", "--bound", "lengthscale[0]=0.1:0.4")...)
			if code != 0 || !strings.Contains(stdout, "lengthscale[0] in [0.1, 0.4] (ended at the upper bound)") || !strings.Contains(stdout, "noise=0.01 (--fix)") {
				t.Errorf("summary (exit %d) lacks the constraints:\n%s%s", code, stdout, stderr)
			}
		})
	}
	// Every restart keeps a fixed value, as given (exp log 6.283 is
	// 6.2829999999999995).
	code, stdout, stderr := runMain(context.Background(), "fit", "--train", train, "--kernel", "periodic", "--selector", "exact", "--max-epochs", "2",
		"--quiet", "--json", "--restarts", "2", "--fix", "period[0]=6.283")
	var starts struct {
		Starts []struct{ Start, End map[string]float64 } `json:"starts"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &starts) != nil || len(starts.Starts) != 3 {
		t.Fatalf("--restarts 2 --fix period[0]=6.283: exit %d, %d starts: %s", code, len(starts.Starts), stderr)
	}
	for i, s := range starts.Starts {
		if s.Start["period[0]"] != 6.283 || s.End["period[0]"] != 6.283 {
			t.Errorf("start %d: period from %v to %v, want 6.283", i, s.Start["period[0]"], s.End["period[0]"])
		}
	}
	// Fixing with --param's value: --fix NAME takes the start --param gives.
	code, stdout, stderr = runMain(context.Background(), "fit", "--train", train, "--selector", "exact", "--quiet", "--json", "--param", "lengthscale[0]=0.7", "--fix", "lengthscale[0]")
	var rep report
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || math.Abs(rep.Fixed["lengthscale[0]"]-0.7) > 1e-15 {
		t.Errorf("--param lengthscale[0]=0.7 --fix lengthscale[0]: exit %d, fixed %v: %s", code, rep.Fixed, stderr)
	}
}

// TestFitFixBoundErrors: bad names (with the closest suggested), values
// and bounds, and contradictions between --fix, --bound and --param, are
// usage errors.
func TestFitFixBoundErrors(t *testing.T) {
	t.Parallel()
	train := writeFile(t, t.TempDir(), "t.csv", "x,y\n1,2\n2,3\n3,5\n4,4\n5,6\n6,5\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fix", "nosie"}, `no hyperparameter "nosie" (did you mean noise?)`},
		{[]string{"--bound", "lengthscale[1]=1:2"}, "did you mean lengthscale[0]?"},
		{[]string{"--fix", "noise=-1"}, "must be positive"},
		{[]string{"--fix", "noise=x"}, "is not a number"},
		{[]string{"--bound", "noise=2:1"}, "LO < HI"},
		{[]string{"--bound", "noise=0:1"}, "positive"},
		{[]string{"--bound", "noise=1"}, "is not NAME=LO:HI"},
		{[]string{"--fix", "noise", "--bound", "noise=1:2"}, "fixed or bounded, not both"},
		{[]string{"--fix", "noise=0.1", "--param", "noise=0.2"}, "both set its value"},
		{[]string{"--bound", "noise=1:2", "--param", "noise=3"}, "outside --bound noise=1:2"},
		{[]string{"--fix", "noise,noise"}, "fixed twice"},
		{[]string{"--fix", "mean=3"}, "the prior mean μ is fixed by --mean NUMBER"},
		{[]string{"--bound", "noise=1:1.0000000000001"}, "too close"},
	} {
		args := append([]string{"fit", "--train", train, "--selector", "exact", "--quiet"}, tc.args...)
		code, _, stderr := runMain(context.Background(), args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d with %q", tc.args, code, stderr, exitUsage, tc.want)
		}
	}
}
