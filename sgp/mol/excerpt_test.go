package mol_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/mol"
)

// TestErrorsQuoteExcerpts: an unreadable cell or header of any length is
// quoted by a short excerpt in the errors of ReadMoleculeCSV and
// InputsFromCells, with the row still named.
func TestErrorsQuoteExcerpts(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Q", 5000)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wide := make([]string, 3000)
	for i := range wide {
		wide[i] = "column_" + strings.Repeat("w", 20)
	}
	type tc struct {
		name string
		err  error
		want string // a part the message must have
	}
	var cases []tc
	_, err := mol.ReadMoleculeCSV(write("target.csv", "smiles,y\nCCO,1\nCCN,"+long+"\n"), "smiles", "y", nil)
	cases = append(cases, tc{"ReadMoleculeCSV target", err, "line 3"})
	_, err = mol.ReadMoleculeCSV(write("smiles.csv", "smiles,y\nCCO,1\nC1CC"+long+",2\n"), "smiles", "y", nil)
	cases = append(cases, tc{"ReadMoleculeCSV SMILES", err, "line 3"})
	_, err = mol.ReadMoleculeCSV(write("wide.csv", strings.Join(wide, ",")+"\n"), "smiles", "", nil)
	cases = append(cases, tc{"ReadMoleculeCSV wide header", err, `no column "smiles"`})
	for _, spec := range []string{"rbf", "histogram", "wl", "tanimoto"} {
		cell := long
		if spec == "tanimoto" {
			cell = "1:2 3:" + strings.Repeat("9", 5000)
		}
		_, err = mol.InputsFromCells(spec, [][]string{{"1"}, {cell}})
		cases = append(cases, tc{"InputsFromCells " + spec, err, "row 1"})
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := c.err.Error()
		if !strings.Contains(msg, c.want) || len(msg) > 400 || strings.Contains(msg, strings.Repeat("Q", 60)) || strings.Contains(msg, strings.Repeat("9", 60)) {
			t.Errorf("%s: %d bytes, want a short message with %q: %.400q", c.name, len(msg), c.want, msg)
		}
	}
}
