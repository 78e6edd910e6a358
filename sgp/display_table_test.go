package sgp

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cholqr/sgp/sgp/internal/table"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// columnsAligned reports whether the lines of a text table (after its
// title) have the same column at which each header word ends or starts:
// every line is at most as long as the longest and the header's columns
// are separated by at least two spaces.
func columnsAligned(t *testing.T, name, text string, header []string) {
	t.Helper()
	lines := strings.Split(text, "\n")
	if len(lines) < 3 {
		t.Fatalf("%s: %d lines: %q", name, len(lines), text)
	}
	head := lines[1]
	for _, h := range header {
		if !strings.Contains(head, h) {
			t.Errorf("%s: header %q lacks %q", name, head, h)
		}
	}
	// A right-aligned column ends where its header ends: the header's last
	// rune and each row's rune at that position are not spaces.
	end := utf8.RuneCountInString(head)
	for _, l := range lines[2:] {
		if strings.HasPrefix(strings.TrimSpace(l), "…") || strings.HasPrefix(l, "error:") {
			continue
		}
		if utf8.RuneCountInString(l) > end {
			t.Errorf("%s: row longer than the header:\n%s\n%s", name, head, l)
		}
	}
}

// TestTraceDisplay: Model.Trace is a slice of EpochRecord (indexed,
// ranged over, passed as []EpochRecord) and renders as an aligned table
// and as an HTML table with escaped cells; a long trace is elided.
func TestTraceDisplay(t *testing.T) {
	t.Parallel()
	md, res, _ := fitted(t)
	tr := md.Trace()
	var plain []EpochRecord = tr // what figure.Trace takes
	if len(tr) != res.Epochs || len(plain) != 3 || tr[len(tr)-1].Epoch != 3 {
		t.Fatalf("trace of %d epochs, result says %d", len(tr), res.Epochs)
	}
	n := 0
	for _, r := range tr {
		n += r.Swaps
	}
	if n != res.Swaps {
		t.Errorf("%d swaps in the trace, %d in the result", n, res.Swaps)
	}
	text := tr.String()
	if !strings.HasPrefix(text, "sgp.Trace: 3 epochs, ") || strings.Count(text, "\n") != 4 {
		t.Errorf("trace text:\n%s", text)
	}
	columnsAligned(t, "trace", text, traceHeader)
	for _, w := range []string{"  VAR  ", table.G(tr[2].Objective), CGBudget.String()} {
		if !strings.Contains(text, w) {
			t.Errorf("trace text lacks %q:\n%s", w, text)
		}
	}
	h := tr.HTML()
	if !strings.HasPrefix(h, "<table><caption>sgp.Trace: 3 epochs") || strings.Count(h, "<tr>") != 4 ||
		!strings.Contains(h, "<th>CG status</th>") || !strings.Contains(h, "<th>swap s</th>") || !strings.HasSuffix(h, "</table>") {
		t.Errorf("trace HTML: %s", h)
	}

	// A long trace, its statuses in words.
	long := make(Trace, 50)
	for i := range long {
		long[i] = EpochRecord{Epoch: i + 1, Kind: MLE, Objective: float64(100 - i), Swaps: 4, Accepted: 1,
			CGStatus: CGUndone, Elapsed: time.Millisecond, Total: time.Duration(i+1) * time.Millisecond}
	}
	text = long.String()
	if got := strings.Count(text, "\n"); got != 1+2*traceShown+1 || !strings.Contains(text, "(30 epochs)") ||
		!strings.Contains(text, "undone: the inducing set cannot be held") || !strings.Contains(text, "  MLE  ") {
		t.Errorf("long trace (%d newlines):\n%s", got, text)
	}
	columnsAligned(t, "long trace", text, traceHeader)
	h = long.HTML()
	if !strings.Contains(h, "<td>undone: the inducing set cannot be held at the best point</td>") || strings.Count(h, "<tr>") != 2+2*traceShown {
		t.Errorf("long trace HTML without its status or not elided: %s", h)
	}
	if s := (Trace{}).String(); s != "sgp.Trace: no epochs yet" || (Trace(nil)).HTML() != s {
		t.Errorf("empty trace: %q", s)
	}
}

// TestModelResultText: a fitted Model and its Result print as a title and
// aligned label–value lines, with the same rows as their HTML.
func TestModelResultText(t *testing.T) {
	t.Parallel()
	md, res, _ := fitted(t)
	for name, c := range map[string]struct {
		text, html, title string
		labels            []string
	}{
		"model":  {md.String(), md.HTML(), "sgp.Model", []string{"n", "kernel", "inducing points", "objective", "prior mean μ", "lengthscale[0]", "noise"}},
		"result": {res.String(), res.HTML(), "fit " + stopText(res.Status, res.Reason) + " after 3 epochs", []string{"objective", "prior mean μ", "inducing points", "swaps accepted"}},
	} {
		lines := strings.Split(c.text, "\n")
		if !strings.HasPrefix(lines[0], c.title) {
			t.Errorf("%s: title %q, want %q", name, lines[0], c.title)
		}
		col := -1
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "warning: ") {
				continue
			}
			label, value, ok := splitRow(l)
			if !ok {
				t.Errorf("%s: line %q is not a row", name, l)
				continue
			}
			if at := utf8.RuneCountInString(l) - utf8.RuneCountInString(value); col < 0 {
				col = at
			} else if at != col {
				t.Errorf("%s: value of %q at column %d, others at %d:\n%s", name, label, at, col, c.text)
			}
		}
		for _, w := range c.labels {
			if !strings.Contains(c.text, "\n  "+w+"  ") {
				t.Errorf("%s: no row %q:\n%s", name, w, c.text)
			}
			if name == "model" && !strings.Contains(c.html, "<th style=\"text-align:left\">"+w+"</th>") {
				t.Errorf("%s: HTML has no row %q: %s", name, w, c.html)
			}
		}
	}
	if !strings.Contains(md.String(), "  inducing points       6 (asked for 6)") {
		t.Errorf("model text:\n%s", md.String())
	}
	// Before it is built a model is one line.
	train, _ := data.SnelsonLike(20, 1)
	if s := NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{1})).WithM(4).String(); strings.Contains(s, "\n") || !strings.Contains(s, "not built yet") {
		t.Errorf("unbuilt model: %q", s)
	}
}

// splitRow splits "  label  value" at the first run of two spaces after
// the label.
func splitRow(l string) (label, value string, ok bool) {
	if !strings.HasPrefix(l, "  ") {
		return "", "", false
	}
	label, value, ok = strings.Cut(l[2:], "  ")
	return label, strings.TrimLeft(value, " "), ok && value != ""
}

// TestPredictorDisplay: a Predictor (also a loaded one) and an
// ExactPredictor print their kernel, hyperparameters, noise, prior mean,
// size and inputs, never the factor arrays or pointers.
func TestPredictorDisplay(t *testing.T) {
	t.Parallel()
	md, _, _ := fitted(t)
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
	hp := md.Hyperparameters()
	for name, q := range map[string]*Predictor{"predictor": p, "loaded": loaded} {
		text, h := q.String(), q.HTML()
		for _, w := range []string{"sgp.Predictor\n", "  kernel           RBF-ARD, 1 lengthscale", "  inducing points  6",
			"  input dimension  1", "  prior mean μ     " + table.G(q.PriorMean), "  lengthscale[0]   " + table.G(hp.Value("lengthscale[0]")),
			"  noise            " + table.G(q.Noise())} {
			if !strings.Contains(text, w) {
				t.Errorf("%s: text lacks %q:\n%s", name, w, text)
			}
		}
		if len(text) > 400 || strings.Contains(text+h, "0xc") {
			t.Errorf("%s: a dump:\n%s", name, text)
		}
		if !strings.HasPrefix(h, "<table><caption>sgp.Predictor</caption>") || !strings.Contains(h, "<td>RBF-ARD, 1 lengthscale</td>") {
			t.Errorf("%s: HTML %s", name, h)
		}
	}
	var nilP *Predictor
	if nilP.String() != "sgp.Predictor(nil)" || nilP.HTML() != "sgp.Predictor(nil)" {
		t.Errorf("nil predictor: %q", nilP.String())
	}

	// The kernel name is escaped in HTML; a sum names its parts.
	sum := kernel.NewSum(kernel.NewRBF(1, []float64{1}), kernel.NewRBF(1, []float64{2}))
	if got := kernel.Name(sum); got != "sum of RBF-ARD, 1 lengthscale + RBF-ARD, 1 lengthscale" {
		t.Errorf("sum kernel named %q", got)
	}
	q := *p
	q.Kern = kernel.NewFunc(func(kernel.Inputs, int, kernel.Inputs, int) float64 { return 1 }, 1)
	if h := q.HTML(); !strings.Contains(h, "<td>function (kernel.NewFunc)</td>") {
		t.Errorf("function kernel: %s", h)
	}
	if h := table.HTML("a<b", [][2]string{{"x&y", "<i>"}}); h != `<table><caption>a&lt;b</caption><tr><th style="text-align:left">x&amp;y</th><td>&lt;i&gt;</td></tr></table>` {
		t.Errorf("table.HTML does not escape: %s", h)
	}

	train, _ := data.SnelsonLike(40, 2)
	ex, err := NewExact(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	text, h := ex.Predictor.String(), ex.Predictor.HTML()
	for _, w := range []string{"sgp.ExactPredictor\n", "  training points  40", "  noise  "} {
		if !strings.Contains(text, w) {
			t.Errorf("exact predictor text lacks %q:\n%s", w, text)
		}
	}
	if len(text) > 400 || !strings.HasPrefix(h, "<table><caption>sgp.ExactPredictor</caption>") {
		t.Errorf("exact predictor:\n%s\n%s", text, h)
	}
}

// TestComparison: models side by side with their fit and test scores, as
// aligned text and escaped HTML; failures are rows with a note; without a
// test set there are no score columns.
func TestComparison(t *testing.T) {
	t.Parallel()
	md, res, test := fitted(t)
	train := &data.Dataset{Name: "train", X: md.Inputs().(*kernel.Vectors), Y: md.Targets()}
	mle := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(6).WithMaxEpochs(2).
		WithObjective(MLE).WithSelector(SelectRandom)
	if _, err := mle.Fit(); err != nil {
		t.Fatal(err)
	}
	c := NewComparison(test).Add("CholQR <VAR>", res).Add("random & MLE", mle).Add("missing", nil)
	if len(c.Rows) != 3 {
		t.Fatalf("%d rows", len(c.Rows))
	}
	r0, r1 := c.Rows[0], c.Rows[1]
	ev, _ := md.Evaluate(test)
	if r0.Objective != res.Objective || r0.M != 6 || r0.MRequested != 6 || r0.Epochs != 3 || stopText(r0.Status, r0.Reason) != stopText(res.Status, res.Reason) ||
		r0.Kind != VAR || r0.Selector != SelectCholQR || r0.Eval == nil || *r0.Eval != *ev || r0.Err != nil {
		t.Errorf("row 0: %+v", r0)
	}
	v, _ := mle.Value()
	if r1.Objective != v || r1.Kind != MLE || r1.Selector != SelectRandom || r1.Epochs != 2 || r1.Status != NotStopped || r1.Elapsed <= 0 || r1.Eval == nil {
		t.Errorf("row 1: %+v", r1)
	}
	if c.Rows[2].Err == nil || c.Rows[2].Eval != nil {
		t.Errorf("row 2: %+v", c.Rows[2])
	}
	text := c.String()
	header, _ := c.header()
	columnsAligned(t, "comparison", text, header)
	for _, w := range []string{"sgp.Comparison of 3 models, scored on 301 test points", "CholQR <VAR>", "95% cov",
		table.G(ev.SMSE), "6/6", "random", "error: missing: sgp: no fit"} {
		if !strings.Contains(text, w) {
			t.Errorf("comparison text lacks %q:\n%s", w, text)
		}
	}
	h := c.HTML()
	if strings.Contains(h, "<VAR>") || !strings.Contains(h, "<td>CholQR &lt;VAR&gt;</td>") || !strings.Contains(h, "<td>random &amp; MLE</td>") ||
		!strings.Contains(h, "<th>95% cov</th>") || strings.Count(h, "<tr>") != 4 || !strings.Contains(h, "<li><b>error:</b> missing: sgp: no fit</li>") {
		t.Errorf("comparison HTML: %s", h)
	}
	// Without a test set: no scores.
	c = NewComparison(nil).Add("VAR", res)
	if text := c.String(); strings.Contains(text, "SMSE") || !strings.Contains(text, "max epochs") || c.Rows[0].Eval != nil {
		t.Errorf("comparison without test set:\n%s", text)
	}
	// Constant test targets: the scores are missing with the reason.
	flat := &data.Dataset{X: test.X, Y: make([]float64, test.Len())}
	c = NewComparison(flat).Add("VAR", res)
	if text := c.String(); c.Rows[0].Err == nil || !strings.Contains(text, "error: VAR: sgp: SMSE undefined") || !strings.Contains(text, "–") {
		t.Errorf("constant targets:\n%s", text)
	}
	if s := NewComparison(nil).String(); !strings.Contains(s, "no models") && !strings.Contains(s, "add models") {
		t.Errorf("empty comparison: %q", s)
	}
}

// TestComparisonExact: the exact GP is a row of its own, labelled exact
// with every training point in play, scored as its predictor scores, and
// below the sparse model's objective, which bounds it from above.
func TestComparisonExact(t *testing.T) {
	t.Parallel()
	md, res, test := fitted(t)
	ex, err := NewExact(md.Inputs(), md.Targets(), kernel.NewRBFFromData(md.Inputs().(*kernel.Vectors), md.Targets())).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := NewComparison(test).Add("CholQR", res).Add("exact", ex).Add("none", (*ExactResult)(nil))
	r := c.Rows[1]
	ev, _ := ex.Predictor.Evaluate(test)
	n := md.Inputs().Len()
	if !r.Exact || r.Objective != ex.Objective || r.M != n || r.MRequested != n || r.Epochs != ex.Evals || r.Eval == nil || *r.Eval != *ev {
		t.Errorf("exact row: %+v", r)
	}
	if !(r.Objective < c.Rows[0].Objective) {
		t.Errorf("exact objective %v not below the sparse bound %v", r.Objective, c.Rows[0].Objective)
	}
	if c.Rows[2].Err == nil {
		t.Errorf("row without a fit: %+v", c.Rows[2])
	}
	text := c.String()
	header, _ := c.header()
	columnsAligned(t, "comparison", text, header)
	for _, w := range []string{"exact", "all (m = n)", fmt.Sprintf("%d/%d", n, n), table.G(ev.SMSE), "none: sgp: no fit"} {
		if !strings.Contains(text, w) {
			t.Errorf("comparison text lacks %q:\n%s", w, text)
		}
	}
}
