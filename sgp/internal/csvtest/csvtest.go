// Package csvtest writes the CSV files that the tests of package sgp and
// sgp/data read by column name.
package csvtest

import (
	"fmt"
	"strings"

	"github.com/cholqr/sgp/sgp/kernel"
)

// Named returns the rows of x and y as a CSV file with the header names
// (inputs, then the target), the columns in the order perm gives (nil: as
// named), and, with index, a pandas-style unnamed index column first. A
// nil y writes NA in the target column.
func Named(names []string, x *kernel.Vectors, y []float64, perm []int, index bool) string {
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
