package data

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"
)

// namedCSV returns n rows of a CSV file with the header names (inputs,
// then the target), the columns in the order given by perm (nil: as
// named), with index a pandas-style unnamed index column first.
func namedCSV(names []string, x *kernel.Vectors, y []float64, perm []int, index bool) string {
	if perm == nil {
		perm = make([]int, len(names))
		for j := range perm {
			perm[j] = j
		}
	}
	var b strings.Builder
	cell := func(i, j int) string {
		if j == x.Dim() {
			if y == nil {
				return "NA"
			}
			return fmt.Sprint(y[i])
		}
		return fmt.Sprint(x.At(i, j))
	}
	row := func(f func(j int) string) {
		parts := make([]string, 0, len(perm)+1)
		for _, j := range perm {
			parts = append(parts, f(j))
		}
		b.WriteString(strings.Join(parts, ",") + "\n")
	}
	if index {
		b.WriteString(",")
	}
	row(func(j int) string { return names[j] })
	for i := 0; i < x.Len(); i++ {
		if index {
			fmt.Fprintf(&b, "%d,", i)
		}
		row(func(j int) string { return cell(i, j) })
	}
	return b.String()
}

// TestReadPredictCSVSplits: ReadPredictCSV's reading by name, with the
// target's column not read, gives the same rows however the parallel
// reader splits the file (csvSplits), for d = 5 inputs in shuffled
// columns and a target column holding NA.
func TestReadPredictCSVSplits(t *testing.T) {
	t.Parallel()
	x, _ := SyntheticARD(300, 1, 5, 9)
	names := []string{"a", "b", "c", "d", "e", "y"}
	in := namedCSV(names, x.X, nil, []int{3, 5, 0, 4, 1, 2}, false)
	c := InputColumns{Dim: 5, Names: names[:5], Target: "y"}
	for _, opt := range csvSplits() {
		got, err := readCSVWith(strings.NewReader(in), "f", "f.csv", false, opt, &csvSelect{isHeader: c.isHeader, choose: c.choose})
		if err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		if !slices.Equal(got.X.Names(), names[:5]) || got.X.Len() != x.X.Len() {
			t.Fatalf("%+v: %d rows named %q", opt, got.X.Len(), got.X.Names())
		}
		for i, v := range x.X.RawData() {
			// namedCSV writes %v, the shortest representation: exact.
			if got.X.RawData()[i] != v {
				t.Fatalf("%+v: value %d is %v, want %v", opt, i, got.X.RawData()[i], v)
			}
		}
	}
}
