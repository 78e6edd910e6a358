package sgp

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// scorer is what a fitted or loaded model of any kind scores with.
type scorer interface {
	Evaluate(test *data.Dataset) (*Evaluation, error)
}

// TestLoadedModelScoresAsSaved: a model saved and loaded again gives the
// same test SNLP (and SMSE) as the fitted one, for the sparse model, the
// continuous fit and the exact GP, because the file holds the training
// targets' mean and variance (train_mean, train_var); a file without them
// still loads, with SNLP NaN.
func TestLoadedModelScoresAsSaved(t *testing.T) {
	t.Parallel()
	train, test := data.SnelsonLike(80, 3)
	// Targets far from 0 with a spread far from 1, so that the trivial
	// model's mean and variance matter to SNLP.
	for i := range train.Y {
		train.Y[i] = 40 + 3*train.Y[i]
	}
	for i := range test.Y {
		test.Y[i] = 40 + 3*test.Y[i]
	}
	rbf := func() kernel.Kernel { return kernel.NewRBFFromData(train.X, train.Y) }

	md := NewModel(train.X, train.Y, rbf()).WithM(8).WithMaxEpochs(3).WithSeed(1)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	sparse, err := md.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	cr, err := NewContinuous(train.X, train.Y, rbf()).WithM(8).WithMaxEvals(40).WithSeed(1).Fit()
	if err != nil {
		t.Fatal(err)
	}
	ex, err := NewExact(train.X, train.Y, rbf()).WithMaxEvals(40).Fit()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		model scorer
		save  func(*bytes.Buffer) error
	}{
		{"sparse", sparse, func(b *bytes.Buffer) error { return sparse.Save(b) }},
		{"continuous", cr.Predictor, func(b *bytes.Buffer) error { return cr.Predictor.Save(b) }},
		{"exact", ex.Predictor, func(b *bytes.Buffer) error { return ex.Predictor.Save(b) }},
	} {
		want, err := c.model.Evaluate(test)
		if err != nil || math.IsNaN(want.SNLP) {
			t.Fatalf("%s: the fitted model's SNLP %v: %v", c.name, want, err)
		}
		var b bytes.Buffer
		if err := c.save(&b); err != nil {
			t.Fatal(err)
		}
		loaded, err := LoadRegressor(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := loaded.Evaluate(test)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !scalar.EqualWithinAbsOrRel(got.SNLP, want.SNLP, 1e-9, 1e-9) || !scalar.EqualWithinAbsOrRel(got.SMSE, want.SMSE, 1e-9, 1e-9) {
			t.Errorf("%s: loaded SNLP %v SMSE %v, fitted %v %v", c.name, got.SNLP, got.SMSE, want.SNLP, want.SMSE)
		}

		// A file without the two fields loads; its SNLP is NaN, the
		// other scores are the model's.
		old := withoutKeys(t, b.Bytes(), "train_mean", "train_var")
		prev, err := LoadRegressor(strings.NewReader(old))
		if err != nil {
			t.Fatalf("%s without train_mean and train_var: %v", c.name, err)
		}
		ev, err := prev.Evaluate(test)
		if err != nil || !math.IsNaN(ev.SNLP) || !scalar.EqualWithinAbsOrRel(ev.SMSE, want.SMSE, 1e-9, 1e-9) {
			t.Errorf("%s without train_mean and train_var: %+v, %v; want SNLP NaN and SMSE %v", c.name, ev, err, want.SMSE)
		}
		// Saved again, it stays without them.
		var again bytes.Buffer
		if err := prev.Save(&again); err != nil || strings.Contains(again.String(), "train_var") {
			t.Errorf("%s: re-saving a model that does not know its targets: %v\n%s", c.name, err, again.String())
		}
	}
}

// withoutKeys returns the model file good with the top-level keys removed.
func withoutKeys(t *testing.T, good []byte, keys ...string) string {
	t.Helper()
	return edit(t, good, func(m map[string]any) {
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Fatalf("the saved file has no %q", k)
			}
			delete(m, k)
		}
	})
}

// TestLoadModelTargetsChecked: a model file's training mean and
// variance are untrusted input: one without the other, a variance ≤ 0,
// a value that is not a finite number, each is refused, in both formats
// (an exact file's variance of 0 is read as not known).
func TestLoadModelTargetsChecked(t *testing.T) {
	t.Parallel()
	good := savedSnelson(t)
	train, _ := data.SnelsonLike(30, 1)
	ex, err := NewExact(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithMaxEvals(10).Fit()
	if err != nil {
		t.Fatal(err)
	}
	var eb bytes.Buffer
	if err := ex.Predictor.Save(&eb); err != nil {
		t.Fatal(err)
	}
	for name, file := range map[string][]byte{"sparse": good, "exact": eb.Bytes()} {
		set := func(k string, v any) string { return edit(t, file, func(m map[string]any) { m[k] = v }) }
		for what, c := range map[string]struct {
			file string
			want string
		}{
			"mean alone":      {withoutKeys(t, file, "train_var"), "without the other"},
			"variance alone":  {withoutKeys(t, file, "train_mean"), "without the other"},
			"variance < 0":    {set("train_var", -1), "training variance -1"},
			"variance string": {set("train_var", "1"), "train_var"},
			"mean null":       {set("train_mean", nil), "train_mean"},
			"mean 1e400":      {strings.Replace(set("train_mean", 1.5), `"train_mean":1.5`, `"train_mean":1e400`, 1), "train_mean"},
		} {
			_, err := LoadRegressor(strings.NewReader(c.file))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: error %v, want one containing %q", name, what, err, c.want)
			}
		}
		_, err := LoadRegressor(strings.NewReader(set("train_var", 0)))
		if zeroOK := name == "exact"; (err == nil) != zeroOK {
			t.Errorf("%s, variance 0: error %v", name, err)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(good, &m); err != nil || m["train_var"] == nil {
		t.Fatalf("the sparse file has no train_var: %v", err)
	}
}
