package repl

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestSgpTableRendering: in a session, the trace, a Predictor, a model
// comparison, a fitted Model and its Result render as aligned text tables
// and as HTML tables (escaped), and the trace is still used as a slice
// (len, index, range, figure.Trace).
func TestSgpTableRendering(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	for i, c := range []struct {
		cell, text, html string
		png              bool
	}{
		{cell: "train, test := data.SnelsonLike(60, 1)\nm := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(5).WithMaxEpochs(2)\nres, _ := m.Fit()\nres",
			text: "\n  inducing points  5 of m=5", html: "<table><caption>fit</caption>"},
		{cell: "m", text: "sgp.Model\n  n ", html: "<table><caption>sgp.Model</caption>"},
		{cell: "m.Trace()", text: "sgp.Trace: 2 epochs, ", html: "<table><caption>sgp.Trace: 2 epochs, "},
		{cell: "tr := m.Trace()\nn := 0\nfor _, r := range tr {\n\tn += r.Swaps\n}\nlen(tr) == 2 && tr[1].Epoch == 2 && n == res.Swaps", text: "true"},
		{cell: "figure.Trace(m.Trace(), \"by epoch\")", text: "Figure(", png: true},
		{cell: "p, _ := m.Predictor()\np", text: "sgp.Predictor\n  kernel           RBF-ARD, 1 lengthscale\n  inducing points  5",
			html: "<table><caption>sgp.Predictor</caption>"},
		{cell: "p.Evaluate(test)", text: "SMSE "},
		{cell: "sgp.NewComparison(test).Add(\"VAR\", res).Add(\"<b>again</b>\", m)", text: "sgp.Comparison of 2 models",
			html: "<td>&lt;b&gt;again&lt;/b&gt;</td>"},
	} {
		res, err := s.Eval(context.Background(), c.cell)
		if err != nil || res == nil || res.Value == nil {
			t.Fatalf("cell %d %q: %v", i, c.cell, err)
		}
		v := res.Value
		if !strings.Contains(v.Text, c.text) {
			t.Errorf("cell %d %q: text %q, want %q in it", i, c.cell, v.Text, c.text)
		}
		if strings.Contains(v.Text, "0xc0") {
			t.Errorf("cell %d %q: a pointer in %q", i, c.cell, v.Text)
		}
		if c.html != "" && (!strings.Contains(v.HTML, c.html) || !strings.HasPrefix(v.HTML, "<table>")) {
			t.Errorf("cell %d %q: HTML %q, want %q in it", i, c.cell, v.HTML, c.html)
		}
		if c.png && !bytes.HasPrefix(v.PNG, []byte("\x89PNG")) {
			t.Errorf("cell %d %q: no PNG", i, c.cell)
		}
	}
}

// TestKernelAndHyperparametersRendering: a kernel, also one a model
// returns as an kernel.Kernel, and a model's hyperparameters render as one
// line by name and as an HTML table, not as a struct or map dump.
func TestKernelAndHyperparametersRendering(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	for i, c := range []struct{ cell, text, html string }{
		{cell: "k := kernel.NewRBF(1.5, []float64{0.5, 2})\nk", text: "rbf(variance 1.5, lengthscales [0.5 2])",
			html: "<table><caption>kernel: RBF-ARD, 2 lengthscales</caption><tr><th style=\"text-align:left\">variance</th><td>1.5</td></tr>"},
		{cell: "kernel.NewSum(kernel.NewWL(3, 0.5), kernel.NewTanimoto(1))", text: "wl(h 3, variance 0.5) + tanimoto(variance 1)",
			html: "<th style=\"text-align:left\">k1.variance</th><td>1</td>"},
		{cell: "train, _ := data.SnelsonLike(40, 1)\nm := sgp.NewModel(train.X, train.Y, kernel.NewRBF(2, []float64{0.25})).WithM(4)\nm.Kernel()",
			text: "rbf(variance 2, lengthscales [0.25])", html: "<caption>kernel: RBF-ARD, 1 lengthscale</caption>"},
		{cell: "m.Hyperparameters()", text: "variance 2, lengthscale[0] 0.25, noise ",
			html: "<table><caption>hyperparameters</caption><tr><th style=\"text-align:left\">variance</th><td>2</td></tr><tr><th style=\"text-align:left\">lengthscale[0]</th><td>0.25</td></tr><tr><th style=\"text-align:left\">noise</th>"},
	} {
		res, err := s.Eval(context.Background(), c.cell)
		if err != nil || res == nil || res.Value == nil {
			t.Fatalf("cell %d %q: %v", i, c.cell, err)
		}
		if v := res.Value; !strings.HasPrefix(v.Text, c.text) || !strings.Contains(v.HTML, c.html) {
			t.Errorf("cell %d %q:\ntext %q, want it to start with %q\nHTML %q, want %q in it", i, c.cell, v.Text, c.text, v.HTML, c.html)
		}
	}
}
