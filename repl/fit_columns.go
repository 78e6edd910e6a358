package repl

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/cholqr/sgp/sgp"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// fitData is a training or test table read for `sgprepl fit`.
type fitData struct {
	x    sgp.Inputs
	y    []float64
	path string
	dim  int // input columns
}

func (d *fitData) Len() int { return len(d.y) }

// readColumnData reads a CSV file with a header row for `fit` in column
// mode: inputs are the named columns (all columns but the target if none
// are named), turned into the kernel's kind of inputs by
// sgp.InputsFromCells; the target is the named column (the last column by
// default). Rows whose target is not a finite number are reported by
// their line number, all in one error.
//
// where, if not empty, is "COLUMN=VALUE": only rows with that value are read
// (e.g. split=train for a file with a fixed split column).
func readColumnData(path string, inputCols []string, targetCol, kernelSpec, where string) (*fitData, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r := csv.NewReader(fh)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := make(map[string]int, len(header))
	for i, h := range header {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	wi, wv := -1, ""
	if where != "" {
		name, val, ok := strings.Cut(where, "=")
		i, found := col[strings.TrimSpace(name)]
		if !ok || !found {
			return nil, fmt.Errorf("%s: --where %q must be COLUMN=VALUE with a column of the header", path, where)
		}
		wi, wv = i, val
	}
	ti := len(header) - 1
	if targetCol != "" {
		var ok bool
		if ti, ok = col[targetCol]; !ok {
			return nil, fmt.Errorf("%s: no column %q (columns: %s)", path, targetCol, strings.Join(header, ", "))
		}
	}
	var in []int
	if len(inputCols) == 0 {
		for i := range header {
			if i != ti {
				in = append(in, i)
			}
		}
	}
	for _, name := range inputCols {
		i, ok := col[name]
		if !ok {
			return nil, fmt.Errorf("%s: no column %q (columns: %s)", path, name, strings.Join(header, ", "))
		}
		if i == ti {
			return nil, fmt.Errorf("%s: column %q is both an input and the target", path, name)
		}
		in = append(in, i)
	}
	if len(in) == 0 {
		return nil, fmt.Errorf("%s: no input columns", path)
	}
	var cells [][]string
	var y []float64
	var bad []string
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(header) {
			bad = append(bad, fmt.Sprintf("line %d: %d fields, the header has %d", line, len(rec), len(header)))
			continue
		}
		if wi >= 0 && strings.TrimSpace(rec[wi]) != wv {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[ti]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			bad = append(bad, fmt.Sprintf("line %d: target %q is not a finite number", line, rec[ti]))
			continue
		}
		row := make([]string, len(in))
		for k, i := range in {
			row[k] = rec[i]
		}
		cells = append(cells, row)
		y = append(y, v)
	}
	if len(bad) > 0 {
		more := ""
		if len(bad) > 5 {
			more = fmt.Sprintf(" (and %d more rows)", len(bad)-5)
			bad = bad[:5]
		}
		return nil, fmt.Errorf("%s: unparsable rows: %s%s", path, strings.Join(bad, "; "), more)
	}
	if len(y) == 0 {
		return nil, fmt.Errorf("%s: no data rows", path)
	}
	x, err := sgp.InputsFromCells(kernelSpec, cells)
	if err != nil {
		var re *sgp.RowErrors
		if errors.As(err, &re) {
			return nil, fmt.Errorf("%s (data row 1 is line 2): %w", path, err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &fitData{x: x, y: y, path: path, dim: len(in)}, nil
}

// readNumericData wraps readData's numeric tables.
func readNumericData(trainPath, testPath string) (train, test *fitData, err error) {
	tr, te, err := readData(trainPath, testPath)
	if err != nil {
		return nil, nil, err
	}
	train = &fitData{x: tr.X, y: tr.Y, path: trainPath, dim: tr.X.Dim()}
	if te != nil {
		test = &fitData{x: te.X, y: te.Y, path: testPath, dim: te.X.Dim()}
	}
	return train, test, nil
}

// evaluateInputs scores md on test inputs of any kind: SMSE and SNLP with
// noisy predictive variances, the training targets as the trivial model.
func evaluateInputs(md *sgp.Model, test *fitData) (smse, snlp float64, err error) {
	mean, vr, err := md.PredictNoisy(test.x)
	if err != nil {
		return 0, 0, err
	}
	if smse, err = sgp.SMSE(mean, test.y); err != nil {
		return 0, 0, err
	}
	tm, tv := sgp.MeanVar(md.Targets())
	snlp, err = sgp.SNLP(mean, vr, test.y, tm, tv)
	return smse, snlp, err
}
