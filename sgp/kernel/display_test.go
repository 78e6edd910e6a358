package kernel

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// userKernel is a kernel of a user's type, without display methods.
type userKernel struct{ t *Tanimoto }

func (u userKernel) NumParams() int                 { return u.t.NumParams() }
func (u userKernel) ParamNames() []string           { return u.t.ParamNames() }
func (u userKernel) Params(dst []float64) []float64 { return u.t.Params(dst) }
func (u userKernel) SetParams(theta []float64)      { u.t.SetParams(theta) }
func (u userKernel) Accepts(x Inputs) error         { return u.t.Accepts(x) }
func (u userKernel) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	u.t.Column(dst, x, lo, hi, y, j)
}
func (u userKernel) Diag(dst []float64, x Inputs, lo, hi int) { u.t.Diag(dst, x, lo, hi) }
func (u userKernel) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	u.t.AddGrad(grad, w, x, lo, hi, y, cols)
}
func (u userKernel) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	u.t.AddDiagGrad(grad, w, x, lo, hi)
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

// TestKernelDisplay: every kernel displays in one format, its name and
// then its settings and hyperparameters by name, name(setting v,
// hyperparameter v, …), the values those of its accessors; a sum joins its
// components with " + " and a nested sum is parenthesised; a user's kernel
// type is described by its hyperparameters. The HTML is a table with a row
// per hyperparameter, by ParamNames in θ order, valued exp θ.
func TestKernelDisplay(t *testing.T) {
	t.Parallel()
	g4 := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	rbf := NewRBF(1.2345678, []float64{0.8, 2.125})
	wide := NewRBF(1, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	wl, wlDepth := NewWL(3, 0.5), NewWLPerDepth([]float64{0.1, 0.2, 0.3, 0.4})
	spec, tan := NewSpectrum(4, 2), NewTanimoto(0.75)
	hist, hist1 := NewHistogramIntersection([]float64{1, 3}), NewHistogramIntersection([]float64{7})
	fk := NewFunc(func(Inputs, int, Inputs, int) float64 { return 1 }, 1.5)
	user := userKernel{NewTanimoto(3)}
	inner := NewSum(NewTanimoto(1), NewSpectrum(2, 1))
	for _, c := range []struct {
		k    Kernel
		text string
	}{
		{rbf, "rbf(variance " + g4(rbf.Variance()) + ", lengthscales [0.8 2.125])"},
		{wide, "rbf(variance 1, lengthscales [1 2 3 4 5 6 … 10] (10))"},
		{wl, "wl(h 3, variance 0.5)"},
		{wlDepth, "wl(h 3, variances [0.1 0.2 0.3 0.4])"},
		{spec, "spectrum(k 4, variance 2)"},
		{tan, "tanimoto(variance 0.75)"},
		{hist, "histogram(variances [1 3])"},
		{hist1, "histogram(variance 7)"},
		{fk, "func(variance 1.5)"},
		{NewSum(NewWL(2, 0.5), NewTanimoto(1)), "wl(h 2, variance 0.5) + tanimoto(variance 1)"},
		{NewSum(user, NewRBF(2, []float64{1})), "userKernel(variance 3) + rbf(variance 2, lengthscales [1])"},
		{NewSum(NewWL(1, 2), inner), "wl(h 1, variance 2) + (tanimoto(variance 1) + spectrum(k 2, variance 1))"},
	} {
		text := fmt.Sprint(c.k)
		if text != c.text {
			t.Errorf("%T displays as %q, want %q", c.k, text, c.text)
		}
		if got := oneLine(c.k); got != c.text {
			t.Errorf("oneLine(%T) = %q, want %q", c.k, got, c.text)
		}
		h := c.k.(interface{ HTML() string }).HTML()
		if want := "<table><caption>kernel: " + Name(c.k) + "</caption>"; !strings.HasPrefix(h, want) {
			t.Errorf("%s: HTML %q does not start with %q", text, h, want)
		}
		rows, names, theta := hyperHTMLRows(h), c.k.ParamNames(), c.k.Params(nil)
		if len(rows) != len(names) {
			t.Fatalf("%s: HTML has %d rows for %d hyperparameters: %s", text, len(rows), len(names), h)
		}
		for i, r := range rows {
			v, err := strconv.ParseFloat(r[1], 64)
			if r[0] != names[i] || err != nil || math.Abs(v-math.Exp(theta[i])) > 1e-5*math.Exp(theta[i]) {
				t.Errorf("%s: HTML row %d is %v, want %s %v", text, i, r, names[i], math.Exp(theta[i]))
			}
		}
	}
	// A kernel's display follows its hyperparameters.
	rbf.SetParams([]float64{math.Log(4), math.Log(0.5), math.Log(3)})
	if got := rbf.String(); got != "rbf(variance 4, lengthscales [0.5 3])" {
		t.Errorf("after SetParams: %q", got)
	}
}
