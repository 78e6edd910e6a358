package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitReactionColumn fits made-up reaction-yield data end to end: a
// column of reaction SMILES (reactants>agents>products, molecules joined
// by '.' or '~') read as graphs for the WL kernel and as WL fingerprints for
// the Tanimoto kernel, and checks that an unparsable reaction is reported
// by its line.
func TestFitReactionColumn(t *testing.T) {
	t.Parallel()
	// Buchwald–Hartwig-like aminations: aryl halide + amine, with a base,
	// a ligand and palladium as agents, to an aryl amine. Made up, as is
	// the yield.
	halides := []string{"Brc1ccc(C)cc1", "Clc1ccc(OC)cc1", "Brc1ccc(F)cc1", "Ic1ccc(C(F)(F)F)cc1", "Clc1ccc(C#N)cc1"}
	subst := []string{"C", "OC", "F", "C(F)(F)F", "C#N"}
	amines := []string{"Nc1ccccc1", "NCCCC", "C1CCNCC1", "Nc1ccncc1"}
	bases := []string{"CC(C)(C)[O-]~[Na+]", "O=C([O-])[O-]~[K+]~[K+]"}
	ligands := []string{"CC(C)(C)P(C(C)(C)C)C(C)(C)C", "c1ccc(P(c2ccccc2)c2ccccc2)cc1"}
	var b strings.Builder
	b.WriteString("id,rxn,yield\n")
	row := 0
	for i, h := range halides {
		for j, a := range amines {
			for k := 0; k < 2; k++ {
				agents := bases[k] + "." + ligands[(i+j)%2] + "~[Pd]"
				product := "c1cc(" + subst[i] + ")ccc1" + strings.Replace(a, "N", "N(", 1) + ")"
				if j == 1 || j == 3 {
					product = "c1cc(" + subst[i] + ")ccc1" + a
				}
				sep := "."
				if row%3 == 0 {
					sep = "~"
				}
				yield := 10*float64(i) + 7*float64(j) + 12*float64(k) + 3*math.Sin(float64(row))
				fmt.Fprintf(&b, "r%d,%s%s%s>%s>%s,%.3f\n", row, h, sep, a, agents, product, yield)
				row++
			}
		}
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "rxn.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kernel := range []string{"wl:2", "tanimoto:2"} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), []string{"fit", "--train", data, "--input-column", "rxn", "--target-column", "yield",
			"--kernel", kernel, "--m", "8", "--json", "--quiet"}, nil, &out, &errb)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", kernel, code, errb.String())
		}
		var rep map[string]any
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("%s: %v in %s", kernel, err, out.String())
		}
		if n, _ := rep["n"].(float64); n != 40 {
			t.Errorf("%s: n = %v, want 40", kernel, rep["n"])
		}
		if ind, _ := rep["inducing"].([]any); len(ind) != 8 {
			t.Errorf("%s: %d inducing points, want 8: %v", kernel, len(ind), rep["inducing"])
		}
	}

	// A malformed reaction is named by its line, molecule and character.
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("rxn,yield\nCC.O>>CCO,50\nCC>O,20\nCC>>C(C,30\n"), 0o644)
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"fit", "--train", bad, "--input-column", "rxn", "--target-column", "yield", "--kernel", "wl"}, nil, &out, &errb)
	msg := errb.String()
	if code == 0 || out.Len() != 0 || !strings.Contains(msg, "line 3") || !strings.Contains(msg, "line 4") ||
		!strings.Contains(msg, `character 6: product 1 "C(C": unclosed branch`) || !strings.Contains(msg, "character 3: a reaction has two '>'") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), msg)
	}
}
