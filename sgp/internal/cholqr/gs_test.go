package cholqr

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// gramSchmidtCGS2 is the explicit classical Gram–Schmidt that gramSchmidt
// replaced, kept as its oracle: two passes over Q for each projection, a
// second projection when the first loses more than 30% of the norm
// (Giraud et al. 2005), Q[:, k] = q formed at once.
func (f *Factor) gramSchmidtCGS2() {
	n, k := f.n, f.k
	rows := n + k + 1
	g := f.col(k)
	w := f.qcol(k)[:rows]
	copy(w, g)
	for i := n; i < rows; i++ {
		w[i] = 0
	}
	w[n+k] = math.Sqrt(f.noise)
	gg := sumSquares(g)
	vv := gg + f.noise
	c := f.cvec[:k]
	if k > 0 {
		qt := f.qmat(k, rows)
		wv := blas64.Vector{N: rows, Data: w, Inc: 1}
		cv := blas64.Vector{N: k, Data: c, Inc: 1}
		blas64.Gemv(blas.NoTrans, 1, qt, wv, 0, cv)
		blas64.Gemv(blas.Trans, -1, qt, cv, 1, wv)
		if sumSquares(w) < 0.49*vv {
			c2 := blas64.Vector{N: k, Data: f.c2[:k], Inc: 1}
			blas64.Gemv(blas.NoTrans, 1, qt, wv, 0, c2)
			blas64.Gemv(blas.Trans, -1, qt, c2, 1, wv)
			for i := range c {
				c[i] += f.c2[i]
			}
		}
	}
	r := math.Sqrt(sumSquares(w))
	var anew, bnew float64
	for i := range w {
		w[i] /= r
	}
	for i, v := range w[:n] {
		anew += v * f.y[i]
		bnew += v
	}
	f.tent = tentative{valid: true, r: r, anew: anew, bnew: bnew, gg: gg}
}

// checkTentativeAgainstCGS2 compares the tentative column of gramSchmidt,
// committed, with the explicit CGS2 of the same column, and undoes the
// commit. perturb, if not nil, is applied to A[:k, k] before gramSchmidt
// and undone afterwards. It returns the tentative column of gramSchmidt.
func checkTentativeAgainstCGS2(t *testing.T, f *Factor, perturb func(a []float64), tol float64) tentative {
	t.Helper()
	n, k := f.n, f.k
	rows := n + k + 1
	f.gramSchmidtCGS2()
	want := f.tent
	wantC := append([]float64(nil), f.cvec[:k]...)
	wantQ := append([]float64(nil), f.qcol(k)[:rows]...)
	var saved []float64
	if perturb != nil {
		saved = make([]float64, k)
		a := make([]float64, k)
		for i := range a {
			saved[i] = f.gram[i*f.tcap+k]
			a[i] = saved[i]
		}
		perturb(a)
		for i, v := range a {
			f.gram[i*f.tcap+k] = v
		}
	}
	f.gramSchmidt()
	for i, v := range saved {
		f.gram[i*f.tcap+k] = v
	}
	got := f.tent
	scale := math.Sqrt(got.gg + f.noise)
	if !scalar.EqualWithinAbsOrRel(got.r, want.r, tol*scale, tol) ||
		!scalar.EqualWithinAbsOrRel(got.anew, want.anew, tol*math.Sqrt(f.yy), tol) ||
		!scalar.EqualWithinAbsOrRel(got.bnew, want.bnew, tol*math.Sqrt(float64(n)), tol) ||
		got.gg != want.gg {
		t.Fatalf("k=%d: tentative %+v, CGS2 %+v", k, got, want)
	}
	for i, v := range f.cvec[:k] {
		if math.Abs(v-wantC[i]) > tol*scale {
			t.Fatalf("k=%d: c[%d]=%g, CGS2 %g", k, i, v, wantC[i])
		}
	}
	f.commitActive()
	q := f.qcol(k)[:rows]
	for i, v := range q {
		if math.Abs(v-wantQ[i]) > tol {
			t.Fatalf("k=%d: q[%d]=%g, CGS2 %g", k, i, v, wantQ[i])
		}
	}
	// q is orthogonal to the other columns and of unit norm.
	for c := 0; c < k; c++ {
		var s float64
		for i, v := range f.qcol(c)[:rows] {
			s += v * q[i]
		}
		if math.Abs(s) > tol {
			t.Fatalf("k=%d: q·Q[:, %d] = %g", k, c, s)
		}
	}
	if s := sumSquares(q); math.Abs(s-1) > tol {
		t.Fatalf("k=%d: ‖q‖² = %g", k, s)
	}
	f.dropActive()
	return got
}

// TestLazyGramSchmidtMatchesCGS2 checks the lazy second projection of
// gramSchmidt (c₁ from R⁻ᵀA, c₂ and the norms from one pass) against the
// explicit classical passes, on problems of one and of several row
// chunks, and that a poor first projection (a corrupted A) falls back to
// explicit passes with the same result.
func TestLazyGramSchmidtMatchesCGS2(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 21))
	oneSweep, twoSweeps := 0, 0
	var modes [gsFinish + 1]int
	defer func() {
		if oneSweep == 0 || twoSweeps == 0 {
			t.Errorf("columns of one sweep over Q: %d, of two: %d; both kinds wanted", oneSweep, twoSweeps)
		}
		for mode, c := range modes {
			if c == 0 {
				t.Errorf("no sweep of mode %d: %v", mode, modes)
			}
		}
	}()
	for _, tc := range []struct {
		n, m      int
		ls, noise float64
	}{{40, 8, 0.8, 0.05}, {200, 30, 0.8, 1e-4}, {2500, 40, 0.8, 0.01}, {5000, 12, 0.8, 1e-6}, {300, 40, 3, 1e-10}, {300, 40, 6, 1e-12}} {
		p := newProblem(rng, tc.n, 3, 1, tc.ls, tc.noise)
		f := p.factor(t, tc.m, 4)
		if tc.n == 300 {
			f.minChunk = 100 // two chunks
		}
		if err := f.Factorize(nil); err != nil {
			t.Fatal(err)
		}
		fallbacks, natural, orthogonal := 0, 0, 0
		sweeps := map[int]int{} // sweeps over Q of unperturbed columns
		for _, j := range rng.Perm(tc.n) {
			if f.NumActive() == tc.m-1 {
				break
			}
			if f.IsActive(j) || !f.insertCandidate(j) {
				continue
			}
			f.tent.valid = false
			before, sw := f.stats.Reorthogonalize, sumInts(f.qSweeps[:])
			got := checkTentativeAgainstCGS2(t, f, nil, 1e-10)
			sweeps[sumInts(f.qSweeps[:])-sw]++
			if got.orthogonal {
				orthogonal++
			}
			natural += f.stats.Reorthogonalize - before
			before = f.stats.Reorthogonalize
			// ‖δA‖ ≥ 3‖R‖_F‖w‖ gives ‖δc₁‖ = ‖R⁻ᵀδA‖ ≥ 3‖w‖ ≥ 3r, so
			// that ‖c₂‖² ≈ ‖δc₁‖² > gsLazyRatio·‖w₁‖².
			k := f.NumActive()
			// A small error of A leaves a second projection to apply
			// at commitActive (neither orthogonal nor a fallback).
			if k > 0 {
				sc := 1e-9 * math.Sqrt(f.gram[k*f.tcap+k])
				got := checkTentativeAgainstCGS2(t, f, func(a []float64) {
					for i := range a {
						a[i] += sc * f.gram[i*f.tcap+i] * (1 + rng.Float64())
					}
				}, 1e-10)
				if got.orthogonal || f.stats.Reorthogonalize != before {
					t.Fatalf("%+v k=%d: a slightly perturbed A gave %+v, %d fallbacks", tc, k, got, f.stats.Reorthogonalize-before)
				}
			}
			var rr float64
			for i := 0; i < k; i++ {
				rr += f.gram[i*f.tcap+i] + f.noise
			}
			scale := 3 * math.Sqrt(rr*(sumSquares(f.col(k))+f.noise)/float64(max(k, 1)))
			checkTentativeAgainstCGS2(t, f, func(a []float64) {
				for i := range a {
					a[i] += scale * (1 + rng.Float64())
				}
			}, 1e-10)
			if f.NumActive() > 0 && f.stats.Reorthogonalize == before {
				t.Fatalf("%+v k=%d: a corrupted first projection did not fall back", tc, f.NumActive())
			}
			fallbacks += f.stats.Reorthogonalize - before
			f.tent.valid = true
			f.gramSchmidt()
			f.commitActive()
		}
		if f.NumActive() < tc.m/2 {
			t.Fatalf("%+v: only %d points added", tc, f.NumActive())
		}
		if orthogonal == 0 {
			t.Errorf("%+v: no remainder was orthogonal after the first projection", tc)
		}
		for mode, c := range f.qSweeps {
			modes[mode] += c
		}
		oneSweep += sweeps[1]
		twoSweeps += sweeps[2]
		t.Logf("%+v: %d active, %d orthogonal w₁, sweeps over Q (commit included) %v, %d forced and %d natural fallbacks", tc, f.NumActive(), orthogonal, sweeps, fallbacks, natural)
	}
}

// TestSwapsChunkedGramSchmidt runs swaps on a problem whose pass over Q
// has several chunks and checks the state against a dense factorisation,
// and that the result does not depend on the number of cores.
func TestSwapsChunkedGramSchmidt(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	p := newProblem(rng, 600, 2, 1, 0.5, 0.01)
	start := rng.Perm(p.x.Len())[:48]
	run := func(procs int) *Factor {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		f := p.factor(t, 48, 8)
		f.minChunk = 250 // two chunks
		if err := f.Factorize(start); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, 3))
		for range 120 {
			f.Swap(r.IntN(f.NumActive()), base.VAR, r.IntN)
		}
		return f
	}
	f := run(2)
	if f.Stats().Accepted == 0 {
		t.Fatal("no swap accepted")
	}
	// ‖QᵀQ − I‖ after the swaps stays at the rounding level.
	rows := f.n + f.k
	var worst float64
	for c1 := 0; c1 < f.k; c1++ {
		for c2 := 0; c2 <= c1; c2++ {
			var s float64
			for i := 0; i < rows; i++ {
				s += f.q[c1*f.ldq+i] * f.q[c2*f.ldq+i]
			}
			if c1 == c2 {
				s--
			}
			worst = math.Max(worst, math.Abs(s))
		}
	}
	if worst > 1e-13 {
		t.Errorf("‖QᵀQ − I‖_max = %g after %d accepted swaps", worst, f.Stats().Accepted)
	}
	t.Logf("‖QᵀQ − I‖_max = %g after %d accepted swaps", worst, f.Stats().Accepted)
	checkInvariants(t, f, p, 1e-8)
	fresh := p.factor(t, 48, 8)
	if err := fresh.Factorize(f.Active(nil)); err != nil {
		t.Fatal(err)
	}
	if a, b := f.Value(base.VAR), fresh.Value(base.VAR); !scalar.EqualWithinAbsOrRel(a, b, 1e-9, 1e-9) {
		t.Errorf("updated %.12g, fresh %.12g", a, b)
	}
	if want := p.oracle(t, f.Active(nil), base.VAR); !scalar.EqualWithinAbsOrRel(f.Value(base.VAR), want, 1e-9, 1e-9) {
		t.Errorf("updated %.12g, oracle %.12g", f.Value(base.VAR), want)
	}
	one := run(1)
	if f.Value(base.VAR) != one.Value(base.VAR) || f.Stats().Accepted != one.Stats().Accepted {
		t.Errorf("2 cores %.17g (%d accepted), 1 core %.17g (%d accepted)", f.Value(base.VAR), f.Stats().Accepted, one.Value(base.VAR), one.Stats().Accepted)
	}
	for i := range f.q {
		if f.q[i] != one.q[i] {
			t.Fatalf("Q differs between 1 and 2 cores at %d: %g vs %g", i, f.q[i], one.q[i])
		}
	}
}

// TestRejectedSwapRestoresGram checks that the row of A = GᵀG that unpark
// restores from its parked copy (recomputing only the entries against the
// information pivots) equals GᵀG after rejected swaps, including those
// whose candidate was an information pivot and was left first among them.
func TestRejectedSwapRestoresGram(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(29, 29))
	p := newProblem(rng, 150, 2, 1, 0.6, 0.02)
	f := p.factor(t, 12, 6)
	if err := f.Factorize(rng.Perm(150)[:12]); err != nil {
		t.Fatal(err)
	}
	rejected, infoRejected := 0, 0
	for range 300 {
		info := f.InfoPivots(nil)
		res := f.Swap(rng.IntN(f.NumActive()), base.VAR, rng.IntN)
		if res.Accepted {
			continue
		}
		rejected++
		for _, j := range info {
			if j == res.Proposed {
				infoRejected++
			}
		}
		n, tt := f.n, f.t
		var scale float64
		for c := 0; c < tt; c++ {
			scale = math.Max(scale, f.gram[c*f.tcap+c])
		}
		for c1 := 0; c1 < tt; c1++ {
			for c2 := 0; c2 < tt; c2++ {
				var s float64
				for i := 0; i < n; i++ {
					s += f.g[c1*n+i] * f.g[c2*n+i]
				}
				if got := f.gram[c1*f.tcap+c2]; math.Abs(got-s) > 1e-11*scale {
					t.Fatalf("after a rejected swap of %d for %d: A[%d,%d]=%.17g, GᵀG=%.17g", res.Removed, res.Proposed, c1, c2, got, s)
				}
			}
		}
	}
	if infoRejected == 0 || rejected == infoRejected {
		t.Fatalf("%d rejected swaps, %d of an information pivot: both kinds wanted", rejected, infoRejected)
	}
	t.Logf("%d rejected swaps, %d of an information pivot", rejected, infoRejected)
}

func sumInts(v []int) int {
	var s int
	for _, x := range v {
		s += x
	}
	return s
}

// TestPredictRejectSameSwaps runs the same swaps on two factors, one that
// rejects candidates on the prediction of predictReject and one that
// always runs gramSchmidt, and checks that every swap proposes, decides
// and ends alike, that the prediction agrees with the Gram–Schmidt score,
// and that the states stay equal bit for bit. The problems include
// ill-conditioned ones, where the prediction must step aside.
func TestPredictRejectSameSwaps(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, m, z   int
		ls, noise float64
		o         base.Objective
	}{{400, 30, 8, 0.6, 0.01, base.VAR}, {400, 30, 8, 0.6, 0.01, base.MLE}, {300, 40, 6, 3, 1e-8, base.VAR}, {500, 24, 2, 0.8, 0.05, base.MLE}} {
		rng := rand.New(rand.NewPCG(31, uint64(tc.n+tc.m)))
		p := newProblem(rng, tc.n, 3, 1, tc.ls, tc.noise)
		start := rng.Perm(tc.n)[:tc.m]
		fp, fg := p.factor(t, tc.m, tc.z), p.factor(t, tc.m, tc.z)
		fg.noPredict = true
		for _, f := range []*Factor{fp, fg} {
			if err := f.Factorize(start); err != nil {
				t.Fatal(err)
			}
		}
		rp, rg := rand.New(rand.NewPCG(5, 5)), rand.New(rand.NewPCG(5, 5))
		var worst float64
		for s := range 250 {
			pos := rp.IntN(fp.NumActive())
			if q := rg.IntN(fg.NumActive()); q != pos {
				t.Fatalf("%+v swap %d: position streams differ", tc, s)
			}
			a, b := fp.Swap(pos, tc.o, rp.IntN), fg.Swap(pos, tc.o, rg.IntN)
			if a.Proposed != b.Proposed || a.Accepted != b.Accepted || a.After != b.After {
				t.Fatalf("%+v swap %d: predicted %+v, Gram–Schmidt %+v", tc, s, a, b)
			}
			if a.Proposed >= 0 {
				d := math.Abs(a.ExactDelta-b.ExactDelta) / (1 + math.Abs(b.ExactDelta))
				worst = math.Max(worst, d)
			}
		}
		if worst > 1e-8 {
			t.Errorf("%+v: predicted and Gram–Schmidt ΔF differ by %g relative", tc, worst)
		}
		st := fp.Stats()
		if fg.Stats().Predicted != 0 {
			t.Errorf("%+v: the factor without prediction predicted", tc)
		}
		if tc.ls < 1 && (st.PredictedReject == 0 || st.Accepted == 0 || st.Accepted == st.Swaps) {
			t.Errorf("%+v: %+v: the prediction path or a decision was not exercised", tc, st)
		}
		k, rows := fp.k, fp.n+fp.k
		for c := 0; c < fp.t; c++ {
			for i := 0; i < fp.n; i++ {
				if fp.g[c*fp.n+i] != fg.g[c*fg.n+i] {
					t.Fatalf("%+v: G differs at column %d", tc, c)
				}
			}
		}
		for c := 0; c < k; c++ {
			for i := 0; i < rows; i++ {
				if fp.q[c*fp.ldq+i] != fg.q[c*fg.ldq+i] {
					t.Fatalf("%+v: Q differs at column %d", tc, c)
				}
			}
			if fp.a[c] != fg.a[c] {
				t.Fatalf("%+v: a differs at %d", tc, c)
			}
		}
		for i := range fp.r {
			if fp.r[i] != fg.r[i] {
				t.Fatalf("%+v: R differs", tc)
			}
		}
		t.Logf("%+v: %d swaps, %d accepted, %d predicted, %d rejected on the prediction, worst relative ΔF difference %.2g",
			tc, st.Swaps, st.Accepted, st.Predicted, st.PredictedReject, worst)
	}
}

// TestAddNoQMatchesAdd adds the same points with Add and with addNoQ and
// checks that R, a, b and F agree, also on ill-conditioned problems (long
// lengthscales, noise down to 10⁻¹²), that a stale Q is refused until the
// next Factorize, and that addNoQ's rebuild (forced by a high threshold)
// keeps the objective and leaves a valid factor.
func TestAddNoQMatchesAdd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, m      int
		ls, noise float64
		force     bool
	}{{300, 40, 0.6, 0.01, false}, {300, 40, 3, 1e-8, false}, {500, 80, 6, 1e-12, false}, {300, 40, 3, 1e-8, true}} {
		rng := rand.New(rand.NewPCG(37, uint64(tc.m)))
		p := newProblem(rng, tc.n, 3, 1, tc.ls, tc.noise)
		fa, fn := p.factor(t, tc.m, 6), p.factor(t, tc.m, 6)
		if tc.force {
			fn.noQTol = 0.25
		}
		for _, f := range []*Factor{fa, fn} {
			if err := f.Factorize(nil); err != nil {
				t.Fatal(err)
			}
		}
		added, rebuilds := 0, 0
		tol := 1e-10
		if tc.force {
			tol = 1e-6 // a rebuild factorises by blocks, Add by updates
		}
		for _, j := range rng.Perm(tc.n) {
			if fa.NumActive() == tc.m {
				break
			}
			ea := fa.Add(j)
			before := fn.stats.Factorizations
			en := fn.addNoQ(j)
			if (ea == nil) != (en == nil) {
				t.Fatalf("%+v: point %d: Add %v, addNoQ %v", tc, j, ea, en)
			}
			if ea != nil {
				continue
			}
			added++
			rebuilds += fn.stats.Factorizations - before
			k := fa.k
			for i := 0; i < k; i++ {
				for c := i; c < k; c++ {
					a, b := fa.r[i*fa.mcap+c], fn.r[i*fn.mcap+c]
					if math.Abs(a-b) > tol*(1e-3+math.Abs(a)) {
						t.Fatalf("%+v k=%d: R[%d,%d] Add %.12g, addNoQ %.12g", tc, k, i, c, a, b)
					}
				}
				if math.Abs(fa.a[i]-fn.a[i]) > tol*(1+math.Abs(fa.a[i])) || math.Abs(fa.b[i]-fn.b[i]) > tol*(1+math.Abs(fa.b[i])) {
					t.Fatalf("%+v k=%d: a or b differs at %d", tc, k, i)
				}
			}
			if v, w := fa.Value(base.VAR), fn.Value(base.VAR); !scalar.EqualWithinAbsOrRel(v, w, tol, tol) {
				t.Fatalf("%+v k=%d: base.VAR %.12g with Add, %.12g with addNoQ", tc, k, v, w)
			}
		}
		if added < tc.m/2 {
			t.Fatalf("%+v: only %d points added", tc, added)
		}
		if tc.force != (rebuilds > 0) {
			t.Errorf("%+v: %d rebuilds", tc, rebuilds)
		}
		if fn.qStale {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%+v: a swap on a stale Q did not panic", tc)
					}
				}()
				fn.Swap(0, base.VAR, rng.IntN)
			}()
			if err := fn.Factorize(fn.Active(nil)); err != nil {
				t.Fatal(err)
			}
		}
		if fn.qStale {
			t.Fatalf("%+v: Factorize left Q stale", tc)
		}
		checkInvariants(t, fn, p, 1e-8)
		t.Logf("%+v: %d points added, %d rebuilds", tc, added, rebuilds)
	}
}
