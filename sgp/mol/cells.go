package mol

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cholqr/sgp/sgp/kernel"
)

// InputsFromCells converts table cells into the inputs that the kernel
// named by spec reads; cells[i] holds the input columns of row i:
//
//	rbf, matern12, matern32, matern52, rq, linear, periodic, const and
//	their sums and products (kernel.NumericSpec)
//	                one or more numeric columns → *sgp.Vectors
//	wl, wl-depth    one column of SMILES, of molecules or of reactions
//	                (ParseSMILES) → *sgp.Graphs
//	spectrum        one column of strings → *sgp.Strings
//	tanimoto[:r]    one column of "index:count …" (space separated,
//	                ":count" optional) or of SMILES, fingerprinted with
//	                radius r → *sgp.SparseCounts
//	histogram[:C]   B numeric columns, split into C channels of B/C bins
//	                → *sgp.Histograms
//
// Cells are trimmed of spaces. If rows cannot be read, it returns a
// *RowErrors naming each by its 0-based index in cells.
func InputsFromCells(spec string, cells [][]string) (kernel.Inputs, error) {
	name, p, err := kernel.SplitSpec(spec)
	if err != nil {
		return nil, err
	}
	if kernel.NumericSpec(name) {
		name = "rbf" // every kernel of numeric columns reads them alike
	}
	if len(cells) == 0 {
		return nil, fmt.Errorf("sgp: no input rows")
	}
	ncol := len(cells[0])
	if ncol == 0 {
		return nil, fmt.Errorf("sgp: no input columns")
	}
	if name != "rbf" && name != "histogram" && ncol != 1 {
		return nil, fmt.Errorf("sgp: kernel %s reads one input column, got %d", name, ncol)
	}
	bad := &RowErrors{Source: "inputs", What: "row"}
	for i, row := range cells {
		if len(row) != ncol {
			bad.Rows = append(bad.Rows, RowError{i, fmt.Errorf("%d input columns, row 0 has %d", len(row), ncol)})
		}
	}
	if len(bad.Rows) > 0 {
		return nil, bad
	}
	switch name {
	case "rbf", "histogram":
		data := make([]float64, len(cells)*ncol)
		for i, row := range cells {
			for c, cell := range row {
				v, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || (name == "histogram" && v < 0) {
					what := "a finite number"
					if name == "histogram" {
						what = "a non-negative finite number"
					}
					bad.Rows = append(bad.Rows, RowError{i, fmt.Errorf("input column %d: %q is not %s", c+1, shortText(cell, 40), what)})
					break
				}
				data[i*ncol+c] = v
			}
		}
		if len(bad.Rows) > 0 {
			return nil, bad
		}
		if name == "rbf" {
			return kernel.NewVectors(len(cells), ncol, data)
		}
		if ncol%p != 0 {
			return nil, fmt.Errorf("sgp: kernel %s: %d input columns do not split into %d channels of equal size", spec, ncol, p)
		}
		B := ncol / p
		items := make([][][]float64, len(cells))
		for i := range items {
			items[i] = make([][]float64, p)
			for c := range items[i] {
				items[i][c] = data[i*ncol+c*B : i*ncol+(c+1)*B]
			}
		}
		return kernel.NewHistograms(items)
	case "wl", "wl-depth":
		return GraphsFromSMILES(column0(cells))
	case "spectrum":
		return kernel.NewStrings(column0(cells))
	}
	// tanimoto
	indices := make([][]int, len(cells))
	values := make([][]float64, len(cells))
	var graphs []*kernel.Graph
	var graphRows []int
	for i, row := range cells {
		cell := strings.TrimSpace(row[0])
		if isCountList(cell) {
			ix, vx, err := parseCountList(cell)
			if err != nil {
				bad.Rows = append(bad.Rows, RowError{i, err})
				continue
			}
			indices[i], values[i] = ix, vx
			continue
		}
		g, err := ParseSMILES(cell)
		if err != nil {
			bad.Rows = append(bad.Rows, RowError{i, err})
			continue
		}
		graphs = append(graphs, g)
		graphRows = append(graphRows, i)
	}
	if len(bad.Rows) > 0 {
		return nil, bad
	}
	for t, g := range graphs {
		indices[graphRows[t]], values[graphRows[t]] = kernel.WLFingerprint(g, p)
	}
	return kernel.NewSparseCounts(indices, values)
}

func column0(cells [][]string) []string {
	out := make([]string, len(cells))
	for i, row := range cells {
		out[i] = strings.TrimSpace(row[0])
	}
	return out
}

// isCountList reports whether cell is written as a count list ("3:1 17:2",
// or "" for the zero vector) rather than SMILES: digits, ':', '.', 'e',
// '+', '-', and spaces only, and no SMILES holds only those.
func isCountList(cell string) bool {
	for i := 0; i < len(cell); i++ {
		c := cell[i]
		if !isDigit(c) && c != ':' && c != ' ' && c != '\t' && c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-' {
			return false
		}
	}
	return true
}

// parseCountList parses "index[:count] …" into sorted indices and counts.
func parseCountList(cell string) ([]int, []float64, error) {
	m := make(map[int]float64)
	for _, f := range strings.Fields(cell) {
		is, vs, hasV := strings.Cut(f, ":")
		k, err := strconv.Atoi(is)
		if err != nil || k < 0 {
			return nil, nil, fmt.Errorf("count list: %q is not a non-negative integer index", shortText(is, 40))
		}
		v := 1.0
		if hasV {
			if v, err = strconv.ParseFloat(vs, 64); err != nil || !(v >= 0) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("count list: %q is not a non-negative finite count", shortText(vs, 40))
			}
		}
		if _, dup := m[k]; dup {
			return nil, nil, fmt.Errorf("count list: index %d repeated", k)
		}
		m[k] = v
	}
	ix := make([]int, 0, len(m))
	for k := range m {
		ix = append(ix, k)
	}
	slices.Sort(ix)
	vx := make([]float64, len(ix))
	for t, k := range ix {
		vx[t] = m[k]
	}
	return ix, vx, nil
}
