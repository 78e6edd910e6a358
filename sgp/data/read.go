package data

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cholqr/sgp/sgp/internal/table"
	"github.com/cholqr/sgp/sgp/kernel"
)

// maxLine bounds the length of one line of a text data file.
const maxLine = 64 << 20

// ReadCSV reads numeric CSV: every row has the same number of columns (≥2),
// the LAST column is the target, the others are inputs. A first row that is
// not all numbers is treated as a header: it names the columns, the inputs'
// in X (Vectors.Names) and the target's in TargetName, so that a model fit
// on them knows its columns by name. Its names must be non-empty and
// distinct, one per column; a first name that is empty is the row index
// pandas' DataFrame.to_csv() writes, and is an error saying so rather than
// an extra input. Empty cells alone do not make a header, so a first data
// row with a missing value is an error.
//
// Cells are separated by commas; if the first data line holds no comma, cells
// are separated by runs of spaces or tabs instead. Spaces around cells and
// double quotes enclosing a cell are removed. Blank lines and lines starting
// with '#' are skipped.
//
// ReadCSV returns an error naming the 1-based line number (and column, where
// one is at fault) for empty input or input without data rows, rows with
// differing numbers of columns, cells that are not numbers, NaN or ±Inf
// values, and rows with fewer than 2 columns. name is used as the Dataset
// name and in error messages.
func ReadCSV(r io.Reader, name string) (*Dataset, error) {
	return readCSV(r, name, name, true)
}

// ReadInputsCSV reads rows of numbers without targets — the inputs to
// predict at — in the layout of ReadCSV (a header row optional, naming the
// columns; commas or white space, '#' comments), every column an input.
// label names the source in error messages. To read the columns a model
// was fit on, by name, skipping its target column unread, use
// ReadPredictCSV.
func ReadInputsCSV(r io.Reader, label string) (*kernel.Vectors, error) {
	d, err := readCSV(r, label, label, false)
	if err != nil {
		return nil, err
	}
	return d.X, nil
}

// ReadCSVFile opens path and calls ReadCSV; error messages include the path.
// The Dataset is named after the file name without its extension.
func ReadCSVFile(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sgp: cannot open CSV file: %w", err)
	}
	defer f.Close()
	base := filepath.Base(path)
	return readCSV(f, strings.TrimSuffix(base, filepath.Ext(base)), path, true)
}

// readCSV implements ReadCSV and, without withTarget, ReadInputsCSV;
// label prefixes every error message. The input is parsed in blocks on
// GOMAXPROCS goroutines (see dataset_csv.go).
func readCSV(r io.Reader, name, label string, withTarget bool) (*Dataset, error) {
	return readCSVWith(r, name, label, withTarget, defaultCSVOptions(), nil)
}

// splitCells splits a trimmed line at commas or at runs of white space, and
// strips spaces and enclosing double quotes from each cell.
func splitCells(line string, comma bool) []string {
	if !comma {
		return strings.Fields(line)
	}
	cells := strings.Split(line, ",")
	for i, c := range cells {
		cells[i] = cleanCell(c)
	}
	return cells
}

// cleanCell strips spaces and enclosing double quotes from one cell of a
// comma separated line.
func cleanCell(c string) string {
	if c != "" && c[0] > ' ' && c[0] != '"' && c[0] < utf8.RuneSelf && c[len(c)-1] > ' ' && c[len(c)-1] < utf8.RuneSelf {
		return c // nothing to strip: the common case, without TrimSpace's call
	}
	c = strings.TrimSpace(c)
	if len(c) >= 2 && c[0] == '"' && c[len(c)-1] == '"' {
		c = strings.TrimSpace(c[1 : len(c)-1])
	}
	return c
}

// isHeader reports whether a first row is a header: some non-empty cell does
// not parse as a float64. Empty cells alone do not make a header, so that a
// data row with a missing value is reported rather than skipped.
func isHeader(cells []string) bool {
	for _, c := range cells {
		if _, err := strconv.ParseFloat(c, 64); c != "" && err != nil && !errors.Is(err, strconv.ErrRange) {
			return true
		}
	}
	return false
}

// parseCell parses one cell as a finite float64.
func parseCell(c string) (float64, error) {
	if c == "" {
		return 0, errors.New("empty cell; every cell must hold a number")
	}
	v, err := strconv.ParseFloat(c, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, fmt.Errorf("value %q is out of the float64 range", table.Short(c))
		}
		return 0, fmt.Errorf("cannot parse %q as a number", table.Short(c))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("value %q is not finite; remove or impute NaN and ±Inf values", table.Short(c))
	}
	return v, nil
}

// readMatrixFile reads a file of white-space separated finite floats, one
// matrix row per non-blank line, and returns the row-major data with its
// shape. Every line must hold the same number of values. Errors name the file
// and, where one is at fault, the 1-based line.
func readMatrixFile(path string) (data []float64, rows, cols int, err error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, 0, fmt.Errorf("sgp: data file %s is missing (%s): %w", path, dataHint, err)
		}
		return nil, 0, 0, fmt.Errorf("sgp: cannot open data file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	colsLine, lineNo := 0, 0
	for sc.Scan() {
		lineNo++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if cols == 0 {
			cols, colsLine = len(fields), lineNo
		} else if len(fields) != cols {
			return nil, 0, 0, fmt.Errorf("sgp: %s: line %d has %d values, but line %d has %d", path, lineNo, len(fields), colsLine, cols)
		}
		for j, s := range fields {
			v, err := parseCell(s)
			if err != nil {
				return nil, 0, 0, fmt.Errorf("sgp: %s: line %d, column %d: %w", path, lineNo, j+1, err)
			}
			data = append(data, v)
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, 0, 0, fmt.Errorf("sgp: %s: line %d is longer than %d MiB", path, lineNo+1, maxLine>>20)
		}
		return nil, 0, 0, fmt.Errorf("sgp: %s: reading after line %d: %w", path, lineNo, err)
	}
	if rows == 0 {
		return nil, 0, 0, fmt.Errorf("sgp: %s: file holds no numbers", path)
	}
	return data, rows, cols, nil
}

// readColumnFile reads a file holding one number per line.
func readColumnFile(path string) ([]float64, error) {
	data, _, cols, err := readMatrixFile(path)
	if err != nil {
		return nil, err
	}
	if cols != 1 {
		return nil, fmt.Errorf("sgp: %s: expected one value per line, found %d", path, cols)
	}
	return data, nil
}

// readIndexFile reads a file holding one integer in [0, limit) per line.
func readIndexFile(path string, limit int) ([]int, error) {
	vals, err := readColumnFile(path)
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(vals))
	for i, v := range vals {
		if v != math.Trunc(v) || v < 0 || v >= float64(limit) {
			return nil, fmt.Errorf("sgp: %s: entry %d is %v; want an integer index in [0, %d)", path, i+1, v, limit)
		}
		idx[i] = int(v)
	}
	return idx, nil
}
