package data

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cholqr/sgp/sgp/kernel"
)

// ReadCSV reads numeric CSV: every row has the same number of columns (≥2),
// the LAST column is the target, the others are inputs. A first row that is
// not all numbers is treated as a header: it names the columns, the inputs'
// in X (Vectors.Names) and the target's in TargetName, so that a model fit
// on them knows its columns by name. Its names must be non-empty and
// distinct, one per column; a first name that is empty is the row index
// pandas' DataFrame.to_csv() writes, and is an error saying so rather than
// an extra input. Missing values alone do not make a header: a first data
// row with one is a row with a missing value, as any other.
//
// Cells are separated by commas; if the first data line holds no comma, cells
// are separated by runs of spaces or tabs instead. Spaces around cells and
// double quotes enclosing a cell are removed. Blank lines and lines starting
// with '#' are skipped.
//
// ReadCSV returns an error naming the 1-based line number (and column,
// by number and header name, where one is at fault) for empty input or
// input without data rows, rows with differing numbers of columns, cells
// that are not numbers (wrapping ErrNotNumber), ±Inf values, and rows
// with fewer than 2 columns; rows with a missing value (an empty cell, NaN
// or NA) are a *MissingError that counts them (ReadCSVWith can drop
// them). name is used as the Dataset name and in error messages.
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

// ReadOptions changes how ReadCSVWith and ReadCSVFileWith read.
type ReadOptions struct {
	// DropMissing drops the rows with a missing value — an empty cell
	// (what pandas writes for NaN), NaN or NA (R's) — and counts them in
	// Dataset.Dropped. Without it such rows are a *MissingError that
	// counts them and locates the first. A file whose every row has one
	// is an error either way.
	DropMissing bool
}

// ReadCSVWith is ReadCSV with options.
func ReadCSVWith(r io.Reader, name string, o ReadOptions) (*Dataset, error) {
	opt := defaultCSVOptions()
	opt.dropMissing = o.DropMissing
	return readCSVWith(r, name, name, true, opt, nil)
}

// ReadCSVFileWith is ReadCSVFile with options.
func ReadCSVFileWith(path string, o ReadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sgp: cannot open CSV file: %w", err)
	}
	defer f.Close()
	base := filepath.Base(path)
	opt := defaultCSVOptions()
	opt.dropMissing = o.DropMissing
	return readCSVWith(f, strings.TrimSuffix(base, filepath.Ext(base)), path, true, opt, nil)
}

// readCSV implements ReadCSV and, without withTarget, ReadInputsCSV;
// label prefixes every error message. The input is parsed in blocks on
// GOMAXPROCS goroutines (see csv.go).
func readCSV(r io.Reader, name, label string, withTarget bool) (*Dataset, error) {
	return readCSVWith(r, name, label, withTarget, defaultCSVOptions(), nil)
}
