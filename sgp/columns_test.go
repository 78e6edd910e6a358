package sgp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/csvtest"
	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// TestColumnNames: a model fit on a CSV file with a header knows its
// input columns by name (and, once told, its target's), keeps them in
// its saved file, and predicts at named inputs only in its own order:
// PredictTo refuses named inputs in another order, with missing or
// unknown columns; ReadPredictCSV reads a file's columns by name, in the
// model's order, skipping the target unread; a headerless file is read
// by position only when asked. A pandas index column is an error saying
// what it is.
func TestColumnNames(t *testing.T) {
	t.Parallel()
	train, test := data.SyntheticARD(120, 20, 4, 3)
	names := []string{"age", "sex", "bmi", "bp", "y"}
	ds, err := data.ReadCSV(strings.NewReader(csvtest.Named(names, train.X, train.Y, nil, false)), "train")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.X.Names(), names[:4]) || ds.TargetName != "y" {
		t.Fatalf("ReadCSV: names %q, target %q", ds.X.Names(), ds.TargetName)
	}
	md := NewModel(ds.X, ds.Y, kernel.NewRBFFromData(ds.X, ds.Y)).WithM(8).WithMaxEpochs(3).WithSelector(SelectCholQR)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	p, err := md.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.InputNames, names[:4]) {
		t.Fatalf("Predictor.InputNames %q", p.InputNames)
	}
	p.TargetName = "y"
	var saved bytes.Buffer
	if err := p.Save(&saved); err != nil {
		t.Fatal(err)
	}
	q, err := LoadPredictor(bytes.NewReader(saved.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.InputNames, p.InputNames) || q.TargetName != "y" {
		t.Fatalf("loaded InputNames %q, TargetName %q", q.InputNames, q.TargetName)
	}
	want, _, err := q.Predict(test.X)
	if err != nil {
		t.Fatal(err)
	}
	same := func(what string, got []float64) {
		t.Helper()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Errorf("%s: prediction %d is %v, want %v", what, i, got[i], want[i])
				return
			}
		}
	}
	wantErr := func(what string, err error, parts ...string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		for _, s := range parts {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q does not mention %q", what, err, s)
			}
		}
	}

	// PredictTo: the model's names in its order, or none, pass; another
	// order, a missing or an unknown column do not.
	named, _ := test.X.WithNames(names[:4])
	got, _, err := q.Predict(named)
	if err != nil {
		t.Fatal(err)
	}
	same("named inputs", got)
	shuffled, err := named.Columns([]string{"bmi", "age", "bp", "sex"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = q.Predict(shuffled)
	wantErr("reordered inputs", err, "another order", "Columns")
	back, err := shuffled.Columns(q.InputNames)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err = q.Predict(back)
	if err != nil {
		t.Fatal(err)
	}
	same("reordered by Columns", got)
	other, _ := test.X.WithNames([]string{"age", "sex", "bmi", "s1"})
	_, _, err = q.Predict(other)
	wantErr("an unknown column", err, `"bp"`)

	// ReadPredictCSV: by name in any order, the target skipped unread.
	cols := q.InputColumns()
	for _, perm := range [][]int{nil, {4, 2, 0, 3, 1}, {1, 0, 3, 2}} {
		in := csvtest.Named(names, test.X, nil, perm, false) // the target column holds NA
		x, err := data.ReadPredictCSV(strings.NewReader(in), "new.csv", cols)
		if err != nil {
			t.Fatalf("columns %v: %v", perm, err)
		}
		got, _, err := q.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		same(fmt.Sprintf("ReadPredictCSV, columns %v", perm), got)
	}
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"missing column", csvtest.Named([]string{"age", "sex", "bmi", "s1", "y"}, test.X, test.Y, nil, false), []string{`no column "bp"`, `"s1" is not among`}},
		{"unknown column", "age,sex,bmi,bp,s1\n1,2,3,4,5\n", []string{`"s1" is not among`, `nor its target "y"`}},
		{"pandas index", csvtest.Named(names, test.X, test.Y, nil, true), []string{"line 1", "no name", "pandas", "index=False"}},
		{"no header", "1,2,3,4\n", []string{"no header row", "age, sex, bmi, bp"}},
		{"header row count", "age,sex,bmi,bp\n1,2,3\n", []string{"line 2", "3 columns", "header on line 1 names 4"}},
	} {
		_, err := data.ReadPredictCSV(strings.NewReader(tc.in), "new.csv", cols)
		wantErr(tc.name, err, tc.want...)
		if tc.name == "no header" && !errors.Is(err, data.ErrNoHeader) {
			t.Errorf("no header: %v does not wrap ErrNoHeader", err)
		}
	}
	// By position: with ByPosition for a named model, and always for an
	// unnamed one; a last, target, column is skipped unread, so NA, nan
	// or nothing there is no error, on the first row too.
	byPos := cols
	byPos.ByPosition = true
	unnamed := data.InputColumns{Dim: 4}
	for _, tail := range []string{"", ",NA", ",nan", ",", ",None"} {
		var b strings.Builder
		for i := 0; i < test.X.Len(); i++ {
			r := test.X.Row(i)
			fmt.Fprintf(&b, "%v,%v,%v,%v%s\n", r[0], r[1], r[2], r[3], tail)
		}
		for _, c := range []data.InputColumns{byPos, unnamed} {
			x, err := data.ReadPredictCSV(strings.NewReader(b.String()), "new.csv", c)
			if err != nil {
				t.Errorf("by position, last cell %q: %v", tail, err)
				continue
			}
			if x.Len() != test.X.Len() {
				t.Errorf("by position, last cell %q: %d rows, want %d", tail, x.Len(), test.X.Len())
				continue
			}
			got, _, err := q.Predict(x)
			if err != nil {
				t.Fatal(err)
			}
			same(fmt.Sprintf("by position, last cell %q", tail), got)
		}
	}

	// ReadCSV refuses a header it cannot name columns by.
	for _, tc := range []struct{ in, want string }{
		{",a,b,y\n0,1,2,3\n", "pandas"},
		{"a,a,y\n1,2,3\n", "both named"},
		{"a,,y\n1,2,3\n", "empty name"},
		{"a,b,y\n1,2\n", "header on line 1 names 3"},
	} {
		_, err := data.ReadCSV(strings.NewReader(tc.in), "bad.csv")
		wantErr(tc.in, err, tc.want)
	}

	// The exact GP and a continuous fit record the names too.
	ex, err := NewExact(ds.X, ds.Y, kernel.NewRBFFromData(ds.X, ds.Y)).WithMaxEvals(5).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ex.Predictor.InputNames, names[:4]) {
		t.Errorf("ExactPredictor.InputNames %q", ex.Predictor.InputNames)
	}
	if _, _, err := ex.Predictor.Predict(shuffled); err == nil {
		t.Errorf("the exact predictor predicts at reordered named inputs")
	}
	cr, err := NewContinuous(ds.X, ds.Y, kernel.NewRBFFromData(ds.X, ds.Y)).WithInducingInputs(ds.X.Rows([]int{0, 1, 2, 3})).WithNoise(1).WithObjective(VAR).WithMaxEvals(5).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cr.Predictor.InputNames, names[:4]) {
		t.Errorf("continuous Predictor.InputNames %q", cr.Predictor.InputNames)
	}

	// A file without names loads as unnamed and
	// takes inputs of any names.
	var m map[string]any
	if err := json.Unmarshal(saved.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "input_names")
	delete(m, "target_name")
	old, _ := json.Marshal(m)
	u, err := LoadPredictor(bytes.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if u.InputNames != nil || u.TargetName != "" {
		t.Errorf("a file without names loads with %q, %q", u.InputNames, u.TargetName)
	}
	if _, _, err := u.Predict(shuffled); err != nil {
		t.Errorf("an unnamed model refuses named inputs: %v", err)
	}
	// Names that do not fit the inputs are refused.
	for _, bad := range [][]any{{"a", "b"}, {"a", "a", "b", "c"}, {"a", "", "b", "c"}} {
		m["input_names"] = bad
		f, _ := json.Marshal(m)
		if _, err := LoadPredictor(bytes.NewReader(f)); err == nil || !strings.Contains(err.Error(), "input_names") {
			t.Errorf("input_names %v: %v", bad, err)
		}
	}
}
