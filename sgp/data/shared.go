package data

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/cholqr/sgp/sgp/kernel"
)

// Dir returns the directory holding the shared data sets: $SGP_DATA if
// set, else def.
func Dir(def string) string {
	if dir := os.Getenv("SGP_DATA"); dir != "" {
		return dir
	}
	return def
}

// dataHint is appended to errors about missing data files.
const dataHint = "set SGP_DATA to the folder holding snelson1d/, kin40k/, kin8nm/ …"

// LoadSnelson reads dir/snelson1d/{train_inputs,train_outputs} (200 points,
// 1-D) and returns the dataset, plus the 301 test inputs (no targets exist)
// from test_inputs.
func LoadSnelson(dataDir string) (train *Dataset, testX *kernel.Vectors, err error) {
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
	x, err := kernel.NewVectors(len(xs), 1, xs)
	if err != nil {
		return nil, nil, fmt.Errorf("sgp: %s: %w", dir, err)
	}
	testX, err = kernel.NewVectors(len(ts), 1, ts)
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
		x, err := kernel.NewVectors(n, d, data)
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
		x, err := kernel.NewVectors(len(idx), d, xs)
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
