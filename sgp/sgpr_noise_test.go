package sgp

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/internal/naive"
	"github.com/cholqr/sgp/sgp/kernel"
)

// noiseInducing returns m inducing inputs near the problem's inputs.
func noiseInducing(p *problem, m int, seed uint64) (*kernel.Vectors, [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	d := len(p.rows[0])
	rows := make([][]float64, m)
	for i := range rows {
		rows[i] = make([]float64, d)
		for t := range rows[i] {
			rows[i][t] = p.rows[(7*i)%len(p.rows)][t] + 0.1*rng.NormFloat64()
		}
	}
	z, _ := kernel.VectorsFromRows(rows)
	return z, rows
}

// denseVFE is the dense oracle of the VFE (c = 1) or DTC (c = 0)
// objective with noise Λ = diag(lam) at the zero mean:
// ½ log|Q + Λ| + ½ yᵀ(Q + Λ)⁻¹y + n/2 log 2π + c/2 Σ (K_ii − Q_ii)/λ_i,
// Q = K_nm K_mm⁻¹ K_mn formed densely.
func denseVFE(t *testing.T, knn *mat.SymDense, knm *mat.Dense, kmm *mat.SymDense, y, lam []float64, c float64) float64 {
	t.Helper()
	n := len(y)
	var ch mat.Cholesky
	if !ch.Factorize(kmm) {
		t.Fatal("oracle: K_mm not positive definite")
	}
	var sol, q mat.Dense
	if err := ch.SolveTo(&sol, knm.T()); err != nil {
		t.Fatal(err)
	}
	q.Mul(knm, &sol)
	S := mat.NewSymDense(n, nil)
	var trace float64
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			S.SetSym(i, j, q.At(i, j))
		}
		S.SetSym(i, i, q.At(i, i)+lam[i])
		trace += (knn.At(i, i) - q.At(i, i)) / lam[i]
	}
	return naive.ExactNMLL(S, y, 0) + 0.5*c*trace
}

// TestContinuousNoiseVariancesOracle checks the objective of continuous
// SGPR with known per-point noise (VAR and MLE, zero mean) against the
// dense oracle, its gradient in θ against central differences of the
// oracle and of itself, and its gradient in Z against central
// differences of itself.
func TestContinuousNoiseVariancesOracle(t *testing.T) {
	p, s2, _ := knownNoiseProblem(111, 45, 2)
	z, zrows := noiseInducing(p, 8, 5)
	for _, obj := range []Objective{VAR, MLE} {
		c := 0.0
		if obj == VAR {
			c = 1
		}
		ev := newNoiseEval(p.x, p.y, kernel.Clone(p.kern).(kernel.InputGradient), obj, z, s2, MeanZero, 0)
		theta := append(p.kern.Params(nil), math.Log(p.noise))
		grad := make([]float64, len(theta))
		f, err := ev.FuncGrad(grad, theta)
		if err != nil {
			t.Fatal(err)
		}
		oracle := func(th []float64, zr [][]float64) float64 {
			ls := []float64{math.Exp(th[1]), math.Exp(th[2])}
			v := math.Exp(th[0])
			lam := make([]float64, len(s2))
			for i := range lam {
				lam[i] = s2[i] + math.Exp(th[3])
			}
			return denseVFE(t, naive.RBF(p.rows, v, ls), naive.RBFCross(p.rows, zr, v, ls), naive.RBF(zr, v, ls), p.y, lam, c)
		}
		if want := oracle(theta, zrows); !relClose(f, want, 1e-10) {
			t.Errorf("%v: F = %.15g, oracle %.15g", obj, f, want)
		}
		own := func(th []float64) float64 {
			v, err := ev.FuncGrad(nil, th)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		const h = 1e-5
		for i := range theta {
			up := append([]float64(nil), theta...)
			dn := append([]float64(nil), theta...)
			up[i] += h
			dn[i] -= h
			fdO := (oracle(up, zrows) - oracle(dn, zrows)) / (2 * h)
			fdE := (own(up) - own(dn)) / (2 * h)
			if !relClose(grad[i], fdO, 1e-6) || !relClose(grad[i], fdE, 1e-6) {
				t.Errorf("%v, θ[%d]: analytic %.10g, oracle FD %.10g, own FD %.10g", obj, i, grad[i], fdO, fdE)
			}
		}
		if _, err := ev.FuncGrad(grad, theta); err != nil {
			t.Fatal(err)
		}
		gz := make([]float64, len(z.RawData()))
		ev.zGrad(gz)
		raw := z.RawData()
		for k := range raw {
			keep := raw[k]
			raw[k] = keep + h
			fu := own(theta)
			raw[k] = keep - h
			fd := own(theta)
			raw[k] = keep
			if g := (fu - fd) / (2 * h); !relClose(gz[k], g, 1e-6) {
				t.Errorf("%v, ∂F/∂Z[%d]: analytic %.10g, FD %.10g", obj, k, gz[k], g)
			}
		}
	}
}

// TestContinuousNoiseVariancesZeroIsEvaluator checks that with every
// s_i² = 0 the objective and its gradients in θ and Z are the
// homoscedastic Evaluator's, for both objectives and an estimated mean.
func TestContinuousNoiseVariancesZeroIsEvaluator(t *testing.T) {
	p, _, _ := knownNoiseProblem(121, 40, 2)
	z, _ := noiseInducing(p, 7, 9)
	theta := append(p.kern.Params(nil), math.Log(p.noise))
	for _, obj := range []Objective{VAR, MLE} {
		for _, mn := range []Mean{MeanConstant, MeanGLS, MeanZero} {
			ne := newNoiseEval(p.x, p.y, kernel.Clone(p.kern).(kernel.InputGradient), obj, z, make([]float64, 40), mn, 0)
			he := NewEvaluatorInputs(p.x, p.y, kernel.Clone(p.kern), obj, z)
			he.SetMean(mn)
			g1, g2 := make([]float64, len(theta)), make([]float64, len(theta))
			f1, err1 := ne.FuncGrad(g1, theta)
			f2, err2 := he.FuncGrad(g2, theta)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !relClose(f1, f2, 1e-10) || !relClose(ne.mu, he.mu, 1e-9) {
				t.Errorf("%v %v: F %.15g μ %.12g, Evaluator %.15g %.12g", obj, mn, f1, ne.mu, f2, he.mu)
			}
			for i := range g1 {
				if !relClose(g1[i], g2[i], 1e-8) {
					t.Errorf("%v %v: ∂F/∂θ[%d] %.12g, Evaluator %.12g", obj, mn, i, g1[i], g2[i])
				}
			}
			z1, z2 := make([]float64, len(z.RawData())), make([]float64, len(z.RawData()))
			ne.zGrad(z1)
			he.zGrad(z2)
			for i := range z1 {
				if !relClose(z1[i], z2[i], 1e-8) {
					t.Errorf("%v %v: ∂F/∂Z[%d] %.12g, Evaluator %.12g", obj, mn, i, z1[i], z2[i])
				}
			}
		}
	}
}

// TestContinuousNoiseVariancesPredict checks the Predictor of a fit with
// known per-point noise against the dense DTC predictive with
// Λ = diag(s² + σ²): mean μ + K*m M⁻¹K_mn Λ⁻¹(y − μ) and covariance
// K** − Q** + K*m M⁻¹K_m*, M = K_mm + K_mn Λ⁻¹ K_nm; and that a saved
// and loaded Predictor predicts the same.
func TestContinuousNoiseVariancesPredict(t *testing.T) {
	p, s2, _ := knownNoiseProblem(131, 50, 2)
	z, _ := noiseInducing(p, 9, 2)
	res, err := NewContinuous(p.x, p.y, p.kern).WithInducingInputs(z).WithNoiseVariances(s2).WithMaxEvals(40).Fit()
	if err != nil {
		t.Fatal(err)
	}
	pr := res.Predictor
	rk := pr.Kern.(*kernel.RBF)
	v, ls := rk.Variance(), rk.Lengthscales()
	zr := make([][]float64, res.Z.Len())
	for i := range zr {
		zr[i] = append([]float64(nil), res.Z.Row(i)...)
	}
	trows := [][]float64{p.rows[2], {1.1, 2.9}, {3.7, 0.4}, {9, 9}}
	xs, _ := kernel.VectorsFromRows(trows)
	knm := naive.RBFCross(p.rows, zr, v, ls)
	ksm := naive.RBFCross(trows, zr, v, ls)
	kmm := naive.RBF(zr, v, ls)
	kss := naive.RBF(trows, v, ls)
	n, m := len(p.y), len(zr)
	M := mat.NewSymDense(m, nil)
	for a := 0; a < m; a++ {
		for b := 0; b <= a; b++ {
			s := kmm.At(a, b)
			for i := 0; i < n; i++ {
				s += knm.At(i, a) * knm.At(i, b) / (s2[i] + pr.NoiseV)
			}
			M.SetSym(a, b, s)
		}
	}
	u := mat.NewVecDense(m, nil)
	for a := 0; a < m; a++ {
		var s float64
		for i := 0; i < n; i++ {
			s += knm.At(i, a) * (p.y[i] - pr.PriorMean) / (s2[i] + pr.NoiseV)
		}
		u.SetVec(a, s)
	}
	var chM, chK mat.Cholesky
	if !chM.Factorize(M) || !chK.Factorize(kmm) {
		t.Fatal("oracle: not positive definite")
	}
	var mu mat.VecDense
	if err := chM.SolveVecTo(&mu, u); err != nil {
		t.Fatal(err)
	}
	var s1, s2m, q1, q2 mat.Dense
	if err := chM.SolveTo(&s1, ksm.T()); err != nil {
		t.Fatal(err)
	}
	if err := chK.SolveTo(&s2m, ksm.T()); err != nil {
		t.Fatal(err)
	}
	q1.Mul(ksm, &s1)
	q2.Mul(ksm, &s2m)
	mean, cov, err := pr.PredictCov(xs)
	if err != nil {
		t.Fatal(err)
	}
	gm, gv, err := pr.Predict(xs)
	if err != nil {
		t.Fatal(err)
	}
	var worstM, worstV, worstC float64
	for i := range trows {
		var wm float64
		for a := 0; a < m; a++ {
			wm += ksm.At(i, a) * mu.AtVec(a)
		}
		wm += pr.PriorMean
		worstM = math.Max(worstM, math.Max(math.Abs(gm[i]-wm), math.Abs(mean[i]-wm)))
		worstV = math.Max(worstV, math.Abs(gv[i]-(kss.At(i, i)-q2.At(i, i)+q1.At(i, i))))
		for j := range trows {
			worstC = math.Max(worstC, math.Abs(cov.At(i, j)-(kss.At(i, j)-q2.At(i, j)+q1.At(i, j))))
		}
	}
	if worstM > 1e-9 || worstV > 1e-9 || worstC > 1e-9 {
		t.Errorf("against the dense DTC predictive: max |Δmean| %.3g, |Δvar| %.3g, |Δcov| %.3g", worstM, worstV, worstC)
	}
	t.Logf("oracle errors: mean %.3g, variance %.3g, covariance %.3g", worstM, worstV, worstC)
	_, nv, _ := pr.PredictNoisy(xs)
	if math.Abs(nv[1]-gv[1]-pr.NoiseV) > 1e-12 {
		t.Errorf("PredictNoisy adds %.12g, want σ² = %v", nv[1]-gv[1], pr.NoiseV)
	}
	var buf bytes.Buffer
	if err := pr.Save(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := LoadPredictor(&buf)
	if err != nil {
		t.Fatal(err)
	}
	lm, lv, _ := q.Predict(xs)
	for i := range lm {
		if !relClose(lm[i], gm[i], 1e-12) || !relClose(lv[i], gv[i], 1e-10) {
			t.Errorf("loaded: %.12g ± %.12g, fitted %.12g ± %.12g", lm[i], lv[i], gm[i], gv[i])
		}
	}
}

// TestContinuousNoiseVariancesEqual is the metamorphic relation of
// TestExactNoiseVariancesEqual for continuous SGPR: s_i² = c/2 with σ²
// fixed at c/2 is the fit at σ² fixed at c without known noise, over
// the first evaluations (the two objectives agree to rounding, which
// L-BFGS amplifies over a long non-convex path).
func TestContinuousNoiseVariancesEqual(t *testing.T) {
	rng := rand.New(rand.NewPCG(141, 142))
	p := newProblem(rng, 60, 1, 1.0, 0.8, 0.1)
	const c = 0.09
	a, err := NewContinuous(p.x, p.y, p.kern).WithM(6).WithNoiseVariances(constant(60, c/2)).WithFixedAt("noise", c/2).WithMaxEvals(8).Fit()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewContinuous(p.x, p.y, p.kern).WithM(6).WithFixedAt("noise", c).WithMaxEvals(8).Fit()
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(a.Objective, b.Objective, 1e-9) || !relClose(a.Start, b.Start, 1e-10) || a.Objective >= a.Start {
		t.Errorf("F %.12g (start %.12g) with s² = σ² = c/2; %.12g (%.12g) with σ² = c", a.Objective, a.Start, b.Objective, b.Start)
	}
	xs, _ := kernel.VectorsFromRows([][]float64{{0.3}, {2.2}, {9.7}})
	am, av, _ := a.Predictor.Predict(xs)
	bm, bv, _ := b.Predictor.Predict(xs)
	for i := range am {
		if math.Abs(am[i]-bm[i]) > 1e-8 || math.Abs(av[i]-bv[i]) > 1e-8 {
			t.Errorf("x %d: %.8g ± %.8g with known noise, %.8g ± %.8g without", i, am[i], av[i], bm[i], bv[i])
		}
	}
}

// TestContinuousNoiseVariancesUnits checks equivariance at the
// evaluator: targets scaled by a, noise variances, σ² and the kernel's
// variance by a² shift F by n·log a and leave ∂F/∂θ unchanged.
func TestContinuousNoiseVariancesUnits(t *testing.T) {
	p, s2, _ := knownNoiseProblem(151, 40, 2)
	z, _ := noiseInducing(p, 6, 4)
	const a = 23.0
	ya, s2a := make([]float64, len(p.y)), make([]float64, len(s2))
	for i := range ya {
		ya[i], s2a[i] = a*p.y[i], a*a*s2[i]
	}
	theta := append(p.kern.Params(nil), math.Log(p.noise))
	thetaA := append([]float64(nil), theta...)
	thetaA[0] += 2 * math.Log(a)
	thetaA[len(thetaA)-1] += 2 * math.Log(a)
	for _, mn := range []Mean{MeanConstant, MeanZero} {
		e1 := newNoiseEval(p.x, p.y, kernel.Clone(p.kern).(kernel.InputGradient), VAR, z, s2, mn, 0)
		e2 := newNoiseEval(p.x, ya, kernel.Clone(p.kern).(kernel.InputGradient), VAR, z, s2a, mn, 0)
		g1, g2 := make([]float64, len(theta)), make([]float64, len(theta))
		f1, _ := e1.FuncGrad(g1, theta)
		f2, _ := e2.FuncGrad(g2, thetaA)
		if n := float64(len(ya)); !relClose(f2, f1+n*math.Log(a), 1e-10) {
			t.Errorf("%v: F %.12g scaled, %.12g + n log a", mn, f2, f1)
		}
		for i := range g1 {
			if !relClose(g1[i], g2[i], 1e-8) {
				t.Errorf("%v: ∂F/∂θ[%d] %.12g scaled, %.12g", mn, i, g2[i], g1[i])
			}
		}
	}
	if _, err := NewContinuous(p.x, p.y, p.kern).WithM(5).WithNoiseVariances(s2[:39]).Fit(); err == nil || !strings.Contains(err.Error(), "39 noise variances for 40") {
		t.Errorf("39 noise variances for 40 points: %v", err)
	}
	if _, err := NewContinuous(p.x, p.y, p.kern).WithM(5).WithNoiseVariances(append([]float64{-2}, s2[1:]...)).Fit(); err == nil || !strings.Contains(err.Error(), "noise variance 0 is -2") {
		t.Errorf("a negative noise variance: %v", err)
	}
}
