package repl

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp"
)

// panicKernelSetup defines, in a session, a model on 3000 points whose
// kernel is an interpreted function (kernel.NewFunc) that indexes out of
// range for row 1500 while bad is true: the library evaluates it on its
// worker goroutines (sgp/internal/par), from compiled code.
const panicKernelSetup = `train, test := data.SnelsonLike(3000, 4)
bad := true
short := []float64{1, 2, 3}
f := func(x kernel.Inputs, i int, y kernel.Inputs, j int) float64 {
	if bad && (i == 1500 || j == 1500) {
		return short[i]
	}
	a, b := x.(*kernel.Vectors).Row(i)[0], y.(*kernel.Vectors).Row(j)[0]
	return math.Exp(-0.5 * (a - b) * (a - b) / 0.25)
}
m := sgp.NewModel(train.X, train.Y, kernel.NewFunc(f, 1)).WithM(8).WithSeed(3).WithMaxEpochs(2)`

// TestSessionKernelPanic: a panic in a user's kernel function inside a
// Fit, Value or Predict call is an error of the cell (the call's returned
// *sgp.PanicError, or the cell's panic) and the session keeps working:
// the next cells evaluate, and the model works once the kernel behaves.
func TestSessionKernelPanic(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	if _, err := s.Eval(context.Background(), panicKernelSetup); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cell     string
		err      string // substring of the cell's error; "" for none
		returned bool   // the error is the value the cell returned
		value    string // substring of the value, if no error
	}{
		{cell: "m.Fit()", err: "index out of range", returned: true},
		{cell: "1 + 2", value: "3"},
		{cell: "_, err := m.Fit()\nerr", err: "index out of range", returned: true},
		{cell: "import \"errors\"\nvar pe *sgp.PanicError\nerrors.As(err, &pe)", value: "true"},
		{cell: "m.Value()", err: "index out of range", returned: true},
		// Handled by the cell itself: no error.
		{cell: "res, err2 := m.Fit()\nres == nil && err2 != nil", value: "true"},
		// Called directly from interpreted code: the cell panics.
		{cell: "f(train.X, 1500, train.X, 0)", err: "index out of range"},
		{cell: "len(short)", value: "3"},
		// The kernel behaves again: the same model evaluates and predicts
		// (a Fit works too, but takes seconds with an interpreted kernel).
		{cell: "bad = false\nv, verr := m.Value()\nverr == nil && v < 1e9", value: "true"},
		{cell: "mean, _, perr := m.Predict(test.X)\nperr == nil && len(mean) == test.X.Len()", value: "true"},
	} {
		res, err := s.Eval(context.Background(), c.cell)
		if res == nil {
			t.Fatalf("%q: nil Result", c.cell)
		}
		if c.err == "" {
			if err != nil {
				t.Errorf("%q: error %v", c.cell, err)
			} else if res.Value == nil || !strings.Contains(res.Value.Text, c.value) {
				t.Errorf("%q: value %+v, want %q", c.cell, res.Value, c.value)
			}
			continue
		}
		var ce *CellError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: error %v (%T), want a *CellError with %q", c.cell, err, err, c.err)
			continue
		}
		if c.returned {
			var pe *sgp.PanicError
			if !errors.As(ce.Returned, &pe) {
				t.Errorf("%q: returned error %v (%T), want an *sgp.PanicError", c.cell, ce.Returned, ce.Returned)
			}
		} else if !ce.Panicked {
			t.Errorf("%q: %v: want a panic of the cell", c.cell, err)
		}
	}
}
