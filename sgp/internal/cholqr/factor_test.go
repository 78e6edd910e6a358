package cholqr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/naive"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/kernel"
)

// problem is a small random regression problem with its dense kernel
// matrix for the oracle.
type problem struct {
	x     *kernel.Vectors
	rows  [][]float64
	y     []float64
	kern  *kernel.RBF
	noise float64
	K     *mat.SymDense
}

func newProblem(rng *rand.Rand, n, dim int, variance, ls, noise float64) *problem {
	return fromNaive(naive.NewProblem(rng, n, dim, variance, ls, noise))
}

// fromNaive is the oracle's problem with its kernel and inputs.
func fromNaive(q *naive.Problem) *problem {
	x, err := kernel.VectorsFromRows(q.Rows)
	if err != nil {
		panic(err)
	}
	return &problem{x: x, rows: q.Rows, y: q.Y, kern: kernel.NewRBF(q.Variance, q.Lengthscales), noise: q.Noise, K: q.K}
}

func (p *problem) factor(t *testing.T, m, z int) *Factor {
	t.Helper()
	f, err := New(p.x, p.y, p.kern, p.noise, m, z)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (p *problem) oracle(t *testing.T, active []int, o base.Objective) float64 {
	t.Helper()
	mle, vfe, ok := naive.DTC(p.K, p.y, p.noise, active)
	if !ok {
		t.Fatalf("oracle failed for active set %v", active)
	}
	if o == base.MLE {
		return mle
	}
	return vfe
}

var testSizes = []int{1, 2, 3, 5, 31, 32, 33, 64}

// checkInvariants verifies the factored state against its definition:
// G[perm[p], c] = 0 for c > p, d = diag K − rowsum(G∘G), G Gᵀ = K at the
// pivot block, QᵀQ = I, QR = [G_I; σI], a = Q[:n,:]ᵀ y.
func checkInvariants(t *testing.T, f *Factor, p *problem, tol float64) {
	t.Helper()
	n, k, tt := f.n, f.k, f.t
	for pp := 0; pp < tt; pp++ {
		row := f.perm[pp]
		if f.pos[row] != pp {
			t.Fatalf("pos[%d]=%d, want %d", row, f.pos[row], pp)
		}
		for c := pp + 1; c < tt; c++ {
			if v := f.g[c*n+row]; v != 0 {
				t.Fatalf("G[%d,%d]=%g above the pivot diagonal", row, c, v)
			}
		}
		if f.g[pp*n+row] <= 0 {
			t.Fatalf("G pivot %d has non-positive diagonal %g", pp, f.g[pp*n+row])
		}
	}
	// d and the pivot block of G Gᵀ.
	for i := 0; i < n; i++ {
		var s float64
		for c := 0; c < tt; c++ {
			s += f.g[c*n+i] * f.g[c*n+i]
		}
		if !scalar.EqualWithinAbsOrRel(f.d[i], p.K.At(i, i)-s, tol, tol) {
			t.Fatalf("d[%d]=%g, want %g", i, f.d[i], p.K.At(i, i)-s)
		}
	}
	for a := 0; a < tt; a++ {
		for i := 0; i < n; i++ {
			var s float64
			for c := 0; c < tt; c++ {
				s += f.g[c*n+i] * f.g[c*n+f.perm[a]]
			}
			if !scalar.EqualWithinAbsOrRel(s, p.K.At(i, f.perm[a]), tol, tol) {
				t.Fatalf("(GGᵀ)[%d,%d]=%g, want K=%g", i, f.perm[a], s, p.K.At(i, f.perm[a]))
			}
		}
	}
	// A = GᵀG.
	for c1 := 0; c1 < tt; c1++ {
		for c2 := 0; c2 < tt; c2++ {
			var s float64
			for i := 0; i < n; i++ {
				s += f.g[c1*n+i] * f.g[c2*n+i]
			}
			if got := f.gram[c1*f.tcap+c2]; !scalar.EqualWithinAbsOrRel(got, s, tol, tol) {
				t.Fatalf("A[%d,%d]=%g, want GᵀG=%g", c1, c2, got, s)
			}
		}
	}
	// Q orthonormal, QR = [G_I; σI], a = Qᵀy.
	rows := n + k
	sigma := math.Sqrt(f.noise)
	for c1 := 0; c1 < k; c1++ {
		for c2 := 0; c2 < k; c2++ {
			var s float64
			for i := 0; i < rows; i++ {
				s += f.q[c1*f.ldq+i] * f.q[c2*f.ldq+i]
			}
			want := 0.0
			if c1 == c2 {
				want = 1
			}
			if math.Abs(s-want) > tol {
				t.Fatalf("(QᵀQ)[%d,%d]=%g", c1, c2, s)
			}
		}
		if f.r[c1*f.mcap+c1] <= 0 {
			t.Fatalf("R[%d,%d]=%g not positive", c1, c1, f.r[c1*f.mcap+c1])
		}
	}
	for i := 0; i < rows; i++ {
		for c := 0; c < k; c++ {
			var s float64
			for l := 0; l <= c; l++ {
				s += f.q[l*f.ldq+i] * f.r[l*f.mcap+c]
			}
			var want float64
			if i < n {
				want = f.g[c*n+i]
			} else if i-n == c {
				want = sigma
			}
			if math.Abs(s-want) > tol*math.Max(1, math.Abs(want)) {
				t.Fatalf("(QR)[%d,%d]=%g, want %g", i, c, s, want)
			}
		}
	}
	for c := 0; c < k; c++ {
		var s float64
		for i := 0; i < n; i++ {
			s += f.q[c*f.ldq+i] * p.y[i]
		}
		if !scalar.EqualWithinAbsOrRel(s, f.a[c], tol, tol) {
			t.Fatalf("a[%d]=%g, want %g", c, f.a[c], s)
		}
	}
}

func TestFactorObjectiveMatchesOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{2, 5, 31, 64, 100} {
		for _, dim := range []int{1, 3} {
			// Lengthscales short enough that random subsets stay well
			// conditioned in the dense oracle.
			for _, hp := range [][3]float64{{1, 0.3 * float64(dim), 0.1}, {2.5, 0.15 * float64(dim), 0.01}, {0.5, 0.2 * float64(dim), 1e-3}} {
				p := newProblem(rng, n, dim, hp[0], hp[1], hp[2])
				for _, k := range []int{1, (n + 1) / 3, n - 1} {
					if k < 1 {
						continue
					}
					name := fmt.Sprintf("n=%d,d=%d,k=%d,hp=%v", n, dim, k, hp)
					active := rng.Perm(n)[:k]
					f := p.factor(t, k, 4)
					if err := f.Factorize(active); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					checkInvariants(t, f, p, 1e-8)
					for _, o := range []base.Objective{base.VAR, base.MLE} {
						got, want := f.Value(o), p.oracle(t, active, o)
						if !scalar.EqualWithinAbsOrRel(got, want, 1e-9, 1e-9) {
							t.Errorf("%s %v: factor %.12g, oracle %.12g", name, o, got, want)
						}
					}
				}
			}
		}
	}
}

func TestAllPointsInducingIsExactGP(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 2))
	for _, n := range testSizes {
		p := newProblem(rng, n, 2, 1.3, 0.4, 0.05)
		f := p.factor(t, n, 0)
		if err := f.Factorize(rng.Perm(n)); err != nil {
			t.Fatal(err)
		}
		want := naive.ExactNMLL(p.K, p.y, p.noise)
		for _, o := range []base.Objective{base.MLE, base.VAR} {
			if got := f.Value(o); !scalar.EqualWithinAbsOrRel(got, want, 1e-9, 1e-9) {
				t.Errorf("n=%d %v: %.12g, exact GP %.12g", n, o, got, want)
			}
		}
	}
}

func TestExactDeltaMatchesOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{5, 33, 64} {
		// (Below σ² ≈ 1e-4 the dense oracle, not the factor, loses digits.)
		for _, noise := range []float64{0.1, 1e-4} {
			p := newProblem(rng, n, 2, 1, 0.8, noise)
			k := n / 4
			active := rng.Perm(n)[:k]
			f := p.factor(t, k+1, 3)
			if err := f.Factorize(active); err != nil {
				t.Fatal(err)
			}
			for _, o := range []base.Objective{base.VAR, base.MLE} {
				base := p.oracle(t, active, o)
				for j := 0; j < n; j++ {
					got := f.ExactDelta(j, o)
					if f.IsActive(j) {
						if !math.IsNaN(got) {
							t.Fatalf("active %d: got %g, want NaN", j, got)
						}
						continue
					}
					want := base - p.oracle(t, append(append([]int(nil), active...), j), o)
					if !scalar.EqualWithinAbsOrRel(got, want, 1e-8, 1e-7) {
						t.Errorf("n=%d σ²=%g %v j=%d: ΔF %.10g, oracle %.10g", n, noise, o, j, got, want)
					}
				}
				// The state is unchanged by scoring.
				if got := f.Value(o); !scalar.EqualWithinAbsOrRel(got, base, 1e-9, 1e-9) {
					t.Fatalf("scoring changed F: %g, want %g", got, base)
				}
				checkInvariants(t, f, p, 1e-8)
			}
		}
	}
}

func TestApproxEqualsExactWithAllPivots(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{3, 5, 31, 33} {
		p := newProblem(rng, n, 1, 1, 0.4, 0.05)
		k := max(1, n/3)
		active := rng.Perm(n)[:k]
		f := p.factor(t, k+1, n-k)
		if err := f.Factorize(active); err != nil {
			t.Fatal(err)
		}
		for _, o := range []base.Objective{base.VAR, base.MLE} {
			approx := f.ApproxDeltasTo(nil, o)
			for j := 0; j < n; j++ {
				exact := f.ExactDelta(j, o)
				switch {
				case f.IsActive(j):
					if !math.IsNaN(approx[j]) {
						t.Errorf("active %d: approx %g", j, approx[j])
					}
				case math.IsInf(approx[j], -1):
					// Negligible residual: excluded.
				default:
					if !scalar.EqualWithinAbsOrRel(approx[j], exact, 1e-7, 1e-6) {
						t.Errorf("n=%d %v j=%d: approx %.10g, exact %.10g", n, o, j, approx[j], exact)
					}
				}
			}
		}
	}
}

func TestSwapsKeepFactorExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	for _, tc := range []struct{ n, m, z int }{{33, 5, 4}, {64, 10, 8}, {40, 1, 3}, {20, 19, 1}, {32, 8, 0}} {
		p := newProblem(rng, tc.n, 2, 1, 0.7, 0.02)
		f := p.factor(t, tc.m, tc.z)
		if err := f.Factorize(rng.Perm(tc.n)[:tc.m]); err != nil {
			t.Fatal(err)
		}
		for _, o := range []base.Objective{base.VAR, base.MLE} {
			prev := f.Value(o)
			for s := 0; s < 1000; s++ {
				res := f.Swap(rng.IntN(f.NumActive()), o, rng.IntN)
				if res.After > prev*(1+1e-12)+1e-12 {
					t.Fatalf("%+v: objective rose from %g to %g", tc, prev, res.After)
				}
				if !scalar.EqualWithinAbsOrRel(res.After, f.Value(o), 1e-9, 1e-9) {
					t.Fatalf("%+v: reported %g, state %g", tc, res.After, f.Value(o))
				}
				prev = res.After
			}
			active := f.Active(nil)
			want := p.oracle(t, active, o)
			if got := f.Value(o); !scalar.EqualWithinAbsOrRel(got, want, 1e-9, 1e-9) {
				t.Errorf("%+v %v after swaps: %.12g, oracle %.12g", tc, o, got, want)
			}
			checkInvariants(t, f, p, 1e-8)
			// Against a from-scratch factorisation of the same set.
			fresh := p.factor(t, tc.m, tc.z)
			if err := fresh.Factorize(active); err != nil {
				t.Fatal(err)
			}
			pu, pf := f.Parts(), fresh.Parts()
			for _, pair := range [][2]float64{{pu.DataFit, pf.DataFit}, {pu.Complexity, pf.Complexity}, {pu.Trace, pf.Trace}} {
				if !scalar.EqualWithinAbsOrRel(pair[0], pair[1], 1e-9, 1e-9) {
					t.Errorf("%+v: updated part %.12g, fresh %.12g", tc, pair[0], pair[1])
				}
			}
			ru, rf := f.ResidualTo(nil), fresh.ResidualTo(nil)
			for i := range ru {
				if math.Abs(ru[i]-rf[i]) > 1e-10 {
					t.Fatalf("%+v: residual %d updated %g, fresh %g", tc, i, ru[i], rf[i])
				}
			}
			drift, err := f.Refactorize()
			if err != nil || drift > 1e-10 {
				t.Errorf("%+v: refactorisation drift %g, err %v", tc, drift, err)
			}
			if st := f.Stats(); st.Swaps == 0 {
				t.Fatal("no swaps counted")
			}
		}
	}
}

func TestNewFactorRejectsBadInput(t *testing.T) {
	t.Parallel()
	x, _ := kernel.NewVectors(3, 1, []float64{0, 1, 2})
	y := []float64{1, 2, 3}
	k := kernel.NewRBF(1, []float64{1})
	x2, _ := kernel.NewVectors(3, 2, []float64{0, 1, 2, 3, 4, 5})
	for _, tc := range []struct {
		name  string
		x     kernel.Inputs
		y     []float64
		noise float64
		m, z  int
	}{
		{"empty", nil, nil, 1, 1, 0},
		{"length", x, []float64{1, 2}, 1, 1, 0},
		{"nan target", x, []float64{1, math.NaN(), 3}, 1, 1, 0},
		{"inf target", x, []float64{1, math.Inf(1), 3}, 1, 1, 0},
		{"zero noise", x, y, 0, 1, 0},
		{"negative noise", x, y, -1, 1, 0},
		{"nan noise", x, y, math.NaN(), 1, 0},
		{"m=0", x, y, 1, 0, 0},
		{"m>n", x, y, 1, 4, 0},
		{"z<0", x, y, 1, 1, -1},
		{"dimension", x2, y, 1, 1, 0},
	} {
		if f, err := New(tc.x, tc.y, k, tc.noise, tc.m, tc.z); err == nil || f != nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if _, err := kernel.NewVectors(2, 1, []float64{0, math.NaN()}); err == nil {
		t.Error("NaN input accepted")
	}
}

func TestFactorDegenerateAndEdgeCases(t *testing.T) {
	t.Parallel()
	// Duplicate inputs: the second copy cannot be inducing, and is never
	// proposed by a swap.
	x, _ := kernel.NewVectors(6, 1, []float64{0, 1, 1, 2, 3, 3})
	y := []float64{0.1, 0.5, 0.6, -0.2, 0.3, 0.2}
	k := kernel.NewRBF(1, []float64{0.7})
	f, err := New(x, y, k, 1e-8, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	var de *base.DegenerateError
	if err := f.Factorize([]int{1, 2}); err == nil || !asDegenerate(err, &de) || de.Index != 2 {
		t.Fatalf("duplicate accepted: %v", err)
	}
	if err := f.Factorize([]int{1, 4}); err != nil {
		t.Fatal(err)
	}
	approx := f.ApproxDeltasTo(nil, base.VAR)
	if !math.IsInf(approx[2], -1) || !math.IsInf(approx[5], -1) {
		t.Errorf("duplicates of active points not excluded: %v", approx)
	}
	if err := f.Add(2); err == nil {
		t.Error("Add of a duplicate succeeded")
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for range 50 {
		res := f.Swap(rng.IntN(f.NumActive()), base.VAR, rng.IntN)
		if res.Accepted && (res.Proposed == 2 && f.IsActive(1) || res.Proposed == 5 && f.IsActive(4)) {
			t.Fatalf("duplicate swapped in: %+v", res)
		}
	}
	if f.Stats().Clamped < 0 {
		t.Fatal("negative clamp count")
	}
	// Panics on misuse.
	var zero Factor
	if !panics(func() { zero.Value(base.VAR) }) {
		t.Error("zero Factor did not panic")
	}
	if !panics(func() { f.Remove(0) }) {
		t.Error("Remove of a non-active point did not panic")
	}
	if !panics(func() { _ = f.Factorize([]int{1, 1}) }) {
		t.Error("repeated index did not panic")
	}
}

func asDegenerate(err error, target **base.DegenerateError) bool {
	de, ok := err.(*base.DegenerateError)
	if ok {
		*target = de
	}
	return ok
}

func panics(fn func()) (panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	fn()
	return false
}

func TestAddRemoveMatchOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	p := newProblem(rng, 33, 2, 1, 0.6, 0.01)
	f := p.factor(t, 6, 4)
	if err := f.Factorize([]int{3}); err != nil {
		t.Fatal(err)
	}
	for _, j := range []int{10, 20, 5, 7, 30} {
		if err := f.Add(j); err != nil {
			t.Fatal(err)
		}
	}
	for _, j := range []int{20, 3, 30} {
		f.Remove(j)
		checkInvariants(t, f, p, 1e-8)
		want := p.oracle(t, f.Active(nil), base.VAR)
		if got := f.Value(base.VAR); !scalar.EqualWithinAbsOrRel(got, want, 1e-9, 1e-9) {
			t.Errorf("after removing %d: %.12g, oracle %.12g", j, got, want)
		}
	}
}

// TestSwapsNearDegenerate drives swaps on a smooth 1-D problem where many
// candidates are nearly explained by the inducing set, so that candidate
// insertion has to drop information pivots and rejected swaps restore the
// removed point after the pivots changed (a stale parked column once broke
// QR = [G; σI] here).
func TestSwapsNearDegenerate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 13))
	n := 80
	rows := make([][]float64, n)
	y := make([]float64, n)
	for i := range rows {
		rows[i] = []float64{6 * rng.Float64()}
		y[i] = math.Sin(2*rows[i][0]) + 0.2*rng.NormFloat64()
	}
	x, _ := kernel.VectorsFromRows(rows)
	for _, tc := range []struct {
		ls, noise float64
		m, z      int
	}{{1.5, 0.05, 10, 3}, {0.8, 1e-6, 12, 6}, {2.5, 0.01, 6, 1}} {
		kern := kernel.NewRBF(1.3, []float64{tc.ls})
		p := &problem{x: x, rows: rows, y: y, kern: kern, noise: tc.noise, K: naive.RBF(rows, 1.3, []float64{tc.ls})}
		f := p.factor(t, tc.m, tc.z)
		if err := f.Factorize(nil); err != nil {
			t.Fatal(err)
		}
		for _, j := range rng.Perm(n) {
			if f.NumActive() < tc.m {
				_ = f.Add(j) // degenerate candidates are refused
			}
		}
		if f.NumActive() < tc.m/2 {
			t.Fatalf("%+v: only %d points could be added", tc, f.NumActive())
		}
		for _, o := range []base.Objective{base.MLE, base.VAR} {
			for s := 0; s < 150; s++ {
				f.Swap(rng.IntN(f.NumActive()), o, rng.IntN)
				if s%10 == 0 {
					f.RefreshInfo(rng.IntN)
				}
				checkInvariants(t, f, p, 1e-7)
			}
		}
		fresh := p.factor(t, tc.m, tc.z)
		if err := fresh.Factorize(f.Active(nil)); err != nil {
			t.Fatal(err)
		}
		for _, o := range []base.Objective{base.MLE, base.VAR} {
			if a, b := f.Value(o), fresh.Value(o); !scalar.EqualWithinAbsOrRel(a, b, 1e-6, 1e-6) {
				t.Errorf("%+v %v: updated %.12g, fresh %.12g", tc, o, a, b)
			}
		}
	}
}

// TestBlockedFactorizeMatchesRankOne compares the level-3 build with the
// rank-one build of the same ordered set.
func TestBlockedFactorizeMatchesRankOne(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 17))
	for _, n := range []int{3, 33, 64, 100} {
		for _, noise := range []float64{0.3, 1e-5} {
			p := newProblem(rng, n, 3, 1.1, 0.9, noise)
			k := max(1, n/3)
			active := rng.Perm(n)[:k]
			a := p.factor(t, k, 4)
			if err := a.Factorize(active); err != nil {
				t.Fatal(err)
			}
			b := p.factor(t, k, 4)
			b.validateActive(active)
			if err := b.factorizeRankOne(active); err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, a, p, 1e-8)
			checkInvariants(t, b, p, 1e-8)
			pa, pb := a.Parts(), b.Parts()
			if !scalar.EqualWithinAbsOrRel(pa.VAR, pb.VAR, 1e-10, 1e-10) || !scalar.EqualWithinAbsOrRel(pa.MLE, pb.MLE, 1e-10, 1e-10) {
				t.Errorf("n=%d σ²=%g: blocked %+v, rank-one %+v", n, noise, pa, pb)
			}
			for i := 0; i < n*k; i++ {
				if math.Abs(a.g[i]-b.g[i]) > 1e-9 {
					t.Fatalf("n=%d σ²=%g: G differs at %d: %g vs %g", n, noise, i, a.g[i], b.g[i])
				}
			}
		}
	}
}
