package kernel_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/mol"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"

	"gonum.org/v1/gonum/stat"
)

// moleculeTargets returns a synthetic target for the graphs: 0.1 per heavy
// atom, 0.3 per aromatic atom and 0.5 per oxygen, plus seeded noise.
func moleculeTargets(gs *kernel.Graphs, seed uint64) []float64 {
	rnd := rand.New(rand.NewPCG(seed, seed))
	y := make([]float64, gs.Len())
	for i := range y {
		g := gs.Graph(i)
		for v := range g.NumNodes() {
			l := g.Label(v)
			y[i] += 0.1
			if l != strings.ToUpper(l) {
				y[i] += 0.3
			}
			if strings.HasPrefix(strings.ToUpper(l), "O") {
				y[i] += 0.5
			}
		}
		y[i] += 0.05 * rnd.NormFloat64()
	}
	return y
}

// TestDiscreteModelSaveLoad fits a tiny model with each discrete kernel,
// saves it, loads it back and checks that the loaded predictor predicts
// bit for bit as the model did.
func TestDiscreteModelSaveLoad(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(2, 2))
	mols := mustGraphs(t, testSMILES)
	molY := moleculeTargets(mols, 1)
	// Test inputs built apart from the training inputs.
	molTest := mustGraphs(t, []string{"CCCO", "c1ccccc1O", "CC(=O)OC", "C1CCOC1", "OCCO", "c1ccc(Cl)cc1"})

	strs := randomStrings(rnd, 40, 10, "abcd")
	strY := make([]float64, len(strs))
	for i, s := range strs {
		strY[i] = float64(strings.Count(s, "ab")) + 0.1*rnd.NormFloat64()
	}
	hist := randomHistograms(t, rnd, 40, []int{3, 5})
	histY := make([]float64, hist.Len())
	for i := range histY {
		histY[i] = hist.Channel(i, 0)[0] + 0.1*rnd.NormFloat64()
	}

	for _, tc := range []struct {
		name  string
		k     kernel.Kernel
		x, xs kernel.Inputs
		y     []float64
	}{
		{"wl", kernel.NewWL(2, 1), mols, molTest, molY},
		{"wl-per-depth", kernel.NewWLPerDepth([]float64{0.3, 0.3, 0.3}), mols, molTest, molY},
		{"sum", kernel.NewSum(kernel.NewWL(1, 0.5), kernel.NewWL(3, 0.5)), mols, molTest, molY},
		{"tanimoto", kernel.NewTanimoto(1), kernel.WLFingerprints(mols, 2), kernel.WLFingerprints(molTest, 2), molY},
		{"spectrum", kernel.NewSpectrum(2, 1), mustStrings(t, strs), mustStrings(t, []string{"abab", "cd", "", "dcba"}), strY},
		{"histogram", kernel.NewHistogramIntersection([]float64{0.5, 0.5}), hist, hist.Subset([]int{3, 1, 4}), histY},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			md := sgp.NewModel(tc.x, tc.y, tc.k).WithM(5).WithMaxEpochs(2)
			if _, err := md.Fit(); err != nil {
				t.Fatalf("Fit: %v", err)
			}
			mean, vr, err := md.Predict(tc.xs)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := md.Save(&buf); err != nil {
				t.Fatalf("Save: %v", err)
			}
			p, err := sgp.LoadPredictor(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("LoadPredictor: %v\n%s", err, buf.Bytes())
			}
			if fmt.Sprintf("%T", p.Kern) != fmt.Sprintf("%T", tc.k) || !slices.Equal(p.Kern.Params(nil), md.Kernel().Params(nil)) {
				t.Errorf("loaded kernel %T %v, saved %T %v", p.Kern, p.Kern.Params(nil), tc.k, md.Kernel().Params(nil))
			}
			mean2, vr2, err := p.PredictTo(nil, nil, tc.xs)
			if err != nil {
				t.Fatal(err)
			}
			for i := range mean {
				// Bit equality: the saved floats round-trip exactly and the
				// features are recomputed by the same code.
				if math.Float64bits(mean[i]) != math.Float64bits(mean2[i]) || math.Float64bits(vr[i]) != math.Float64bits(vr2[i]) {
					t.Errorf("prediction %d: (%v, %v) after loading, (%v, %v) before", i, mean2[i], vr2[i], mean[i], vr[i])
				}
			}
		})
	}

	t.Run("func", func(t *testing.T) {
		t.Parallel()
		md := sgp.NewModel(mustStrings(t, strs), strY, kernel.NewFunc(lengthKernel, 1)).WithM(5).WithMaxEpochs(1)
		if _, err := md.Fit(); err != nil {
			t.Fatal(err)
		}
		if err := md.Save(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "cannot save") {
			t.Errorf("Save with a Func: %v, want an error", err)
		}
	})
}

// TestWLThrombinFit fits CholQR with the WL kernel on 200 thrombin training
// molecules and predicts the 553 test molecules of the fixed split.
func TestWLThrombinFit(t *testing.T) {
	t.Parallel()
	train, test, err := mol.LoadThrombin(moleculeDataDir())
	if err != nil {
		if strings.Contains(err.Error(), "missing") {
			t.Skipf("thrombin data absent: %v", err)
		}
		t.Fatal(err)
	}
	idx := make([]int, 200)
	for i := range idx {
		idx[i] = i
	}
	tr := train.Subset(idx)
	_, vy := stat.PopMeanVariance(tr.Y, nil)
	md := sgp.NewModel(tr.X, tr.Y, kernel.NewWL(3, vy)).WithM(32).WithMaxEpochs(5)
	start := time.Now()
	res, err := md.Fit()
	if err != nil {
		t.Fatal(err)
	}
	fit := time.Since(start)
	mean, vr, err := md.Predict(test.X)
	if err != nil {
		t.Fatal(err)
	}
	noise, _ := md.Noise()
	for i := range vr {
		vr[i] += noise
	}
	smse, err := sgp.SMSE(mean, test.Y)
	if err != nil {
		t.Fatal(err)
	}
	mu, v := stat.PopMeanVariance(tr.Y, nil)
	snlp, err := sgp.SNLP(mean, vr, test.Y, mu, v)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("n=200, m=32, WL h=3: %d epochs (%s) in %v; test SMSE %.3f, SNLP %.3f; θ %v", res.Epochs, res.Status, fit, smse, snlp, md.Hyperparameters())
	if !(smse < 1) {
		t.Errorf("test SMSE %.3f, want < 1 (better than predicting the mean)", smse)
	}
}

// BenchmarkDiscreteColumn times one kernel column over the 2,201 thrombin
// training molecules (serial, one goroutine), for the WL kernels, Tanimoto
// on WL count fingerprints of radius 2, and the spectrum kernel on the
// SMILES strings.
func BenchmarkDiscreteColumn(b *testing.B) {
	train, _, err := mol.LoadThrombin(moleculeDataDir())
	if err != nil {
		b.Skipf("thrombin data absent: %v", err)
	}
	strs, err := kernel.NewStrings(train.SMILES)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		k    kernel.Kernel
		x    kernel.Inputs
	}{
		{"wl,h=3", kernel.NewWL(3, 1), train.X},
		{"wl-per-depth,h=3", kernel.NewWLPerDepth([]float64{1, 1, 1, 1}), train.X},
		{"sum,wl,h=0…3", kernel.NewSum(kernel.NewWL(0, 1), kernel.NewWL(1, 1), kernel.NewWL(2, 1), kernel.NewWL(3, 1)), train.X},
		{"tanimoto,r=2", kernel.NewTanimoto(1), kernel.WLFingerprints(train.X, 2)},
		{"spectrum,k=4", kernel.NewSpectrum(4, 1), strs},
	} {
		n := bc.x.Len()
		b.Run(fmt.Sprintf("%s,n=%d", bc.name, n), func(b *testing.B) {
			dst := make([]float64, n)
			bc.k.Column(dst, bc.x, 0, n, bc.x, 0) // features
			b.ResetTimer()
			for it := 0; b.Loop(); it++ {
				bc.k.Column(dst, bc.x, 0, n, bc.x, it%n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entry")
		})
	}
	b.Run("features,wl,h=3", func(b *testing.B) {
		k := kernel.NewWL(3, 1)
		dst := make([]float64, 1)
		for b.Loop() {
			x := train.X.Subset(seqInts(train.Len())) // a fresh cache
			k.Column(dst, x, 0, 1, x, 0)
		}
	})
}

func seqInts(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// moleculeDataDir is the folder of the shared data sets (env SGP_DATA).
func moleculeDataDir() string { return data.Dir(filepath.Join("..", "..", "..", "shared", "data")) }

func TestWLValues(t *testing.T) {
	t.Parallel()
	ab, _ := kernel.NewGraph([]string{"A", "B"}, []kernel.Edge{{U: 0, V: 1, Label: 1}})
	a, _ := kernel.NewGraph([]string{"A"}, nil)
	ba, _ := kernel.NewGraph([]string{"B", "A"}, []kernel.Edge{{U: 1, V: 0, Label: 1}})
	abDouble, _ := kernel.NewGraph([]string{"A", "B"}, []kernel.Edge{{U: 0, V: 1, Label: 2}})
	empty, _ := kernel.NewGraph(nil, nil)
	x, err := kernel.NewGraphs([]*kernel.Graph{ab, a, ba, abDouble, empty, empty})
	if err != nil {
		t.Fatal(err)
	}
	const V = 2.0
	k := kernel.NewWL(1, V)
	// By hand, h = 1: φ(A–B) = {A, B, A|B, B|A}, φ(A) = {A, A|∅}: one
	// common label, norms² 4 and 2. A=B shares the depth-0 labels only.
	checkValue(t, "κ(A–B, A)", column(k, x, 0, x, 1), V/math.Sqrt(8))
	checkValue(t, "κ(A–B, B–A)", column(k, x, 0, x, 2), V)
	checkValue(t, "κ(A–B, A=B)", column(k, x, 0, x, 3), V/2)
	checkValue(t, "κ(empty, empty)", column(k, x, 4, x, 5), V)
	checkValue(t, "κ(empty, A)", column(k, x, 4, x, 1), 0)
	// h = 0 counts labels only: A=B and A–B are alike.
	checkValue(t, "h=0: κ(A–B, A=B)", column(kernel.NewWL(0, V), x, 0, x, 3), V)
	// One variance per depth: depth 0 gives 1/√2, depth 1 nothing.
	kd := kernel.NewWLPerDepth([]float64{0.5, 3})
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
	k3 := kernel.NewWL(3, 1)
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
		ix, counts := kernel.WLFingerprint(g, h)
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
	ix, _ := kernel.WLFingerprint(g, 0)
	if len(ix) != 3 {
		t.Errorf("h=0: %d distinct labels, want 3 (C, O, c)", len(ix))
	}
}
