package sgp

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// savedSnelson returns the JSON of a small fitted model.
func savedSnelson(t testing.TB) []byte {
	t.Helper()
	train, _ := data.SnelsonLike(60, 1)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(5).WithMaxEpochs(2)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := md.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// edit decodes a saved model, applies fn to its generic form and encodes
// it again.
func edit(t *testing.T, good []byte, fn func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(good, &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLoadHostileModels: model files are untrusted input. Each broken or
// hostile file is refused with an error, fast and without a large
// allocation; none loads and predicts NaN.
func TestLoadHostileModels(t *testing.T) {
	t.Parallel()
	good := savedSnelson(t)
	if _, err := LoadPredictor(bytes.NewReader(good)); err != nil {
		t.Fatalf("the good file: %v", err)
	}
	kern := func(m map[string]any) map[string]any { return m["kernel"].(map[string]any) }
	cases := map[string]struct {
		file string
		want string
	}{
		"dim 1e15":        {edit(t, good, func(m map[string]any) { kern(m)["dim"] = 1e15 }), "out of range"},
		"dim 1e8":         {edit(t, good, func(m map[string]any) { kern(m)["dim"] = 1e8 }), "out of range"},
		"dim mismatch":    {edit(t, good, func(m map[string]any) { kern(m)["dim"] = 3 }), ""},
		"log params 1000": {edit(t, good, func(m map[string]any) { kern(m)["log_params"] = []any{1000.0, 0.0} }), "out of range"},
		"k huge":          {edit(t, good, func(m map[string]any) { m["k"] = 1e9 }), "inconsistent"},
		"k negative":      {edit(t, good, func(m map[string]any) { m["k"] = -1 }), "inconsistent"},
		"noise zero":      {edit(t, good, func(m map[string]any) { m["noise"] = 0 }), "noise"},
		"unknown kernel":  {edit(t, good, func(m map[string]any) { kern(m)["type"] = "gauss" }), "known: rbf"},
		"unknown inputs":  {edit(t, good, func(m map[string]any) { m["input_kind"] = "tensors" }), "unknown input kind"},
		"format":          {edit(t, good, func(m map[string]any) { m["format"] = strings.Repeat("x", 500) }), "not an sgp model"},
		"trailing data":   {string(good) + `{"format":"sgp-model/1"}`, "after the model"},
		"trailing junk":   {string(good) + "garbage", "after the model"},
		"truncated":       {string(good[:len(good)/2]), "reading model"},
		"empty":           {"", "reading model"},
		"not json":        {"\x00\x01\x02", "reading model"},
		"sum nested": {edit(t, good, func(m map[string]any) {
			var k any = map[string]any{"type": "tanimoto", "names": []any{"variance"}, "log_params": []any{0.0}}
			for range 20 {
				k = map[string]any{"type": "sum", "components": []any{k}, "log_params": []any{0.0}}
			}
			m["kernel"] = k
		}), "nested"},
		"singular": {edit(t, good, func(m map[string]any) {
			w := m["w"].([]any)
			w[0] = 0.0
		}), "singular"},
	}
	for name, c := range cases {
		p, err := LoadPredictor(strings.NewReader(c.file))
		if err == nil {
			t.Errorf("%s: loaded (noise %v)", name, p.NoiseV)
			continue
		}
		if c.want != "" && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to mention %q", name, err, c.want)
		}
		if len(err.Error()) > 300 {
			t.Errorf("%s: error message of %d bytes", name, len(err.Error()))
		}
	}
}

// FuzzLoadPredictor: any input either fails to load with an error or
// gives a Predictor whose predictions at its inducing inputs are finite.
func FuzzLoadPredictor(f *testing.F) {
	good := savedSnelson(f)
	f.Add(good)
	f.Add([]byte(`{"format":"sgp-model/1","kernel":{"type":"rbf","dim":1e15},"k":1}`))
	f.Add([]byte(`{"format":"sgp-model/1","kernel":{"type":"sum","components":[{"type":"wl","order":3}]}}`))
	f.Add(append(append([]byte(nil), good...), good...))
	// The kinds of kernel beside RBF, sums and products of them.
	for _, spec := range []string{"periodic*rbf", "matern52+linear", "rq", "(matern12+const)*matern32"} {
		_, saved := savedKind(f, spec)
		f.Add(saved)
	}
	f.Add([]byte(`{}`))
	// The column names of a model fit on a CSV file with a header.
	var m map[string]any
	if err := json.Unmarshal(good, &m); err == nil {
		m["input_names"], m["target_name"] = []any{"x"}, "y"
		named, _ := json.Marshal(m)
		f.Add(named)
		// The training targets' mean and variance: one without the
		// other, a variance of 0.
		delete(m, "train_var")
		alone, _ := json.Marshal(m)
		f.Add(alone)
		m["train_var"] = 0
		zero, _ := json.Marshal(m)
		f.Add(zero)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := LoadPredictor(bytes.NewReader(data))
		if err != nil {
			return
		}
		if !isFinite(p.trainMean) || !(p.trainVar >= 0) || math.IsInf(p.trainVar, 0) {
			t.Fatalf("loaded with training mean %v and variance %v", p.trainMean, p.trainVar)
		}
		mean, vr, err := p.PredictTo(nil, nil, p.X)
		if err != nil {
			t.Fatalf("loaded, but predicting at the inducing inputs fails: %v", err)
		}
		for i := range mean {
			if math.IsNaN(mean[i]) || math.IsInf(mean[i], 0) || math.IsNaN(vr[i]) {
				t.Fatalf("loaded, but predicts %v ± %v", mean[i], vr[i])
			}
		}
	})
}
