package mol

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// Molecules is a regression data set of molecules: their graphs, read from
// SMILES, and real targets.
type Molecules struct {
	// Name identifies the data set in messages and reports.
	Name string
	// X holds the n molecular graphs (ParseSMILES).
	X *kernel.Graphs
	// Y holds the n targets (nil if none were read); Y[i] belongs to X.Graph(i).
	Y []float64
	// SMILES holds the n SMILES strings as read.
	SMILES []string
	// Lines holds the 1-based line of each molecule in the CSV file (the
	// header is line 1).
	Lines []int
}

// Len returns the number of molecules n.
func (m *Molecules) Len() int { return len(m.SMILES) }

// Subset returns the molecules idx in order. The graphs are shared (they
// are immutable); the slices are new.
func (m *Molecules) Subset(idx []int) *Molecules {
	out := &Molecules{Name: m.Name, X: m.X.Subset(idx).(*kernel.Graphs), SMILES: make([]string, len(idx)), Lines: make([]int, len(idx))}
	if m.Y != nil {
		out.Y = make([]float64, len(idx))
	}
	for r, i := range idx {
		out.SMILES[r], out.Lines[r] = m.SMILES[i], m.Lines[i]
		if m.Y != nil {
			out.Y[r] = m.Y[i]
		}
	}
	return out
}

// RowError is one row of a table that could not be read.
type RowError struct {
	Row int // 1-based line in the file, or the row index where there is no file
	Err error
}

// RowErrors lists every row of a table that could not be read, so that
// all of them can be fixed at once.
type RowErrors struct {
	Source string // the file or table
	What   string // what the row numbers count: "line" or "row"
	Rows   []RowError
}

// maxRowErrors is the number of rows RowErrors.Error describes.
const maxRowErrors = 10

// Error names the source, the number of bad rows and the first ten of
// them with their errors.
func (e *RowErrors) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sgp: %s: %d unreadable rows", e.Source, len(e.Rows))
	for t, r := range e.Rows {
		if t == maxRowErrors {
			fmt.Fprintf(&b, "; … and %d more", len(e.Rows)-maxRowErrors)
			break
		}
		fmt.Fprintf(&b, "; %s %d: %v", e.What, r.Row, r.Err)
	}
	return b.String()
}

// ReadMoleculeCSV reads molecules from a CSV file with a header row: the
// SMILES in column smilesColumn and the target in column targetColumn (no
// targets if targetColumn is ""). If filter is not nil, only the rows for
// which filter returns true are kept; it is given the row's cells by column
// name (for example, keep the rows whose "split" cell is "train").
//
// Every kept row must parse: if some do not (an unparsable SMILES, a
// missing or non-finite target), ReadMoleculeCSV returns a *RowErrors naming
// each by its line in the file. It also returns an error if the file cannot
// be read as CSV, lacks a named column, or has no kept rows.
func ReadMoleculeCSV(path, smilesColumn, targetColumn string, filter func(row map[string]string) bool) (*Molecules, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("sgp: molecule file %s is missing (set SGP_DATA to the folder holding the data sets): %w", path, err)
		}
		return nil, fmt.Errorf("sgp: cannot open molecule file: %w", err)
	}
	defer f.Close()
	base := filepath.Base(path)
	return readMolecules(f, path, strings.TrimSuffix(base, filepath.Ext(base)), smilesColumn, targetColumn, filter)
}

// readMolecules implements ReadMoleculeCSV on r; label names the source in
// errors.
func readMolecules(r io.Reader, label, name, smilesColumn, targetColumn string, filter func(map[string]string) bool) (*Molecules, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("sgp: %s: empty file; want a header row naming the columns", label)
		}
		return nil, fmt.Errorf("sgp: %s: %w", label, err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\uFEFF")
	}
	col := func(name string) (int, error) {
		for c, h := range header {
			if strings.TrimSpace(h) == name {
				return c, nil
			}
		}
		return -1, fmt.Errorf("sgp: %s: no column %q; the columns are %s", label, name, columnList(header))
	}
	sc, err := col(smilesColumn)
	if err != nil {
		return nil, err
	}
	tc := -1
	if targetColumn != "" {
		if tc, err = col(targetColumn); err != nil {
			return nil, err
		}
	}
	m := &Molecules{Name: name}
	var graphs []*kernel.Graph
	bad := &RowErrors{Source: label, What: "line"}
	row := make(map[string]string, len(header))
	err = data.EachRecord(cr, "sgp: "+label, func(rec []string, line int) error {
		if filter != nil {
			for c, h := range header {
				row[strings.TrimSpace(h)] = rec[c]
			}
			if !filter(row) {
				return nil
			}
		}
		smi := strings.TrimSpace(rec[sc])
		g, err := ParseSMILES(smi)
		if err != nil {
			bad.Rows = append(bad.Rows, RowError{line, err})
			return nil
		}
		var y float64
		if tc >= 0 {
			cell := strings.TrimSpace(rec[tc])
			if cell == "" {
				bad.Rows = append(bad.Rows, RowError{line, fmt.Errorf("empty target in column %q", targetColumn)})
				return nil
			}
			if y, err = strconv.ParseFloat(cell, 64); err != nil || math.IsNaN(y) || math.IsInf(y, 0) {
				bad.Rows = append(bad.Rows, RowError{line, fmt.Errorf("target %q in column %q is not a finite number", shortText(cell, 40), targetColumn)})
				return nil
			}
			m.Y = append(m.Y, y)
		}
		graphs = append(graphs, g)
		m.SMILES = append(m.SMILES, smi)
		m.Lines = append(m.Lines, line)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(bad.Rows) > 0 {
		return nil, bad
	}
	if len(graphs) == 0 {
		return nil, fmt.Errorf("sgp: %s: no molecules (after filtering)", label)
	}
	m.X, _ = kernel.NewGraphs(graphs) // cannot fail: non-empty, no nil graph
	return m, nil
}

// GraphsFromSMILES parses every SMILES string of smiles. If some do not
// parse it returns a *RowErrors naming each by its 0-based index.
func GraphsFromSMILES(smiles []string) (*kernel.Graphs, error) {
	graphs := make([]*kernel.Graph, len(smiles))
	bad := &RowErrors{Source: "SMILES", What: "row"}
	for i, s := range smiles {
		g, err := ParseSMILES(strings.TrimSpace(s))
		if err != nil {
			bad.Rows = append(bad.Rows, RowError{i, err})
		}
		graphs[i] = g
	}
	if len(bad.Rows) > 0 {
		return nil, bad
	}
	return kernel.NewGraphs(graphs)
}

// Thrombin file layout (MoleculeACE CHEMBL204_Ki.csv, see the data
// folder's SOURCE.md).
const (
	thrombinFile   = "thrombin_chembl204/CHEMBL204_Ki.csv"
	thrombinTarget = "y [pEC50/pKi]"
)

// LoadThrombin reads dir/thrombin_chembl204/CHEMBL204_Ki.csv, the 2,754
// thrombin (ChEMBL target CHEMBL204) inhibitors of MoleculeACE (van Tilborg,
// Alenicheva & Grisoni 2022), split by its column "split" into 2,201
// training and 553 test molecules, with target pKi (column
// "y [pEC50/pKi]", 9 − log₁₀ Ki/nM). It stands in for the BindingDB
// thrombin set of Cao et al. (2013), which is not public in that form.
func LoadThrombin(dataDir string) (train, test *Molecules, err error) {
	path := filepath.Join(dataDir, thrombinFile)
	load := func(part string) (*Molecules, error) {
		m, err := ReadMoleculeCSV(path, "smiles", thrombinTarget, func(row map[string]string) bool { return row["split"] == part })
		if err != nil {
			return nil, err
		}
		m.Name = "thrombin-" + part
		return m, nil
	}
	if train, err = load("train"); err != nil {
		return nil, nil, err
	}
	if test, err = load("test"); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// LoadLipophilicity reads dir/lipophilicity/Lipophilicity.csv: 4,200
// molecules (ChEMBL, AstraZeneca deposition; MoleculeNet) with target logD
// at pH 7.4 (column "exp"). It has no fixed split.
func LoadLipophilicity(dataDir string) (*Molecules, error) {
	m, err := ReadMoleculeCSV(filepath.Join(dataDir, "lipophilicity", "Lipophilicity.csv"), "smiles", "exp", nil)
	if err != nil {
		return nil, err
	}
	m.Name = "lipophilicity"
	return m, nil
}

// columnList quotes the names of a header row for an error message: each
// name at most 30 bytes, and at most 8 of them, with the number of the
// others, so that a header line of any length gives a short message.
func columnList(header []string) string {
	const most = 8
	var b strings.Builder
	for i, h := range header {
		if i == most {
			fmt.Fprintf(&b, " … (%d columns)", len(header))
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%q", shortText(h, 30))
	}
	return b.String()
}
