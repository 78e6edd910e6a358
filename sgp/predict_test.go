package sgp

import (
	"bytes"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// fitted returns a small VAR model fitted for three epochs, its Result
// and the test set.
func fitted(t *testing.T) (*Model, *Result, *data.Dataset) {
	t.Helper()
	train, test := data.SnelsonLike(80, 4)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(6).WithMaxEpochs(3)
	res, err := md.Fit()
	if err != nil {
		t.Fatal(err)
	}
	return md, res, test
}

// TestPredictorEvaluate: Predictor has Model's prediction methods
// (PredictTo, Evaluate) with the same numbers; a loaded Predictor, which
// reads the training targets' mean and variance from its file, scores
// the same.
func TestPredictorEvaluate(t *testing.T) {
	t.Parallel()
	md, _, test := fitted(t)
	p, err := md.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	want, err := md.Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Evaluate(test)
	if err != nil || *got != *want {
		t.Errorf("Predictor.Evaluate %+v, %v; Model.Evaluate %+v", got, err, want)
	}
	var buf bytes.Buffer
	if err := md.Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadPredictor(&buf)
	if err != nil {
		t.Fatal(err)
	}
	lv, err := loaded.Evaluate(test)
	if err != nil || !scalar.EqualWithinAbsOrRel(lv.SNLP, want.SNLP, 1e-12, 1e-12) || lv.SMSE != want.SMSE || lv.MAE != want.MAE || lv.Coverage95 != want.Coverage95 {
		t.Errorf("loaded: %+v, %v; model %+v", lv, err, want)
	}
	if _, err := p.Evaluate(nil); err == nil {
		t.Error("Evaluate(nil) succeeded")
	}
	m1, v1, _ := md.Predict(test.X)
	s := test.Len()
	m2, v2, err := md.PredictTo(make([]float64, s), make([]float64, s), test.X)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m1 {
		if m1[i] != m2[i] || v1[i] != v2[i] {
			t.Fatalf("Model.PredictTo row %d: %v %v, Predict %v %v", i, m2[i], v2[i], m1[i], v1[i])
		}
	}
	if _, _, err := md.PredictTo(make([]float64, 1), nil, test.X); err == nil {
		t.Error("Model.PredictTo accepted a short buffer")
	}
}
