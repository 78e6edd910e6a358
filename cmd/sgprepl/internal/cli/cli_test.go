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
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/data"
)

// runMain runs Main with args and returns the exit status and outputs.
func runMain(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Main(ctx, args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// writeCSV writes d as CSV (inputs, then the target) to dir/name, with a
// header row if header is true, and returns the path.
func writeCSV(t *testing.T, dir, name string, d *data.Dataset, header bool) string {
	t.Helper()
	var b strings.Builder
	dim := d.X.Dim()
	if header {
		for j := 0; j < dim; j++ {
			fmt.Fprintf(&b, "x%d,", j)
		}
		b.WriteString("y\n")
	}
	for i := 0; i < d.Len(); i++ {
		for j := 0; j < dim; j++ {
			b.WriteString(strconv.FormatFloat(d.X.At(i, j), 'g', -1, 64) + ",")
		}
		b.WriteString(strconv.FormatFloat(d.Y[i], 'g', -1, 64) + "\n")
	}
	return writeFile(t, dir, name, b.String())
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// oneErrorLine checks that stderr is exactly one line starting with
// "sgprepl: ".
func oneErrorLine(t *testing.T, stderr string) {
	t.Helper()
	if !strings.HasPrefix(stderr, "sgprepl: ") || !strings.HasSuffix(stderr, "\n") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr is not one line starting with \"sgprepl: \":\n%q", stderr)
	}
}

func TestDemo(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runMain(context.Background(), "demo", "--seed", "2", "--max-epochs", "3")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr not empty:\n%s", stderr)
	}
	for _, want := range []string{"epoch   1", "objective", "hyperparameters", "lengthscale[0]=", "noise=", "inducing x", "test grid", "SMSE", "SNLP"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		code, stdout, stderr := runMain(context.Background(), args...)
		if code != 0 || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
		for _, c := range []string{"demo", "fit", "eval", "help"} {
			if !strings.Contains(stdout, "sgprepl "+c) {
				t.Errorf("%v: usage lacks %q:\n%s", args, c, stdout)
			}
		}
	}
	code, stdout, _ := runMain(context.Background(), "help", "fit")
	if code != 0 || !strings.Contains(stdout, "-predictions") || !strings.Contains(stdout, "-time-budget") {
		t.Errorf("help fit: exit %d, stdout:\n%s", code, stdout)
	}
	code, stdout, stderr := runMain(context.Background(), "eval", "-h")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "-lengthscales") {
		t.Errorf("eval -h: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	// No arguments: the interactive session, here reading an empty stdin.
	code, stdout, stderr = runMain(context.Background())
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("no arguments: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}

func TestFit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(120, 3)
	test, _ := data.SnelsonLike(50, 4)
	trainPath := writeCSV(t, dir, "train.csv", train, true)
	testPath := writeCSV(t, dir, "test.csv", test, false)
	modelPath := filepath.Join(dir, "model.json")
	predPath := filepath.Join(dir, "pred.csv")

	const m = 8
	// CholQR's fit, whose report has its inducing rows, z and epochs at
	// the top level (a hybrid fit that keeps its continuous fit reports
	// that fit there: TestHybridReportIsTheModel).
	code, stdout, stderr := runMain(context.Background(), "fit", "--train", trainPath, "--test", testPath,
		"--m", strconv.Itoa(m), "--z", "8", "--max-epochs", "10", "--json", "--quiet", "--selector", "cholqr",
		"--save", modelPath, "--predictions", predPath)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("--quiet: stderr not empty:\n%s", stderr)
	}
	if strings.Count(stdout, "\n") != 1 {
		t.Errorf("--json: stdout is not one line:\n%s", stdout)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json: %v:\n%s", err, stdout)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range rep {
			if !yield(k) {
				return
			}
		}
	})
	wantKeys := fitReportKeys
	if !slices.Equal(keys, wantKeys) {
		t.Errorf("JSON keys %v, want %v", keys, wantKeys)
	}
	var r struct {
		Objective       float64
		ObjectiveKind   string `json:"objective_kind"`
		SMSE            float64
		SNLP            float64
		Epochs          int
		Stopped         string
		Inducing        []int
		Hyperparameters map[string]float64
		N, M, Z         int
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if r.ObjectiveKind != "VAR" || r.N != train.Len() || r.M != m || r.Z != 8 || r.Epochs < 1 || r.Stopped == "" {
		t.Errorf("JSON report %+v", r)
	}
	if len(r.Inducing) != m {
		t.Errorf("%d inducing indices, want %d", len(r.Inducing), m)
	}
	seen := map[int]bool{}
	for _, j := range r.Inducing {
		if j < 0 || j >= train.Len() || seen[j] {
			t.Errorf("inducing index %d out of range or repeated in %v", j, r.Inducing)
		}
		seen[j] = true
	}
	if !(r.SMSE < 1) || math.IsNaN(r.SNLP) {
		t.Errorf("SMSE %v, SNLP %v: want SMSE < 1", r.SMSE, r.SNLP)
	}
	for _, name := range []string{"variance", "lengthscale[0]", "noise"} {
		if !(r.Hyperparameters[name] > 0) {
			t.Errorf("hyperparameter %s = %v", name, r.Hyperparameters[name])
		}
	}

	// The saved model predicts what --predictions wrote.
	p, err := sgp.LoadPredictorFile(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	mean, vr, err := p.PredictTo(nil, nil, test.X)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.Noise()-r.Hyperparameters["noise"]) > 1e-12*p.Noise() {
		t.Errorf("saved noise %v, reported %v", p.Noise(), r.Hyperparameters["noise"])
	}
	b, err := os.ReadFile(predPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if lines[0] != "mean,variance,latent_variance" || len(lines) != test.Len()+1 {
		t.Fatalf("predictions file: header %q, %d lines; want mean,variance,latent_variance and %d lines", lines[0], len(lines), test.Len()+1)
	}
	for i, line := range lines[1:] {
		var mu, v float64
		if _, err := fmt.Sscanf(strings.Replace(line, ",", " ", 1), "%g %g", &mu, &v); err != nil {
			t.Fatalf("predictions line %d %q: %v", i+2, line, err)
		}
		if !scalar.EqualWithinAbsOrRel(mu, mean[i], 1e-12, 1e-10) || !scalar.EqualWithinAbsOrRel(v, vr[i]+p.Noise(), 1e-12, 1e-10) {
			t.Errorf("row %d: file (%v, %v), saved model (%v, %v)", i, mu, v, mean[i], vr[i]+p.Noise())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("directory holds %d files, want 4 (no temporary files left)", len(entries))
	}

	// Readable output: summary on stdout, progress on stderr.
	code, stdout, stderr = runMain(context.Background(), "fit", "--train", trainPath, "--test", testPath,
		"--m", "5", "--objective", "mle", "--max-epochs", "3")
	if code != 0 {
		t.Fatalf("readable: exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"objective", "MLE", "hyperparameters", "inducing rows", "SMSE"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("readable: stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "epoch   1") {
		t.Errorf("readable: no progress on stderr:\n%s", stderr)
	}
}

func TestFitCancelled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(60, 5)
	trainPath := writeCSV(t, dir, "train.csv", train, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, stdout, stderr := runMain(ctx, "fit", "--train", trainPath, "--m", "6", "--json")
	if code != 130 {
		t.Fatalf("exit %d, want 130; stderr:\n%s", code, stderr)
	}
	// The model's progress says what was reached, then the one error line.
	warning, last, _ := strings.Cut(stderr, "\n")
	if !strings.HasPrefix(warning, "warning: interrupted at epoch") || !strings.Contains(warning, "the model keeps this state") {
		t.Errorf("no interruption summary on stderr:\n%s", stderr)
	}
	oneErrorLine(t, last)
	var r struct {
		Stopped  string
		Inducing []int
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if r.Stopped != "cancelled" || len(r.Inducing) != 6 {
		t.Errorf("stopped %q with %d inducing points; want cancelled with 6", r.Stopped, len(r.Inducing))
	}
}

// denseObjectives computes the DTC negative log marginal likelihood and the
// variational free energy of inducing set I directly from the n×n matrices
// (Titsias 2009, eqs. 9–10):
//
//	Q = K_nm K_mm⁻¹ K_mn
//	MLE = ½yᵀ(Q+σ²I)⁻¹y + ½log|Q+σ²I| + n/2·log 2π
//	VAR = MLE + ½σ⁻²tr(K − Q)
func denseObjectives(t *testing.T, x [][]float64, y []float64, I []int, v float64, ls []float64, s2 float64) (mle, vfe float64) {
	t.Helper()
	kern := func(a, b []float64) float64 {
		var r float64
		for d := range a {
			u := (a[d] - b[d]) / ls[d]
			r += u * u
		}
		return v * math.Exp(-r/2)
	}
	return denseObjectivesOf(t, x, y, I, kern, s2)
}

// denseObjectivesOf is denseObjectives for any kernel function.
func denseObjectivesOf(t *testing.T, x [][]float64, y []float64, I []int, kern func(a, b []float64) float64, s2 float64) (mle, vfe float64) {
	t.Helper()
	n, m := len(x), len(I)
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			K.SetSym(i, j, kern(x[i], x[j]))
		}
	}
	Kmm := mat.NewSymDense(m, nil)
	Kmn := mat.NewDense(m, n, nil)
	for a, i := range I {
		for b, j := range I {
			Kmm.SetSym(a, b, K.At(i, j))
		}
		for j := 0; j < n; j++ {
			Kmn.Set(a, j, K.At(i, j))
		}
	}
	var cm mat.Cholesky
	if !cm.Factorize(Kmm) {
		t.Fatal("K_mm is not positive definite")
	}
	var S, Q mat.Dense
	if err := cm.SolveTo(&S, Kmn); err != nil {
		t.Fatal(err)
	}
	Q.Mul(Kmn.T(), &S)
	C := mat.NewSymDense(n, nil)
	var traceKQ float64
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			C.SetSym(i, j, (Q.At(i, j)+Q.At(j, i))/2)
		}
		C.SetSym(i, i, C.At(i, i)+s2)
		traceKQ += K.At(i, i) - Q.At(i, i)
	}
	var cc mat.Cholesky
	if !cc.Factorize(C) {
		t.Fatal("Q + σ²I is not positive definite")
	}
	yv := mat.NewVecDense(n, y)
	var alpha mat.VecDense
	if err := cc.SolveVecTo(&alpha, yv); err != nil {
		t.Fatal(err)
	}
	mle = 0.5*mat.Dot(yv, &alpha) + 0.5*cc.LogDet() + 0.5*float64(n)*math.Log(2*math.Pi)
	return mle, mle + 0.5*traceKQ/s2
}

func TestEval(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n, d = 14, 2
	rng := rand.New(rand.NewPCG(1, 1))
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
	path := writeFile(t, dir, "tiny.csv", b.String())
	inducing := []int{3, 7, 1, 10, 12}

	for _, tc := range []struct {
		name, ls string
		lsv      []float64
	}{
		{"ard", "0.7,1.9", []float64{0.7, 1.9}},
		{"shared lengthscale", "1.3", []float64{1.3, 1.3}},
	} {
		const v, s2 = 1.7, 0.05
		mle, vfe := denseObjectives(t, x, y, inducing, v, tc.lsv, s2)
		for _, obj := range []string{"var", "mle"} {
			want := vfe
			if obj == "mle" {
				want = mle
			}
			args := []string{"eval", "--train", path, "--inducing", "3,7,1,10,12", "--variance", "1.7",
				"--lengthscales", tc.ls, "--noise", "0.05", "--objective", obj}
			code, stdout, stderr := runMain(context.Background(), append(args, "--json")...)
			if code != 0 {
				t.Fatalf("%s %s: exit %d, stderr:\n%s", tc.name, obj, code, stderr)
			}
			var raw map[string]any
			if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
				t.Fatalf("%s %s: %v:\n%s", tc.name, obj, err, stdout)
			}
			r := make(map[string]float64)
			for k, v := range raw {
				if f, ok := v.(float64); ok {
					r[k] = f
				}
			}
			if len(raw) != 12 || raw["objective_kind"] != strings.ToUpper(obj) || r["n"] != n || r["m"] != float64(len(inducing)) {
				t.Errorf("%s %s: JSON %s", tc.name, obj, stdout)
			}
			for _, c := range []struct {
				key  string
				want float64
			}{{"objective", want}, {"mle", mle}, {"var", vfe}} {
				if !scalar.EqualWithinRel(r[c.key], c.want, 1e-9) {
					t.Errorf("%s %s: %s = %v, dense oracle %v (rel. diff %.3g)", tc.name, obj, c.key, r[c.key], c.want, math.Abs(r[c.key]-c.want)/math.Abs(c.want))
				}
			}
			// The terms add up as documented.
			if got := 0.5*(r["data_fit"]+r["complexity"]) + 0.5*n*math.Log(2*math.Pi); !scalar.EqualWithinRel(got, mle, 1e-9) {
				t.Errorf("%s %s: ½(data_fit + complexity) + n/2·log 2π = %v, want %v", tc.name, obj, got, mle)
			}

			// The readable form starts with the objective at full precision.
			code, stdout, _ = runMain(context.Background(), args...)
			first, _, _ := strings.Cut(stdout, "\n")
			f := strings.Fields(first)
			if code != 0 || len(f) != 2 || f[0] != strings.ToUpper(obj) {
				t.Fatalf("%s %s: readable first line %q", tc.name, obj, first)
			}
			if got, err := strconv.ParseFloat(f[1], 64); err != nil || got != r["objective"] {
				t.Errorf("%s %s: readable objective %q, JSON %v", tc.name, obj, f[1], r["objective"])
			}
		}
	}
}

// TestBadInput checks that every bad input gives one "sgprepl: " line on
// stderr, nothing on stdout, the documented exit status, and no output
// files.
func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(30, 6)
	good := writeCSV(t, dir, "good.csv", train, true)
	good2d := writeFile(t, dir, "good2d.csv", "1,2,3\n4,5,6\n7,8,9\n")
	ragged := writeFile(t, dir, "ragged.csv", "x,y\n1,2\n3,4,5\n6,7\n")
	nonNum := writeFile(t, dir, "nonnum.csv", "1,2\n3,abc\n5,6\n")
	nan := writeFile(t, dir, "nan.csv", "1,2\n3,NaN\n5,6\n")
	empty := writeFile(t, dir, "empty.csv", "")
	dup := writeFile(t, dir, "dup.csv", "1,2\n1,3\n2,4\n")
	missing := filepath.Join(dir, "missing.csv")
	subdir := filepath.Join(dir, "subdir")
	if err := os.Mkdir(subdir, 0o755); err != nil {
		t.Fatal(err)
	}

	evalArgs := func(extra ...string) []string {
		args := map[string]string{"--train": good, "--inducing": "1,5,9", "--variance": "1", "--lengthscales": "0.5", "--noise": "0.1"}
		for i := 0; i+1 < len(extra); i += 2 {
			if extra[i+1] == "<omit>" {
				delete(args, extra[i])
			} else {
				args[extra[i]] = extra[i+1]
			}
		}
		out := []string{"eval"}
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range args {
				if !yield(k) {
					return
				}
			}
		}) {
			out = append(out, k+"="+args[k])
		}
		return out
	}

	for _, tc := range []struct {
		name string
		args []string // fit cases get --save and --predictions appended
		code int
	}{
		{"unknown command", []string{"frobnicate"}, 2},
		{"help unknown command", []string{"help", "frobnicate"}, 2},
		{"demo m=0", []string{"demo", "--m", "0"}, 2},
		{"demo m=n", []string{"demo", "--m", "200"}, 1},
		{"demo objective", []string{"demo", "--objective", "bic"}, 2},
		{"demo unknown flag", []string{"demo", "--plot", "x.png"}, 2},

		{"fit no train", []string{"fit", "--test", good}, 2},
		{"fit missing file", []string{"fit", "--train", missing, "--test", good}, 1},
		{"fit missing test file", []string{"fit", "--train", good, "--test", missing}, 1},
		{"fit unreadable file", []string{"fit", "--train", subdir, "--test", good}, 1},
		{"fit empty file", []string{"fit", "--train", empty, "--test", good}, 1},
		{"fit ragged", []string{"fit", "--train", ragged, "--test", ragged}, 1},
		{"fit non-numeric", []string{"fit", "--train", nonNum, "--test", nonNum}, 1},
		{"fit NaN", []string{"fit", "--train", nan, "--test", nan}, 1},
		{"fit NaN in test", []string{"fit", "--train", good, "--test", nan}, 1},
		{"fit m=n", []string{"fit", "--train", good, "--test", good, "--m", "30"}, 1},
		{"fit m>n", []string{"fit", "--train", good, "--test", good, "--m", "31"}, 1},
		{"fit m=0", []string{"fit", "--train", good, "--test", good, "--m", "0"}, 2},
		{"fit m<0", []string{"fit", "--train", good, "--test", good, "--m", "-3"}, 2},
		{"fit z<0", []string{"fit", "--train", good, "--test", good, "--z", "-1"}, 2},
		{"fit max-epochs=0", []string{"fit", "--train", good, "--test", good, "--max-epochs", "0"}, 2},
		{"fit negative time budget", []string{"fit", "--train", good, "--test", good, "--time-budget", "-1s"}, 2},
		{"fit unknown objective", []string{"fit", "--train", good, "--test", good, "--objective", "bic"}, 2},
		{"fit test columns", []string{"fit", "--train", good, "--test", good2d}, 1},
		{"fit predictions without test", []string{"fit", "--train", good}, 2},
		{"fit unknown flag", []string{"fit", "--train", good, "--test", good, "--bogus"}, 2},
		{"fit malformed m", []string{"fit", "--train", good, "--test", good, "--m", "ten"}, 2},
		{"fit malformed duration", []string{"fit", "--train", good, "--test", good, "--time-budget", "5"}, 2},
		{"fit stray argument", []string{"fit", "--train", good, "--test", good, "extra"}, 2},

		{"eval no train", evalArgs("--train", "<omit>"), 2},
		{"eval no inducing", evalArgs("--inducing", "<omit>"), 2},
		{"eval no noise", evalArgs("--noise", "<omit>"), 2},
		{"eval missing file", evalArgs("--train", missing), 1},
		{"eval ragged", evalArgs("--train", ragged), 1},
		{"eval non-numeric", evalArgs("--train", nonNum), 1},
		{"eval NaN", evalArgs("--train", nan), 1},
		{"eval inducing out of range", evalArgs("--inducing", "1,30"), 1},
		{"eval inducing negative", evalArgs("--inducing", "-1,3"), 1},
		{"eval inducing repeated", evalArgs("--inducing", "4,2,4"), 1},
		{"eval inducing empty", evalArgs("--inducing", ""), 2},
		{"eval inducing malformed", evalArgs("--inducing", "1,two"), 2},
		{"eval inducing duplicate input", evalArgs("--train", dup, "--inducing", "0,1"), 1},
		{"eval variance zero", evalArgs("--variance", "0"), 2},
		{"eval variance negative", evalArgs("--variance", "-2"), 2},
		{"eval variance NaN", evalArgs("--variance", "NaN"), 2},
		{"eval variance Inf", evalArgs("--variance", "+Inf"), 2},
		{"eval lengthscale zero", evalArgs("--lengthscales", "0"), 2},
		{"eval lengthscale negative", evalArgs("--train", good2d, "--inducing", "0", "--lengthscales", "1,-2"), 2},
		{"eval lengthscales count", evalArgs("--lengthscales", "1,2"), 1},
		{"eval lengthscales empty", evalArgs("--lengthscales", ""), 2},
		{"eval lengthscales malformed", evalArgs("--lengthscales", "1,x"), 2},
		{"eval noise zero", evalArgs("--noise", "0"), 2},
		{"eval noise negative", evalArgs("--noise", "-0.1"), 2},
		{"eval unknown objective", evalArgs("--objective", "bic"), 2},
		{"eval unknown flag", evalArgs("--plot", "x.png"), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			args := tc.args
			if args[0] == "fit" {
				args = append(slices.Clone(args), "--save", filepath.Join(out, "model.json"), "--predictions", filepath.Join(out, "pred.csv"))
			}
			code, stdout, stderr := runMain(context.Background(), args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty:\n%s", stdout)
			}
			oneErrorLine(t, stderr)
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("%d files written to the output directory", len(entries))
			}
		})
	}
}

// TestExistingOutputKept checks that a failing fit leaves existing output
// files as they were.
func TestExistingOutputKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	train, _ := data.SnelsonLike(30, 7)
	good := writeCSV(t, dir, "good.csv", train, false)
	model := writeFile(t, dir, "model.json", "old model")
	code, _, stderr := runMain(context.Background(), "fit", "--train", good, "--m", "30", "--save", model)
	if code != 1 {
		t.Errorf("exit %d, want 1; stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(model); string(b) != "old model" {
		t.Errorf("model file changed to %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("directory holds %d files, want 2", len(entries))
	}
}
