package sgp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"
)

// randomGraphs returns n random labelled trees of 3–9 nodes over three
// labels and two bond types; every ninth repeats an earlier one.
func randomGraphs(t *testing.T, rng *rand.Rand, n int) *kernel.Graphs {
	t.Helper()
	gs := make([]*kernel.Graph, n)
	for i := range gs {
		if i > 2 && i%9 == 0 {
			gs[i] = gs[i-3]
			continue
		}
		size := 3 + rng.IntN(7)
		labels := make([]string, size)
		var edges []kernel.Edge
		for v := range labels {
			labels[v] = string(rune('a' + rng.IntN(3)))
			if v > 0 {
				edges = append(edges, kernel.Edge{U: rng.IntN(v), V: v, Label: 1 + rng.IntN(2)})
			}
		}
		g, err := kernel.NewGraph(labels, edges)
		if err != nil {
			t.Fatal(err)
		}
		gs[i] = g
	}
	x, err := kernel.NewGraphs(gs)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestEvaluatorBasis: for the kernels that are sums of fixed kernels with
// one variance each, the gradient phase forms K_mn and the derivatives
// from blocks evaluated once (Evaluator.basis). Its values and gradients
// at the θ of the first evaluation and at two others equal those of the
// generic path, which evaluates the kernel every time, and its gradient
// matches central finite differences.
func TestEvaluatorBasis(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 9))
	strs, err := kernel.NewStrings([]string{"abca", "bca", "", "aab", "cabcab", "bbb", "acacac", "ab", "ca", "cab", "abc", "bcbcb", "aaaa", "c", "ba", "cba", "abab", "bcab", "caab", "ccc"})
	if err != nil {
		t.Fatal(err)
	}
	items := make([]map[int]float64, 30)
	for i := range items {
		items[i] = map[int]float64{rng.IntN(9): 1 + float64(rng.IntN(3)), 9 + rng.IntN(5): 0.5 + rng.Float64()}
	}
	counts, err := kernel.SparseCountsFromMaps(items)
	if err != nil {
		t.Fatal(err)
	}
	hist := make([][][]float64, 25)
	for i := range hist {
		hist[i] = [][]float64{{rng.Float64(), 2 * rng.Float64(), 0}, {rng.Float64()}, {rng.Float64(), rng.Float64()}}
	}
	histograms, err := kernel.NewHistograms(hist)
	if err != nil {
		t.Fatal(err)
	}
	graphs, few := randomGraphs(t, rng, 41), randomGraphs(t, rng, 12) // few: below invMinRows
	for _, tc := range []struct {
		name string
		k    kernel.Kernel
		x    kernel.Inputs
	}{
		{"wl-per-depth", kernel.NewWLPerDepth([]float64{0.3, 0.2, 0.5, 0.1}), graphs},
		{"wl-per-depth,n<16", kernel.NewWLPerDepth([]float64{0.3, 0.2, 0.5}), few},
		{"wl", kernel.NewWL(2, 0.8), graphs},
		{"histogram,C=3", kernel.NewHistogramIntersection([]float64{0.3, 1.2, 0.6}), histograms},
		{"spectrum", kernel.NewSpectrum(2, 0.9), strs},
		{"tanimoto", kernel.NewTanimoto(1.1), counts},
		{"func", kernel.NewFunc(func(x kernel.Inputs, i int, y kernel.Inputs, j int) float64 {
			return math.Exp(-math.Abs(stringCode(x.(*kernel.Strings).At(i))-stringCode(y.(*kernel.Strings).At(j))) / 3)
		}, 0.7), strs},
	} {
		n := tc.x.Len()
		y := make([]float64, n)
		for i := range y {
			y[i] = math.Sin(float64(i)) + 0.3*rng.NormFloat64()
		}
		// Inducing points: distinct inputs (the repeated graphs are
		// multiples of nine).
		var active []int
		for _, i := range rng.Perm(n) {
			if i%9 != 0 && len(active) < n/3 {
				active = append(active, i)
			}
		}
		for _, o := range []Objective{VAR, MLE} {
			name := fmt.Sprintf("%s,%v", tc.name, o)
			basis := NewEvaluator(tc.x, y, tc.k, o, active)
			basis.SetMean(MeanConstant)
			generic := NewEvaluator(tc.x, y, plainKernel{tc.k}, o, active)
			generic.SetMean(MeanConstant)
			if !basis.basisOn || generic.basisOn {
				t.Fatalf("%s: blocks kept %v, generic %v", name, basis.basisOn, generic.basisOn)
			}
			theta := append(tc.k.Params(nil), math.Log(0.1))
			for step := range 3 {
				if step > 0 {
					for p := range theta {
						theta[p] += 0.4 * (rng.Float64() - 0.5)
					}
				}
				g1, g2 := make([]float64, len(theta)), make([]float64, len(theta))
				f1, err1 := basis.FuncGrad(g1, theta)
				f2, err2 := generic.FuncGrad(g2, theta)
				if err1 != nil || err2 != nil {
					t.Fatal(name, err1, err2)
				}
				if math.Abs(f1-f2) > 1e-11*math.Abs(f2) {
					t.Errorf("%s step %d: F = %.15g from the blocks, %.15g evaluated", name, step, f1, f2)
				}
				for p := range g1 {
					if math.Abs(g1[p]-g2[p]) > 1e-9*math.Max(1, math.Abs(g2[p])) {
						t.Errorf("%s step %d: ∂F/∂θ[%d] = %.12g from the blocks, %.12g evaluated", name, step, p, g1[p], g2[p])
					}
				}
			}
			g := make([]float64, len(theta))
			if _, err := basis.FuncGrad(g, theta); err != nil {
				t.Fatal(err)
			}
			want := fdEvaluatorGrad(t, basis, theta)
			for p := range g {
				if math.Abs(g[p]-want[p]) > 1e-5*math.Max(1, math.Abs(want[p])) {
					t.Errorf("%s: ∂F/∂θ[%d] = %.8g, finite differences %.8g", name, p, g[p], want[p])
				}
			}
		}
	}
}

// stringCode reads a string over "abc" as a base-4 number over 16,
// distinct for distinct strings: a Laplace kernel of it is positive
// definite on them.
func stringCode(s string) float64 {
	var v float64
	for _, r := range s {
		v = 4*v + float64(r-'a'+1)
	}
	return v / 16
}
