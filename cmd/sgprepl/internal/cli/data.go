package cli

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/mol"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"

	"gonum.org/v1/gonum/stat"
)

// readData reads the training file and, if testPath is not empty, the test
// file, which must have the same number of columns. When both have header
// rows, the test file's input columns are matched to the training file's
// by name (and read in the training file's order).
func readData(trainPath, testPath string) (train, test *data.Dataset, err error) {
	return readDataProgress(trainPath, testPath, nil, false)
}

// readDataProgress is readData that reports to progress, if not nil, how
// far reading each file has got, every readProgressEvery (see
// progressReader); with drop, rows with a missing value are left out
// (--drop-missing) and counted in the data sets' Dropped.
func readDataProgress(trainPath, testPath string, progress io.Writer, drop bool) (train, test *data.Dataset, err error) {
	if train, err = readCSVProgress(trainPath, progress, readProgressEvery, drop); err != nil {
		return nil, nil, err
	}
	if testPath == "" {
		return train, nil, nil
	}
	if test, err = readCSVProgress(testPath, progress, readProgressEvery, drop); err != nil {
		return nil, nil, err
	}
	if names, testNames := train.X.Names(), test.X.Names(); names != nil && testNames != nil {
		if err := sameColumns(names, testNames, testPath+"'s header"); err != nil {
			return nil, nil, fmt.Errorf("%w; the test file needs the training file's input columns %s", err, trainPath)
		}
		if test.X, err = test.X.Columns(names); err != nil {
			return nil, nil, err
		}
	}
	if test.X.Dim() != train.X.Dim() {
		return nil, nil, fmt.Errorf("test file %s has %d columns but training file %s has %d; both need the same inputs, then the target",
			testPath, test.X.Dim()+1, trainPath, train.X.Dim()+1)
	}
	return train, test, nil
}

// sameColumns returns an error naming the columns of want (a model's
// inputs) that got (described as where) lacks, and those it has beyond
// them.
func sameColumns(want, got []string, where string) error {
	var missing, unknown []string
	for _, name := range want {
		if !slices.Contains(got, name) {
			missing = append(missing, strconv.Quote(shorten(name)))
		}
	}
	for _, name := range got {
		if !slices.Contains(want, name) {
			unknown = append(unknown, strconv.Quote(shorten(name)))
		}
	}
	var msgs []string
	if len(missing) == 1 {
		msgs = append(msgs, fmt.Sprintf("%s lacks the model's input %s", where, missing[0]))
	} else if len(missing) > 1 {
		msgs = append(msgs, fmt.Sprintf("%s lacks the model's inputs %s", where, strings.Join(missing, ", ")))
	}
	if len(unknown) > 0 {
		msgs = append(msgs, fmt.Sprintf("%s names %s, not among the model's inputs", where, strings.Join(unknown, ", ")))
	}
	if msgs == nil {
		return nil
	}
	return fmt.Errorf("%s (its inputs: %s)", strings.Join(msgs, "; "), columnNames(want))
}

// fitData is a training or test table read for `sgprepl fit`.
type fitData struct {
	x      kernel.Inputs
	y      []float64
	path   string
	dim    int      // input columns
	names  []string // the input columns' names, nil for a file without a header row
	target string   // the target column's name, "" without a header row
	// dropped counts the rows left out for a missing value (--drop-missing).
	dropped int
	// noise holds the known noise variances of --noise-column, one per
	// row, nil without it.
	noise []float64
}

func (d *fitData) Len() int { return len(d.y) }

// readColumnData reads a CSV file with a header row for `fit` in column
// mode: inputs are the named columns (all columns but the target if none
// are named), turned into the kernel's kind of inputs by
// mol.InputsFromCells; the target is the named column (the last column by
// default). Rows whose target is not a finite number are reported by
// their line number, all in one error.
//
// where, if not empty, is "COLUMN=VALUE": only rows with that value are read
// (e.g. split=train for a file with a fixed split column).
func readColumnData(path string, inputCols []string, targetCol, kernelSpec, where string) (*fitData, error) {
	return readColumnsDrop(path, inputCols, targetCol, kernelSpec, where, true, false)
}

// readColumns is readColumnData; without withTarget there is no target
// column (the rows to predict at), and the fitData has no targets.
func readColumns(path string, inputCols []string, targetCol, kernelSpec, where string, withTarget bool) (*fitData, error) {
	return readColumnsDrop(path, inputCols, targetCol, kernelSpec, where, withTarget, false)
}

// readColumnsDrop is readColumns that, with drop, leaves out the rows
// with a missing value (--drop-missing) and counts them.
func readColumnsDrop(path string, inputCols []string, targetCol, kernelSpec, where string, withTarget, drop bool) (*fitData, error) {
	return readColumnsNoise(path, inputCols, targetCol, kernelSpec, where, withTarget, drop, "", false)
}

// readColumnsNoise is readColumnsDrop that reads the column noiseCol,
// if not empty, as the rows' known noise variances (fitData.noise), not
// as an input: a file without it is an error with required, and is read
// as it is without.
func readColumnsNoise(path string, inputCols []string, targetCol, kernelSpec, where string, withTarget, drop bool, noiseCol string, required bool) (*fitData, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	lim := &lineLimit{r: fh, max: maxCSVLine}
	r := csv.NewReader(lim)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	lim.recordDone(1)
	if noiseCol != "" && targetCol == "" {
		targetCol = defaultTarget(header, noiseCol)
	}
	lay, err := chooseColumns(path, header, inputCols, targetCol, where, withTarget)
	if err != nil {
		return nil, err
	}
	lay.header, lay.drop, lay.path = header, drop, path
	if err := lay.useNoiseColumn(noiseCol, required, len(inputCols) > 0); err != nil {
		return nil, err
	}
	if name, _, err := kernel.SplitSpec(kernelSpec); err == nil {
		lay.numeric = kernel.NumericSpec(name) || name == "histogram"
	}
	cells, y, lines, err := lay.readRows(r, lim, path)
	if err != nil {
		return nil, err
	}
	x, err := inputsFromCells(path, kernelSpec, cells, lines)
	if err != nil {
		return nil, err
	}
	fd := &fitData{x: x, y: y, path: path, dim: len(lay.in), dropped: lay.dropped, noise: lay.noiseVals}
	for _, i := range lay.in {
		fd.names = append(fd.names, headerName(header[i]))
	}
	if lay.target >= 0 {
		fd.target = headerName(header[lay.target])
	}
	return fd, nil
}

// headerName is a header cell as a column's name: without spaces around
// it or a byte-order mark before it.
func headerName(h string) string { return strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) }

// columnLayout says which columns of a CSV file readColumns reads.
type columnLayout struct {
	fields int    // the header's number of columns
	in     []int  // the input columns
	target int    // the target column, −1 for none
	noise  int    // the --noise-column, −1 for none
	where  int    // the --where column, −1 for none
	value  string // the --where value
	header []string
	path   string
	// numeric is set for a kernel of numeric inputs, whose input cells
	// may be missing values (isMissing) as the target's may.
	numeric bool
	drop    bool // leave out the rows with a missing value (--drop-missing)
	dropped int  // rows left out
	miss    *data.MissingError
	text    []textColumn // input columns holding text, for a kernel of numbers
	// noiseVals are the rows' values of the noise column, as read.
	noiseVals []float64
}

// chooseColumns finds in the header the input columns (all but the
// target if inputCols is empty), the target column (targetCol, the last
// by default, none without withTarget) and the --where column.
func chooseColumns(path string, header, inputCols []string, targetCol, where string, withTarget bool) (*columnLayout, error) {
	col := make(map[string]int, len(header))
	for i, h := range header {
		col[headerName(h)] = i
	}
	lay := &columnLayout{fields: len(header), target: len(header) - 1, where: -1, noise: -1}
	if where != "" {
		name, val, ok := strings.Cut(where, "=")
		i, found := col[strings.TrimSpace(name)]
		if !ok || !found {
			return nil, fmt.Errorf("%s: --where %q must be COLUMN=VALUE with a column of the header", path, where)
		}
		lay.where, lay.value = i, val
	}
	if !withTarget {
		lay.target = -1
	}
	if withTarget && targetCol != "" {
		var ok bool
		if lay.target, ok = col[targetCol]; !ok {
			return nil, fmt.Errorf("%s: no column %q (columns: %s)", path, targetCol, columnNames(header))
		}
	}
	if len(inputCols) == 0 {
		for i := range header {
			if i != lay.target {
				lay.in = append(lay.in, i)
			}
		}
		if len(header) > 1 && strings.TrimSpace(header[0]) == "" && lay.target != 0 {
			return nil, fmt.Errorf("%s: the header's first column has no name: it is the row index that pandas' DataFrame.to_csv() writes; write the file with to_csv(index=False), drop that column, or name the inputs with --input-column", path)
		}
	}
	for _, name := range inputCols {
		i, ok := col[name]
		if !ok {
			return nil, fmt.Errorf("%s: no column %q (columns: %s)", path, name, columnNames(header))
		}
		if i == lay.target {
			return nil, fmt.Errorf("%s: column %q is both an input and the target", path, name)
		}
		lay.in = append(lay.in, i)
	}
	if len(lay.in) == 0 {
		return nil, fmt.Errorf("%s: no input columns", path)
	}
	return lay, nil
}

// readRows reads the data rows after the header: the input cells and,
// with a target column, the targets, with the file line of each row kept.
// Rows of the wrong length and targets that are not finite numbers are
// reported all in one error, the first five by their line.
func (lay *columnLayout) readRows(r *csv.Reader, lim *lineLimit, path string) (cells [][]string, y []float64, lines []int, err error) {
	var bad []string
	err = data.EachRecord(r, path, func(rec []string, line int) error {
		lim.recordDone(line)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			return nil
		}
		if len(rec) != lay.fields {
			bad = append(bad, fmt.Sprintf("line %d: %d fields, the header has %d", line, len(rec), lay.fields))
			return nil
		}
		if lay.where >= 0 && strings.TrimSpace(rec[lay.where]) != lay.value {
			return nil
		}
		if lay.missingRow(rec, line) {
			return nil
		}
		row := make([]string, len(lay.in))
		for k, i := range lay.in {
			row[k] = rec[i]
		}
		if lay.numeric {
			lay.checkNumbers(rec, line)
		}
		if lay.target < 0 {
			cells = append(cells, row)
			lines = append(lines, line)
			return nil
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[lay.target]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			bad = append(bad, fmt.Sprintf("line %d: target %q is not a finite number", line, shorten(rec[lay.target])))
			return nil
		}
		if lay.noise >= 0 {
			s2, msg := parseNoiseCell(rec[lay.noise])
			if msg != "" {
				bad = append(bad, fmt.Sprintf("line %d: %s", line, msg))
				return nil
			}
			lay.noiseVals = append(lay.noiseVals, s2)
		}
		cells = append(cells, row)
		lines = append(lines, line)
		y = append(y, v)
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	if err := lay.textError(); err != nil {
		return nil, nil, nil, err
	}
	if lay.miss != nil && !lay.drop && len(bad) == 0 {
		return nil, nil, nil, lay.miss
	}
	if len(bad) > 0 {
		more := ""
		if len(bad) > 5 {
			more = fmt.Sprintf(" (and %d more rows)", len(bad)-5)
			bad = bad[:5]
		}
		return nil, nil, nil, fmt.Errorf("%s: unparsable rows: %s%s", path, strings.Join(bad, "; "), more)
	}
	if len(cells) == 0 {
		if lay.miss != nil {
			return nil, nil, nil, lay.miss
		}
		return nil, nil, nil, fmt.Errorf("%s: no data rows", path)
	}
	return cells, y, lines, nil
}

// textColumn counts the cells of one input column that are not numbers.
type textColumn struct {
	col, cells, line int // the column, its cells that are not numbers, the first one's line
	cell             string
}

// checkNumbers counts the input cells of rec, on line, that are neither
// numbers nor missing values, by column (lay.text).
func (lay *columnLayout) checkNumbers(rec []string, line int) {
	for _, i := range lay.in {
		c := strings.TrimSpace(rec[i])
		if _, err := strconv.ParseFloat(c, 64); err == nil || isMissing(c) {
			continue
		}
		k := slices.IndexFunc(lay.text, func(t textColumn) bool { return t.col == i })
		if k < 0 {
			lay.text = append(lay.text, textColumn{col: i, line: line, cell: c})
			k = len(lay.text) - 1
		}
		lay.text[k].cells++
	}
}

// textError returns the error of input columns of text for a kernel of
// numbers: one message naming each column, with how to read it.
func (lay *columnLayout) textError() error {
	if len(lay.text) == 0 {
		return nil
	}
	var cols []string
	for k, t := range lay.text {
		if k == 5 {
			cols = append(cols, fmt.Sprintf("and %d more columns", len(lay.text)-k))
			break
		}
		cols = append(cols, fmt.Sprintf("column %q holds text (%d cells, the first on line %d: %q)", shorten(headerName(lay.header[t.col])), t.cells, t.line, shorten(t.cell)))
	}
	return fmt.Errorf("%s: %s; the kernel reads numbers: name the numeric inputs with --input-column (repeatable), or read a column of text with a kernel of strings (--kernel spectrum) or of molecules (--kernel wl or tanimoto)", lay.path, strings.Join(cols, "; "))
}

// isMissing reports whether a cell marks a missing value, as the numeric
// reader of sgp/data takes it: empty, NaN in any case, or NA.
func isMissing(c string) bool {
	c = strings.TrimSpace(c)
	return c == "" || strings.EqualFold(strings.TrimLeft(c, "+-"), "nan") || c == "NA"
}

// missingRow reports whether the record rec, on line, has a missing
// value in its target or, for numeric inputs, in an input column: it
// counts it (lay.miss), and with lay.drop in lay.dropped.
func (lay *columnLayout) missingRow(rec []string, line int) bool {
	col := -1
	if lay.target >= 0 && isMissing(rec[lay.target]) {
		col = lay.target
	}
	if lay.noise >= 0 && isMissing(rec[lay.noise]) && (col < 0 || lay.noise < col) {
		col = lay.noise
	}
	if lay.numeric {
		for _, i := range lay.in {
			if isMissing(rec[i]) && (col < 0 || i < col) {
				col = i
			}
		}
	}
	if col < 0 {
		return false
	}
	if lay.miss == nil {
		lay.miss = &data.MissingError{Label: lay.path, Line: line, Column: col + 1, Name: headerName(lay.header[col])}
	}
	lay.miss.Rows++
	if lay.drop {
		lay.dropped++
	}
	return true
}

// inputsFromCells turns the cells into the kernel's kind of inputs
// (mol.InputsFromCells), naming a row that cannot be read by its line in
// the file.
func inputsFromCells(path, kernelSpec string, cells [][]string, lines []int) (kernel.Inputs, error) {
	x, err := mol.InputsFromCells(kernelSpec, cells)
	if err != nil {
		var re *mol.RowErrors
		if errors.As(err, &re) {
			// The library counts the rows it was given from 0; name them by
			// their lines in the file.
			for i := range re.Rows {
				if r := re.Rows[i].Row; r >= 0 && r < len(lines) {
					re.Rows[i].Row = lines[r]
				}
			}
			re.Source, re.What = path, "line"
			return nil, re
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return x, nil
}

// columnNames lists a header row's names for an error message: at most
// 8, each shortened to 40 characters, so that a header line of any length
// gives a short message.
func columnNames(header []string) string {
	const most = 8
	names := make([]string, 0, most+1)
	for i, h := range header {
		if i == most {
			names = append(names, fmt.Sprintf("… (%d columns)", len(header)))
			break
		}
		names = append(names, shorten(h))
	}
	s := strings.Join(names, ", ")
	if len(header) == 1 && strings.ContainsAny(header[0], ";\t") {
		// A semicolon- or tab-separated file reads as one column.
		s += "; the header is one column holding ';' or a tab, but named columns must be separated by commas"
	}
	return s
}

// maxCSVLine bounds one line of a CSV file read in column mode, so that a
// file without line breaks (or /dev/zero) fails at once instead of filling
// the memory.
const maxCSVLine = 16 << 20

// maxCSVRecord bounds the bytes read for one record in column mode: a
// quoted field may span lines, so an unterminated quote followed by short
// lines (a pipe that never ends) would otherwise be read without bound.
const maxCSVRecord = 4 * maxCSVLine

// lineLimit fails a read once a line exceeds max bytes, or once more than
// maxCSVRecord bytes were read since the caller last marked the end of a
// record (recordDone).
type lineLimit struct {
	r         io.Reader
	max, cur  int
	completed int // lines completed so far
	record    int // bytes read since the last recordDone
	lastLine  int // the first line of the last record read
}

// recordDone marks the end of the record that started on line.
func (l *lineLimit) recordDone(line int) { l.record, l.lastLine = 0, line }

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if l.record += n; l.record > maxCSVRecord {
		return 0, fmt.Errorf("the record after line %d is longer than %d MiB (a quoted field that is never closed?)", l.lastLine, maxCSVRecord>>20)
	}
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			l.cur += n - i
			break
		}
		l.cur += j
		if l.cur > l.max {
			break
		}
		l.cur, l.completed, i = 0, l.completed+1, i+j+1
	}
	if l.cur > l.max {
		return 0, fmt.Errorf("line %d is longer than %d MiB; is this a CSV file?", l.completed+1, l.max>>20)
	}
	return n, err
}

// readNumericData wraps readData's numeric tables, reporting the reading
// to progress if it is not nil.
func readNumericData(trainPath, testPath string, progress io.Writer, drop bool) (train, test *fitData, err error) {
	tr, te, err := readDataProgress(trainPath, testPath, progress, drop)
	if err != nil {
		return nil, nil, err
	}
	train = &fitData{x: tr.X, y: tr.Y, path: trainPath, dim: tr.X.Dim(), names: tr.X.Names(), target: tr.TargetName, dropped: tr.Dropped}
	if te != nil {
		test = &fitData{x: te.X, y: te.Y, path: testPath, dim: te.X.Dim(), names: te.X.Names(), target: te.TargetName, dropped: te.Dropped}
	}
	return train, test, nil
}

// namedPredictor returns a copy of p with the input and target column
// names given.
func namedPredictor(p *sgp.Predictor, names []string, target string) *sgp.Predictor {
	q := *p
	q.InputNames, q.TargetName = names, target
	return &q
}

// namedExact returns a copy of p with the input and target column names
// given.
func namedExact(p *sgp.ExactPredictor, names []string, target string) *sgp.ExactPredictor {
	q := *p
	q.InputNames, q.TargetName = names, target
	return &q
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
	tm, tv := stat.PopMeanVariance(md.Targets(), nil)
	snlp, err = sgp.SNLP(mean, vr, test.y, tm, tv)
	return smse, snlp, err
}

// readProgressEvery is how often reading a file reports its progress: a
// file read faster says nothing.
const readProgressEvery = 5 * time.Second

// readCSVProgress is data.ReadCSVFile that writes to progress, if not nil,
// a line every period while the file is read: the share of its bytes read
// and the time so far.
func readCSVProgress(path string, progress io.Writer, period time.Duration, drop bool) (*data.Dataset, error) {
	opt := data.ReadOptions{DropMissing: drop}
	if progress == nil {
		return data.ReadCSVFileWith(path, opt)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sgp: cannot open CSV file: %w", err)
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	pr := &progressReader{r: f, w: progress, path: path, size: size, start: time.Now(), every: period}
	pr.last = pr.start
	d, err := data.ReadCSVWith(pr, path, opt)
	if err == nil && pr.reported {
		fmt.Fprintf(progress, "read %s: %d rows in %.1f s\n", path, d.Len(), time.Since(pr.start).Seconds())
	}
	return d, err
}

// progressReader passes reads through from r and, at most once a period
// (every), writes to w how many bytes of the file have been read.
type progressReader struct {
	r           io.Reader
	w           io.Writer
	path        string
	size, done  int64
	start, last time.Time
	every       time.Duration
	reported    bool
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	if now := time.Now(); now.Sub(p.last) >= p.every {
		p.last, p.reported = now, true
		share := ""
		if p.size > 0 {
			share = fmt.Sprintf(" of %.4g MB (%.0f%%)", float64(p.size)/1e6, 100*float64(p.done)/float64(p.size))
		}
		fmt.Fprintf(p.w, "reading %s: %.4g MB%s in %.0f s\n", p.path, float64(p.done)/1e6, share, now.Sub(p.start).Seconds())
	}
	return n, err
}
