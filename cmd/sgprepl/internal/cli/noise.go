package cli

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// noiseSelectors names the selectors that take --noise-column.
const noiseSelectors = "exact"

// useNoiseColumn makes the header's column name, if not empty, the rows'
// known noise variances rather than an input: named, it must not be the
// target or a named input (named tells whether --input-column named the
// inputs); a file without it is an error with required, and is read
// without it otherwise (a test file, whose rows' own noise, when it has
// the column, the noisy predictions add).
func (lay *columnLayout) useNoiseColumn(name string, required, named bool) error {
	if name == "" {
		return nil
	}
	i := slices.IndexFunc(lay.header, func(h string) bool { return headerName(h) == name })
	switch {
	case i < 0 && required:
		return fmt.Errorf("%s: no column %q for --noise-column (columns: %s)", lay.path, name, columnNames(lay.header))
	case i < 0:
		return nil
	case i == lay.target:
		return fmt.Errorf("%s: column %q is both the target and --noise-column", lay.path, name)
	}
	k := slices.Index(lay.in, i)
	if k >= 0 && named {
		return fmt.Errorf("%s: column %q is both an input and --noise-column", lay.path, name)
	}
	if k >= 0 {
		lay.in = slices.Delete(lay.in, k, k+1)
	}
	if len(lay.in) == 0 {
		return fmt.Errorf("%s: no input columns besides the target and --noise-column", lay.path)
	}
	lay.noise = i
	return nil
}

// parseNoiseCell reads a noise-column cell as a variance: a finite
// number ≥ 0, or a message saying what it is instead.
func parseNoiseCell(cell string) (float64, string) {
	v, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Sprintf("noise variance %q is not a finite number", shorten(cell))
	case v < 0:
		return 0, fmt.Sprintf("noise variance %v is negative (--noise-column holds variances, ≥ 0)", v)
	}
	return v, ""
}

// checkNoiseSelector refuses --noise-column with a selector that does
// not take known noise, or with --m (a sparse fit).
func (c *fitConfig) checkNoiseSelector() error {
	if c.noiseCol == "" {
		return nil
	}
	sel := strings.ToLower(strings.TrimSpace(c.selector))
	switch {
	case sel == selectorExact:
		return nil
	case sel != "":
		return usageErrorf("fit: --noise-column is not supported by --selector %s; the selectors that take known noise variances: %s", echo(c.selector), noiseSelectors)
	case c.mSet:
		return usageErrorf("fit: --noise-column with --m asks for a sparse fit, which does not take known noise variances; drop --m (the selectors that take them: %s)", noiseSelectors)
	}
	return nil
}

// defaultTarget returns the default target column with a noise column
// named noiseCol: the last column of the header that is not it.
func defaultTarget(header []string, noiseCol string) string {
	for i := len(header) - 1; i >= 0; i-- {
		if name := headerName(header[i]); name != noiseCol {
			return name
		}
	}
	return ""
}
