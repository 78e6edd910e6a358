package sgp

import (
	"fmt"
	"math"
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
type Vectors struct {
	n, d int
	data []float64
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

// Rows is Subset with the concrete type.
func (v *Vectors) Rows(idx []int) *Vectors {
	out := &Vectors{n: len(idx), d: v.d, data: make([]float64, len(idx)*v.d)}
	for r, i := range idx {
		copy(out.data[r*v.d:(r+1)*v.d], v.Row(i))
	}
	return out
}
