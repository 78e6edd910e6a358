package mol_test

import (
	"math"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/mol"

	"github.com/cholqr/sgp/sgp/kernel"
)

// maxSMILESErrorLen bounds the length of the error message for s: 300
// bytes, and 100 more for a reaction, whose errors name the molecule at
// fault ("product 2 \"CXC\": …", its text at most 30 bytes, quoted).
func maxSMILESErrorLen(s string) int {
	if strings.Contains(s, ">") {
		return 400
	}
	return 300
}

// FuzzSMILES: any string either fails to parse with an error of bounded
// length, or gives a graph that the WL kernel and WL fingerprints with
// the Tanimoto kernel featurise into a finite, symmetric, unit-diagonal
// comparison with itself and with benzene.
func FuzzSMILES(f *testing.F) {
	for _, s := range []string{
		"CCO", "c1ccccc1", "C(=O)O", "[NH4+]", "C1CC%12CC1.C%12", "[13CH3-]", "N#N", "C/C=C\\C",
		"CC(C)(C)C(=O)[O-]", "c1ccc2c(c1)cccc2", "[Fe+3]", "((", "C1CC", "[", "C%", "CCO>>CC=O", "A.B~C",
		"CC(=O)O.OCC>[H+]>CC(=O)OCC.O", "[CH3:1][OH:2]>>[CH2:1]=[O:2]", "Brc1ccccc1~[Na+]>[Cl-]~[Na+]>c1ccccc1", "[Na+]~[Cl-]",
		"C>C", ">>>", ">>C", "C>>", "C..C>>C", "C1>>C1", "C~", "C>[Pd>C",
		strings.Repeat("C", 500), strings.Repeat("(", 200),
	} {
		f.Add(s)
	}
	benzene, err := mol.ParseSMILES("c1ccccc1")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := mol.ParseSMILES(s)
		if err != nil {
			if len(err.Error()) > maxSMILESErrorLen(s) {
				t.Fatalf("error message of %d bytes", len(err.Error()))
			}
			return
		}
		if g == nil {
			t.Fatal("nil graph without an error")
		}
		gs, err := kernel.NewGraphs([]*kernel.Graph{g, benzene})
		if err != nil {
			t.Fatal(err)
		}
		check := func(name string, k kernel.Kernel, x kernel.Inputs) {
			col0, col1 := make([]float64, 2), make([]float64, 2)
			k.Column(col0, x, 0, 2, x, 0)
			k.Column(col1, x, 0, 2, x, 1)
			for _, v := range append(col0, col1...) {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < -1e-12 || v > 1+1e-12 {
					t.Fatalf("%s of %q: column values %v %v", name, s, col0, col1)
				}
			}
			if math.Abs(col0[1]-col1[0]) > 1e-12 {
				t.Fatalf("%s of %q: not symmetric: %v vs %v", name, s, col0[1], col1[0])
			}
		}
		check("WL", kernel.NewWL(3, 1), gs)
		check("Tanimoto", kernel.NewTanimoto(1), kernel.WLFingerprints(gs, 2))
	})
}
