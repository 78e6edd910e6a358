package naive

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// TestPredictCovDiagonals checks the covariance oracles against the
// marginal ones: the diagonal of PredictDTCCov with inducing training
// inputs is PredictDTC's variance, and the diagonal of ExactPredictCov is
// ExactPredict's; the means agree too.
func TestPredictCovDiagonals(t *testing.T) {
	const tol = 1e-9
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{3, 12, 30} {
		p := randomProblem(rnd, n, 2)
		xs := randomInputs(rnd, 6, 2)
		Ks := RBFCross(xs, p.x, p.variance, p.lengthscales)
		Kss := RBF(xs, p.variance, p.lengthscales)
		kss := make([]float64, len(xs))
		for i := range kss {
			kss[i] = Kss.At(i, i)
		}
		I := rnd.Perm(n)[:max(1, n/3)]
		zs := make([][]float64, len(I))
		for c, i := range I {
			zs[c] = p.x[i]
		}
		Kmm := RBF(zs, p.variance, p.lengthscales)
		Kmn := RBFCross(zs, p.x, p.variance, p.lengthscales)
		Ksm := RBFCross(xs, zs, p.variance, p.lengthscales)
		wm, wv, ok := PredictDTC(p.K, Ks, kss, p.y, p.noise, I)
		gm, gc, ok2 := PredictDTCCov(Kmm, Kmn, Ksm, Kss, p.y, p.noise)
		em, ev, ok3 := ExactPredict(p.K, Ks, kss, p.y, p.noise)
		xm, xc, ok4 := ExactPredictCov(p.K, Ks, Kss, p.y, p.noise)
		if !ok || !ok2 || !ok3 || !ok4 {
			t.Fatalf("n=%d: an oracle failed", n)
		}
		for i := range xs {
			if !scalar.EqualWithinAbsOrRel(gm[i], wm[i], tol, tol) || !scalar.EqualWithinAbsOrRel(gc.At(i, i), wv[i], tol, tol) {
				t.Errorf("n=%d DTC point %d: (%g, %g), marginal (%g, %g)", n, i, gm[i], gc.At(i, i), wm[i], wv[i])
			}
			if !scalar.EqualWithinAbsOrRel(xm[i], em[i], tol, tol) || !scalar.EqualWithinAbsOrRel(xc.At(i, i), ev[i], tol, tol) {
				t.Errorf("n=%d exact point %d: (%g, %g), marginal (%g, %g)", n, i, xm[i], xc.At(i, i), em[i], ev[i])
			}
		}
		// The posterior covariance is positive semi-definite.
		for _, c := range []*mat.SymDense{gc, xc} {
			var eig mat.EigenSym
			if !eig.Factorize(c, false) {
				t.Fatal("eigendecomposition failed")
			}
			if v := eig.Values(nil)[0]; v < -1e-9 {
				t.Errorf("n=%d: covariance eigenvalue %g < 0", n, v)
			}
		}
	}
}
