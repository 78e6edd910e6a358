package sgp

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/internal/naive"
	"github.com/cholqr/sgp/sgp/kernel"
)

// knownNoiseProblem returns a problem with per-point noise variances
// spread over two orders of magnitude, and K + diag(s²), the dense
// oracle's kernel matrix with the known noise on its diagonal.
func knownNoiseProblem(seed uint64, n, dim int) (*problem, []float64, *mat.SymDense) {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	p := newProblem(rng, n, dim, 1.2, 0.9, 0.02)
	s2 := make([]float64, n)
	for i := range s2 {
		s2[i] = 0.005 * math.Pow(100, rng.Float64())
		p.y[i] += math.Sqrt(s2[i]) * rng.NormFloat64()
	}
	return p, s2, withDiagonal(p.K, s2)
}

// withDiagonal returns K + diag(d).
func withDiagonal(K mat.Symmetric, d []float64) *mat.SymDense {
	n := len(d)
	S := mat.NewSymDense(n, nil)
	S.CopySym(K)
	for i := 0; i < n; i++ {
		S.SetSym(i, i, S.At(i, i)+d[i])
	}
	return S
}

// TestExactNoiseVariancesOracle checks the objective (zero and estimated
// mean), the predictive mean and variance and the latent and noisy
// predictive covariance of the exact GP with known per-point noise
// against the dense oracle on K + diag(s²) + σ²I.
func TestExactNoiseVariancesOracle(t *testing.T) {
	p, s2, Kd := knownNoiseProblem(51, 40, 2)
	res, err := NewExact(p.x, p.y, p.kern).WithMean(MeanZero).WithNoise(p.noise).WithNoiseVariances(s2).WithFixedHyperparameters(true).Fit()
	if err != nil {
		t.Fatal(err)
	}
	if want := naive.ExactNMLL(Kd, p.y, p.noise); !relClose(res.Objective, want, 1e-10) {
		t.Errorf("zero mean: F = %.15g, oracle %.15g", res.Objective, want)
	}
	res, err = NewExact(p.x, p.y, p.kern).WithNoise(p.noise).WithNoiseVariances(s2).WithFixedHyperparameters(true).Fit()
	if err != nil {
		t.Fatal(err)
	}
	mu, want := denseMAP(t, Kd, p.y, p.noise)
	if !relClose(res.Objective, want, 1e-10) || !relClose(res.Mean, mu, 1e-10) {
		t.Errorf("constant mean: F = %.15g μ = %.15g, oracle %.15g, %.15g", res.Objective, res.Mean, want, mu)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	trows := make([][]float64, 6)
	for i := range trows {
		trows[i] = []float64{4 * rng.Float64(), 4 * rng.Float64()}
	}
	trows[0] = p.rows[5] // a training input
	xs, _ := kernel.VectorsFromRows(trows)
	Ks := naive.RBFCross(trows, p.rows, p.kern.Variance(), p.kern.Lengthscales())
	Kss := naive.RBF(trows, p.kern.Variance(), p.kern.Lengthscales())
	kss := make([]float64, len(trows))
	for i := range kss {
		kss[i] = Kss.At(i, i)
	}
	yc := make([]float64, len(p.y))
	for i, v := range p.y {
		yc[i] = v - res.Mean
	}
	wm, wv, ok := naive.ExactPredict(Kd, Ks, kss, yc, p.noise)
	if !ok {
		t.Fatal("oracle failed")
	}
	gm, gv, err := res.Predictor.Predict(xs)
	if err != nil {
		t.Fatal(err)
	}
	_, nv, err := res.Predictor.PredictNoisy(xs)
	if err != nil {
		t.Fatal(err)
	}
	var worstM, worstV float64
	for i := range gm {
		worstM = math.Max(worstM, math.Abs(gm[i]-wm[i]-res.Mean))
		worstV = math.Max(worstV, math.Abs(gv[i]-wv[i]))
		if math.Abs(nv[i]-gv[i]-p.noise) > 1e-12 {
			t.Errorf("test point %d: the noisy variance adds %.12g, want σ² = %v alone", i, nv[i]-gv[i], p.noise)
		}
	}
	if worstM > 1e-9 || worstV > 1e-9 {
		t.Errorf("predictions: max |Δmean| %.3g, max |Δvar| %.3g against the oracle", worstM, worstV)
	}
	// The latent covariance K** − K*X (K + diag(s²) + σ²I)⁻¹ KX*.
	var ch mat.Cholesky
	if !ch.Factorize(withDiagonal(Kd, constant(len(s2), p.noise))) {
		t.Fatal("oracle: Σ not positive definite")
	}
	var sol mat.Dense
	if err := ch.SolveTo(&sol, Ks.T()); err != nil {
		t.Fatal(err)
	}
	var q mat.Dense
	q.Mul(Ks, &sol)
	_, cov, err := res.Predictor.PredictCov(xs)
	if err != nil {
		t.Fatal(err)
	}
	_, ncov, err := res.Predictor.PredictNoisyCov(xs)
	if err != nil {
		t.Fatal(err)
	}
	var worstC float64
	for i := range trows {
		for j := range trows {
			w := Kss.At(i, j) - q.At(i, j)
			worstC = math.Max(worstC, math.Abs(cov.At(i, j)-w))
			if i == j {
				w += p.noise
			}
			worstC = math.Max(worstC, math.Abs(ncov.At(i, j)-w))
		}
	}
	if worstC > 1e-9 {
		t.Errorf("PredictCov: max |Δ| %.3g against the oracle", worstC)
	}
	t.Logf("oracle errors: F %.3g, mean %.3g, variance %.3g, covariance %.3g", math.Abs(res.Objective-want), worstM, worstV, worstC)
}

func constant(n int, c float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = c
	}
	return v
}

// TestExactNoiseVariancesGradient checks the analytic gradient with known
// per-point noise against central differences of the dense oracle's
// objective and of the evaluator's own.
func TestExactNoiseVariancesGradient(t *testing.T) {
	p, s2, _ := knownNoiseProblem(61, 35, 2)
	for _, mn := range []Mean{MeanConstant, MeanZero} {
		ex := newExactEval(p.x, p.y, kernel.Clone(p.kern), mn)
		ex.s2 = s2
		theta := append(p.kern.Params(nil), math.Log(p.noise))
		grad := make([]float64, len(theta))
		if _, err := ex.funcGrad(grad, theta); err != nil {
			t.Fatal(err)
		}
		oracle := func(th []float64) float64 {
			ls := []float64{math.Exp(th[1]), math.Exp(th[2])}
			Kd := withDiagonal(naive.RBF(p.rows, math.Exp(th[0]), ls), s2)
			if mn == MeanZero {
				return naive.ExactNMLL(Kd, p.y, math.Exp(th[3]))
			}
			_, f := denseMAP(t, Kd, p.y, math.Exp(th[3]))
			return f
		}
		own := func(th []float64) float64 {
			f, err := ex.factor(th)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		checkGradFD(t, mn, theta, grad, oracle, own)
	}
}

// TestExactNoiseVariancesEqual checks the metamorphic relation: every
// s_i² = c/2 with σ² fixed at c/2 is the fit without known noise at σ²
// fixed at c, the kernel's hyperparameters learned in both.
func TestExactNoiseVariancesEqual(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	p := newProblem(rng, 40, 1, 1.0, 0.8, 0.1)
	const c = 0.09
	a, err := NewExact(p.x, p.y, p.kern).WithNoiseVariances(constant(40, c/2)).WithFixedAt("noise", c/2).Fit()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewExact(p.x, p.y, p.kern).WithFixedAt("noise", c).Fit()
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(a.Objective, b.Objective, 1e-9) || !relClose(a.Mean, b.Mean, 1e-6) {
		t.Errorf("F %.12g μ %.8g with s² = σ² = c/2; F %.12g μ %.8g with σ² = c", a.Objective, a.Mean, b.Objective, b.Mean)
	}
	for i := 0; i < len(a.Params)-1; i++ {
		if math.Abs(a.Params[i]-b.Params[i]) > 1e-5 {
			t.Errorf("%s: log %.8g with known noise, %.8g without", a.Names[i], a.Params[i], b.Params[i])
		}
	}
	xs, _ := kernel.VectorsFromRows([][]float64{{0.3}, {2.2}, {9.7}})
	am, av, _ := a.Predictor.Predict(xs)
	bm, bv, _ := b.Predictor.Predict(xs)
	for i := range am {
		if math.Abs(am[i]-bm[i]) > 1e-6 || math.Abs(av[i]-bv[i]) > 1e-6 {
			t.Errorf("x %d: %.8g ± %.8g with known noise, %.8g ± %.8g without", i, am[i], av[i], bm[i], bv[i])
		}
	}
}

// TestExactNoiseVariancesUnits checks equivariance: targets scaled by a
// and noise variances by a² fit to the same model, in the new units (F
// shifts by n·log a, the mean scales by a, the variances by a²).
func TestExactNoiseVariancesUnits(t *testing.T) {
	p, s2, _ := knownNoiseProblem(81, 40, 1)
	const a = 37.0
	ya := make([]float64, len(p.y))
	s2a := make([]float64, len(s2))
	for i := range ya {
		ya[i], s2a[i] = a*p.y[i], a*a*s2[i]
	}
	ka := kernel.NewRBF(a*a*p.kern.Variance(), p.kern.Lengthscales())
	r1, err := NewExact(p.x, p.y, p.kern).WithNoiseVariances(s2).Fit()
	if err != nil {
		t.Fatal(err)
	}
	r2, err := NewExact(p.x, ya, ka).WithNoiseVariances(s2a).Fit()
	if err != nil {
		t.Fatal(err)
	}
	n := float64(len(ya))
	if !relClose(r2.Objective, r1.Objective+n*math.Log(a), 1e-7) {
		t.Errorf("F: %.12g scaled, %.12g + n log a = %.12g", r2.Objective, r1.Objective, r1.Objective+n*math.Log(a))
	}
	s1, sa := math.Exp(r1.Params[len(r1.Params)-1]), math.Exp(r2.Params[len(r2.Params)-1])
	if !relClose(sa, a*a*s1, 1e-4) {
		t.Errorf("σ²: %.8g scaled, a²·%.8g = %.8g", sa, s1, a*a*s1)
	}
	xs, _ := kernel.VectorsFromRows([][]float64{{0.4}, {3.1}, {7.9}})
	m1, v1, _ := r1.Predictor.PredictNoisy(xs)
	m2, v2, _ := r2.Predictor.PredictNoisy(xs)
	for i := range m1 {
		if math.Abs(m2[i]-a*m1[i]) > 1e-5*a || !relClose(v2[i], a*a*v1[i], 1e-4) {
			t.Errorf("x %d: %.8g ± %.8g scaled, a·(%.8g ± %.8g)", i, m2[i], v2[i], m1[i], v1[i])
		}
	}
}

// TestExactNoiseVariancesSaveLoad checks that a saved exact model with
// known training noise predicts the same after loading, and that a file
// whose noise variances are of the wrong length is refused.
func TestExactNoiseVariancesSaveLoad(t *testing.T) {
	p, s2, _ := knownNoiseProblem(91, 30, 2)
	res, err := NewExact(p.x, p.y, p.kern).WithNoiseVariances(s2).WithMaxEvals(30).Fit()
	if err != nil && res == nil {
		t.Fatal(err)
	}
	q := roundTrip(t, res.Predictor)
	xs := p.x.Subset([]int{0, 3, 7, 11})
	checkSameExact(t, "LoadExactPredictor", res.Predictor, q, xs)
	if got := q.NoiseVariances(); len(got) != len(s2) || got[4] != s2[4] {
		t.Errorf("loaded noise variances %v, fitted %v", got, s2)
	}
	var buf bytes.Buffer
	if err := res.Predictor.Save(&buf); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(buf.String(), `"noise_variances": [`, `"noise_variances": [1,`, 1)
	if bad == buf.String() {
		t.Fatal("no noise_variances in the saved model")
	}
	if _, err := LoadExactPredictor(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "noise_variances") {
		t.Errorf("a file with n+1 noise variances: %v", err)
	}
	// Without the known noise the factor differs: the variances must too.
	plain := &ExactPredictor{}
	*plain = *q
	plain.s2 = nil
	var b2 bytes.Buffer
	if err := plain.Save(&b2); err != nil {
		t.Fatal(err)
	}
	r, err := LoadExactPredictor(&b2)
	if err != nil {
		t.Fatal(err)
	}
	_, v1, _ := q.Predict(xs)
	_, v2, _ := r.Predict(xs)
	if math.Abs(v1[0]-v2[0]) < 1e-6 {
		t.Errorf("the saved noise variances do not reach the factor: %v and %v", v1[0], v2[0])
	}
}

// TestExactNoiseVariancesBad checks the errors for bad noise variances.
func TestExactNoiseVariancesBad(t *testing.T) {
	p, s2, _ := knownNoiseProblem(101, 10, 1)
	for _, tc := range []struct {
		s2   []float64
		want string
	}{
		{s2[:9], "9 noise variances for 10"},
		{append(append([]float64{}, s2[:3]...), append([]float64{-1}, s2[4:]...)...), "noise variance 3 is -1"},
		{append(append([]float64{}, s2[:6]...), append([]float64{math.NaN()}, s2[7:]...)...), "noise variance 6 is NaN"},
		{append(append([]float64{}, s2[:2]...), append([]float64{math.Inf(1)}, s2[3:]...)...), "noise variance 2 is +Inf"},
		{nil, "no noise variances"},
	} {
		_, err := NewExact(p.x, p.y, p.kern).WithNoiseVariances(tc.s2).FitContext(context.Background())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.s2, err, tc.want)
		}
	}
}

// TestPredictNoisyWith checks that PredictNoisyWith adds each test
// point's known noise to PredictNoisy's variance, for the exact and the
// continuous predictors, and refuses a wrong length or a negative value.
func TestPredictNoisyWith(t *testing.T) {
	p, s2, _ := knownNoiseProblem(161, 30, 2)
	ex, err := NewExact(p.x, p.y, p.kern).WithNoise(p.noise).WithNoiseVariances(s2).WithFixedHyperparameters(true).Fit()
	if err != nil {
		t.Fatal(err)
	}
	z, _ := noiseInducing(p, 5, 1)
	ct, err := NewContinuous(p.x, p.y, p.kern).WithInducingInputs(z).WithNoiseVariances(s2).WithMaxEvals(5).Fit()
	if err != nil {
		t.Fatal(err)
	}
	xs := p.x.Subset([]int{1, 4, 9})
	add := []float64{0, 0.5, 2}
	for name, r := range map[string]interface {
		PredictNoisy(kernel.Inputs) ([]float64, []float64, error)
		PredictNoisyWith(kernel.Inputs, []float64) ([]float64, []float64, error)
	}{"exact": ex.Predictor, "continuous": ct.Predictor} {
		m1, v1, err := r.PredictNoisy(xs)
		if err != nil {
			t.Fatal(err)
		}
		m2, v2, err := r.PredictNoisyWith(xs, add)
		if err != nil {
			t.Fatal(err)
		}
		for i := range m1 {
			if m1[i] != m2[i] || math.Abs(v2[i]-v1[i]-add[i]) > 1e-12 {
				t.Errorf("%s, point %d: %v ± %v, PredictNoisy %v ± %v, added %v", name, i, m2[i], v2[i], m1[i], v1[i], add[i])
			}
		}
		if _, _, err := r.PredictNoisyWith(xs, add[:2]); err == nil || !strings.Contains(err.Error(), "2 noise variances for 3 test inputs") {
			t.Errorf("%s, 2 variances for 3 inputs: %v", name, err)
		}
		if _, _, err := r.PredictNoisyWith(xs, []float64{0, -1, 0}); err == nil || !strings.Contains(err.Error(), "noise variance 1 is -1") {
			t.Errorf("%s, a negative variance: %v", name, err)
		}
	}
}
