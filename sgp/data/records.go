package data

import (
	"encoding/csv"
	"fmt"
	"io"
)

// EachRecord calls fn with each record r has left and the 1-based line
// of the input it starts on, until the records run out (it returns nil),
// r fails (it returns that error prefixed with "label: ") or fn returns an
// error (it returns that error). It is the read loop of the table readers
// built on package sgp, such as mol.ReadMoleculeCSV and the column mode of
// sgprepl fit. fn may keep rec only if r.ReuseRecord is false.
func EachRecord(r *csv.Reader, label string, fn func(rec []string, line int) error) error {
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		line, _ := r.FieldPos(0)
		if err := fn(rec, line); err != nil {
			return err
		}
	}
}
