package cholqr

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/kernel"
)

// TestSymQuad2MatchesSymQuad checks the fused quadratic forms bit for bit
// against symQuad, and symQuad against the dense ℓᵀSℓ.
func TestSymQuad2MatchesSymQuad(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 31))
	for _, z := range []int{1, 2, 3, 7, 16, 17} {
		sym := func() []float64 {
			a := mat.NewDense(z, z, nil)
			for i := range z {
				for j := range z {
					a.Set(i, j, rng.NormFloat64())
				}
			}
			var s mat.Dense
			s.Mul(a, a.T())
			return s.RawMatrix().Data
		}
		s, u := sym(), sym()
		l := make([]float64, z)
		for i := range l {
			l[i] = rng.NormFloat64()
		}
		qs, qu := symQuad2(s, u, l)
		if qs != symQuad(s, l) || qu != symQuad(u, l) {
			t.Fatalf("z=%d: symQuad2 (%g, %g), symQuad (%g, %g)", z, qs, qu, symQuad(s, l), symQuad(u, l))
		}
		lv := mat.NewVecDense(z, l)
		want := mat.Inner(lv, mat.NewDense(z, z, s), lv)
		if math.Abs(qs-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Fatalf("z=%d: symQuad %g, ℓᵀSℓ %g", z, qs, want)
		}
	}
}

// TestApproxScoresSolveForB checks the triangular solve of approxScores,
// Bᵀ = (R⁻ᵀA[:k, k:t])ᵀ, against B = Q[:n, :]ᵀL_z computed from Q.
func TestApproxScoresSolveForB(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(37, 37))
	p := newProblem(rng, 120, 2, 1, 0.7, 0.02)
	f := p.factor(t, 15, 7)
	if err := f.Factorize(rng.Perm(120)[:15]); err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 20; s++ {
		f.Swap(rng.IntN(f.NumActive()), base.VAR, rng.IntN)
	}
	f.ApproxDeltasTo(nil, base.VAR)
	n, k, z := f.n, f.k, f.t-f.k
	for c := 0; c < z; c++ {
		for i := 0; i < k; i++ {
			var want float64
			for r := 0; r < n; r++ {
				want += f.q[i*f.ldq+r] * f.g[(k+c)*n+r]
			}
			if got := f.approx.b[c*k+i]; math.Abs(got-want) > 1e-10 {
				t.Fatalf("B[%d,%d] = %.15g, Q[:n,:]ᵀL_z = %.15g", i, c, got, want)
			}
		}
	}
}

// TestSwapsSplitRowsMatchRebuild runs swaps at n above moveSplitRows, where
// the rotations of a move run on two cores by rows, and checks that the
// updated factor's objective and active set agree with a factor built
// from scratch for the same set.
func TestSwapsSplitRowsMatchRebuild(t *testing.T) {
	t.Parallel()
	x, y := benchProblem(2*moveSplitRows, 4, 6)
	kern := kernel.NewRBF(1, []float64{0.8, 0.8, 0.8, 0.8})
	f, err := New(x, y, kern, 0.05, 40, 8)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(6, 6))
	if err := f.Factorize(rng.Perm(f.n)[:40]); err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for i := 0; i < 40; i++ {
		if f.Swap(rng.IntN(f.k), base.VAR, rng.IntN).Accepted {
			accepted++
		}
	}
	if accepted == 0 {
		t.Fatal("no swap accepted: the moves were not exercised")
	}
	g, err := New(x, y, kern, 0.05, 40, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.FactorizePivoted(f.Active(nil)); err != nil {
		t.Fatal(err)
	}
	if a, b := f.Value(base.VAR), g.Value(base.VAR); math.Abs(a-b) > 1e-9*math.Abs(b) {
		t.Errorf("after %d accepted swaps: updated F = %.12g, rebuilt %.12g", accepted, a, b)
	}
}
