package sgp

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestDisplays: the values a notebook or REPL shows print compactly with
// their names, never as struct dumps with pointers, and render as HTML
// tables.
func TestDisplays(t *testing.T) {
	t.Parallel()
	train, test := SnelsonLike(120, 2)
	md := NewModel(train.X, train.Y, NewRBFFromData(train.X, train.Y)).WithM(8).WithMaxEpochs(3)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	f, err := md.Factor()
	if err != nil {
		t.Fatal(err)
	}
	ev, err := md.Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		text, html string
		want       []string
	}{
		"factor":     {f.String(), f.HTML(), []string{"sgp.Factor: n=120, k=8 of m=8", "MLE", "<table>"}},
		"vectors":    {train.X.String(), "", []string{"sgp.Vectors 120×1 [[", "…]"}},
		"model":      {md.String(), md.HTML(), []string{"sgp.Model", "inducing points", "<td>8 (asked for 8)</td>"}},
		"dataset":    {train.String(), train.HTML(), []string{"120 points", "<th>x0</th><th>y</th>"}},
		"evaluation": {ev.String(), ev.HTML(), []string{"SMSE ", "SNLP ", "MAE ", "RMSE ", "95% coverage ", "(301 test points)", "<table>"}},
	} {
		all := c.text + c.html
		if strings.Contains(all, "0xc0") || len(c.text) > 400 {
			t.Errorf("%s: %d bytes of text or a pointer: %q", name, len(c.text), c.text)
		}
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: %q lacks %q", name, all, w)
			}
		}
	}
	// The scores agree with their definitions.
	mean, vr, _ := md.PredictNoisy(test.X)
	smse, _ := SMSE(mean, test.Y)
	var mae, sq, in float64
	for i, y := range test.Y {
		d := math.Abs(mean[i] - y)
		mae, sq = mae+d, sq+d*d
		if d <= 1.96*math.Sqrt(vr[i]) {
			in++
		}
	}
	n := float64(len(test.Y))
	if math.Abs(ev.SMSE-smse) > 1e-12 || math.Abs(ev.MAE-mae/n) > 1e-12 || math.Abs(ev.RMSE-math.Sqrt(sq/n)) > 1e-12 ||
		math.Abs(ev.Coverage95-in/n) > 1e-12 || !(ev.MAE <= ev.RMSE) {
		t.Errorf("scores %+v disagree with their definitions", ev)
	}
}

// TestPredictorMatchesModel: a Predictor, also one saved and loaded, has
// the prediction methods of its Model and gives the same numbers.
func TestPredictorMatchesModel(t *testing.T) {
	t.Parallel()
	train, test := SnelsonLike(80, 3)
	md := NewModel(train.X, train.Y, NewRBFFromData(train.X, train.Y)).WithM(6).WithMaxEpochs(3)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	p, err := md.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadPredictor(&buf)
	if err != nil {
		t.Fatal(err)
	}
	type predictor interface {
		Predict(Inputs) ([]float64, []float64, error)
		PredictNoisy(Inputs) ([]float64, []float64, error)
	}
	m1, v1, _ := md.Predict(test.X)
	n1, w1, _ := md.PredictNoisy(test.X)
	for name, q := range map[string]predictor{"predictor": p, "loaded": loaded} {
		m2, v2, err := q.Predict(test.X)
		n2, w2, err2 := q.PredictNoisy(test.X)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		for i := range m1 {
			if m1[i] != m2[i] || v1[i] != v2[i] || n1[i] != n2[i] || w1[i] != w2[i] {
				t.Fatalf("%s: row %d: (%v %v %v %v) against the model's (%v %v %v %v)", name, i, m2[i], v2[i], n2[i], w2[i], m1[i], v1[i], n1[i], w1[i])
			}
		}
	}
}
