package sgp

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// fittedExact fits the exact GP to SnelsonLike(80, 1) and returns the
// result with the test set.
func fittedExact(t testing.TB) (*ExactResult, *data.Dataset) {
	t.Helper()
	train, test := data.SnelsonLike(80, 1)
	res, err := NewExact(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithMaxEvals(60).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res, test
}

// checkSameExact compares two exact predictors at xs: the means bit for
// bit (both come from the same α), the variances to rounding (the loaded
// one's factor is computed again).
func checkSameExact(t *testing.T, name string, a, b Regressor, xs kernel.Inputs) {
	t.Helper()
	am, av, err := a.PredictNoisy(xs)
	if err != nil {
		t.Fatal(err)
	}
	bm, bv, err := b.PredictNoisy(xs)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for i := range am {
		if am[i] != bm[i] || math.Abs(av[i]-bv[i]) > 1e-12*math.Abs(av[i]) {
			t.Fatalf("%s: point %d: saved %.17g ± %.17g, loaded %.17g ± %.17g", name, i, am[i], av[i], bm[i], bv[i])
		}
	}
}

// savedExact returns the JSON p saves.
func savedExact(t testing.TB, p *ExactPredictor) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := p.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// roundTrip saves p and loads it again with LoadExactPredictor.
func roundTrip(t *testing.T, p *ExactPredictor) *ExactPredictor {
	t.Helper()
	q, err := LoadExactPredictor(bytes.NewReader(savedExact(t, p)))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestExactSaveLoad: an exact model saved and loaded (through
// LoadExactPredictor, LoadRegressor and the file functions) predicts as
// the fitted one and scores the same, for vector and string inputs, and
// with the jitter a degenerate fit needed.
func TestExactSaveLoad(t *testing.T) {
	t.Parallel()
	res, test := fittedExact(t)
	p := roundTrip(t, res.Predictor)
	checkSameExact(t, "LoadExactPredictor", res.Predictor, p, test.X)
	if p.N() != res.N || p.Noise() != res.Predictor.Noise() || p.PriorMean != res.Mean {
		t.Errorf("loaded n %d σ² %v μ %v, fitted %d %v %v", p.N(), p.Noise(), p.PriorMean, res.N, res.Predictor.Noise(), res.Mean)
	}
	evA, err := res.Predictor.Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	evB, err := p.Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(evA.SMSE, evB.SMSE, 1e-12) || !relClose(evA.SNLP, evB.SNLP, 1e-9) {
		t.Errorf("scores: fitted SMSE %v SNLP %v, loaded %v %v", evA.SMSE, evA.SNLP, evB.SMSE, evB.SNLP)
	}

	path := filepath.Join(t.TempDir(), "exact.json")
	if err := res.Predictor.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	r, err := LoadRegressorFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.(*ExactPredictor); !ok {
		t.Fatalf("LoadRegressorFile gave %T", r)
	}
	checkSameExact(t, "LoadRegressorFile", res.Predictor, r, test.X)
	if _, err := LoadPredictorFile(path); err == nil || !strings.Contains(err.Error(), "LoadExactPredictor") {
		t.Errorf("LoadPredictorFile of an exact model: %v", err)
	}

	// A sparse model file through LoadRegressor, and refused by
	// LoadExactPredictor with a pointer to the right loader.
	sparse := savedSnelson(t)
	if r, err := LoadRegressor(bytes.NewReader(sparse)); err != nil {
		t.Errorf("LoadRegressor of a sparse model: %v", err)
	} else if _, ok := r.(*Predictor); !ok {
		t.Errorf("LoadRegressor of a sparse model gave %T", r)
	}
	if _, err := LoadExactPredictor(bytes.NewReader(sparse)); err == nil || !strings.Contains(err.Error(), "LoadPredictor") {
		t.Errorf("LoadExactPredictor of a sparse model: %v", err)
	}

	// Strings with the spectrum kernel.
	x, err := kernel.NewStrings([]string{"ACGTAC", "GGTACA", "ACACAC", "TTGACA", "CAGTTA", "GATTACA", "ACGTTT", "CCCGTA"})
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{1, 0.2, 2.1, 0.4, 0.1, 0.6, 0.9, 0.3}
	sres, err := NewExact(x, y, kernel.NewSpectrum(2, 1)).WithMaxEvals(30).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkSameExact(t, "strings", sres.Predictor, roundTrip(t, sres.Predictor), x)

	// Duplicated inputs and σ² = 10⁻³⁰⁰: the factor needed jitter, which the
	// file keeps.
	dx, jres := jitteredExact(t)
	jp := roundTrip(t, jres.Predictor)
	if jp.Jitter != jres.Jitter || !(jp.Jitter > 0) {
		t.Errorf("jitter: loaded %v, fitted %v", jp.Jitter, jres.Jitter)
	}
	checkSameExact(t, "jittered", jres.Predictor, jp, dx)
}

// TestExactSaveRefusesFuncKernel: a kernel the file cannot describe is an
// error, and SaveFile leaves an existing file as it was.
func TestExactSaveRefusesFuncKernel(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(30, 1)
	fk := kernel.NewFunc(func(x kernel.Inputs, i int, y kernel.Inputs, j int) float64 {
		d := x.(*kernel.Vectors).Row(i)[0] - y.(*kernel.Vectors).Row(j)[0]
		return math.Exp(-0.5 * d * d)
	}, 1)
	res, err := NewExact(train.X, train.Y, fk).WithNoise(0.1).WithFixedHyperparameters(true).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.json")
	if err := os.WriteFile(path, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := res.Predictor.SaveFile(path); err == nil || !strings.Contains(err.Error(), "cannot save") {
		t.Errorf("SaveFile with a FuncKernel: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "keep" {
		t.Errorf("the existing file now holds %q", got)
	}
}

// TestLoadHostileExactModels: exact model files are untrusted input as
// sparse ones are: each broken file is refused with a short error before
// a large allocation, and none loads and predicts NaN.
func TestLoadHostileExactModels(t *testing.T) {
	t.Parallel()
	res, _ := fittedExact(t)
	good := savedExact(t, res.Predictor)
	kern := func(m map[string]any) map[string]any { return m["kernel"].(map[string]any) }
	cases := map[string]struct{ file, want string }{
		"n huge":          {edit(t, good, func(m map[string]any) { m["n"] = 1e9 }), "inconsistent"},
		"n above limit":   {edit(t, good, func(m map[string]any) { m["n"] = MaxExactN + 1 }), "inconsistent"},
		"n mismatch":      {edit(t, good, func(m map[string]any) { m["n"] = 79 }), "inconsistent"},
		"alpha short":     {edit(t, good, func(m map[string]any) { m["alpha"] = m["alpha"].([]any)[:3] }), "inconsistent"},
		"inputs short":    {edit(t, good, func(m map[string]any) { m["inputs"] = m["inputs"].([]any)[:3] }), "training inputs"},
		"noise zero":      {edit(t, good, func(m map[string]any) { m["noise"] = 0 }), "noise"},
		"jitter negative": {edit(t, good, func(m map[string]any) { m["jitter"] = -1 }), "jitter"},
		"train_var neg":   {edit(t, good, func(m map[string]any) { m["train_var"] = -1 }), "training variance"},
		"log params 1000": {edit(t, good, func(m map[string]any) { kern(m)["log_params"] = []any{1000.0, 0.0} }), "out of range"},
		"dim 1e15":        {edit(t, good, func(m map[string]any) { kern(m)["dim"] = 1e15 }), "out of range"},
		"dim mismatch":    {edit(t, good, func(m map[string]any) { kern(m)["dim"] = 3 }), ""},
		"unknown inputs":  {edit(t, good, func(m map[string]any) { m["input_kind"] = "tensors" }), "unknown input kind"},
		"format":          {edit(t, good, func(m map[string]any) { m["format"] = "sgp-exact-model/9" }), "not an sgp exact model"},
		"trailing data":   {string(good) + "{}", "after the model"},
		"truncated":       {string(good[:len(good)/2]), "reading model"},
		"empty":           {"", "reading model"},
		// Every input at one place and no noise to speak of: K + σ²I
		// is singular, so the factorisation fails.
		"singular": {edit(t, good, func(m map[string]any) {
			in := m["inputs"].([]any)
			for i := range in {
				in[i] = []any{1.0}
			}
			m["noise"] = 1e-300
			m["jitter"] = 0.0
		}), "positive definite"},
	}
	for name, c := range cases {
		for _, load := range []func() (Regressor, error){
			func() (Regressor, error) { return LoadExactPredictor(strings.NewReader(c.file)) },
			func() (Regressor, error) { return LoadRegressor(strings.NewReader(c.file)) },
		} {
			_, err := load()
			if err == nil {
				t.Errorf("%s: loaded", name)
				continue
			}
			if c.want != "" && !strings.Contains(err.Error(), c.want) && !strings.Contains(err.Error(), "not an sgp model") {
				t.Errorf("%s: error %q, want it to mention %q", name, err, c.want)
			}
			if len(err.Error()) > 300 {
				t.Errorf("%s: error message of %d bytes", name, len(err.Error()))
			}
		}
	}
}

// FuzzLoadRegressor: any input either fails to load with an error or gives
// a model whose predictions at a few inputs of its own are finite.
func FuzzLoadRegressor(f *testing.F) {
	res, _ := fittedExact(f)
	f.Add(savedExact(f, res.Predictor))
	f.Add(savedSnelson(f))
	f.Add([]byte(`{"format":"sgp-exact-model/1","kernel":{"type":"rbf","dim":1,"log_params":[0,0]},"noise":1,"n":2,"alpha":[1,2],"input_kind":"vectors","inputs":[[0],[1]]}`))
	f.Add([]byte(`{"format":"sgp-exact-model/1","kernel":{"type":"rbf","dim":1,"log_params":[0,0]},"input_kind":"vectors","n":2,"input_names":["x"],"target_name":"y","noise":1,"inputs":[[0],[1]],"alpha":[1,2]}`))
	f.Add([]byte(`{"format":"sgp-exact-model/1","n":1e15}`))
	f.Add([]byte(`{"format":"sgp-exact-model/1","kernel":{"type":"product","components":[{"type":"periodic","dim":1,"log_params":[0,0,0]},{"type":"matern32","dim":1,"log_params":[0,0]}]},"noise":1,"n":2,"alpha":[1,2],"input_kind":"vectors","inputs":[[0],[1]]}`))
	_, saved := savedKind(f, "matern52+linear")
	f.Add(saved)
	// Keys sorted, as a tool may write them: arrays before their sizes.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(savedSnelson(f), &m); err == nil {
		sorted, _ := json.Marshal(m)
		f.Add(sorted)
	}
	f.Add([]byte(`{"format":"sgp-model/1","k":1,"inducing_inputs":[[[1,2],[3]]],"input_kind":"histograms","kernel":{"type":"histogram","dim":2,"log_params":[0,0]},"noise":1,"w":[1],"r":[1],"a":[1]}`))
	f.Add([]byte(`{"format":"sgp-model/1","k":1,"inducing_inputs":[{"labels":["C","O"],"edges":[[0,1,1]]}],"input_kind":"graphs","kernel":{"type":"wl","order":2,"log_params":[0]},"noise":1,"w":[1],"r":[1],"a":[1]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := LoadRegressor(bytes.NewReader(data))
		if err != nil {
			return
		}
		var x kernel.Inputs
		switch p := r.(type) {
		case *Predictor:
			x = p.X
		case *ExactPredictor:
			x = p.X.Subset(firstRows(min(p.N(), 4)))
		}
		mean, vr, err := r.Predict(x)
		if err != nil {
			t.Fatalf("loaded, but predicting at its own inputs fails: %v", err)
		}
		for i := range mean {
			if math.IsNaN(mean[i]) || math.IsInf(mean[i], 0) || math.IsNaN(vr[i]) {
				t.Fatalf("loaded, but predicts %v ± %v", mean[i], vr[i])
			}
		}
	})
}
