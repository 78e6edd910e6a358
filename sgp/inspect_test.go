package sgp

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"

	"gonum.org/v1/gonum/mat"
)

// walkthroughModel is the README's REPL walkthrough up to its Fit:
// SnelsonLike(200, 1), m = 10, z = 3, seed 1, six swaps by hand, Fit.
func walkthroughModel(t *testing.T) *Model {
	t.Helper()
	train, _ := data.SnelsonLike(200, 1)
	md := NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(10).WithInfoPivots(3).WithSeed(1)
	for range 6 {
		if _, err := md.Swap(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	return md
}

// factorBits is the factored state of md as bit patterns, read through
// the engine's views: the pivots in order, G (inducing and information
// columns), the residual variances, Q, R, a, the approximate scores (which
// read A = GᵀG) and the counters. Two states compare equal only if they
// are identical, which is what an inspection must leave.
type factorBits struct {
	perm                  []int
	g, d, q, r, a, approx []uint64
	kernelEvals, clamped  int
}

func stateBits(md *Model) factorBits {
	f := md.f
	bits := func(v []float64) []uint64 {
		out := make([]uint64, len(v))
		for i, x := range v {
			out[i] = math.Float64bits(x)
		}
		return out
	}
	dense := func(m mat.Matrix) []float64 {
		r, c := m.Dims()
		out := make([]float64, 0, r*c)
		for i := range r {
			for j := range c {
				out = append(out, m.At(i, j))
			}
		}
		return out
	}
	st := f.Stats()
	return factorBits{
		perm: append(f.Active(nil), f.InfoPivots(nil)...),
		g:    bits(append(dense(f.GMatrix()), dense(f.InfoMatrix())...)), d: bits(f.ResidualTo(nil)),
		q: bits(dense(f.QMatrix())), r: bits(dense(f.RMatrix())), a: bits(f.QtY()),
		approx:      bits(f.ApproxDeltasTo(nil, md.obj)),
		kernelEvals: st.KernelEvals, clamped: st.Clamped,
	}
}

func (b factorBits) equal(c factorBits) bool {
	return slices.Equal(b.perm, c.perm) && slices.Equal(b.g, c.g) && slices.Equal(b.d, c.d) &&
		slices.Equal(b.q, c.q) && slices.Equal(b.r, c.r) && slices.Equal(b.a, c.a) &&
		slices.Equal(b.approx, c.approx) && b.kernelEvals == c.kernelEvals && b.clamped == c.clamped
}

// TestCostRankingIsPure checks that CostRanking is an inspection: the
// factored state (pivots, G, d, Q, R, a, A, counters) is bit for bit the
// one of a twin model that never called it, two calls return the same
// ranking, and the swaps and the fit that follow (which draw from the
// model's random stream) give the twin's results exactly.
func TestCostRankingIsPure(t *testing.T) {
	t.Parallel()
	md, twin := walkthroughModel(t), walkthroughModel(t)
	if !stateBits(md).equal(stateBits(twin)) {
		t.Fatal("two identical walkthroughs differ before any ranking")
	}
	ind, _ := md.Inducing()
	var first *CostRanking
	for _, maxCand := range []int{0, 0, 50, 50} {
		cr, err := md.CostRanking(ind[0], maxCand)
		if err != nil {
			t.Fatal(err)
		}
		if !stateBits(md).equal(stateBits(twin)) {
			t.Fatalf("CostRanking(%d, %d) changed the factored state", ind[0], maxCand)
		}
		if maxCand == 0 && first == nil {
			first = cr
			continue
		}
		if maxCand == 0 && (!slices.Equal(cr.Candidates, first.Candidates) || !slices.Equal(cr.Exact, first.Exact) ||
			!slices.Equal(cr.Approx, first.Approx) || !slices.Equal(cr.InfoPivots, first.InfoPivots)) {
			t.Errorf("two calls differ: ρ %.3f then %.3f, pivots %v then %v", spearman(first), spearman(cr), first.InfoPivots, cr.InfoPivots)
		}
		if maxCand == 50 && len(cr.Candidates) != 50 {
			t.Errorf("maxCandidates 50 gave %d candidates", len(cr.Candidates))
		}
	}
	for range 3 {
		a, err1 := md.Swap()
		b, err2 := twin.Swap()
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if a != b {
			t.Errorf("a swap after the ranking differs from the twin's: %v against %v", a, b)
		}
	}
	ra, err1 := md.Fit()
	rb, err2 := twin.Fit()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if ra.Objective != rb.Objective || !slices.Equal(ra.Inducing, rb.Inducing) || !slices.Equal(ra.Params, rb.Params) {
		t.Errorf("the fit after the ranking differs from the twin's: F %v against %v, set %v against %v", ra.Objective, rb.Objective, ra.Inducing, rb.Inducing)
	}
	if !stateBits(md).equal(stateBits(twin)) {
		t.Error("the state after the later swaps and fit differs from the twin's")
	}
}

func spearman(cr *CostRanking) float64 {
	_, _, _, rho := cr.rankSummary()
	return rho
}

// TestFitLeavesGreedyInfoPivots checks that a fit, and an epoch, leave
// the information pivots a fresh factorisation of the final inducing set
// chooses (greedily by residual variance), so that the approximate scores
// after a fit describe the set the fit ended with: every candidate's
// approximate ΔF is the one a fresh factorisation of the set gives.
func TestFitLeavesGreedyInfoPivots(t *testing.T) {
	t.Parallel()
	md := walkthroughModel(t)
	check := func(when string) {
		t.Helper()
		fresh := md.f.Clone()
		if err := fresh.Factorize(md.f.Active(nil)); err != nil {
			t.Fatal(err)
		}
		if got, want := md.f.InfoPivots(nil), fresh.InfoPivots(nil); !slices.Equal(got, want) {
			t.Errorf("after %s the information pivots are %v; a fresh factorisation of the set chooses %v", when, got, want)
		}
		got, want := md.f.ApproxDeltasTo(nil, md.obj), fresh.ApproxDeltasTo(nil, md.obj)
		for i := range got {
			if math.IsNaN(got[i]) != math.IsNaN(want[i]) || !math.IsNaN(got[i]) && !scalar.EqualWithinAbsOrRel(got[i], want[i], 1e-9, 1e-6) {
				t.Errorf("after %s candidate %d: approximate ΔF %.9g, from a fresh factorisation %.9g", when, i, got[i], want[i])
				break
			}
		}
	}
	check("Fit")
	if _, err := md.Step(); err != nil {
		t.Fatal(err)
	}
	check("Step")
}

// TestFactorViewReadOnly: the view has no method that changes the state
// (the engine's Add, Remove, Swap, SetNoise, …), approximate scores read
// through it leave the model's state as it was, and it shows the model's
// later swaps.
func TestFactorViewReadOnly(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(200, 1)
	md := NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(10).WithInfoPivots(3).WithInit(InitRandom).WithSeed(1)
	f, err := md.Factor()
	if err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeOf(f)
	for _, name := range []string{"Add", "Remove", "Swap", "SetNoise", "SetMean", "Factorize", "FactorizePivoted", "Refactorize", "RefreshInfo", "RefreshInfoGreedy", "ExactDelta"} {
		if _, ok := typ.MethodByName(name); ok {
			t.Errorf("the view has the mutating method %s", name)
		}
	}
	pivots, _ := md.InfoPivots()
	v0, _ := md.Value()
	f.ApproxDeltasTo(nil, VAR)
	if got, _ := md.InfoPivots(); !slices.Equal(got, pivots) {
		t.Errorf("information pivots %v after scoring through the view, were %v", got, pivots)
	}
	if v, _ := md.Value(); v != v0 {
		t.Errorf("objective %v after scoring through the view, was %v", v, v0)
	}
	if _, err := md.Swap(); err != nil {
		t.Fatal(err)
	}
	if v, _ := md.Value(); math.Abs(f.Value(VAR)-v) > 1e-12*math.Abs(v) {
		t.Errorf("the view shows F %v after a swap, the model %v", f.Value(VAR), v)
	}
}

// TestCostRankingAfterFit: CostRanking works on a fitted model, for
// every inducing point, with the exact and approximate costs of each
// candidate. The engine's TestCostRankingAfterShorterPark covers the
// state a fit can end in where the ranking's copy of the factor must keep
// the park buffer's capacity.
func TestCostRankingAfterFit(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(200, 1)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(10).WithSeed(1)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	ind, _ := md.Inducing()
	for _, j := range ind {
		cr, err := md.CostRanking(j, 20)
		if err != nil {
			t.Fatalf("CostRanking(%d): %v", j, err)
		}
		if len(cr.Candidates) == 0 || len(cr.Exact) != len(cr.Approx) {
			t.Errorf("CostRanking(%d): %d candidates, %d exact and %d approximate costs", j, len(cr.Candidates), len(cr.Exact), len(cr.Approx))
		}
	}
}
