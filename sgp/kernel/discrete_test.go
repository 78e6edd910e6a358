package kernel_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"
	"github.com/cholqr/sgp/sgp/mol"

	"gonum.org/v1/gonum/floats/scalar"

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

func mustGraphs(t testing.TB, smiles []string) *kernel.Graphs {
	t.Helper()
	gs, err := mol.GraphsFromSMILES(smiles)
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

// testGraphs returns the test molecules with an empty graph and a graph of
// integer-coded nodes appended.
func testGraphs(t testing.TB) *kernel.Graphs {
	t.Helper()
	var gs []*kernel.Graph
	for _, s := range testSMILES[:38] {
		g, err := mol.ParseSMILES(s)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
	}
	empty, err := kernel.NewGraph(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	coded, err := kernel.NewGraphCodes([]int{1, 2, 1}, []kernel.Edge{{U: 0, V: 1, Label: 7}, {U: 1, V: 2, Label: 7}})
	if err != nil {
		t.Fatal(err)
	}
	x, err := kernel.NewGraphs(append(gs, empty, coded))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// randomHistograms returns n items of channels with the given bin counts;
// bins are zero with probability 1/3, else uniform in [0, 3).
func randomHistograms(t testing.TB, rnd *rand.Rand, n int, bins []int) *kernel.Histograms {
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
	h, err := kernel.NewHistograms(items)
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
func randomCounts(t testing.TB, rnd *rand.Rand, n int) *kernel.SparseCounts {
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
	sc, err := kernel.SparseCountsFromMaps(items)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func mustStrings(t testing.TB, s []string) *kernel.Strings {
	t.Helper()
	x, err := kernel.NewStrings(s)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// column returns κ(x_i, y_j) through Column.
func column(k kernel.Kernel, x kernel.Inputs, i int, y kernel.Inputs, j int) float64 {
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
		k    kernel.Kernel
		x    kernel.Inputs
	}{
		{"histogram,C=1", kernel.NewHistogramIntersection([]float64{0.7}), randomHistograms(t, rnd, 33, []int{6})},
		{"histogram,C=3", kernel.NewHistogramIntersection([]float64{0.3, 2, 1.1}), randomHistograms(t, rnd, 33, []int{4, 1, 7})},
		{"spectrum,k=1", kernel.NewSpectrum(1, 1.3), strs},
		{"spectrum,k=3", kernel.NewSpectrum(3, 0.4), strs},
		{"spectrum,k=8", kernel.NewSpectrum(8, 2), mustStrings(t, randomStrings(rnd, 33, 14, "ab"))},
		{"tanimoto", kernel.NewTanimoto(1.7), randomCounts(t, rnd, 33)},
		{"tanimoto,fingerprints", kernel.NewTanimoto(0.5), kernel.WLFingerprints(graphs, 2)},
		{"wl,h=0", kernel.NewWL(0, 1), graphs},
		{"wl,h=3", kernel.NewWL(3, 2.5), graphs},
		{"wl-per-depth,h=2", kernel.NewWLPerDepth([]float64{0.2, 0.5, 1.5}), graphs},
		{"sum,wl", kernel.NewSum(kernel.NewWL(1, 0.3), kernel.NewWLPerDepth([]float64{0.2, 0.5, 1.5, 0.1})), graphs},
		{"sum,spectra", kernel.NewSum(kernel.NewSpectrum(1, 0.5), kernel.NewSpectrum(2, 0.8), kernel.NewSpectrum(3, 1.1)), strs},
		{"func", kernel.NewFunc(lengthKernel, 1.9), strs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			kerneltest.Test(t, tc.k, tc.x)
		})
	}
}

// lengthKernel is exp(−|len s − len t|/4), the Laplace kernel on string
// lengths (positive semi-definite).
func lengthKernel(x kernel.Inputs, i int, y kernel.Inputs, j int) float64 {
	a, b := x.(*kernel.Strings).At(i), y.(*kernel.Strings).At(j)
	return math.Exp(-math.Abs(float64(len(a)-len(b))) / 4)
}

func TestHistogramIntersectionValues(t *testing.T) {
	t.Parallel()
	x, err := kernel.NewHistograms([][][]float64{
		{{1, 2}, {3}},
		{{2, 1}, {0}},
		{{0, 0}, {0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.NewHistogramIntersection([]float64{0.5, 2})
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
	if k.Accepts(x) != nil || k.Accepts(mustStrings(t, []string{"a"})) == nil || kernel.NewHistogramIntersection([]float64{1}).Accepts(x) == nil {
		t.Errorf("Accepts does not check the input type and channel count")
	}

	// From data: mean diagonal var(y), channels weighted alike.
	y := []float64{1, 3, 2}
	kd := kernel.NewHistogramIntersectionFromData(x, y)
	kd.Diag(diag, x, 0, 3)
	checkValue(t, "mean diagonal", (diag[0]+diag[1]+diag[2])/3, 2.0/3)
}

func TestSpectrumValues(t *testing.T) {
	t.Parallel()
	for _, k := range []int{2, 9} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			t.Parallel()
			const V = 1.5
			kern := kernel.NewSpectrum(k, V)
			var x *kernel.Strings
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
	x, err := kernel.NewSparseCounts([][]int{{1, 3}, {1, 2}, {}, {}, {0, 5}}, [][]float64{{2, 1}, {1, 4}, {}, {}, {1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	const V = 0.8
	k := kernel.NewTanimoto(V)
	// By hand: Σmin = min(2,1) = 1, Σmax = 2 + 4 + 1 = 7.
	checkValue(t, "κ(a, b)", column(k, x, 0, x, 1), V/7)
	checkValue(t, "κ(b, a)", column(k, x, 1, x, 0), V/7)
	checkValue(t, "κ(a, a)", column(k, x, 0, x, 0), V)
	checkValue(t, "κ(0, 0)", column(k, x, 2, x, 3), V)
	checkValue(t, "κ(0, a)", column(k, x, 2, x, 0), 0)
	checkValue(t, "κ(a, e)", column(k, x, 0, x, 4), 0)
	// Binary fingerprints: Jaccard |A∩B|/|A∪B| = 1/3.
	bin, err := kernel.NewSparseCounts([][]int{{1, 2}, {2, 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkValue(t, "Jaccard", column(k, bin, 0, bin, 1), V/3)
	ix, vx := x.Item(1)
	if fmt.Sprint(ix, vx) != "[1 2] [1 4]" {
		t.Errorf("Item(1) = %v %v", ix, vx)
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
		{"strings/empty", second(kernel.NewStrings(nil)), "no strings"},
		{"graphs/empty", second(kernel.NewGraphs(nil)), "no graphs"},
		{"graphs/nil", second(kernel.NewGraphs([]*kernel.Graph{nil})), "graph 0 is nil"},
		{"graph/range", second(kernel.NewGraph([]string{"a"}, []kernel.Edge{{U: 0, V: 1}})), "has 1 nodes"},
		{"graph/loop", second(kernel.NewGraph([]string{"a"}, []kernel.Edge{{U: 0, V: 0}})), "to itself"},
		{"graph/repeat", second(kernel.NewGraph([]string{"a", "b"}, []kernel.Edge{{U: 0, V: 1}, {U: 1, V: 0}})), "both join"},
		{"histograms/empty", second(kernel.NewHistograms(nil)), "no histograms"},
		{"histograms/no-channels", second(kernel.NewHistograms([][][]float64{{}})), "no channels"},
		{"histograms/no-bins", second(kernel.NewHistograms([][][]float64{{{}}})), "no bins"},
		{"histograms/ragged-channels", second(kernel.NewHistograms([][][]float64{{{1}, {2}}, {{1}}})), "item 1 has 1 channels"},
		{"histograms/ragged-bins", second(kernel.NewHistograms([][][]float64{{{1, 2}}, {{1}}})), "channel 0 has 1 bins"},
		{"histograms/negative", second(kernel.NewHistograms([][][]float64{{{1, -2}}})), "bin 1 is -2"},
		{"histograms/nan", second(kernel.NewHistograms([][][]float64{{{nan}}})), "is NaN"},
		{"histograms/inf", second(kernel.NewHistograms([][][]float64{{{math.Inf(1)}}})), "is +Inf"},
		{"counts/empty", second(kernel.NewSparseCounts(nil, nil)), "no sparse"},
		{"counts/lists", second(kernel.NewSparseCounts([][]int{{1}}, [][]float64{{1}, {2}})), "1 index lists but 2"},
		{"counts/lengths", second(kernel.NewSparseCounts([][]int{{1, 2}}, [][]float64{{1}})), "2 indices but 1 values"},
		{"counts/negative-index", second(kernel.NewSparseCounts([][]int{{-1}}, nil)), "negative index"},
		{"counts/unsorted", second(kernel.NewSparseCounts([][]int{{2, 1}}, nil)), "strictly increasing"},
		{"counts/repeated", second(kernel.NewSparseCounts([][]int{{2, 2}}, nil)), "strictly increasing"},
		{"counts/negative", second(kernel.NewSparseCounts([][]int{{2}}, [][]float64{{-1}})), "value -1"},
		{"counts/nan", second(kernel.NewSparseCounts([][]int{{2}}, [][]float64{{nan}})), "value NaN"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, tc.err, tc.want)
		}
	}
	for _, fn := range []func(){
		func() { kernel.NewSpectrum(0, 1) },
		func() { kernel.NewSpectrum(2, -1) },
		func() { kernel.NewWL(-1, 1) },
		func() { kernel.NewWL(32, 1) },
		func() { kernel.NewWL(2, math.Inf(1)) },
		func() { kernel.NewWLPerDepth(nil) },
		func() { kernel.NewTanimoto(0) },
		func() { kernel.NewHistogramIntersection(nil) },
		func() { kernel.NewHistogramIntersection([]float64{1, nan}) },
	} {
		if !kerneltest.Panics(fn) {
			t.Errorf("a constructor with invalid arguments did not panic")
		}
	}
}
