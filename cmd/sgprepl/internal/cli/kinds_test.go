package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// TestEvalKinds: eval computes the objective of the kernels beyond RBF and of
// sums and products at the hyperparameters it is given, as a dense
// oracle written from the kernels' formulas does; a kernel whose
// hyperparameters are not all given, or given for a kernel without them,
// is refused with the names it needs.
func TestEvalKinds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 16
	rng := rand.New(rand.NewPCG(5, 5))
	x := make([][]float64, n)
	y := make([]float64, n)
	var b strings.Builder
	b.WriteString("a,b,target\n")
	for i := range x {
		x[i] = []float64{4 * rng.Float64(), 4 * rng.Float64()}
		y[i] = math.Sin(x[i][0]) + 0.5*x[i][1] + 0.1*rng.NormFloat64()
		fmt.Fprintf(&b, "%s,%s,%s\n", strconv.FormatFloat(x[i][0], 'g', -1, 64),
			strconv.FormatFloat(x[i][1], 'g', -1, 64), strconv.FormatFloat(y[i], 'g', -1, 64))
	}
	path := writeFile(t, dir, "kinds.csv", b.String())
	inducing := []int{3, 7, 1, 10, 12}
	dist := func(a, b, ls []float64) float64 {
		var s float64
		for t := range a {
			u := (a[t] - b[t]) / ls[t]
			s += u * u
		}
		return math.Sqrt(s)
	}
	matern52 := func(v float64, ls []float64) func(a, b []float64) float64 {
		return func(a, b []float64) float64 {
			r := math.Sqrt(5) * dist(a, b, ls)
			return v * (1 + r + r*r/3) * math.Exp(-r)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		kern func(a, b []float64) float64
	}{
		{"matern52", []string{"--kernel", "matern52", "--variance", "1.4", "--lengthscales", "0.8,1.7"}, matern52(1.4, []float64{0.8, 1.7})},
		{"matern12", []string{"--kernel", "matern12", "--variance", "0.9", "--lengthscales", "1.1"},
			func(a, b []float64) float64 { return 0.9 * math.Exp(-dist(a, b, []float64{1.1, 1.1})) }},
		{"rq", []string{"--kernel", "rq", "--variance", "1.2", "--lengthscales", "0.9,1.3", "--alpha", "0.7"},
			func(a, b []float64) float64 {
				r := dist(a, b, []float64{0.9, 1.3})
				return 1.2 * math.Pow(1+r*r/1.4, -0.7)
			}},
		{"periodic", []string{"--kernel", "periodic", "--variance", "1.1", "--lengthscales", "0.9", "--periods", "2.5,3"},
			func(a, b []float64) float64 {
				s1, s2 := math.Sin(math.Pi*(a[0]-b[0])/2.5)/0.9, math.Sin(math.Pi*(a[1]-b[1])/3)/0.9
				return 1.1 * math.Exp(-0.5*(s1*s1+s2*s2))
			}},
		{"matern52+linear", []string{"--kernel", "matern52+linear", "--param", "k0.variance=1.4,k0.lengthscale[0]=0.8,k0.lengthscale[1]=1.7", "--param", "k1.variance[0]=0.2", "--param", "k1.variance[1]=0.05"},
			func(a, b []float64) float64 {
				return matern52(1.4, []float64{0.8, 1.7})(a, b) + 0.2*a[0]*b[0] + 0.05*a[1]*b[1]
			}},
		{"periodic*rbf", []string{"--kernel", "periodic*rbf", "--param", "k0.variance=1.1,k0.lengthscale[0]=0.9,k0.lengthscale[1]=0.9,k0.period[0]=2.5,k0.period[1]=3",
			"--param", "k1.variance=0.8,k1.lengthscale[0]=3,k1.lengthscale[1]=2"},
			func(a, b []float64) float64 {
				s1, s2 := math.Sin(math.Pi*(a[0]-b[0])/2.5)/0.9, math.Sin(math.Pi*(a[1]-b[1])/3)/0.9
				r := dist(a, b, []float64{3, 2})
				return 1.1 * math.Exp(-0.5*(s1*s1+s2*s2)) * 0.8 * math.Exp(-r*r/2)
			}},
	} {
		mle, vfe := denseObjectivesOf(t, x, y, inducing, tc.kern, 0.05)
		args := append([]string{"eval", "--train", path, "--inducing", "3,7,1,10,12", "--noise", "0.05", "--json"}, tc.args...)
		code, stdout, stderr := runMain(context.Background(), args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr)
		}
		var r struct {
			MLE, VAR float64
			Kernel   string
		}
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%s: %v: %s", tc.name, err, stdout)
		}
		if !scalar.EqualWithinRel(r.MLE, mle, 1e-9) || !scalar.EqualWithinRel(r.VAR, vfe, 1e-9) {
			t.Errorf("%s: MLE %v VAR %v, dense oracle %v %v", tc.name, r.MLE, r.VAR, mle, vfe)
		}
		if !strings.HasPrefix(r.Kernel, strings.Split(strings.Split(tc.name, "+")[0], "*")[0]+"(") {
			t.Errorf("%s: JSON kernel %q", tc.name, r.Kernel)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kernel", "matern52", "--variance", "1"}, "lengthscale[0], lengthscale[1]"},
		{[]string{"--kernel", "rbf", "--variance", "1", "--lengthscales", "1", "--alpha", "2"}, "no alpha"},
		{[]string{"--kernel", "rbf+linear", "--variance", "1"}, "--param"},
		{[]string{"--kernel", "rq", "--param", "k0.variance=1"}, "no hyperparameter"},
		{[]string{"--kernel", "wl"}, "numeric columns"},
		{[]string{"--kernel", "gauss"}, "matern52"},
	} {
		args := append([]string{"eval", "--train", path, "--inducing", "3,7", "--noise", "0.05"}, tc.args...)
		code, _, stderr := runMain(context.Background(), args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want it to mention %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestFitKinds: fit takes the kernels beyond RBF and their sums and products on
// numeric columns, reports the kernel at its fitted hyperparameters in
// its display and JSON, saves a model that predict reads back, picks the
// hybrid selector for kernels with lengthscales (periodic too), and refuses the hybrid
// for the others with the kernels it takes.
func TestFitKinds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("x,y\n")
	rng := rand.New(rand.NewPCG(2, 9))
	for range 150 {
		v := 10 * rng.Float64()
		fmt.Fprintf(&b, "%g,%g\n", v, math.Sin(2*math.Pi*v/2.5)+0.1*v+0.1*rng.NormFloat64())
	}
	train := writeFile(t, dir, "train.csv", b.String())
	for _, tc := range []struct{ spec, selector, prefix string }{
		{"matern52", "hybrid", "matern52(variance "},
		{"periodic*rbf", "cholqr", "periodic(variance "},
		{"matern32+linear", "cholqr", "matern32(variance "},
	} {
		model := filepath.Join(dir, strings.NewReplacer("*", "x", "+", "p").Replace(tc.spec)+".json")
		code, stdout, stderr := runMain(context.Background(), "fit", "--train", train, "--kernel", tc.spec, "--m", "10", "--max-epochs", "3",
			"--time-budget", "20s", "--json", "--quiet", "--save", model)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.spec, code, stderr)
		}
		var r struct{ Kernel, Selector string }
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if !strings.HasPrefix(r.Kernel, tc.prefix) || r.Selector != tc.selector {
			t.Errorf("%s: kernel %q, selector %q; want %q…, %q", tc.spec, r.Kernel, r.Selector, tc.prefix, tc.selector)
		}
		code, stdout, stderr = runMain(context.Background(), "predict", "--model", model, "--input", train)
		if code != 0 || strings.Count(stdout, "\n") != 151 {
			t.Errorf("%s: predict: exit %d, %d lines: %s", tc.spec, code, strings.Count(stdout, "\n"), stderr)
		}
	}
	code, stdout, _ := runMain(context.Background(), "fit", "--train", train, "--kernel", "rq", "--m", "8", "--max-epochs", "2", "--quiet")
	if code != 0 || !strings.Contains(stdout, "kernel          rq(variance ") {
		t.Errorf("fit --kernel rq: exit %d, no kernel line in\n%s", code, stdout)
	}
	// The hybrid takes the kernels kernel.Capabilities gives lengthscales
	// and input gradients, periodic among them, and names them when it
	// refuses another.
	code, stdout, stderr := runMain(context.Background(), "fit", "--train", train, "--kernel", "periodic", "--m", "8", "--max-epochs", "2", "--quiet")
	if code != 0 || !strings.Contains(stdout, "selector hybrid") {
		t.Errorf("fit --kernel periodic: exit %d, %q, %q; want the hybrid by default", code, stdout, stderr)
	}
	code, _, stderr = runMain(context.Background(), "fit", "--train", train, "--kernel", "linear", "--selector", "hybrid")
	if code == 0 || !strings.Contains(stderr, "matern52, rq or periodic") {
		t.Errorf("fit --kernel linear --selector hybrid: exit %d, %q", code, stderr)
	}
	code, _, stderr = runMain(context.Background(), "fit", "--train", train, "--kernel", "matern", "--m", "5")
	if code == 0 || !strings.Contains(stderr, "matern12, matern32, matern52") {
		t.Errorf("fit --kernel matern: exit %d, %q", code, stderr)
	}
}
