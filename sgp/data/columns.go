package data

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/cholqr/sgp/sgp/internal/table"
	"github.com/cholqr/sgp/sgp/kernel"
)

// InputColumns describes the columns of numeric inputs a model was fit
// on, for reading the rows to predict at from a CSV file (ReadPredictCSV).
type InputColumns struct {
	// Dim is the number of inputs d.
	Dim int
	// Names are the input columns' names in the model's order, or nil
	// for a model fit on data without a header row.
	Names []string
	// Target is the name of the target column, or "" when it is not
	// known.
	Target string
	// ByPosition accepts a file without a header row for a model with
	// Names: its columns are taken to be the model's inputs in the
	// model's order.
	ByPosition bool
}

// Errors of ReadPredictCSV, wrapped in the error it returns: a file
// without a header row when the model's input columns have names and
// ByPosition is not set, whose columns cannot be matched to them; a
// header naming a column that is neither an input of the model nor its
// target.
var (
	ErrNoHeader      = errors.New("no header row")
	ErrUnknownColumn = errors.New("a column that is not an input of the model")
)

// columnError is an error of ReadPredictCSV about the header's columns;
// it is ErrUnknownColumn when the header names one.
type columnError struct {
	msg     string
	unknown bool
}

func (e *columnError) Error() string { return e.msg }

func (e *columnError) Is(target error) bool { return e.unknown && target == ErrUnknownColumn }

// ReadPredictCSV reads the rows to predict at, for a model fit on the
// numeric input columns c, from a CSV file in the layout of ReadCSV
// (commas or white space, '#' comments). label names the source in
// error messages. The result holds the inputs in the model's order, with
// their names when the file has a header row.
//
// With a header row and named inputs, columns are matched by name, as
// scikit-learn matches a DataFrame's feature names: the model's columns
// in another order are read in the model's order; the target's column
// (c.Target) is not read, so it may hold anything (empty, NA, a label);
// a column that is neither, or an input the file does not have, is an
// error naming it. A header whose first name is empty, the row index of
// pandas' DataFrame.to_csv(), is an error saying so.
//
// Otherwise the columns are taken by position: the model's d inputs, and
// optionally one more, a target, which is not read. A file without a
// header row is read by position only for a model without names, or with
// c.ByPosition; for a named model without it, the error wraps
// ErrNoHeader. An error about a column that is neither an input nor the
// target wraps ErrUnknownColumn.
func ReadPredictCSV(r io.Reader, label string, c InputColumns) (*kernel.Vectors, error) {
	if label == "" {
		label = "CSV input"
	}
	if c.Dim < 1 {
		return nil, fmt.Errorf("sgp: %s: the model's inputs are not numeric columns", label)
	}
	if c.Names != nil {
		if err := kernel.CheckNames(c.Names, c.Dim); err != nil {
			return nil, fmt.Errorf("sgp: the model's input columns: %w", err)
		}
	}
	sel := &csvSelect{isHeader: c.isHeader, choose: c.choose}
	d, err := readCSVWith(r, label, label, false, defaultCSVOptions(), sel)
	if err != nil {
		return nil, err
	}
	return d.X, nil
}

// isHeader reports whether the first line, of cells, is a header: some
// cell is neither empty nor a number, other than a missing-value marker
// (NA, nan, …) in the last of d+1 columns, the target's, which is not
// read.
func (c InputColumns) isHeader(cells []string) bool {
	for j, s := range cells {
		if s == "" {
			continue
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			continue
		}
		if j == c.Dim && len(cells) == c.Dim+1 && missingMarker(s) {
			continue
		}
		return true
	}
	return false
}

// missingMarker reports whether s is one of the strings pandas' read_csv
// reads as a missing value.
func missingMarker(s string) bool {
	switch s {
	case "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
		"<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null":
		return true
	}
	return false
}

// choose places the file's cols columns among the model's inputs: by
// name with a header row and named inputs, by position otherwise.
func (c InputColumns) choose(header []string, cols int) ([]int, int, error) {
	if header != nil && c.Names != nil {
		return c.byName(header)
	}
	if header == nil && c.Names != nil && !c.ByPosition {
		return nil, 0, fmt.Errorf("%w, but the model's input columns are named (%s): add a header row naming the columns, or read them by position in the model's order", ErrNoHeader, table.Names(c.Names))
	}
	keep := make([]int, cols)
	for j := range keep {
		keep[j] = j
	}
	switch cols {
	case c.Dim:
	case c.Dim + 1:
		keep[c.Dim] = -1 // a target, not read
	default:
		return nil, 0, fmt.Errorf("%d columns, but the model takes %d inputs (and a last, target, column may follow)", cols, c.Dim)
	}
	return keep, c.Dim, nil
}

// byName places the header's columns among the model's named inputs.
func (c InputColumns) byName(header []string) ([]int, int, error) {
	keep := make([]int, len(header))
	var unknown []string
	for j, name := range header {
		keep[j] = slices.Index(c.Names, name)
		if keep[j] >= 0 && slices.Index(header, name) != j {
			return nil, 0, fmt.Errorf("the header names column %q twice", table.Short(name))
		}
		if keep[j] < 0 && (name != c.Target || c.Target == "") {
			unknown = append(unknown, name)
		}
	}
	var missing []string
	for _, name := range c.Names {
		if !slices.Contains(header, name) {
			missing = append(missing, name)
		}
	}
	var msgs []string
	if len(missing) > 0 {
		msgs = append(msgs, fmt.Sprintf("no %s %s, %s of the model", plural(len(missing), "column", "columns"), quotedList(missing), plural(len(missing), "an input", "inputs")))
	}
	if len(unknown) > 0 {
		what := "the model's inputs"
		if c.Target != "" {
			what += fmt.Sprintf(" nor its target %q", table.Short(c.Target))
		}
		msgs = append(msgs, fmt.Sprintf("%s %s %s not among %s; drop %s", plural(len(unknown), "column", "columns"), quotedList(unknown), plural(len(unknown), "is", "are"), what, plural(len(unknown), "it", "them")))
	}
	if msgs != nil {
		return nil, 0, &columnError{msg: fmt.Sprintf("%s (the model's inputs: %s)", strings.Join(msgs, "; "), table.Names(c.Names)), unknown: len(unknown) > 0}
	}
	return keep, c.Dim, nil
}

// plural returns one for a count of 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// quotedList quotes at most 5 names for a message.
func quotedList(names []string) string {
	const most = 5
	q := make([]string, 0, most+1)
	for i, name := range names {
		if i == most {
			q = append(q, fmt.Sprintf("and %d more", len(names)-most))
			break
		}
		q = append(q, strconv.Quote(table.Short(name)))
	}
	return strings.Join(q, ", ")
}
