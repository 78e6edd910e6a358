package cholqr

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/naive"

	"github.com/cholqr/sgp/sgp/kernel"
)

// nearDuplicateProblem is a 1-D problem on a jittered grid whose point 7
// is a copy of point 3 moved by 1e-5: given point 3 its residual variance
// is about 2·10⁻¹⁰·κ, below keepTol.
func nearDuplicateProblem() *problem {
	rng := rand.New(rand.NewPCG(4, 4))
	const n = 24
	rows := make([][]float64, n)
	y := make([]float64, n)
	for i := range rows {
		rows[i] = []float64{0.25 * (float64(i) + 0.5*rng.Float64())}
	}
	rows[7][0] = rows[3][0] + 1e-5
	for i := range y {
		y[i] = math.Sin(2*rows[i][0]) + 0.1*rng.NormFloat64()
	}
	x, err := kernel.VectorsFromRows(rows)
	if err != nil {
		panic(err)
	}
	const variance, ls, noise = 1.7, 0.7, 0.05
	return &problem{x: x, rows: rows, y: y, kern: kernel.NewRBF(variance, []float64{ls}), noise: noise,
		K: naive.RBF(rows, variance, []float64{ls})}
}

// TestFactorizeSkipping: a set holding a near-duplicate pair cannot be
// factorised in any order; factorizeSkipping leaves out one of the pair
// and nothing else, counts it in Stats.LeftOut, and the factor is then
// that of the points kept (dense oracle, invariants).
func TestFactorizeSkipping(t *testing.T) {
	t.Parallel()
	p := nearDuplicateProblem()
	f := p.factor(t, 8, 4)
	active := []int{0, 3, 5, 7, 11, 16, 20}
	if err := f.Factorize(active); err == nil {
		t.Fatal("Factorize accepted a near-duplicate pair")
	}
	if err := f.FactorizePivoted(active); err == nil {
		t.Fatal("FactorizePivoted accepted a near-duplicate pair")
	}
	left := f.FactorizeSkipping(active)
	if len(left) != 1 || (left[0] != 3 && left[0] != 7) {
		t.Fatalf("left out %v, want one of 3 and 7", left)
	}
	if got := f.Stats().LeftOut; got != 1 {
		t.Errorf("base.Stats.LeftOut = %d, want 1", got)
	}
	kept := f.Active(nil)
	want := slices.DeleteFunc(slices.Clone(active), func(j int) bool { return j == left[0] })
	slices.Sort(kept)
	if !slices.Equal(kept, want) {
		t.Fatalf("kept %v, want %v", kept, want)
	}
	checkInvariants(t, f, p, 1e-9)
	for _, o := range []base.Objective{base.VAR, base.MLE} {
		got, wantF := f.Value(o), p.oracle(t, want, o)
		if math.Abs(got-wantF) > 1e-9*math.Abs(wantF) {
			t.Errorf("%v: F = %.12g, oracle %.12g", o, got, wantF)
		}
	}
	// A set without degenerate points is factorised whole, as by
	// FactorizePivoted.
	if left := f.FactorizeSkipping(want); len(left) != 0 {
		t.Errorf("left out %v of a regular set", left)
	}
	if got, wantF := f.Value(base.VAR), p.oracle(t, want, base.VAR); math.Abs(got-wantF) > 1e-9*math.Abs(wantF) {
		t.Errorf("regular set: F = %.12g, oracle %.12g", got, wantF)
	}
}
