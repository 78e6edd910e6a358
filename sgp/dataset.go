package sgp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Dataset is a regression data set: n inputs and n real targets.
type Dataset struct {
	// Name identifies the data set in messages and reports.
	Name string
	// X holds the n inputs, one row per point; read from a CSV file with
	// a header row, its columns carry the header's names (Vectors.Names).
	X *Vectors
	// Y holds the n targets; Y[i] belongs to row i of X.
	Y []float64
	// TargetName is the name of the target column in the header row of
	// the CSV file the data were read from, or "" without one.
	TargetName string
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

// DataDir returns the directory holding the shared data sets: $SGP_DATA if
// set, else def.
func DataDir(def string) string {
	if dir := os.Getenv("SGP_DATA"); dir != "" {
		return dir
	}
	return def
}

// dataHint is appended to errors about missing data files.
const dataHint = "set SGP_DATA to the folder holding snelson1d/, kin40k/, kin8nm/ …"

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
func ReadInputsCSV(r io.Reader, label string) (*Vectors, error) {
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
			return 0, fmt.Errorf("value %q is out of the float64 range", shortText(c))
		}
		return 0, fmt.Errorf("cannot parse %q as a number", shortText(c))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("value %q is not finite; remove or impute NaN and ±Inf values", shortText(c))
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

// LoadSnelson reads dir/snelson1d/{train_inputs,train_outputs} (200 points,
// 1-D) and returns the dataset, plus the 301 test inputs (no targets exist)
// from test_inputs.
func LoadSnelson(dataDir string) (train *Dataset, testX *Vectors, err error) {
	dir := filepath.Join(dataDir, "snelson1d")
	xs, err := readColumnFile(filepath.Join(dir, "train_inputs"))
	if err != nil {
		return nil, nil, err
	}
	ys, err := readColumnFile(filepath.Join(dir, "train_outputs"))
	if err != nil {
		return nil, nil, err
	}
	if len(xs) != len(ys) {
		return nil, nil, fmt.Errorf("sgp: %s: train_inputs has %d values but train_outputs has %d", dir, len(xs), len(ys))
	}
	ts, err := readColumnFile(filepath.Join(dir, "test_inputs"))
	if err != nil {
		return nil, nil, err
	}
	x, err := NewVectors(len(xs), 1, xs)
	if err != nil {
		return nil, nil, fmt.Errorf("sgp: %s: %w", dir, err)
	}
	testX, err = NewVectors(len(ts), 1, ts)
	if err != nil {
		return nil, nil, fmt.Errorf("sgp: %s: %w", dir, err)
	}
	return &Dataset{Name: "snelson1d", X: x, Y: ys}, testX, nil
}

// LoadKIN40K reads dir/kin40k/kin40k_{train,test}_{data,labels}.asc
// (whitespace separated floats): 10,000 training and 30,000 test points with
// 8 inputs each. The files are already standardised.
func LoadKIN40K(dataDir string) (train, test *Dataset, err error) {
	dir := filepath.Join(dataDir, "kin40k")
	load := func(part string) (*Dataset, error) {
		dataPath := filepath.Join(dir, "kin40k_"+part+"_data.asc")
		data, n, d, err := readMatrixFile(dataPath)
		if err != nil {
			return nil, err
		}
		y, err := readColumnFile(filepath.Join(dir, "kin40k_"+part+"_labels.asc"))
		if err != nil {
			return nil, err
		}
		if len(y) != n {
			return nil, fmt.Errorf("sgp: %s: kin40k_%s_data.asc has %d rows but kin40k_%s_labels.asc has %d", dir, part, n, part, len(y))
		}
		x, err := NewVectors(n, d, data)
		if err != nil {
			return nil, fmt.Errorf("sgp: %s: %w", dataPath, err)
		}
		return &Dataset{Name: "kin40k-" + part, X: x, Y: y}, nil
	}
	if train, err = load("train"); err != nil {
		return nil, nil, err
	}
	if test, err = load("test"); err != nil {
		return nil, nil, err
	}
	if train.X.Dim() != test.X.Dim() {
		return nil, nil, fmt.Errorf("sgp: %s: training inputs have %d columns but test inputs have %d", dir, train.X.Dim(), test.X.Dim())
	}
	return train, test, nil
}

// LoadKin8nm reads dir/kin8nm/data.txt and split k's index files
// index_{train,test}_k.txt (0-based row indices); features/target columns
// from index_features.txt / index_target.txt. Splits are numbered from 0 to
// the count in n_splits.txt minus one (0…19 for the standard data).
func LoadKin8nm(dataDir string, split int) (train, test *Dataset, err error) {
	dir := filepath.Join(dataDir, "kin8nm")
	if split < 0 {
		return nil, nil, fmt.Errorf("sgp: kin8nm split %d is negative", split)
	}
	ns, err := readColumnFile(filepath.Join(dir, "n_splits.txt"))
	if err != nil {
		return nil, nil, err
	}
	if len(ns) != 1 || float64(split) >= ns[0] {
		return nil, nil, fmt.Errorf("sgp: kin8nm split %d is out of range; %s lists %v splits, numbered from 0", split, filepath.Join(dir, "n_splits.txt"), ns)
	}
	dataPath := filepath.Join(dir, "data.txt")
	data, n, cols, err := readMatrixFile(dataPath)
	if err != nil {
		return nil, nil, err
	}
	feats, err := readIndexFile(filepath.Join(dir, "index_features.txt"), cols)
	if err != nil {
		return nil, nil, err
	}
	target, err := readIndexFile(filepath.Join(dir, "index_target.txt"), cols)
	if err != nil {
		return nil, nil, err
	}
	if len(target) != 1 {
		return nil, nil, fmt.Errorf("sgp: %s: expected one target column, found %d", filepath.Join(dir, "index_target.txt"), len(target))
	}
	load := func(part string) (*Dataset, error) {
		idx, err := readIndexFile(filepath.Join(dir, fmt.Sprintf("index_%s_%d.txt", part, split)), n)
		if err != nil {
			return nil, err
		}
		d := len(feats)
		xs := make([]float64, len(idx)*d)
		y := make([]float64, len(idx))
		for r, i := range idx {
			row := data[i*cols : (i+1)*cols]
			for t, c := range feats {
				xs[r*d+t] = row[c]
			}
			y[r] = row[target[0]]
		}
		x, err := NewVectors(len(idx), d, xs)
		if err != nil {
			return nil, fmt.Errorf("sgp: %s: %w", dataPath, err)
		}
		return &Dataset{Name: fmt.Sprintf("kin8nm-%s-%d", part, split), X: x, Y: y}, nil
	}
	if train, err = load("train"); err != nil {
		return nil, nil, err
	}
	if test, err = load("test"); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// snelsonF is the noise-free function behind SnelsonLike.
func snelsonF(x float64) float64 {
	return 1.1*math.Sin(3*x) + 0.5*math.Cos(7*x)*math.Exp(-0.2*x) - 0.35
}

// SnelsonLike generates an embedded Snelson-like 1-D regression problem that
// needs no download: n inputs drawn uniformly in [0, 6] (seeded, math/rand/v2
// with rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), targets f(x)+noise with
// f(x) = 1.1·sin(3x) + 0.5·cos(7x)·exp(−0.2x) − 0.35 (range about
// [−1.77, 1.03] on [0, 6]) and Gaussian noise of standard deviation 0.25.
// The result is deterministic for a given (n, seed). It also returns a
// regular test grid of 301 points on [−1, 7] with the noise-free f values as
// targets. It panics if n < 1.
func SnelsonLike(n int, seed uint64) (train *Dataset, test *Dataset) {
	if n < 1 {
		panic(fmt.Sprintf("sgp: SnelsonLike needs n ≥ 1, got %d", n))
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	xs := make([]float64, n)
	ys := make([]float64, n)
	for i := range xs {
		xs[i] = 6 * rng.Float64()
		ys[i] = snelsonF(xs[i]) + 0.25*rng.NormFloat64()
	}
	const m = 301
	gx := make([]float64, m)
	gy := make([]float64, m)
	for i := range gx {
		gx[i] = -1 + 8*float64(i)/(m-1)
		gy[i] = snelsonF(gx[i])
	}
	x, err := NewVectors(n, 1, xs)
	if err != nil {
		panic("sgp: SnelsonLike: " + err.Error()) // unreachable: all values are finite
	}
	g, err := NewVectors(m, 1, gx)
	if err != nil {
		panic("sgp: SnelsonLike: " + err.Error()) // unreachable: all values are finite
	}
	return &Dataset{Name: "snelson-like", X: x, Y: ys},
		&Dataset{Name: "snelson-like-grid", X: g, Y: gy}
}

// SyntheticARD generates a regression problem in d ≥ 3 input dimensions of
// which only three matter, the setting where automatic relevance
// determination must switch most inputs off: inputs uniform in [−1, 1]^d,
// targets
//
//	f(x) = sin(2x₀) + ½cos(3x₁) + x₀x₂
//
// plus Gaussian noise whose variance is 5% of f's variance over the
// inputs (about 0.9, so the noise standard deviation is 0.21). The test
// set of nTest points is drawn the same way, with noise. It is
// deterministic for a given (n, nTest, d, seed) and panics if n < 1,
// nTest < 1 or d < 3.
func SyntheticARD(n, nTest, d int, seed uint64) (train, test *Dataset) {
	if n < 1 || nTest < 1 || d < 3 {
		panic(fmt.Sprintf("sgp: SyntheticARD needs n, nTest ≥ 1 and d ≥ 3, got %d, %d, %d", n, nTest, d))
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d))
	f := func(x []float64) float64 {
		return math.Sin(2*x[0]) + 0.5*math.Cos(3*x[1]) + x[0]*x[2]
	}
	const noiseSD = 0.21
	gen := func(name string, n int) *Dataset {
		data := make([]float64, n*d)
		y := make([]float64, n)
		for i := range y {
			row := data[i*d : (i+1)*d]
			for t := range row {
				row[t] = 2*rng.Float64() - 1
			}
			y[i] = f(row) + noiseSD*rng.NormFloat64()
		}
		x, err := NewVectors(n, d, data)
		if err != nil {
			panic("sgp: SyntheticARD: " + err.Error()) // unreachable: all values are finite
		}
		return &Dataset{Name: name, X: x, Y: y}
	}
	return gen("synthetic-ard", n), gen("synthetic-ard-test", nTest)
}

// SyntheticDiscrete generates a regression problem with 26 inputs, the
// first 10 uniform in [−1, 1] and the other 16 taking the five values
// −1, −½, 0, ½, 1, where continuous inducing inputs are a poor model:
//
//	f(x) = sin(3x₀) + x₁x₂ + ½cos(2x₁₀) + 0.3·x₁₂x₃ + 0.7·[x₁₁ > 0]
//
// (an interaction with no main effect, a step in a discrete input) plus
// Gaussian noise of standard deviation 0.1. The test set of nTest points
// is drawn after the training set from the same stream. It is
// deterministic for a given (n, nTest, seed) and panics if n < 1 or
// nTest < 1.
func SyntheticDiscrete(n, nTest int, seed uint64) (train, test *Dataset) {
	if n < 1 || nTest < 1 {
		panic(fmt.Sprintf("sgp: SyntheticDiscrete needs n, nTest ≥ 1, got %d, %d", n, nTest))
	}
	const d = 26
	rng := rand.New(rand.NewPCG(seed, 77))
	gen := func(name string, n int) *Dataset {
		data := make([]float64, n*d)
		y := make([]float64, n)
		for i := range y {
			x := data[i*d : (i+1)*d]
			for t := range x {
				if t < 10 {
					x[t] = 2*rng.Float64() - 1
				} else {
					x[t] = float64(rng.IntN(5)-2) / 2
				}
			}
			y[i] = math.Sin(3*x[0]) + x[1]*x[2] + 0.5*math.Cos(2*x[10]) + 0.3*x[12]*x[3] + 0.1*rng.NormFloat64()
			if x[11] > 0 {
				y[i] += 0.7
			}
		}
		xv, err := NewVectors(n, d, data)
		if err != nil {
			panic("sgp: SyntheticDiscrete: " + err.Error()) // unreachable: all values are finite
		}
		return &Dataset{Name: name, X: xv, Y: y}
	}
	return gen("synthetic-discrete", n), gen("synthetic-discrete-test", nTest)
}
