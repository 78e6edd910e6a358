package mol_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/mol"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// smilesGraph renders a graph as "labels|u-v:bond …" with each edge's
// endpoints in increasing order and the edges sorted, for comparisons.
func smilesGraph(g *kernel.Graph) string {
	var edges []string
	for _, e := range g.Edges() {
		edges = append(edges, fmt.Sprintf("%d-%d:%d", min(e.U, e.V), max(e.U, e.V), e.Label))
	}
	slices.Sort(edges)
	return strings.Join(g.Labels(), " ") + "|" + strings.Join(edges, " ")
}

func TestParseSMILES(t *testing.T) {
	t.Parallel()
	// Expected graphs written by hand from the OpenSMILES 1.0 specification.
	const s, d, tr, q, ar = mol.BondSingle, mol.BondDouble, mol.BondTriple, mol.BondQuadruple, mol.BondAromatic
	for _, tc := range []struct {
		smiles string
		labels string
		edges  [][3]int
	}{
		{"C", "C", nil},
		{"CCO", "C C O", [][3]int{{0, 1, s}, {1, 2, s}}},
		{"C=C", "C C", [][3]int{{0, 1, d}}},
		{"C#N", "C N", [][3]int{{0, 1, tr}}},
		{"[Ga+]$[As-]", "Ga+ As-", [][3]int{{0, 1, q}}},
		{"ClCBr", "Cl C Br", [][3]int{{0, 1, s}, {1, 2, s}}},
		{"BrB", "Br B", [][3]int{{0, 1, s}}},
		{"FI", "F I", [][3]int{{0, 1, s}}},
		// Branches.
		{"CC(=O)O", "C C O O", [][3]int{{0, 1, s}, {1, 2, d}, {1, 3, s}}},
		{"CC(C)(C)C", "C C C C C", [][3]int{{0, 1, s}, {1, 2, s}, {1, 3, s}, {1, 4, s}}},
		{"C(C(C))C", "C C C C", [][3]int{{0, 1, s}, {1, 2, s}, {0, 3, s}}},
		// Ring closures.
		{"C1CCC1", "C C C C", [][3]int{{0, 1, s}, {1, 2, s}, {2, 3, s}, {0, 3, s}}},
		{"C=1CC1", "C C C", [][3]int{{0, 1, s}, {1, 2, s}, {0, 2, d}}},
		{"C1CC=1", "C C C", [][3]int{{0, 1, s}, {1, 2, s}, {0, 2, d}}},
		{"C=1CC=1", "C C C", [][3]int{{0, 1, s}, {1, 2, s}, {0, 2, d}}},
		{"C%12CC%12", "C C C", [][3]int{{0, 1, s}, {1, 2, s}, {0, 2, s}}},
		{"C%(123)CC%(123)", "C C C", [][3]int{{0, 1, s}, {1, 2, s}, {0, 2, s}}},
		{"C12CC1C2", "C C C C", [][3]int{{0, 1, s}, {1, 2, s}, {0, 2, s}, {2, 3, s}, {0, 3, s}}},
		{"C1CC1C1CC1", "C C C C C C", [][3]int{{0, 1, s}, {1, 2, s}, {0, 2, s}, {2, 3, s}, {3, 4, s}, {4, 5, s}, {3, 5, s}}},
		{"C(C1)C1", "C C C", [][3]int{{0, 1, s}, {0, 2, s}, {1, 2, s}}},
		// Aromatic atoms and bonds.
		{"c1ccccc1", "c c c c c c", [][3]int{{0, 1, ar}, {1, 2, ar}, {2, 3, ar}, {3, 4, ar}, {4, 5, ar}, {0, 5, ar}}},
		{"c1cc[nH]c1", "c c c n c", [][3]int{{0, 1, ar}, {1, 2, ar}, {2, 3, ar}, {3, 4, ar}, {0, 4, ar}}},
		{"c1ccoc1C", "c c c o c C", [][3]int{{0, 1, ar}, {1, 2, ar}, {2, 3, ar}, {3, 4, ar}, {0, 4, ar}, {4, 5, s}}},
		{"c:c", "c c", [][3]int{{0, 1, ar}}},
		{"[se]1cccc1", "se c c c c", [][3]int{{0, 1, ar}, {1, 2, ar}, {2, 3, ar}, {3, 4, ar}, {0, 4, ar}}},
		// Biphenyl: the implicit bond between the rings is single, written or not.
		{"c1ccccc1c1ccccc1", "c c c c c c c c c c c c", [][3]int{
			{0, 1, ar}, {1, 2, ar}, {2, 3, ar}, {3, 4, ar}, {4, 5, ar}, {0, 5, ar}, {5, 6, s},
			{6, 7, ar}, {7, 8, ar}, {8, 9, ar}, {9, 10, ar}, {10, 11, ar}, {6, 11, ar}}},
		{"c1ccccc1-c1ccccc1", "c c c c c c c c c c c c", [][3]int{
			{0, 1, ar}, {1, 2, ar}, {2, 3, ar}, {3, 4, ar}, {4, 5, ar}, {0, 5, ar}, {5, 6, s},
			{6, 7, ar}, {7, 8, ar}, {8, 9, ar}, {9, 10, ar}, {10, 11, ar}, {6, 11, ar}}},
		// Bracket atoms: isotopes, chirality, hydrogens, charges, classes.
		{"[NH4+]", "N+", nil},
		{"[O-]C", "O- C", [][3]int{{0, 1, s}}},
		{"[n+]1ccccc1", "n+ c c c c c", [][3]int{{0, 1, ar}, {1, 2, ar}, {2, 3, ar}, {3, 4, ar}, {4, 5, ar}, {0, 5, ar}}},
		{"N[C@@H](C)C(=O)O", "N C C C O O", [][3]int{{0, 1, s}, {1, 2, s}, {1, 3, s}, {3, 4, d}, {3, 5, s}}},
		{"[C@](F)(Cl)(Br)I", "C F Cl Br I", [][3]int{{0, 1, s}, {0, 2, s}, {0, 3, s}, {0, 4, s}}},
		{"[13CH4]", "C", nil},
		{"[2H][H]", "H H", [][3]int{{0, 1, s}}},
		{"[Fe+2]", "Fe+2", nil},
		{"[Fe++]", "Fe+2", nil},
		{"[O--]", "O-2", nil},
		{"[Cu+3]", "Cu+3", nil},
		{"[CH3:7]C", "C C", [][3]int{{0, 1, s}}},
		{"[Co@OH12]", "Co", nil},
		{"[Si](C)C", "Si C C", [][3]int{{0, 1, s}, {0, 2, s}}},
		{"[Sc]", "Sc", nil},
		{"Sc1ccccc1", "S c c c c c c", [][3]int{{0, 1, s}, {1, 2, ar}, {2, 3, ar}, {3, 4, ar}, {4, 5, ar}, {5, 6, ar}, {1, 6, ar}}},
		{"*C", "* C", [][3]int{{0, 1, s}}},
		{"[*]", "*", nil},
		// Stereo bonds are read as single bonds.
		{"F/C=C/F", "F C C F", [][3]int{{0, 1, s}, {1, 2, d}, {2, 3, s}}},
		{`F/C=C\F`, "F C C F", [][3]int{{0, 1, s}, {1, 2, d}, {2, 3, s}}},
		// Dot-disconnected parts, also inside ring closures.
		{"[Na+].[Cl-]", "Na+ Cl-", nil},
		{"C1.C1", "C C", [][3]int{{0, 1, s}}},
		{"CC.O", "C C O", [][3]int{{0, 1, s}}},
	} {
		t.Run(tc.smiles, func(t *testing.T) {
			g, err := mol.ParseSMILES(tc.smiles)
			if err != nil {
				t.Fatalf("ParseSMILES: %v", err)
			}
			var edges []kernel.Edge
			for _, e := range tc.edges {
				edges = append(edges, kernel.Edge{U: e[0], V: e[1], Label: e[2]})
			}
			want, err := kernel.NewGraph(strings.Fields(tc.labels), edges)
			if err != nil {
				t.Fatal(err)
			}
			if got, w := smilesGraph(g), smilesGraph(want); got != w {
				t.Errorf("ParseSMILES(%q)\n got %s\nwant %s", tc.smiles, got, w)
			}
		})
	}
}

func TestParseSMILESErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		smiles string
		pos    int // 0-based offset of the fault
		msg    string
	}{
		{"", 0, "empty"},
		{"C1CC", 1, "ring bond 1 is never closed"},
		{"CC(C", 2, "unclosed branch"},
		{"CC)C", 2, "unmatched ')'"},
		{"C()C", 1, "empty branch"},
		{"C((C))", 2, "no atom before it"},
		{"(C)C", 0, "no atom before it"},
		{"CC=", 2, "bond at the end"},
		{"=CC", 0, "no atom before it"},
		{"C-=C", 2, "two bond symbols"},
		{"C=(C)", 1, "bond before '('"},
		{"C(C=)C", 3, "end of a branch"},
		{"C11", 2, "itself"},
		{"C12CC12", 6, "already bonded"},
		{"C=1CCC#1", 7, "opened with one bond type and closed with another"},
		{"C%1C", 1, "two digits"},
		{"C%(12C", 1, "unclosed ring-closure"},
		{"C%()C", 1, "1 to 5 digits"},
		{"1CC", 0, "ring-closure number has no atom"},
		{"CXC", 1, `"X" is not an organic-subset atom`},
		{"CCa", 2, `"a" is not an organic-subset atom`},
		{"C[Xx]", 2, "unknown element"},
		{"C[C", 1, "unclosed bracket"},
		{"[]", 1, "no element symbol"},
		{"[12]", 3, "no element symbol"},
		{"[q]", 1, "not an aromatic atom"},
		{"[CH4+X]", 5, "unexpected 'X'"},
		{"[C@TH]", 5, "chirality class needs a number"},
		{"[C:]", 3, "atom class"},
		{"C..C", 2, "'.' has no atom"},
		{".C", 0, "'.' has no atom"},
		{"C.", 1, "'.' at the end"},
		{"C(.C)", 2, "'.' has no atom"},
		{"C=.C", 1, "bond before '.'"},
		{"C C", 1, "unexpected character ' '"},
	} {
		t.Run(tc.smiles, func(t *testing.T) {
			g, err := mol.ParseSMILES(tc.smiles)
			if err == nil {
				t.Fatalf("ParseSMILES(%q) = %s, want an error", tc.smiles, smilesGraph(g))
			}
			var se *mol.SMILESError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is a %T, want *mol.SMILESError", err, err)
			}
			if se.Pos != tc.pos || !strings.Contains(se.Msg, tc.msg) || se.SMILES != tc.smiles {
				t.Errorf("ParseSMILES(%q) error at %d %q, want at %d containing %q", tc.smiles, se.Pos, se.Msg, tc.pos, tc.msg)
			}
			if want := fmt.Sprintf("character %d", tc.pos+1); !strings.Contains(err.Error(), want) {
				t.Errorf("message %q does not name %s", err, want)
			}
		})
	}
}

// moleculeDataDir is the folder of the shared data sets (env SGP_DATA).
func moleculeDataDir() string { return data.Dir(filepath.Join("..", "..", "..", "shared", "data")) }

func TestReadMoleculeCSVRealData(t *testing.T) {
	t.Parallel()
	dir := moleculeDataDir()
	t.Run("thrombin", func(t *testing.T) {
		t.Parallel()
		train, test, err := mol.LoadThrombin(dir)
		if err != nil {
			if strings.Contains(err.Error(), "missing") {
				t.Skipf("thrombin data absent: %v", err)
			}
			t.Fatal(err)
		}
		// Counts from the data folder's SOURCE.md.
		if train.Len() != 2201 || test.Len() != 553 {
			t.Errorf("thrombin split %d/%d, want 2201/553", train.Len(), test.Len())
		}
		for _, m := range []*mol.Molecules{train, test} {
			if len(m.Y) != m.Len() || m.X.Len() != m.Len() || len(m.Lines) != m.Len() {
				t.Fatalf("%s: lengths %d %d %d %d", m.Name, m.Len(), len(m.Y), m.X.Len(), len(m.Lines))
			}
			for i, y := range m.Y {
				if y < 2.6 || y > 11.01 {
					t.Errorf("%s line %d: pKi %v outside the documented range [2.61, 11.0]", m.Name, m.Lines[i], y)
				}
			}
		}
		checkAtomBondCounts(t, train)
		checkAtomBondCounts(t, test)
		// The first data row (line 2) is a test molecule, the second a training one.
		if test.Lines[0] != 2 || train.Lines[0] != 3 {
			t.Errorf("first lines %d (test) and %d (train), want 2 and 3", test.Lines[0], train.Lines[0])
		}
	})
	t.Run("lipophilicity", func(t *testing.T) {
		t.Parallel()
		m, err := mol.LoadLipophilicity(dir)
		if err != nil {
			if strings.Contains(err.Error(), "missing") {
				t.Skipf("lipophilicity data absent: %v", err)
			}
			t.Fatal(err)
		}
		if m.Len() != 4200 {
			t.Errorf("%d molecules, want 4200", m.Len())
		}
		checkAtomBondCounts(t, m)
	})
}

// checkAtomBondCounts checks every graph of m against counts taken from its
// SMILES string by a method independent of the parser: one node per atom
// symbol, and atoms − parts + ring closures edges (a spanning forest of the
// parts plus one edge per ring closure).
func checkAtomBondCounts(t *testing.T, m *mol.Molecules) {
	t.Helper()
	for i, s := range m.SMILES {
		g := m.X.Graph(i)
		atoms, parts, rings := countAtomStarts(s), 1+strings.Count(s, "."), countRingClosures(s)
		if g.NumNodes() != atoms || g.NumEdges() != atoms-parts+rings {
			t.Errorf("line %d %s: %v, want %d nodes and %d edges", m.Lines[i], s, g, atoms, atoms-parts+rings)
		}
	}
}

// countRingClosures counts ring-closure pairs: digits outside brackets,
// with %nn counting as one.
func countRingClosures(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '[':
			in = true
		case c == ']':
			in = false
		case in:
		case c == '%':
			n++
			i += 2
		case c >= '0' && c <= '9':
			n++
		}
	}
	return n / 2
}

// countAtomStarts counts the atoms of a SMILES string by a method
// independent of the parser: bracket atoms, plus organic-subset letters
// outside brackets where Cl and Br count once.
func countAtomStarts(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '[':
			in = true
			n++
		case c == ']':
			in = false
		case in:
		case c == 'l' || c == 'r':
			// second letter of Cl, Br
		case strings.IndexByte("BCNOPSFIbcnops*", c) >= 0:
			n++
		}
	}
	return n
}

func TestReadMoleculeCSV(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mols.csv")
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("id,smiles,\"y [x]\",split\n1,CCO,1.5,train\n2,\"c1ccccc1\",2.5,test\n3,CC(=O)O,-1,train\n")
	m, err := mol.ReadMoleculeCSV(path, "smiles", "y [x]", func(row map[string]string) bool { return row["split"] == "train" })
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 2 || m.Y[0] != 1.5 || m.Y[1] != -1 || m.SMILES[1] != "CC(=O)O" || m.Lines[1] != 4 || m.Name != "mols" {
		t.Errorf("got %+v", m)
	}
	all, err := mol.ReadMoleculeCSV(path, "smiles", "", nil)
	if err != nil || all.Len() != 3 || all.Y != nil {
		t.Fatalf("without targets: %v, %+v", err, all)
	}
	sub := all.Subset([]int{2, 0})
	if sub.SMILES[0] != "CC(=O)O" || sub.Lines[1] != 2 || sub.X.Graph(1).NumNodes() != 3 {
		t.Errorf("Subset: %+v", sub)
	}

	// Unparsable rows are all reported, by line.
	write("smiles,y\nCCO,1\nC1CC,2\nCC,x\nCC,\nC(,3\nCC,4\n")
	_, err = mol.ReadMoleculeCSV(path, "smiles", "y", nil)
	var re *mol.RowErrors
	if !errors.As(err, &re) {
		t.Fatalf("error %v, want *mol.RowErrors", err)
	}
	var lines []int
	for _, r := range re.Rows {
		lines = append(lines, r.Row)
	}
	if !slices.Equal(lines, []int{3, 4, 5, 6}) {
		t.Errorf("bad lines %v, want [3 4 5 6]; error %v", lines, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "line 3: sgp: SMILES \"C1CC\"") || !strings.Contains(msg, "4 unreadable rows") {
		t.Errorf("message %q", msg)
	}

	for _, tc := range []struct{ content, smiles, target, want string }{
		{"smiles,y\nCC,1\n", "smi", "y", `no column "smi"`},
		{"smiles,y\nCC,1\n", "smiles", "z", `no column "z"`},
		{"", "smiles", "y", "empty file"},
		{"smiles,y\n", "smiles", "y", "no molecules"},
		{"smiles,y\nCC,1,2\n", "smiles", "y", "wrong number of fields"},
	} {
		write(tc.content)
		if _, err := mol.ReadMoleculeCSV(path, tc.smiles, tc.target, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("content %q: error %v, want %q", tc.content, err, tc.want)
		}
	}
	if _, err := mol.ReadMoleculeCSV(filepath.Join(dir, "none.csv"), "smiles", "y", nil); err == nil || !strings.Contains(err.Error(), "SGP_DATA") {
		t.Errorf("missing file: %v", err)
	}

	g, err := mol.GraphsFromSMILES([]string{"CC", " c1ccccc1 ", "C1"})
	if !errors.As(err, &re) || len(re.Rows) != 1 || re.Rows[0].Row != 2 || g != nil {
		t.Errorf("GraphsFromSMILES: %v", err)
	}
}
