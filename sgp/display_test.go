package sgp

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/table"
	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// TestDisplays: the values a notebook or REPL shows print compactly with
// their names, never as struct dumps with pointers, and render as HTML
// tables.
func TestDisplays(t *testing.T) {
	t.Parallel()
	train, test := data.SnelsonLike(120, 2)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(8).WithMaxEpochs(3)
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
		"vectors":    {train.X.String(), "", []string{"kernel.Vectors 120×1 [[", "…]"}},
		"model":      {md.String(), md.HTML(), []string{"sgp.Model", "inducing points", "<td>8 (asked for 8)</td>"}},
		"dataset":    {train.String(), train.HTML(), []string{"120 points", "<th>x0</th><th>y</th>"}},
		"evaluation": {ev.String(), ev.HTML(), []string{"SMSE ", "SNLP ", "MAE ", "RMSE ", "95% coverage ", "(301 test points)", "<table>"}},
	} {
		all := c.text + c.html
		if strings.Contains(all, "0xc0") || len(c.text) > 500 {
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
	train, test := data.SnelsonLike(80, 3)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(6).WithMaxEpochs(3)
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
		Predict(kernel.Inputs) ([]float64, []float64, error)
		PredictNoisy(kernel.Inputs) ([]float64, []float64, error)
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

// hyperHTMLRows returns the (name, value) rows of an HTML table of
// hyperparameters.
func hyperHTMLRows(h string) [][2]string {
	var rows [][2]string
	for _, m := range regexp.MustCompile(`<tr><th style="text-align:left">([^<]*)</th><td>([^<]*)</td></tr>`).FindAllStringSubmatch(h, -1) {
		rows = append(rows, [2]string{m[1], m[2]})
	}
	return rows
}

// TestHyperparametersDisplay: a model's and an exact fit's hyperparameters
// are exp θ by name in θ order, the kernel's and then the noise, in their
// text, their HTML rows and their accessors.
func TestHyperparametersDisplay(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(60, 4)
	md := NewModel(train.X, train.Y, kernel.NewSum(kernel.NewRBF(1, []float64{0.5}), kernel.NewRBF(2, []float64{3}))).WithM(6).WithMaxEpochs(2)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	ex, err := NewExact(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		h     Hyperparameters
		names []string
		theta []float64
	}{
		"model": {md.Hyperparameters(), md.ParamNames(), md.Params()},
		"exact": {ex.Hyperparameters(), ex.Names, ex.Params},
	} {
		if c.names[len(c.names)-1] != "noise" || strings.Join(c.h.Names, ",") != strings.Join(c.names, ",") {
			t.Errorf("%s: names %v, want %v ending in noise", name, c.h.Names, c.names)
		}
		var want []string
		for i, n := range c.names {
			v := math.Exp(c.theta[i])
			if got := c.h.Value(n); math.Abs(got-v) > 1e-12*v || math.Abs(c.h.Map()[n]-v) > 1e-12*v {
				t.Errorf("%s: %s = %v (map %v), want %v", name, n, got, c.h.Map()[n], v)
			}
			want = append(want, n+" "+table.G(v))
		}
		if got := c.h.String(); got != strings.Join(want, ", ") {
			t.Errorf("%s: text %q, want %q", name, got, strings.Join(want, ", "))
		}
		if got := fmt.Sprint(c.h); strings.HasPrefix(got, "map[") || strings.HasPrefix(got, "{") {
			t.Errorf("%s: fmt prints %q", name, got)
		}
		rows := hyperHTMLRows(c.h.HTML())
		if !strings.HasPrefix(c.h.HTML(), "<table><caption>hyperparameters</caption>") || len(rows) != len(c.names) {
			t.Fatalf("%s: HTML %s", name, c.h.HTML())
		}
		for i, r := range rows {
			if r[0] != c.names[i] || r[1] != table.G(math.Exp(c.theta[i])) {
				t.Errorf("%s: HTML row %d is %v, want %s", name, i, r, want[i])
			}
		}
	}
	defer func() {
		r := recover()
		if msg := fmt.Sprint(r); !strings.Contains(msg, `no hyperparameter "lengthscale"`) || !strings.Contains(msg, "k0.lengthscale[0]") {
			t.Errorf("Value of an unknown name: panic %q, want the names listed", msg)
		}
	}()
	md.Hyperparameters().Value("lengthscale")
}
