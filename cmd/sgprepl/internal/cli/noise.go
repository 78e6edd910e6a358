package cli

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cholqr/sgp/sgp"
)

// noiseSelectors names the selectors that take --noise-column.
const noiseSelectors = "exact, sgpr-continuous, cholqr, hybrid"

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
// not take known noise; with --m and no selector it selects
// sgpr-continuous, the sparse fit that takes it.
func (c *fitConfig) checkNoiseSelector() error {
	if c.noiseCol == "" {
		return nil
	}
	sel := strings.ToLower(strings.TrimSpace(c.selector))
	switch {
	case sel == selectorExact || sel == selectorContinuous || sel == "cholqr" || sel == "hybrid":
		return nil
	case sel != "":
		return usageErrorf("fit: --noise-column is not supported by --selector %s; the selectors that take known noise variances: %s", echo(c.selector), noiseSelectors)
	case c.mSet:
		// A sparse fit with known noise: the continuous one.
		c.selector = selectorContinuous
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

// addTestNoise adds, when the test file has the --noise-column, each
// test row's own known noise variance to its noisy predictive variance
// (and so to SNLP), and notes it in rep: the model knows only σ².
func addTestNoise(rep *fitReport, pred *predictions, test *fitData, noiseCol string) {
	if test == nil || test.noise == nil || pred == nil {
		return
	}
	for i, v := range test.noise {
		pred.noisy[i] += v
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("the test file's %s column is added to its rows' noisy variances (and SNLP): the model knows only σ²", noiseCol))
}

// noiseContinuous is the default fit with --noise-column where the exact
// GP is not affordable (why): sgpr-continuous, for numeric inputs and a
// kernel with input gradients, a usage error otherwise.
func (c *fitConfig) noiseContinuous(ctx context.Context, e *env, obj sgp.Objective, spec, specName, blas, why string) error {
	if c.columnModeOnly(specName) || !continuousSpec(specName) {
		return usageErrorf("fit: --noise-column takes the exact GP, which is not affordable here (%s), or sgpr-continuous, which needs numeric inputs without --input-column and a kernel with input gradients (%s)", why, continuousKernels())
	}
	c.selector = selectorContinuous
	return fitContinuousCLI(ctx, e, contOptions{train: c.trainPath, test: c.testPath, m: c.m, mSet: c.mSet, obj: obj, spec: spec, params: c.params, cons: c.cons,
		seed: c.seed, budget: c.budget, maxEvals: c.maxEpochs * 20, save: c.savePath, pred: c.predPath, json: c.json, quiet: c.quiet, noiseFloor: c.noiseFloor, blas: blas, mean: c.mean,
		restarts: c.restarts, dropMissing: c.dropMissing, post: &c.post, noiseCol: c.noiseCol,
		note: "default with --noise-column: sgpr-continuous, as the exact GP is not: " + why})
}
