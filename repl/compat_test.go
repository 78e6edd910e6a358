package repl

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestMovedNamesEvaluate: every compatibility name of compat.go evaluates
// in a session as sgp.Name — a type in a declaration, anything else as an
// expression — and the moved functions and types still work together in
// a cell written for the earlier sgp.
func TestMovedNamesEvaluate(t *testing.T) {
	t.Parallel()
	s := newSession(t, Options{})
	names := append(slices.Sorted(maps.Keys(movedNames)), movedToMol...)
	sgpSyms := map[string]reflect.Value{}
	addMovedNames(sgpSyms)
	for _, name := range names {
		v, ok := sgpSyms[name]
		if !ok {
			t.Errorf("sgp.%s: not in the symbol tables", name)
			continue
		}
		cell := "sgp." + name
		if v.Kind() == reflect.Pointer && v.IsNil() {
			// A type: the symbol tables hold (*T)(nil).
			cell = "var moved" + name + " *sgp." + name + "\nmoved" + name + " == nil"
		}
		res, err := s.Eval(t.Context(), cell)
		if err != nil {
			t.Errorf("%q: %v", cell, err)
			continue
		}
		if res.Value == nil {
			t.Errorf("%q: no value", cell)
		}
	}

	for _, c := range []struct{ cell, want string }{
		{"g, err := sgp.ParseSMILES(\"CCO\")\nerr == nil && g.NumNodes() == 3", "true"},
		{"train, _ := sgp.SnelsonLike(50, 1)\nm := sgp.NewModel(train.X, train.Y, sgp.NewRBFFromData(train.X, train.Y)).WithM(5)\nfig, err := sgp.PlotFit1D(m, \"\")\nerr == nil && len(fig.PNG()) > 0", "true"},
		{"var f *sgp.Figure = sgp.PlotCurves(\"t\", \"x\", \"y\", false, []sgp.Series{{Name: \"a\", X: []float64{1, 2}, Y: []float64{1, 2}}})\nf != nil", "true"},
		{"sgp.FigureDPI", "96"},
	} {
		res, err := s.Eval(t.Context(), c.cell)
		if err != nil {
			t.Errorf("%q: %v", c.cell, err)
			continue
		}
		if res.Value == nil || !strings.Contains(res.Value.Text, c.want) {
			t.Errorf("%q: value %+v, want %q", c.cell, res.Value, c.want)
		}
	}
}
