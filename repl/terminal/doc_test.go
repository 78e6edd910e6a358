package terminal

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestDocCommand: :doc NAME prints what Shift-Tab shows in a notebook, for
// a package's name, a variable's method and a variable; it says when there
// is none.
func TestDocCommand(t *testing.T) {
	t.Setenv("SGPREPL_OUT", t.TempDir())
	in := strings.Join([]string{
		":doc sgp.NewModel",
		"train, _ := data.SnelsonLike(40, 1)",
		"m := sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(4)",
		":doc m.Fit",
		":doc kernel.RBF",
		":doc nosuchname",
		":doc",
		":help",
	}, "\n")
	var out, errOut bytes.Buffer
	if err := Interactive(context.Background(), Streams{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errOut}); err != nil {
		t.Fatalf("error %v, stderr:\n%s", err, errOut.String())
	}
	for _, want := range []string{
		"func NewModel(x kernel.Inputs, y []float64, k kernel.Kernel) *Model",
		"m.Fit: method () (*sgp.Result, error)",
		"type RBF struct",
		":doc NAME",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	for _, want := range []string{"no documentation for nosuchname", "usage: :doc NAME"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
}
