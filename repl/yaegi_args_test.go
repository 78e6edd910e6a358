package repl

import (
	"context"
	"strings"
	"testing"
)

// TestInterfaceArgumentErrors: a value without the methods of a compiled
// function's interface parameter, which yaegi reports as a panic ("1:76:
// method not found: Accepts", or reflect's "cannot use int as type
// kernel.Kernel in Call" for a variadic parameter), is an error that names
// the argument, the function, the parameter's type and the argument's,
// located at the argument; the session goes on.
func TestInterfaceArgumentErrors(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	if _, err := s.Eval(context.Background(), "train, test := data.SnelsonLike(40, 1)\nm := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{1})).WithM(4)\nfunc f(x fmt.Stringer) string { return x.String() }"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cell      string
		msg       string
		line, col int
	}{
		{"m2 := sgp.NewModel(train.X, train.Y, 3)", "argument 3 of sgp.NewModel must be of type kernel.Kernel (got int, which lacks method Accepts)", 1, 38},
		{"sgp.NewModel(train.X, train.Y, 2.5)", "argument 3 of sgp.NewModel must be of type kernel.Kernel (got float64, which lacks method Accepts)", 1, 32},
		{"for i := 0; i < 1; i++ {\n\tsgp.NewModel(train.X,\n\t\ttrain.Y, \"x\")\n}", "argument 3 of sgp.NewModel must be of type kernel.Kernel (got string, which lacks method Accepts)", 3, 12},
		{"kernel.NewSum(kernel.NewWL(2, 1), 7)", "argument 2 of kernel.NewSum must be of type kernel.Kernel (got int, which lacks method Accepts)", 1, 35},
		{"m.Predict(3)", "argument 1 of m.Predict must be of type kernel.Inputs (got int, which lacks method ", 1, 11},
		{"f(3)", "argument 1 of f must be of type fmt.Stringer (got int, which lacks method String)", 1, 3},
		{"var k kernel.Kernel = 3", "3 does not implement the interface it is used as: it lacks method Accepts", 1, 23},
	} {
		_, err := s.Eval(context.Background(), c.cell)
		ce, ok := err.(*CellError)
		if !ok || !strings.HasPrefix(ce.Msg, c.msg) || ce.Panicked || ce.Line != c.line || ce.Column != c.col {
			t.Errorf("%q: error %#v, want %q at %d:%d", c.cell, err, c.msg, c.line, c.col)
		}
	}
	// The session goes on, with the variables defined before the error.
	if res, err := s.Eval(context.Background(), "f(sgp.VAR) + \" \" + fmt.Sprint(train.Len())"); err != nil || res.Value == nil || res.Value.Text != "VAR 40" {
		t.Errorf("after the errors: %v, %+v", err, res)
	}
}
