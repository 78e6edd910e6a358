package data

import (
	"slices"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/csvtest"
)

// TestReadPredictCSVSplits: ReadPredictCSV's reading by name, with the
// target's column not read, gives the same rows however the parallel
// reader splits the file (csvSplits), for d = 5 inputs in shuffled
// columns and a target column holding NA.
func TestReadPredictCSVSplits(t *testing.T) {
	t.Parallel()
	x, _ := SyntheticARD(300, 1, 5, 9)
	names := []string{"a", "b", "c", "d", "e", "y"}
	in := csvtest.Named(names, x.X, nil, []int{3, 5, 0, 4, 1, 2}, false)
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
