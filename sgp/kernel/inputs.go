package kernel

import (
	"fmt"
	"math"
	"slices"

	"github.com/cholqr/sgp/sgp/internal/table"
)

// Inputs is an indexed set of inputs x₁…xₙ from any domain: vectors, strings,
// graphs, histograms. A Kernel type-asserts the concrete kinds it accepts and
// reports the others through Kernel.Accepts.
//
// Inputs never copy the caller's data unless Subset is called, and nothing in
// package sgp forms an n×n matrix from them.
type Inputs interface {
	// Len returns the number of inputs n.
	Len() int
	// Subset returns a new Inputs holding the inputs idx[0], idx[1], … in
	// that order. It copies only len(idx) items.
	Subset(idx []int) Inputs
}

// Vectors holds n points of ℝᵈ stored row-major in one slice: point i is
// data[i·d : (i+1)·d]. The slice is shared, not copied.
//
// The d coordinates may carry names, the columns of a CSV file with a
// header row (data.ReadCSV): a model fit on named inputs records them, and
// predicts only at inputs with the same names in the same order, or
// without names (see sgp.Predictor.InputNames).
type Vectors struct {
	n, d  int
	data  []float64
	names []string // the d columns' names, or nil
}

var _ Inputs = (*Vectors)(nil)

// NewVectors wraps data, an n×d row-major matrix, as Inputs. It returns an
// error if the shape does not match len(data), if n or d is zero, or if any
// value is NaN or infinite.
func NewVectors(n, d int, data []float64) (*Vectors, error) {
	if n <= 0 || d <= 0 {
		return nil, fmt.Errorf("sgp: vectors need n > 0 and d > 0, got n=%d d=%d", n, d)
	}
	if len(data) != n*d {
		return nil, fmt.Errorf("sgp: vectors of shape %d×%d need %d values, got %d", n, d, n*d, len(data))
	}
	for i, v := range data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("sgp: input row %d column %d is %v; remove or impute non-finite values", i/d, i%d, v)
		}
	}
	return &Vectors{n: n, d: d, data: data}, nil
}

// VectorsFromRows copies rows, which must all have the same length, into a
// new Vectors.
func VectorsFromRows(rows [][]float64) (*Vectors, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("sgp: no input rows")
	}
	d := len(rows[0])
	data := make([]float64, 0, len(rows)*d)
	for i, r := range rows {
		if len(r) != d {
			return nil, fmt.Errorf("sgp: input row %d has %d values, row 0 has %d", i, len(r), d)
		}
		data = append(data, r...)
	}
	return NewVectors(len(rows), d, data)
}

// Len returns the number of points n.
func (v *Vectors) Len() int { return v.n }

// Dim returns the dimension d of each point.
func (v *Vectors) Dim() int { return v.d }

// Row returns point i as a view into the shared data.
func (v *Vectors) Row(i int) []float64 { return v.data[i*v.d : (i+1)*v.d : (i+1)*v.d] }

// At returns coordinate t of point i.
func (v *Vectors) At(i, t int) float64 { return v.data[i*v.d+t] }

// RawData returns the shared row-major n×d backing slice.
func (v *Vectors) RawData() []float64 { return v.data }

// Subset returns a copy of the points idx in order.
func (v *Vectors) Subset(idx []int) Inputs { return v.Rows(idx) }

// Rows is Subset with the concrete type. The copy keeps the column names.
func (v *Vectors) Rows(idx []int) *Vectors {
	out := &Vectors{n: len(idx), d: v.d, data: make([]float64, len(idx)*v.d), names: v.names}
	for r, i := range idx {
		copy(out.data[r*v.d:(r+1)*v.d], v.Row(i))
	}
	return out
}

// Names returns the names of the d columns (shared, not copied), or nil
// when they have none.
func (v *Vectors) Names() []string { return v.names }

// WithNames returns the points with their d columns named names (nil: no
// names), sharing v's data. It returns an error unless there is one name
// per column, each non-empty and different from the others.
func (v *Vectors) WithNames(names []string) (*Vectors, error) {
	if names != nil {
		if err := CheckNames(names, v.d); err != nil {
			return nil, fmt.Errorf("sgp: %w", err)
		}
		names = append([]string(nil), names...)
	}
	return &Vectors{n: v.n, d: v.d, data: v.data, names: names}, nil
}

// Columns returns a copy of the columns named names, in that order, with
// those names: the inputs in the column order of a model fit on named
// columns, x.Columns(p.InputNames), as pandas' df[names] selects them. It
// returns an error naming a column that v does not have, or if v's columns
// have no names.
func (v *Vectors) Columns(names []string) (*Vectors, error) {
	if v.names == nil {
		return nil, fmt.Errorf("sgp: the inputs' columns have no names to select %s by", table.Names(names))
	}
	if err := CheckNames(names, len(names)); err != nil {
		return nil, fmt.Errorf("sgp: %w", err)
	}
	at := make([]int, len(names))
	for j, name := range names {
		at[j] = slices.Index(v.names, name)
		if at[j] < 0 {
			return nil, fmt.Errorf("sgp: the inputs have no column %q (their columns: %s)", table.Short(name), table.Names(v.names))
		}
	}
	out := &Vectors{n: v.n, d: len(names), data: make([]float64, v.n*len(names)), names: append([]string(nil), names...)}
	for i := 0; i < v.n; i++ {
		row, dst := v.Row(i), out.data[i*out.d:(i+1)*out.d]
		for j, t := range at {
			dst[j] = row[t]
		}
	}
	return out, nil
}

// CheckNames returns an error unless names are d column names, each
// non-empty and different from the others, as Vectors.WithNames needs
// them; its error has no "sgp: " prefix.
func CheckNames(names []string, d int) error {
	if len(names) != d {
		return fmt.Errorf("%d column names for %d columns", len(names), d)
	}
	seen := make(map[string]int, len(names))
	for j, name := range names {
		if name == "" {
			return fmt.Errorf("column %d has an empty name", j+1)
		}
		if i, ok := seen[name]; ok {
			return fmt.Errorf("columns %d and %d are both named %q", i+1, j+1, table.Short(name))
		}
		seen[name] = j
	}
	return nil
}
