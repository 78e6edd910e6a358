package mol_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/mol"

	"github.com/cholqr/sgp/sgp/kernel"
)

// TestParseReactionSMILES checks graphs of reactions written out by hand:
// reactant atoms first, then agents, then products, each label prefixed by
// its role, edges only within a molecule.
func TestParseReactionSMILES(t *testing.T) {
	t.Parallel()
	const s, d, ar = mol.BondSingle, mol.BondDouble, mol.BondAromatic
	for _, tc := range []struct {
		smiles string
		labels string
		edges  [][3]int
	}{
		{"CC>>C", "r:C r:C p:C", [][3]int{{0, 1, s}}},
		// Fischer esterification: acetic acid + ethanol, acid catalyst, to
		// ethyl acetate + water.
		{"CC(=O)O.OCC>[H+]>CC(=O)OCC.O", "r:C r:C r:O r:O r:O r:C r:C a:H+ p:C p:C p:O p:O p:C p:C p:O", [][3]int{
			{0, 1, s}, {1, 2, d}, {1, 3, s}, // acetic acid
			{4, 5, s}, {5, 6, s}, // ethanol
			{8, 9, s}, {9, 10, d}, {9, 11, s}, {11, 12, s}, {12, 13, s}, // ethyl acetate; water (14) alone
		}},
		// Hydrogenation over platinum.
		{"C=C.[H][H]>[Pt]>CC", "r:C r:C r:H r:H a:Pt p:C p:C", [][3]int{{0, 1, d}, {2, 3, s}, {5, 6, s}}},
		// Atom maps are atom classes, not represented.
		{"[CH3:1][OH:2]>>[CH2:1]=[O:2]", "r:C r:O p:C p:O", [][3]int{{0, 1, s}, {2, 3, d}}},
		// '~' separates like '.', in any part; an aromatic ring per role.
		{"Brc1ccccc1~[Na+]>[Cl-]~[Na+]>c1ccccc1", "r:Br r:c r:c r:c r:c r:c r:c r:Na+ a:Cl- a:Na+ p:c p:c p:c p:c p:c p:c", [][3]int{
			{0, 1, s}, {1, 2, ar}, {2, 3, ar}, {3, 4, ar}, {4, 5, ar}, {5, 6, ar}, {1, 6, ar},
			{10, 11, ar}, {11, 12, ar}, {12, 13, ar}, {13, 14, ar}, {14, 15, ar}, {10, 15, ar},
		}},
		// The same ring digit reused in every part opens a new ring each time.
		{"C1CC1>>C1CCC1", "r:C r:C r:C p:C p:C p:C p:C", [][3]int{{0, 1, s}, {1, 2, s}, {0, 2, s}, {3, 4, s}, {4, 5, s}, {5, 6, s}, {3, 6, s}}},
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
			checkDisjointUnion(t, tc.smiles, g)
		})
	}
}

// checkDisjointUnion checks that g, read from reaction rxn (no '.' or '~'
// inside brackets), is the union of its molecules parsed one by one: the
// same labels with the role prefixed, in order, and the same bonds, none
// joining two molecules.
func checkDisjointUnion(t *testing.T, rxn string, g *kernel.Graph) {
	t.Helper()
	var labels []string
	var edges []kernel.Edge
	perRole := make(map[string]int)
	for r, part := range strings.Split(rxn, ">") {
		if part == "" {
			continue
		}
		role := []string{"r:", "a:", "p:"}[r]
		for _, m := range strings.FieldsFunc(part, func(c rune) bool { return c == '.' || c == '~' }) {
			mg, err := mol.ParseSMILES(m)
			if err != nil {
				t.Fatalf("molecule %q of %q: %v", m, rxn, err)
			}
			off := len(labels)
			for _, l := range mg.Labels() {
				labels = append(labels, role+l)
			}
			for _, e := range mg.Edges() {
				edges = append(edges, kernel.Edge{U: e.U + off, V: e.V + off, Label: e.Label})
			}
			perRole[role] += mg.NumNodes()
		}
	}
	want, err := kernel.NewGraph(labels, edges)
	if err != nil {
		t.Fatal(err)
	}
	if got, w := smilesGraph(g), smilesGraph(want); got != w {
		t.Errorf("%q is not the union of its molecules:\n got %s\nwant %s", rxn, got, w)
	}
	for role, n := range perRole {
		count := 0
		for _, l := range g.Labels() {
			if strings.HasPrefix(l, role) {
				count++
			}
		}
		if count != n {
			t.Errorf("%q: %d atoms labelled %s, want %d", rxn, count, role, n)
		}
	}
}

// TestReactionTildeIsDot checks that '~' separates molecules exactly like
// '.', in plain SMILES and in every part of a reaction, and that plain
// SMILES keep their labels without a role.
func TestReactionTildeIsDot(t *testing.T) {
	t.Parallel()
	for _, tilde := range []string{
		"[Na+]~[Cl-]",
		"CC(=O)O~CC(=O)O~[Pd]",
		"C1~C1",
		"Clc1ccccc1~Nc1ccccc1>CC(C)(C)[O-]~[Na+]~CC(C)(C)P(C(C)(C)C)C(C)(C)C~[Pd]>c1ccccc1Nc1ccccc1~[Na+]~[Cl-]",
		"CC~O.N>>CC.O~N",
	} {
		dot := strings.ReplaceAll(tilde, "~", ".")
		gt, err := mol.ParseSMILES(tilde)
		if err != nil {
			t.Fatalf("%q: %v", tilde, err)
		}
		gd, err := mol.ParseSMILES(dot)
		if err != nil {
			t.Fatalf("%q: %v", dot, err)
		}
		if smilesGraph(gt) != smilesGraph(gd) {
			t.Errorf("%q and %q differ:\n%s\n%s", tilde, dot, smilesGraph(gt), smilesGraph(gd))
		}
		if !strings.Contains(tilde, ">") && strings.Contains(strings.Join(gt.Labels(), " "), ":") {
			t.Errorf("plain %q has role labels %v", tilde, gt.Labels())
		}
	}
}

// TestReactionRolesInWL checks that the WL kernel tells the roles apart:
// the same molecules with reactants and products swapped compare below 1,
// whereas a plain mixture written in either order compares exactly 1.
func TestReactionRolesInWL(t *testing.T) {
	t.Parallel()
	k := func(a, b string) float64 {
		ga, err := mol.ParseSMILES(a)
		if err != nil {
			t.Fatal(err)
		}
		gb, err := mol.ParseSMILES(b)
		if err != nil {
			t.Fatal(err)
		}
		gs, err := kernel.NewGraphs([]*kernel.Graph{ga, gb})
		if err != nil {
			t.Fatal(err)
		}
		col := make([]float64, 2)
		kernel.NewWL(2, 1).Column(col, gs, 0, 2, gs, 1)
		return col[0]
	}
	if v := k("CCO.CC=O", "CC=O.CCO"); v < 1-1e-12 {
		t.Errorf("plain mixtures in either order: k = %v, want 1", v)
	}
	// Same atoms in each role (2 C, 1 O), so depth 0 agrees; the bonds
	// around them differ with the role.
	if v := k("CCO>>CC=O", "CC=O>>CCO"); v > 0.9 {
		t.Errorf("reaction and its reverse: k = %v, want the roles to keep them apart", v)
	}
	if v := k("CCO>>CC=O", "CCO>[Cu]>CC=O"); v >= 1 || v < 0.5 {
		t.Errorf("reaction with and without an agent: k = %v, want close to but below 1", v)
	}
}

func TestParseReactionSMILESErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("C", 50)
	for _, tc := range []struct {
		smiles string
		pos    int // 0-based offset of the fault in the whole string
		msg    string
	}{
		{"A>B", 1, "two '>'"},
		{"CC>O", 2, "this has one"},
		{">>>", 2, "a third '>'"},
		{"C>C>C>C", 5, "a third '>'"},
		{">>C", 0, "no reactants"},
		{">C>C", 0, "no reactants"},
		{"C>>", 2, "no products"},
		{"C>C>", 3, "no products"},
		{"CC..O>>C", 3, "the reactants: '.' has no atom before it"},
		{"CC~~O>>C", 3, "the reactants: '~' has no atom before it"},
		{"CC.>>O", 2, "the reactants: '.' at the end"},
		{"C>.C>O", 2, "the agents: '.' has no atom before it"},
		{"C>>O.~C", 5, "the products: '~' has no atom before it"},
		{"CC(C>>C", 2, `reactant 1 "CC(C": unclosed branch`},
		{"C.C1CC>>C", 3, `reactant 2 "C1CC": ring bond 1 is never closed`},
		{"C1.C>>C1", 1, `reactant 1 "C1": ring bond 1 is never closed`},
		{"CC>[Pd>C", 3, `agent 1 "[Pd": unclosed bracket`},
		{"CC>>O.CXC", 7, `product 2 "CXC": "X" is not an organic-subset atom`},
		{"CC>>O.C=", 7, `product 2 "C=": bond at the end`},
		{"CC>> O", 4, `product 1 " O": unexpected character ' '`},
		{"C>>" + long + "X", 53, `product 1 "` + long[:24] + `…": "X" is not`},
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

// FuzzReactionSMILES joins three strings into a reaction a>b>c: it parses
// exactly when a and c parse as plain SMILES and b is empty or does, into
// their union with role labels; writing '~' for every '.' changes nothing.
func FuzzReactionSMILES(f *testing.F) {
	for _, s := range [][3]string{
		{"CC(=O)O.OCC", "[H+]", "CC(=O)OCC.O"},
		{"Brc1ccccc1~Nc1ccccc1", "", "c1ccc(cc1)Nc1ccccc1"},
		{"[CH3:1][OH:2]", "[Cu]", "[CH2:1]=[O:2]"},
		{"C1.C1", "", "CC"},
		{"", "", "C"},
		{"C", "C>", "C"},
		{"C.", "~C", "(C)"},
		{"[Na+]~[Cl-]", "O", "[Na+].[Cl-]"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		rxn := a + ">" + b + ">" + c
		g, err := mol.ParseSMILES(rxn)
		var want []string
		ok := !strings.Contains(a+b+c, ">")
		for r, part := range []string{a, b, c} {
			if r == 1 && part == "" {
				continue
			}
			pg, perr := mol.ParseSMILES(part)
			if perr != nil {
				ok = false
				break
			}
			for _, l := range pg.Labels() {
				want = append(want, []string{"r:", "a:", "p:"}[r]+l)
			}
		}
		if err != nil {
			if ok {
				t.Fatalf("%q fails (%v) though its parts parse", rxn, err)
			}
			var se *mol.SMILESError
			if !errors.As(err, &se) || se.Pos < 0 || se.Pos >= len(rxn) || se.SMILES != rxn {
				t.Fatalf("%q: error %v", rxn, err)
			}
			if len(err.Error()) > maxSMILESErrorLen(rxn) {
				t.Fatalf("error message of %d bytes", len(err.Error()))
			}
		} else {
			if !ok {
				t.Fatalf("%q parses though a part does not", rxn)
			}
			if got := strings.Join(g.Labels(), " "); got != strings.Join(want, " ") {
				t.Fatalf("%q: labels %s, want %s", rxn, got, strings.Join(want, " "))
			}
		}
		tilde := strings.ReplaceAll(rxn, ".", "~")
		gt, errt := mol.ParseSMILES(tilde)
		switch {
		case (err == nil) != (errt == nil):
			t.Fatalf("%q: %v but %q: %v", rxn, err, tilde, errt)
		case err == nil && smilesGraph(g) != smilesGraph(gt):
			t.Fatalf("%q and %q differ", rxn, tilde)
		case err != nil && err.(*mol.SMILESError).Pos != errt.(*mol.SMILESError).Pos:
			t.Fatalf("%q: %v but %q: %v", rxn, err, tilde, errt)
		}
	})
}
