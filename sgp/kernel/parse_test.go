package kernel_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/kernel"
	"github.com/cholqr/sgp/sgp/mol"
)

func second[T any](_ T, err error) error { return err }

func TestNewKernel(t *testing.T) {
	t.Parallel()
	y := []float64{1, 2, 3, 6}
	for _, tc := range []struct {
		spec  string
		cells [][]string
		check func(kernel.Kernel) bool
	}{
		{"rbf", [][]string{{"1", "2"}, {"3", "4"}, {"5", "6.5"}, {"0", "-1"}}, func(k kernel.Kernel) bool { return k.(*kernel.RBF).Dim() == 2 }},
		{"wl", [][]string{{"CCO"}, {"c1ccccc1"}, {"CC"}, {"C"}}, func(k kernel.Kernel) bool { return k.(*kernel.WL).Depth() == 3 }},
		{"WL:5", [][]string{{"CCO"}, {"c1ccccc1"}, {"CC"}, {"C"}}, func(k kernel.Kernel) bool { return k.(*kernel.WL).Depth() == 5 }},
		{"wl-depth:2", [][]string{{"CCO"}, {"c1ccccc1"}, {"CC"}, {"C"}}, func(k kernel.Kernel) bool { return k.NumParams() == 3 }},
		{"spectrum", [][]string{{"abc"}, {"b"}, {"cab"}, {"x"}}, func(k kernel.Kernel) bool { return k.(*kernel.Spectrum).K() == 3 }},
		{"spectrum:2", [][]string{{"abc"}, {"b"}, {"cab"}, {"x"}}, func(k kernel.Kernel) bool { return k.(*kernel.Spectrum).K() == 2 }},
		{"tanimoto", [][]string{{"1:2 5:1"}, {"CCO"}, {""}, {"3 4"}}, func(k kernel.Kernel) bool { return scalar.EqualWithinRel(k.(*kernel.Tanimoto).Variance(), 3.5, 1e-14) }},
		{"histogram:2", [][]string{{"1", "2", "0", "1"}, {"0", "0", "1", "1"}, {"3", "0", "0", "0"}, {"1", "1", "1", "1"}}, func(k kernel.Kernel) bool { return k.NumParams() == 2 }},
	} {
		x, err := mol.InputsFromCells(tc.spec, tc.cells)
		if err != nil {
			t.Errorf("InputsFromCells(%q): %v", tc.spec, err)
			continue
		}
		k, err := kernel.Parse(tc.spec, x, y)
		if err != nil || !tc.check(k) || k.Accepts(x) != nil {
			t.Errorf("NewKernel(%q) = %T %v, %v", tc.spec, k, k.Params(nil), err)
		}
	}
	for _, tc := range []struct {
		spec  string
		cells [][]string
		want  string
		rows  []int
	}{
		{"wl", [][]string{{"CC"}, {"C1"}, {"C("}}, "2 unreadable rows", []int{1, 2}},
		{"rbf", [][]string{{"1"}, {"x"}, {"NaN"}}, "not a finite number", []int{1, 2}},
		{"histogram", [][]string{{"1"}, {"-1"}}, "non-negative", []int{1}},
		{"tanimoto", [][]string{{"1:2 1:3"}, {"2:-1"}, {"Q"}}, "unreadable", []int{0, 1, 2}},
		{"rbf", [][]string{{"1", "2"}, {"3"}}, "input columns", []int{1}},
		{"histogram:2", [][]string{{"1", "2", "3"}}, "do not split", nil},
		{"spectrum", [][]string{{"a", "b"}}, "one input column", nil},
		{"gauss", [][]string{{"a"}}, "unknown kernel", nil},
		{"wl:99", [][]string{{"C"}}, "must be an integer in [0, 31]", nil},
		{"rbf:2", [][]string{{"1"}}, "takes no parameter", nil},
	} {
		_, err := mol.InputsFromCells(tc.spec, tc.cells)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("InputsFromCells(%q, %q): error %v, want %q", tc.spec, tc.cells, err, tc.want)
			continue
		}
		var re *mol.RowErrors
		if tc.rows != nil {
			if !errors.As(err, &re) {
				t.Errorf("InputsFromCells(%q, %q): error %T, want *mol.RowErrors", tc.spec, tc.cells, err)
				continue
			}
			var rows []int
			for _, r := range re.Rows {
				rows = append(rows, r.Row)
			}
			if fmt.Sprint(rows) != fmt.Sprint(tc.rows) {
				t.Errorf("InputsFromCells(%q, %q): rows %v, want %v", tc.spec, tc.cells, rows, tc.rows)
			}
		}
	}
	if _, err := kernel.Parse("rbf", mustStrings(t, []string{"a"}), nil); err == nil {
		t.Errorf("NewKernel(rbf) accepts strings")
	}
	if _, err := kernel.Parse("spectrum", mustGraphs(t, []string{"C"}), nil); err == nil {
		t.Errorf("NewKernel(spectrum) accepts graphs")
	}
}
