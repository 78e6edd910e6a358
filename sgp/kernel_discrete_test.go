package sgp_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/mol"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/internal/kerneltest"
)

// testSMILES are 40 small molecules written by hand (solvents, drugs,
// aromatics), one of them twice in different atom orders.
var testSMILES = []string{
	"CCO", "CC(=O)O", "c1ccccc1", "Cc1ccccc1", "Oc1ccccc1", "CC(C)O", "CCN(CC)CC", "C1CCCCC1",
	"C1CCNCC1", "c1ccncc1", "c1ccc2ccccc2c1", "CC(=O)Nc1ccc(O)cc1", "CC(C)Cc1ccc(cc1)C(C)C(=O)O",
	"CN1C=NC2=C1C(=O)N(C(=O)N2C)C", "OC(=O)c1ccccc1O", "CC(=O)Oc1ccccc1C(=O)O", "NCCc1ccc(O)c(O)c1",
	"C[N+](C)(C)C", "[O-][N+](=O)c1ccccc1", "ClC(Cl)Cl", "FC(F)(F)c1ccccc1", "CCOC(=O)C", "CC#N",
	"C=CC=C", "O=C1CCCC1", "c1ccoc1", "c1ccsc1", "c1cc[nH]c1", "NC(=O)N", "CCCCCCCC", "CCCCCCCCO",
	"OCC(O)CO", "C1=CC=CC=C1", "Brc1ccccc1", "Ic1ccccc1", "CS(=O)(=O)N", "N#Cc1ccccc1",
	"CC(C)(C)OC(=O)N", "O=C(O)CCC(=O)O", "OCC",
}

func mustGraphs(t testing.TB, smiles []string) *sgp.Graphs {
	t.Helper()
	gs, err := mol.GraphsFromSMILES(smiles)
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

// testGraphs returns the test molecules with an empty graph and a graph of
// integer-coded nodes appended.
func testGraphs(t testing.TB) *sgp.Graphs {
	t.Helper()
	var gs []*sgp.Graph
	for _, s := range testSMILES[:38] {
		g, err := mol.ParseSMILES(s)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
	}
	empty, err := sgp.NewGraph(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	coded, err := sgp.NewGraphCodes([]int{1, 2, 1}, []sgp.Edge{{U: 0, V: 1, Label: 7}, {U: 1, V: 2, Label: 7}})
	if err != nil {
		t.Fatal(err)
	}
	x, err := sgp.NewGraphs(append(gs, empty, coded))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// randomHistograms returns n items of channels with the given bin counts;
// bins are zero with probability 1/3, else uniform in [0, 3).
func randomHistograms(t testing.TB, rnd *rand.Rand, n int, bins []int) *sgp.Histograms {
	items := make([][][]float64, n)
	for i := range items {
		items[i] = make([][]float64, len(bins))
		for c, b := range bins {
			items[i][c] = make([]float64, b)
			for t := range items[i][c] {
				if rnd.IntN(3) > 0 {
					items[i][c][t] = 3 * rnd.Float64()
				}
			}
		}
	}
	h, err := sgp.NewHistograms(items)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// randomStrings returns n strings over alphabet of lengths 0…maxLen.
func randomStrings(rnd *rand.Rand, n, maxLen int, alphabet string) []string {
	s := make([]string, n)
	for i := range s {
		b := make([]byte, rnd.IntN(maxLen+1))
		for t := range b {
			b[t] = alphabet[rnd.IntN(len(alphabet))]
		}
		s[i] = string(b)
	}
	return s
}

// randomCounts returns n sparse count vectors with indices in [0, 40),
// including the zero vector and a repeated vector.
func randomCounts(t testing.TB, rnd *rand.Rand, n int) *sgp.SparseCounts {
	items := make([]map[int]float64, n)
	for i := range items {
		items[i] = make(map[int]float64)
		if i == 0 {
			continue // the zero vector
		}
		for range rnd.IntN(12) {
			items[i][rnd.IntN(40)] = float64(1 + rnd.IntN(4))
		}
		if i%7 == 0 {
			items[i][3] = 0.5 // a fractional count
		}
	}
	items[n-1] = items[n-2]
	sc, err := sgp.SparseCountsFromMaps(items)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func mustStrings(t testing.TB, s []string) *sgp.Strings {
	t.Helper()
	x, err := sgp.NewStrings(s)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// column returns κ(x_i, y_j) through Column.
func column(k sgp.Kernel, x sgp.Inputs, i int, y sgp.Inputs, j int) float64 {
	dst := make([]float64, 1)
	k.Column(dst, x, i, i+1, y, j)
	return dst[0]
}

func checkValue(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !scalar.EqualWithinAbsOrRel(got, want, 1e-14, 1e-14) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestDiscreteKernelsConformance(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 1))
	graphs := testGraphs(t)
	strs := mustStrings(t, randomStrings(rnd, 33, 12, "abc"))
	for _, tc := range []struct {
		name string
		k    sgp.Kernel
		x    sgp.Inputs
	}{
		{"histogram,C=1", sgp.NewHistogramIntersection([]float64{0.7}), randomHistograms(t, rnd, 33, []int{6})},
		{"histogram,C=3", sgp.NewHistogramIntersection([]float64{0.3, 2, 1.1}), randomHistograms(t, rnd, 33, []int{4, 1, 7})},
		{"spectrum,k=1", sgp.NewSpectrum(1, 1.3), strs},
		{"spectrum,k=3", sgp.NewSpectrum(3, 0.4), strs},
		{"spectrum,k=8", sgp.NewSpectrum(8, 2), mustStrings(t, randomStrings(rnd, 33, 14, "ab"))},
		{"tanimoto", sgp.NewTanimoto(1.7), randomCounts(t, rnd, 33)},
		{"tanimoto,fingerprints", sgp.NewTanimoto(0.5), sgp.WLFingerprints(graphs, 2)},
		{"wl,h=0", sgp.NewWL(0, 1), graphs},
		{"wl,h=3", sgp.NewWL(3, 2.5), graphs},
		{"wl-per-depth,h=2", sgp.NewWLPerDepth([]float64{0.2, 0.5, 1.5}), graphs},
		{"sum,wl", sgp.NewSum(sgp.NewWL(1, 0.3), sgp.NewWLPerDepth([]float64{0.2, 0.5, 1.5, 0.1})), graphs},
		{"sum,spectra", sgp.NewSum(sgp.NewSpectrum(1, 0.5), sgp.NewSpectrum(2, 0.8), sgp.NewSpectrum(3, 1.1)), strs},
		{"func", sgp.NewFuncKernel(lengthKernel, 1.9), strs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			kerneltest.Test(t, tc.k, tc.x)
		})
	}
}

// lengthKernel is exp(−|len s − len t|/4), the Laplace kernel on string
// lengths (positive semi-definite).
func lengthKernel(x sgp.Inputs, i int, y sgp.Inputs, j int) float64 {
	a, b := x.(*sgp.Strings).At(i), y.(*sgp.Strings).At(j)
	return math.Exp(-math.Abs(float64(len(a)-len(b))) / 4)
}

func TestHistogramIntersectionValues(t *testing.T) {
	t.Parallel()
	x, err := sgp.NewHistograms([][][]float64{
		{{1, 2}, {3}},
		{{2, 1}, {0}},
		{{0, 0}, {0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	k := sgp.NewHistogramIntersection([]float64{0.5, 2})
	// By hand: κ = 0.5·(min(1,2) + min(2,1)) + 2·min(3,0) = 1, and so on.
	want := [3][3]float64{{7.5, 1, 0}, {1, 1.5, 0}, {0, 0, 0}}
	for i := range 3 {
		for j := range 3 {
			checkValue(t, fmt.Sprintf("κ(x%d, x%d)", i, j), column(k, x, i, x, j), want[i][j])
		}
	}
	diag := make([]float64, 3)
	k.Diag(diag, x, 0, 3)
	for i, v := range diag {
		checkValue(t, fmt.Sprintf("Diag[%d]", i), v, want[i][i])
	}
	grad := make([]float64, 2)
	k.AddGrad(grad, []float64{1}, x, 0, 1, x, []int{1})
	checkValue(t, "∂κ(x0,x1)/∂log V₀", grad[0], 1)
	checkValue(t, "∂κ(x0,x1)/∂log V₁", grad[1], 0)
	if k.Accepts(x) != nil || k.Accepts(mustStrings(t, []string{"a"})) == nil || sgp.NewHistogramIntersection([]float64{1}).Accepts(x) == nil {
		t.Errorf("Accepts does not check the input type and channel count")
	}

	// From data: mean diagonal var(y), channels weighted alike.
	y := []float64{1, 3, 2}
	kd := sgp.NewHistogramIntersectionFromData(x, y)
	kd.Diag(diag, x, 0, 3)
	checkValue(t, "mean diagonal", (diag[0]+diag[1]+diag[2])/3, 2.0/3)
}

func TestSpectrumValues(t *testing.T) {
	t.Parallel()
	for _, k := range []int{2, 9} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			t.Parallel()
			const V = 1.5
			kern := sgp.NewSpectrum(k, V)
			var x *sgp.Strings
			if k == 2 {
				x = mustStrings(t, []string{"abab", "bab", "a", "a", "b", "", "xyz"})
			} else {
				// Nine-byte k-mers: "aaaaaaaaab" has the 9-mers a⁹ and a⁸b.
				x = mustStrings(t, []string{"aaaaaaaaabaaaaaaaab", "aaaaaaaab", "a", "a", "b", "", "zzzzzzzzzz"})
			}
			// By hand, k = 2: φ(abab) = {ab: 2, ba: 1}, φ(bab) = {ab: 1, ba: 1},
			// ⟨·,·⟩ = 3, norms √5 and √2. For k = 9: φ(x₀) = {a⁸b: 2,
			// a⁷ba: 1, …}: x₀ has 11 9-mers, a⁸b twice and 9 others once;
			// φ(x₁) = {a⁸b: 1}; ⟨·,·⟩ = 2, ‖φ(x₀)‖² = 4 + 9 = 13.
			k01 := V * 3 / math.Sqrt(10)
			if k == 9 {
				k01 = V * 2 / math.Sqrt(13)
			}
			checkValue(t, "κ(x0, x1)", column(kern, x, 0, x, 1), k01)
			checkValue(t, "κ(x1, x0)", column(kern, x, 1, x, 0), k01)
			for i := range x.Len() {
				checkValue(t, fmt.Sprintf("κ(x%d, x%d)", i, i), column(kern, x, i, x, i), V)
			}
			// Strings shorter than k: equal ones are alike, others orthogonal.
			checkValue(t, "κ(a, a)", column(kern, x, 2, x, 3), V)
			checkValue(t, "κ(a, b)", column(kern, x, 2, x, 4), 0)
			checkValue(t, "κ(a, empty)", column(kern, x, 2, x, 5), 0)
			checkValue(t, "κ(a, x0)", column(kern, x, 2, x, 0), 0)
			checkValue(t, "κ(x6, x0)", column(kern, x, 6, x, 0), 0)
			// Test strings featurised separately agree with the training set.
			y := mustStrings(t, []string{x.At(1), "a"})
			checkValue(t, "κ(x0, y0)", column(kern, x, 0, y, 0), k01)
			checkValue(t, "κ(x3, y1)", column(kern, x, 3, y, 1), V)
		})
	}
}

func TestTanimotoValues(t *testing.T) {
	t.Parallel()
	x, err := sgp.NewSparseCounts([][]int{{1, 3}, {1, 2}, {}, {}, {0, 5}}, [][]float64{{2, 1}, {1, 4}, {}, {}, {1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	const V = 0.8
	k := sgp.NewTanimoto(V)
	// By hand: Σmin = min(2,1) = 1, Σmax = 2 + 4 + 1 = 7.
	checkValue(t, "κ(a, b)", column(k, x, 0, x, 1), V/7)
	checkValue(t, "κ(b, a)", column(k, x, 1, x, 0), V/7)
	checkValue(t, "κ(a, a)", column(k, x, 0, x, 0), V)
	checkValue(t, "κ(0, 0)", column(k, x, 2, x, 3), V)
	checkValue(t, "κ(0, a)", column(k, x, 2, x, 0), 0)
	checkValue(t, "κ(a, e)", column(k, x, 0, x, 4), 0)
	// Binary fingerprints: Jaccard |A∩B|/|A∪B| = 1/3.
	bin, err := sgp.NewSparseCounts([][]int{{1, 2}, {2, 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkValue(t, "Jaccard", column(k, bin, 0, bin, 1), V/3)
	ix, vx := x.Item(1)
	if fmt.Sprint(ix, vx) != "[1 2] [1 4]" {
		t.Errorf("Item(1) = %v %v", ix, vx)
	}
}

func TestWLValues(t *testing.T) {
	t.Parallel()
	ab, _ := sgp.NewGraph([]string{"A", "B"}, []sgp.Edge{{U: 0, V: 1, Label: 1}})
	a, _ := sgp.NewGraph([]string{"A"}, nil)
	ba, _ := sgp.NewGraph([]string{"B", "A"}, []sgp.Edge{{U: 1, V: 0, Label: 1}})
	abDouble, _ := sgp.NewGraph([]string{"A", "B"}, []sgp.Edge{{U: 0, V: 1, Label: 2}})
	empty, _ := sgp.NewGraph(nil, nil)
	x, err := sgp.NewGraphs([]*sgp.Graph{ab, a, ba, abDouble, empty, empty})
	if err != nil {
		t.Fatal(err)
	}
	const V = 2.0
	k := sgp.NewWL(1, V)
	// By hand, h = 1: φ(A–B) = {A, B, A|B, B|A}, φ(A) = {A, A|∅}: one
	// common label, norms² 4 and 2. A=B shares the depth-0 labels only.
	checkValue(t, "κ(A–B, A)", column(k, x, 0, x, 1), V/math.Sqrt(8))
	checkValue(t, "κ(A–B, B–A)", column(k, x, 0, x, 2), V)
	checkValue(t, "κ(A–B, A=B)", column(k, x, 0, x, 3), V/2)
	checkValue(t, "κ(empty, empty)", column(k, x, 4, x, 5), V)
	checkValue(t, "κ(empty, A)", column(k, x, 4, x, 1), 0)
	// h = 0 counts labels only: A=B and A–B are alike.
	checkValue(t, "h=0: κ(A–B, A=B)", column(sgp.NewWL(0, V), x, 0, x, 3), V)
	// One variance per depth: depth 0 gives 1/√2, depth 1 nothing.
	kd := sgp.NewWLPerDepth([]float64{0.5, 3})
	checkValue(t, "per depth: κ(A–B, A)", column(kd, x, 0, x, 1), 0.5/math.Sqrt(2))
	checkValue(t, "per depth: κ(A–B, A=B)", column(kd, x, 0, x, 3), 0.5)
	checkValue(t, "per depth: κ(A–B, A–B)", column(kd, x, 0, x, 0), 3.5)
	grad := make([]float64, 2)
	kd.AddGrad(grad, []float64{2}, x, 0, 1, x, []int{1})
	checkValue(t, "∂κ(A–B, A)/∂log V₀", grad[0], 2*0.5/math.Sqrt(2))
	checkValue(t, "∂κ(A–B, A)/∂log V₁", grad[1], 0)
	if got := kd.ParamNames(); fmt.Sprint(got) != "[variance[0] variance[1]]" {
		t.Errorf("ParamNames = %v", got)
	}

	// Molecules: the same molecule in another atom order is alike at every
	// depth; test graphs featurised apart from the training set agree.
	mols := mustGraphs(t, testSMILES)
	k3 := sgp.NewWL(3, 1)
	checkValue(t, "κ(CCO, OCC)", column(k3, mols, 0, mols, 39), 1)
	test := mustGraphs(t, []string{"CC(C)Cc1ccc(cc1)C(C)C(=O)O", "OCC"})
	checkValue(t, "κ(ibuprofen, ibuprofen from another set)", column(k3, mols, 12, test, 0), 1)
	checkValue(t, "κ(CCO, OCC from another set)", column(k3, mols, 0, test, 1), 1)
	// Kekulé and aromatic benzene differ (no aromaticity perception).
	if v := column(k3, mols, 2, mols, 32); v > 0.5 {
		t.Errorf("κ(c1ccccc1, C1=CC=CC=C1) = %v; the bond labels should differ", v)
	}
}

func TestWLFingerprint(t *testing.T) {
	t.Parallel()
	g, err := mol.ParseSMILES("CC(=O)Oc1ccccc1C(=O)O")
	if err != nil {
		t.Fatal(err)
	}
	for h := range 4 {
		ix, counts := sgp.WLFingerprint(g, h)
		var total float64
		for t2, k := range ix {
			if k < 0 || k >= 1<<31 || (t2 > 0 && k <= ix[t2-1]) {
				t.Fatalf("h=%d: indices %v not increasing in [0, 2³¹)", h, ix)
			}
			total += counts[t2]
		}
		// One label per atom per depth (13 heavy atoms).
		if total != float64(13*(h+1)) {
			t.Errorf("h=%d: %v labels, want %d", h, total, 13*(h+1))
		}
	}
	ix, _ := sgp.WLFingerprint(g, 0)
	if len(ix) != 3 {
		t.Errorf("h=0: %d distinct labels, want 3 (C, O, c)", len(ix))
	}
}

func TestSumAndFuncKernel(t *testing.T) {
	t.Parallel()
	x := mustStrings(t, []string{"abab", "bab", "a", "ab"})
	s1, s2 := sgp.NewSpectrum(1, 0.5), sgp.NewSpectrum(2, 2)
	sum := sgp.NewSum(s1, s2)
	if got := fmt.Sprint(sum.ParamNames()); got != "[k0.variance k1.variance]" {
		t.Errorf("ParamNames = %s", got)
	}
	for i := range 4 {
		for j := range 4 {
			checkValue(t, fmt.Sprintf("κ(x%d, x%d)", i, j), column(sum, x, i, x, j), column(s1, x, i, x, j)+column(s2, x, i, x, j))
		}
	}
	sum.SetParams([]float64{0, math.Log(3)})
	checkValue(t, "component 0 variance after Sum.SetParams", s1.Variance(), 1)
	checkValue(t, "component 1 variance after Sum.SetParams", s2.Variance(), 3)
	if !kerneltest.Panics(func() { sgp.NewSum(s1, s1) }) || !kerneltest.Panics(func() { sgp.NewSum() }) {
		t.Errorf("NewSum accepts a repeated component or none")
	}
	if err := sgp.NewSum(s1, sgp.NewWL(1, 1)).Accepts(x); err == nil || !strings.Contains(err.Error(), "component 1") {
		t.Errorf("Sum.Accepts = %v, want an error naming component 1", err)
	}

	calls := 0
	f := sgp.NewFuncKernel(func(x sgp.Inputs, i int, y sgp.Inputs, j int) float64 {
		calls++
		return lengthKernel(x, i, y, j)
	}, 2)
	checkValue(t, "V·f(abab, a)", column(f, x, 0, x, 2), 2*math.Exp(-0.75))
	if calls != 1 {
		t.Errorf("%d calls of f for one kernel value", calls)
	}
	if !kerneltest.Panics(func() { sgp.NewFuncKernel(nil, 1) }) || !kerneltest.Panics(func() { sgp.NewFuncKernel(lengthKernel, 0) }) {
		t.Errorf("NewFuncKernel accepts a nil function or a zero variance")
	}
}

func TestDiscreteInputsValidation(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"strings/empty", second(sgp.NewStrings(nil)), "no strings"},
		{"graphs/empty", second(sgp.NewGraphs(nil)), "no graphs"},
		{"graphs/nil", second(sgp.NewGraphs([]*sgp.Graph{nil})), "graph 0 is nil"},
		{"graph/range", second(sgp.NewGraph([]string{"a"}, []sgp.Edge{{U: 0, V: 1}})), "has 1 nodes"},
		{"graph/loop", second(sgp.NewGraph([]string{"a"}, []sgp.Edge{{U: 0, V: 0}})), "to itself"},
		{"graph/repeat", second(sgp.NewGraph([]string{"a", "b"}, []sgp.Edge{{U: 0, V: 1}, {U: 1, V: 0}})), "both join"},
		{"histograms/empty", second(sgp.NewHistograms(nil)), "no histograms"},
		{"histograms/no-channels", second(sgp.NewHistograms([][][]float64{{}})), "no channels"},
		{"histograms/no-bins", second(sgp.NewHistograms([][][]float64{{{}}})), "no bins"},
		{"histograms/ragged-channels", second(sgp.NewHistograms([][][]float64{{{1}, {2}}, {{1}}})), "item 1 has 1 channels"},
		{"histograms/ragged-bins", second(sgp.NewHistograms([][][]float64{{{1, 2}}, {{1}}})), "channel 0 has 1 bins"},
		{"histograms/negative", second(sgp.NewHistograms([][][]float64{{{1, -2}}})), "bin 1 is -2"},
		{"histograms/nan", second(sgp.NewHistograms([][][]float64{{{nan}}})), "is NaN"},
		{"histograms/inf", second(sgp.NewHistograms([][][]float64{{{math.Inf(1)}}})), "is +Inf"},
		{"counts/empty", second(sgp.NewSparseCounts(nil, nil)), "no sparse"},
		{"counts/lists", second(sgp.NewSparseCounts([][]int{{1}}, [][]float64{{1}, {2}})), "1 index lists but 2"},
		{"counts/lengths", second(sgp.NewSparseCounts([][]int{{1, 2}}, [][]float64{{1}})), "2 indices but 1 values"},
		{"counts/negative-index", second(sgp.NewSparseCounts([][]int{{-1}}, nil)), "negative index"},
		{"counts/unsorted", second(sgp.NewSparseCounts([][]int{{2, 1}}, nil)), "strictly increasing"},
		{"counts/repeated", second(sgp.NewSparseCounts([][]int{{2, 2}}, nil)), "strictly increasing"},
		{"counts/negative", second(sgp.NewSparseCounts([][]int{{2}}, [][]float64{{-1}})), "value -1"},
		{"counts/nan", second(sgp.NewSparseCounts([][]int{{2}}, [][]float64{{nan}})), "value NaN"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, tc.err, tc.want)
		}
	}
	for _, fn := range []func(){
		func() { sgp.NewSpectrum(0, 1) },
		func() { sgp.NewSpectrum(2, -1) },
		func() { sgp.NewWL(-1, 1) },
		func() { sgp.NewWL(32, 1) },
		func() { sgp.NewWL(2, math.Inf(1)) },
		func() { sgp.NewWLPerDepth(nil) },
		func() { sgp.NewTanimoto(0) },
		func() { sgp.NewHistogramIntersection(nil) },
		func() { sgp.NewHistogramIntersection([]float64{1, nan}) },
	} {
		if !kerneltest.Panics(fn) {
			t.Errorf("a constructor with invalid arguments did not panic")
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestNewKernel(t *testing.T) {
	t.Parallel()
	y := []float64{1, 2, 3, 6}
	for _, tc := range []struct {
		spec  string
		cells [][]string
		check func(sgp.Kernel) bool
	}{
		{"rbf", [][]string{{"1", "2"}, {"3", "4"}, {"5", "6.5"}, {"0", "-1"}}, func(k sgp.Kernel) bool { return k.(*sgp.RBF).Dim() == 2 }},
		{"wl", [][]string{{"CCO"}, {"c1ccccc1"}, {"CC"}, {"C"}}, func(k sgp.Kernel) bool { return k.(*sgp.WL).Depth() == 3 }},
		{"WL:5", [][]string{{"CCO"}, {"c1ccccc1"}, {"CC"}, {"C"}}, func(k sgp.Kernel) bool { return k.(*sgp.WL).Depth() == 5 }},
		{"wl-depth:2", [][]string{{"CCO"}, {"c1ccccc1"}, {"CC"}, {"C"}}, func(k sgp.Kernel) bool { return k.NumParams() == 3 }},
		{"spectrum", [][]string{{"abc"}, {"b"}, {"cab"}, {"x"}}, func(k sgp.Kernel) bool { return k.(*sgp.Spectrum).K() == 3 }},
		{"spectrum:2", [][]string{{"abc"}, {"b"}, {"cab"}, {"x"}}, func(k sgp.Kernel) bool { return k.(*sgp.Spectrum).K() == 2 }},
		{"tanimoto", [][]string{{"1:2 5:1"}, {"CCO"}, {""}, {"3 4"}}, func(k sgp.Kernel) bool { return scalar.EqualWithinRel(k.(*sgp.Tanimoto).Variance(), 3.5, 1e-14) }},
		{"histogram:2", [][]string{{"1", "2", "0", "1"}, {"0", "0", "1", "1"}, {"3", "0", "0", "0"}, {"1", "1", "1", "1"}}, func(k sgp.Kernel) bool { return k.NumParams() == 2 }},
	} {
		x, err := mol.InputsFromCells(tc.spec, tc.cells)
		if err != nil {
			t.Errorf("InputsFromCells(%q): %v", tc.spec, err)
			continue
		}
		k, err := sgp.NewKernel(tc.spec, x, y)
		if err != nil || !tc.check(k) || k.Accepts(x) != nil {
			t.Errorf("NewKernel(%q) = %T %v, %v", tc.spec, k, k.Params(nil), err)
		}
	}
	for _, tc := range []struct {
		spec  string
		cells [][]string
		want  string
		rows  []int
	}{
		{"wl", [][]string{{"CC"}, {"C1"}, {"C("}}, "2 unreadable rows", []int{1, 2}},
		{"rbf", [][]string{{"1"}, {"x"}, {"NaN"}}, "not a finite number", []int{1, 2}},
		{"histogram", [][]string{{"1"}, {"-1"}}, "non-negative", []int{1}},
		{"tanimoto", [][]string{{"1:2 1:3"}, {"2:-1"}, {"Q"}}, "unreadable", []int{0, 1, 2}},
		{"rbf", [][]string{{"1", "2"}, {"3"}}, "input columns", []int{1}},
		{"histogram:2", [][]string{{"1", "2", "3"}}, "do not split", nil},
		{"spectrum", [][]string{{"a", "b"}}, "one input column", nil},
		{"gauss", [][]string{{"a"}}, "unknown kernel", nil},
		{"wl:99", [][]string{{"C"}}, "must be an integer in [0, 31]", nil},
		{"rbf:2", [][]string{{"1"}}, "takes no parameter", nil},
	} {
		_, err := mol.InputsFromCells(tc.spec, tc.cells)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("InputsFromCells(%q, %q): error %v, want %q", tc.spec, tc.cells, err, tc.want)
			continue
		}
		var re *mol.RowErrors
		if tc.rows != nil {
			if !errors.As(err, &re) {
				t.Errorf("InputsFromCells(%q, %q): error %T, want *mol.RowErrors", tc.spec, tc.cells, err)
				continue
			}
			var rows []int
			for _, r := range re.Rows {
				rows = append(rows, r.Row)
			}
			if fmt.Sprint(rows) != fmt.Sprint(tc.rows) {
				t.Errorf("InputsFromCells(%q, %q): rows %v, want %v", tc.spec, tc.cells, rows, tc.rows)
			}
		}
	}
	if _, err := sgp.NewKernel("rbf", mustStrings(t, []string{"a"}), nil); err == nil {
		t.Errorf("NewKernel(rbf) accepts strings")
	}
	if _, err := sgp.NewKernel("spectrum", mustGraphs(t, []string{"C"}), nil); err == nil {
		t.Errorf("NewKernel(spectrum) accepts graphs")
	}
}
