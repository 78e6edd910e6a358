package repl

import (
	"context"
	"strings"
	"testing"
)

// evalCells runs cells in s and fails the test at the first error.
func evalCells(t *testing.T, s *Session, cells ...string) {
	t.Helper()
	for _, c := range cells {
		if _, err := s.Eval(context.Background(), c); err != nil {
			t.Fatalf("%q: %v", c, err)
		}
	}
}

// TestSessionRefusesDroppedResults: a call with several results where one
// value is needed is refused before anything runs, as Go refuses it,
// naming the function and its results; so is a definition with fewer
// variables than results.
func TestSessionRefusesDroppedResults(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	evalCells(t, s, "train, test := data.SnelsonLike(60, 1)\nk := kernel.NewRBF(1, []float64{0.5})\n"+
		"m := sgp.NewModel(train.X, train.Y, k).WithM(6)\nfunc two() (int, error) { return 1, nil }",
		"type three struct{}\nfunc (three) F() (int, int, int) { return 1, 2, 3 }\nvar tv three\nfunc newThree() three { return three{} }")
	cases := []struct{ cell, err string }{
		{"e := sgp.NewModel(train.X, train.Y, k).WithM(5).Fit()",
			"1:6: assignment mismatch: 1 variable but (*sgp.Model).Fit returns 2 values (*sgp.Result, error)"},
		{"ev := m.Evaluate(nil)", "1 variable but (*sgp.Model).Evaluate returns 2 values (ev *sgp.Evaluation, err error)"},
		{"mu := m.Predict(nil)", "1 variable but (*sgp.Model).Predict returns 3 values (mean []float64, variance []float64, err error)"},
		{"mu, v := m.Predict(test.X)", "2 variables but (*sgp.Model).Predict returns 3 values (mean []float64, variance []float64, err error)"},
		{"var mu2 = m.Predict(nil)", "1 variable but (*sgp.Model).Predict returns 3 values"},
		{"m.Inducing()[0]", "1:1: multiple-value m.Inducing() in single-value context: (*sgp.Model).Inducing returns 2 values (idx []int, err error)"},
		{"fmt.Println(len(m.Inducing()))", "multiple-value m.Inducing() in single-value context"},
		// What the cell defines before the call is known.
		{"m3 := sgp.NewModel(train.X, train.Y, k).WithM(4)\nr3 := m3.Fit()", "2:7: assignment mismatch: 1 variable but (*sgp.Model).Fit returns 2 values"},
		{"n := two()", "1 variable but two returns 2 values (int, error)"},
		{"for i := 0; i < 1; i++ {\n\tr := m.Fit()\n\t_ = r\n}", "2:7: assignment mismatch: 1 variable but (*sgp.Model).Fit returns 2 values"},
		// A method of a type declared in the session: yaegi's message, with
		// the function's name.
		{"a, b := tv.F()", "assignment mismatch: 2 variables but tv.F returns 3 values"},
		{"a2, b2 := newThree().F()", "assignment mismatch: 2 variables but newThree().F returns 3 values"},
		{"a1 := tv.F()", "1:7: assignment mismatch: 1 variable but tv.F returns 3 values (int, int, int)"},
	}
	for _, c := range cases {
		res, err := s.Eval(context.Background(), c.cell)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: error %v, want %q", c.cell, err, c.err)
		}
		if res.Value != nil {
			t.Errorf("%q: shows %q", c.cell, res.Value.Text)
		}
	}
	// Nothing ran: the model of the refused cells was not fitted.
	res, err := s.Eval(context.Background(), "fmt.Sprint(m)")
	if err != nil || !strings.Contains(res.Value.Text, "not built yet") {
		t.Errorf("the refused cells ran: %v %v", res.Value, err)
	}
	for _, name := range []string{"e", "ev", "mu", "mu2", "r3", "n"} {
		if _, err := s.Eval(context.Background(), name); err == nil || !strings.Contains(err.Error(), "undefined: "+name) {
			t.Errorf("%s is defined after its refused cell (%v)", name, err)
		}
	}
	// What Go accepts runs.
	for _, c := range []string{
		"r, err := m.Fit()\n_, _ = r, err",
		"mu, v, err := m.Predict(test.X)\n_, _, _ = mu, v, err",
		"fmt.Sprint(m.Inducing())",
		"m.Fit()",
		"x, _ := two()\nx + len(train.Y)",
		"f := func() (int, error) { return two() }\nf()",
	} {
		if _, err := s.Eval(context.Background(), c); err != nil {
			t.Errorf("%q: %v", c, err)
		}
	}
}

// TestSessionFailedDefinitionUndone: a definition that fails to compile
// or panics declares nothing, and a failed redefinition keeps the old
// variable; what ran before the failing statement stays.
func TestSessionFailedDefinitionUndone(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	evalCells(t, s, "train, _ := data.SnelsonLike(60, 1)\nold := 7")
	for _, c := range []string{
		"bad := sgp.NewModel(train.X, train.Y, 3)",
		"var r sgp.Regressor = train",
		"before := 5\nbad2 := sgp.NewModel(train.X, train.Y, 3)",
		"old := sgp.NewModel(train.X, train.Y, 3)",
	} {
		if _, err := s.Eval(context.Background(), c); err == nil {
			t.Fatalf("%q did not fail", c)
		}
	}
	listed := map[string]string{}
	for _, v := range s.Vars() {
		listed[v.Name] = v.Type + " " + v.Value
	}
	for _, name := range []string{"bad", "r", "bad2"} {
		if l, ok := listed[name]; ok {
			t.Errorf(":vars lists %s (%s) after its definition failed", name, l)
		}
	}
	if listed["before"] != "int 5" || listed["old"] != "int 7" {
		t.Errorf("before = %q, old = %q; want int 5, int 7", listed["before"], listed["old"])
	}
	res, err := s.Eval(context.Background(), "old + before")
	if err != nil || res.Value == nil || res.Value.Text != "12" {
		t.Errorf("old + before: %v %v", res.Value, err)
	}
}

// TestSessionCommaOkAssert: the comma-ok type assertion works at the top
// level of a cell, from an sgp interface and a gonum one, and a type
// switch on concrete types works: the advice of :help and the docs.
func TestSessionCommaOkAssert(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	evalCells(t, s, "train, _ := data.SnelsonLike(60, 1)\n"+
		"m := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(6)\n"+
		"p, err := m.Predictor()\nvar r sgp.Regressor = p\n"+
		"var a mat.Matrix = mat.NewSymDense(2, nil)")
	cases := []struct{ cell, value string }{
		{"sp, ok := r.(*sgp.Predictor)\nfmt.Sprint(ok, sp == p)", "true true"},
		{"ep, ok2 := r.(*sgp.ExactPredictor)\nfmt.Sprint(ok2, ep == nil)", "false true"},
		{"_, sym := a.(mat.Symmetric)\n_, vec := a.(mat.Vector)\nfmt.Sprint(sym, vec)", "true false"},
		{"kind := \"\"\nswitch r.(type) {\ncase *sgp.ExactPredictor:\n\tkind = \"exact\"\ncase *sgp.Predictor:\n\tkind = \"sparse\"\n}\nkind", "sparse"},
	}
	for _, c := range cases {
		res, err := s.Eval(context.Background(), c.cell)
		if err != nil || res.Value == nil || res.Value.Text != c.value {
			t.Errorf("%q: %v %v, want %s", c.cell, res.Value, err, c.value)
		}
	}
}
