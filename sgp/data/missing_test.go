package data

import (
	"errors"
	"strings"
	"testing"
)

// TestReadCSVMissing: rows with a missing value (empty, NaN, NA) are
// counted in one error that locates the first by line and column name;
// ReadOptions.DropMissing drops them and counts them in Dropped; a cell
// that is not a number names its column and wraps ErrNotNumber.
func TestReadCSVMissing(t *testing.T) {
	t.Parallel()
	in := "year,co2\n1958,315\n1959,\n1960,NaN\nNA,317\n1962,318\n"
	_, err := ReadCSV(strings.NewReader(in), "co2.csv")
	var me *MissingError
	if !errors.As(err, &me) || me.Rows != 3 || me.Line != 3 || me.Column != 2 || me.Name != "co2" {
		t.Fatalf("missing values: %v (%+v), want 3 rows, the first on line 3, column 2 (co2)", err, me)
	}
	if !strings.Contains(err.Error(), "3 rows have a missing value") || !strings.Contains(err.Error(), `column 2 ("co2")`) {
		t.Errorf("message %q", err)
	}
	d, err := ReadCSVWith(strings.NewReader(in), "co2", ReadOptions{DropMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 2 || d.Dropped != 3 || d.X.At(1, 0) != 1962 || d.Y[1] != 318 {
		t.Errorf("dropped: %d rows, %d dropped, last row %v %v; want 2, 3, 1962 318", d.Len(), d.Dropped, d.X.At(1, 0), d.Y[1])
	}
	if _, err := ReadCSVWith(strings.NewReader("x,y\n1,\n,2\n"), "all", ReadOptions{DropMissing: true}); !errors.As(err, &me) || me.Rows != 2 {
		t.Errorf("every row missing: %v, want a MissingError of 2 rows", err)
	}
	if _, err := ReadCSV(strings.NewReader("x,y\n1,+nan\n2,3\n"), "signed"); !errors.As(err, &me) || me.Rows != 1 {
		t.Errorf("+nan: %v, want a MissingError of 1 row", err)
	}
	_, err = ReadCSV(strings.NewReader("firm,year,value\nGeneral Motors,1935,10\n"), "g")
	if !errors.Is(err, ErrNotNumber) || !strings.Contains(err.Error(), `column 1 ("firm"): cannot parse "General Motors"`) {
		t.Errorf("text column: %v", err)
	}
}

// TestDatasetHTMLNames: the HTML table heads its columns with the CSV
// header's names, and with x0 … and y without them.
func TestDatasetHTMLNames(t *testing.T) {
	t.Parallel()
	d, err := ReadCSV(strings.NewReader("year,co2\n1958,315\n1959,316\n"), "co2")
	if err != nil {
		t.Fatal(err)
	}
	if h := d.HTML(); !strings.Contains(h, "<th>year</th><th>co2</th>") || strings.Contains(h, "<th>x0</th>") {
		t.Errorf("named: %s", h)
	}
	d, err = ReadCSV(strings.NewReader("1958,315\n1959,316\n"), "co2")
	if err != nil {
		t.Fatal(err)
	}
	if h := d.HTML(); !strings.Contains(h, "<th>x0</th><th>y</th>") {
		t.Errorf("unnamed: %s", h)
	}
}
