package kerneltest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/cholqr/sgp/sgp/kernel"
)

// testBlock checks the fast paths of a kernel.BlockEvaluator against the
// Kernel methods: CrossT against Column, on the inputs and against a
// shuffled subset of them, and AddGradBlockT against AddGrad with the
// same weights (transposed).
func testBlock(t *testing.T, k kernel.BlockEvaluator, x kernel.Inputs, rnd *rand.Rand) {
	n := x.Len()
	cols := rnd.Perm(n)[:min(n, maxCols+2)]
	m := len(cols)
	scale := maxDiag(gram(k, x))
	kv := make([]float64, n*m)
	k.CrossT(kv, x, x, cols)
	col := make([]float64, n)
	for c, j := range cols {
		k.Column(col, x, 0, n, x, j)
		for i, v := range col {
			if !near(kv[c*n+i], v, scale, identityTol) {
				t.Fatalf("CrossT[%d·n+%d] = %v, Column(x, %d)[%d] = %v", c, i, kv[c*n+i], j, i, v)
			}
		}
	}
	w := randWeights(rnd, n*m)
	wr := make([]float64, n*m)
	for c := range m {
		for i := range n {
			wr[i*m+c] = w[c*n+i]
		}
	}
	np := k.NumParams()
	got, want := make([]float64, np), make([]float64, np)
	k.AddGradBlockT(got, slices.Clone(w), kv, x, x, cols)
	k.AddGrad(want, wr, x, 0, n, x, cols)
	checkGrad(t, "AddGradBlockT against AddGrad", k, got, want, scale, splitTol)
}

// testInputGrad checks the gradient of a kernel.InputGradient with respect
// to the inducing inputs z (the first points of x, moved off them) against
// central finite differences of Σ wx∘K(x, z) + Σ wz∘K(z, z) evaluated with
// Column.
func testInputGrad(t *testing.T, k kernel.InputGradient, x *kernel.Vectors, rnd *rand.Rand) {
	n, d := x.Len(), x.Dim()
	m := min(4, n)
	zd := slices.Clone(x.RawData()[:m*d])
	for i := range zd {
		zd[i] += 0.1 * (2*rnd.Float64() - 1)
	}
	wx, wz := randWeights(rnd, m*n), randWeights(rnd, m*m)
	objective := func(zd []float64) float64 {
		z, err := kernel.NewVectors(m, d, zd)
		if err != nil {
			panic(err)
		}
		var f float64
		col := make([]float64, max(n, m))
		for c := range m {
			k.Column(col[:n], x, 0, n, z, c)
			for i, v := range col[:n] {
				f += wx[c*n+i] * v
			}
			k.Column(col[:m], z, 0, m, z, c)
			for a, v := range col[:m] {
				f += wz[a*m+c] * v
			}
		}
		return f
	}
	z, err := kernel.NewVectors(m, d, zd)
	if err != nil {
		t.Fatal(err)
	}
	kx, kz := make([]float64, m*n), make([]float64, m*m)
	all := seq(0, m)
	crossByColumns(k, kx, x, z, all)
	crossByColumns(k, kz, z, z, all)
	gz := make([]float64, m*d)
	k.InputGradT(gz, wx, kx, wz, kz, x, z)
	want := fd.Gradient(nil, objective, zd, &fd.Settings{Formula: fd.Central, Step: fdStep})
	scale := math.Max(1, maxAbs(want))
	for p := range gz {
		if !near(gz[p], want[p], scale, gradTol) {
			t.Errorf("InputGradT: ∂/∂z[%d,%d] = %v, finite differences %v", p/d, p%d, gz[p], want[p])
		}
	}
	if t.Failed() {
		t.Logf("got  %v\nwant %v", gz, want)
	}
}

// crossByColumns sets dst[c·n+i] = κ(x_i, y_cols[c]) with Column.
func crossByColumns(k kernel.Kernel, dst []float64, x, y kernel.Inputs, cols []int) {
	n := x.Len()
	for c, j := range cols {
		k.Column(dst[c*n:(c+1)*n], x, 0, n, y, j)
	}
}
