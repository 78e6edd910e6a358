package data

import (
	"fmt"
	"html"
	"strings"

	"github.com/cholqr/sgp/sgp/internal/table"
	"github.com/cholqr/sgp/sgp/kernel"
)

// Dataset is a regression data set: n inputs and n real targets.
type Dataset struct {
	// Name identifies the data set in messages and reports.
	Name string
	// X holds the n inputs, one row per point; read from a CSV file with
	// a header row, its columns carry the header's names (kernel.Vectors.Names).
	X *kernel.Vectors
	// Y holds the n targets; Y[i] belongs to row i of X.
	Y []float64
	// TargetName is the name of the target column in the header row of
	// the CSV file the data were read from, or "" without one.
	TargetName string
	// Dropped is the number of rows of the file left out for a missing
	// value (ReadOptions.DropMissing), 0 for data read otherwise.
	Dropped int
}

// Len returns the number of points n.
func (d *Dataset) Len() int { return len(d.Y) }

// Subset returns rows idx (copies), in that order. The result shares no
// memory with d. It panics if an index is out of range.
func (d *Dataset) Subset(idx []int) *Dataset {
	y := make([]float64, len(idx))
	for r, i := range idx {
		y[r] = d.Y[i]
	}
	return &Dataset{Name: d.Name, X: d.X.Rows(idx), Y: y, TargetName: d.TargetName}
}

// String describes the data set in one line.
func (d *Dataset) String() string {
	if d == nil {
		return "data.Dataset(nil)"
	}
	dim := 0
	if d.X != nil {
		dim = d.X.Dim()
	}
	return fmt.Sprintf("data.Dataset %q: %d points, %d input dimension(s)", d.Name, d.Len(), dim)
}

// HTML returns the data set as a table of its size and first rows, its
// columns headed by their names (the CSV header's: X.Names and
// TargetName), or x0, x1, … and y without them.
func (d *Dataset) HTML() string {
	if d == nil || d.X == nil {
		return html.EscapeString(d.String())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<table><caption>%s</caption><tr>", html.EscapeString(d.String()))
	names := d.X.Names()
	for t := 0; t < min(d.X.Dim(), 8); t++ {
		name := fmt.Sprintf("x%d", t)
		if t < len(names) && names[t] != "" {
			name = names[t]
		}
		fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(table.Short(name)))
	}
	target := "y"
	if d.TargetName != "" {
		target = d.TargetName
	}
	fmt.Fprintf(&b, "<th>%s</th></tr>", html.EscapeString(table.Short(target)))
	for i := 0; i < min(d.Len(), 5); i++ {
		b.WriteString("<tr>")
		for _, x := range d.X.Row(i)[:min(d.X.Dim(), 8)] {
			b.WriteString("<td>" + table.G(x) + "</td>")
		}
		b.WriteString("<td>" + table.G(d.Y[i]) + "</td></tr>")
	}
	b.WriteString("</table>")
	return b.String()
}
