package sgp

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// kernelSpecNames lists the kernel names of ParseKernelSpec.
const kernelSpecNames = "rbf, wl[:h], wl-depth[:h], spectrum[:k], tanimoto[:r], histogram[:C]"

// ParseKernelSpec splits a kernel specification "name[:p]" into the name
// and its integer parameter, filling in the default. Specifications name a
// built-in kernel and the kind of inputs it reads, for command lines and
// scripts (sgprepl fit --kernel; see NewKernel and InputsFromCells):
//
//	rbf             RBF-ARD on numeric columns (NewRBFFromData)
//	wl[:h]          WL subtree kernel on SMILES, h iterations (default 3)
//	wl-depth[:h]    WL with one variance per depth 0…h (default h = 3)
//	spectrum[:k]    normalised k-mer spectrum on strings (default k = 3)
//	tanimoto[:r]    MinMax on count fingerprints: "index:count …" cells, or
//	                SMILES turned into WLFingerprint of radius r (default 2)
//	histogram[:C]   histogram intersection; the numeric columns are the bins
//	                of C channels of equal size (default 1)
//
// Names are case-insensitive. It returns an error for an unknown name or a
// parameter out of range.
func ParseKernelSpec(spec string) (name string, param int, err error) {
	name, arg, hasArg := strings.Cut(strings.ToLower(strings.TrimSpace(spec)), ":")
	def, lo, hi := 0, 0, 0
	switch name {
	case "rbf":
		if hasArg {
			return "", 0, fmt.Errorf("sgp: kernel %q takes no parameter", spec)
		}
		return name, 0, nil
	case "wl", "wl-depth":
		def, lo, hi = 3, 0, wlMaxDepth
	case "spectrum":
		def, lo, hi = 3, 1, 64
	case "tanimoto":
		def, lo, hi = 2, 0, wlMaxDepth
	case "histogram":
		def, lo, hi = 1, 1, 1<<20
	default:
		return "", 0, fmt.Errorf("sgp: unknown kernel %q; choose one of %s", spec, kernelSpecNames)
	}
	if !hasArg {
		return name, def, nil
	}
	p, err := strconv.Atoi(arg)
	if err != nil || p < lo || p > hi {
		return "", 0, fmt.Errorf("sgp: kernel %q: parameter %q must be an integer in [%d, %d]", spec, arg, lo, hi)
	}
	return name, p, nil
}

// NewKernel returns the kernel named by spec (see ParseKernelSpec)
// for inputs x, with its variance set to the variance of the targets y (1
// if y is constant or empty): for wl-depth V_d = var(y)/(h+1), for the
// histogram kernel as NewHistogramIntersectionFromData, for rbf as
// NewRBFFromData. It returns an error if the kernel cannot read x.
func NewKernel(spec string, x Inputs, y []float64) (Kernel, error) {
	name, p, err := ParseKernelSpec(spec)
	if err != nil {
		return nil, err
	}
	vy := 1.0
	if len(y) > 0 {
		if v := variance(y); v > 0 && !math.IsInf(v, 0) {
			vy = v
		}
	}
	var k Kernel
	switch name {
	case "rbf":
		v, ok := x.(*Vectors)
		if !ok {
			return nil, fmt.Errorf("sgp: kernel rbf needs numeric inputs (*sgp.Vectors), got %T", x)
		}
		k = NewRBFFromData(v, y)
	case "wl":
		k = NewWL(p, vy)
	case "wl-depth":
		vars := make([]float64, p+1)
		for d := range vars {
			vars[d] = vy / float64(p+1)
		}
		k = NewWLPerDepth(vars)
	case "spectrum":
		k = NewSpectrum(p, vy)
	case "tanimoto":
		k = NewTanimoto(vy)
	case "histogram":
		h, ok := x.(*Histograms)
		if !ok {
			return nil, fmt.Errorf("sgp: kernel histogram needs histogram inputs (*sgp.Histograms), got %T", x)
		}
		k = NewHistogramIntersectionFromData(h, y)
	}
	if err := k.Accepts(x); err != nil {
		return nil, err
	}
	return k, nil
}

// InputsFromCells converts table cells into the inputs that the kernel
// named by spec reads; cells[i] holds the input columns of row i:
//
//	rbf             one or more numeric columns → *Vectors
//	wl, wl-depth    one column of SMILES → *Graphs
//	spectrum        one column of strings → *Strings
//	tanimoto[:r]    one column of "index:count …" (space separated,
//	                ":count" optional) or of SMILES, fingerprinted with
//	                radius r → *SparseCounts
//	histogram[:C]   B numeric columns, split into C channels of B/C bins
//	                → *Histograms
//
// Cells are trimmed of spaces. If rows cannot be read, it returns a
// *RowErrors naming each by its 0-based index in cells.
func InputsFromCells(spec string, cells [][]string) (Inputs, error) {
	name, p, err := ParseKernelSpec(spec)
	if err != nil {
		return nil, err
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
					bad.Rows = append(bad.Rows, RowError{i, fmt.Errorf("input column %d: %q is not %s", c+1, cell, what)})
					break
				}
				data[i*ncol+c] = v
			}
		}
		if len(bad.Rows) > 0 {
			return nil, bad
		}
		if name == "rbf" {
			return NewVectors(len(cells), ncol, data)
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
		return NewHistograms(items)
	case "wl", "wl-depth":
		return GraphsFromSMILES(column0(cells))
	case "spectrum":
		return NewStrings(column0(cells))
	}
	// tanimoto
	indices := make([][]int, len(cells))
	values := make([][]float64, len(cells))
	var graphs []*Graph
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
		indices[graphRows[t]], values[graphRows[t]] = WLFingerprint(g, p)
	}
	return NewSparseCounts(indices, values)
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
			return nil, nil, fmt.Errorf("count list: %q is not a non-negative integer index", is)
		}
		v := 1.0
		if hasV {
			if v, err = strconv.ParseFloat(vs, 64); err != nil || !(v >= 0) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("count list: %q is not a non-negative finite count", vs)
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
