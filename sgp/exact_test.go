package sgp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/naive"
	"github.com/cholqr/sgp/sgp/internal/stats"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// denseGLS returns the GLS mean 1ᵀΣ⁻¹y / 1ᵀΣ⁻¹1 and the exact negative
// log marginal likelihood at it, Σ = K + σ²I, from the dense oracle.
func denseGLS(t *testing.T, K mat.Symmetric, y []float64, noise float64) (mu, nmll float64) {
	t.Helper()
	sy, s1 := denseSums(t, K, y, noise)
	mu = sy / s1
	yc := make([]float64, len(y))
	for i, v := range y {
		yc[i] = v - mu
	}
	return mu, naive.ExactNMLL(K, yc, noise)
}

// denseSums returns 1ᵀΣ⁻¹y and 1ᵀΣ⁻¹1, Σ = K + σ²I, by a dense Cholesky
// solve.
func denseSums(t *testing.T, K mat.Symmetric, y []float64, noise float64) (sy, s1 float64) {
	t.Helper()
	n := len(y)
	S := mat.NewSymDense(n, nil)
	S.CopySym(K)
	for i := 0; i < n; i++ {
		S.SetSym(i, i, S.At(i, i)+noise)
	}
	var ch mat.Cholesky
	if !ch.Factorize(S) {
		t.Fatal("oracle: Σ not positive definite")
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	var a, b mat.VecDense
	if err := ch.SolveVecTo(&a, mat.NewVecDense(n, append([]float64(nil), y...))); err != nil {
		t.Fatal(err)
	}
	if err := ch.SolveVecTo(&b, mat.NewVecDense(n, ones)); err != nil {
		t.Fatal(err)
	}
	return mat.Sum(&a), mat.Sum(&b)
}

// denseMAP returns the estimate of MeanConstant, the MAP mean under the
// prior N(ȳ, var y), (1ᵀΣ⁻¹y + ȳ/τ²) / (1ᵀΣ⁻¹1 + 1/τ²), and the exact
// objective at it including the prior's ½(μ − ȳ)²/τ², by dense solves.
func denseMAP(t *testing.T, K mat.Symmetric, y []float64, noise float64) (mu, f float64) {
	t.Helper()
	n := len(y)
	ybar := floats.Sum(y) / float64(n)
	var tau2 float64
	for _, v := range y {
		tau2 += (v - ybar) * (v - ybar) / float64(n)
	}
	sy, s1 := denseSums(t, K, y, noise)
	mu = (sy + ybar/tau2) / (s1 + 1/tau2)
	yc := make([]float64, n)
	for i, v := range y {
		yc[i] = v - mu
	}
	return mu, naive.ExactNMLL(K, yc, noise) + 0.5*(mu-ybar)*(mu-ybar)/tau2
}

// kernelDense forms K from a kernel's columns (for kernels the oracle
// does not implement).
func kernelDense(k kernel.Kernel, x kernel.Inputs) *mat.SymDense {
	n := x.Len()
	K := mat.NewSymDense(n, nil)
	col := make([]float64, n)
	for j := 0; j < n; j++ {
		k.Column(col, x, 0, n, x, j)
		for i := 0; i <= j; i++ {
			K.SetSym(i, j, col[i])
		}
	}
	return K
}

func relClose(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestExactObjectiveOracle checks the exact objective at fixed
// hyperparameters against the dense oracle, for a zero and an estimated
// (GLS) mean.
func TestExactObjectiveOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	p := newProblem(rng, 40, 2, 1.3, 0.9, 0.05)
	for i := range p.y {
		p.y[i] += 3
	}
	res, err := NewExact(p.x, p.y, p.kern).WithMean(MeanZero).WithNoise(p.noise).WithFixedHyperparameters(true).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := naive.ExactNMLL(p.K, p.y, p.noise); !relClose(res.Objective, want, 1e-10) {
		t.Errorf("zero mean: F = %.15g, oracle %.15g", res.Objective, want)
	}
	if res.Mean != 0 || res.Evals != 1 || res.Status != Fixed || res.Jitter != 0 {
		t.Errorf("zero mean: μ = %v, %d evaluations, stopped %q, jitter %v", res.Mean, res.Evals, stopText(res.Status, res.Reason), res.Jitter)
	}
	res, err = NewExact(p.x, p.y, p.kern).WithNoise(p.noise).WithFixedHyperparameters(true).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mu, want := denseMAP(t, p.K, p.y, p.noise)
	if !relClose(res.Objective, want, 1e-10) || !relClose(res.Mean, mu, 1e-10) {
		t.Errorf("constant mean: F = %.15g μ = %.15g, oracle %.15g, %.15g", res.Objective, res.Mean, want, mu)
	}
	res, err = NewExact(p.x, p.y, p.kern).WithMean(MeanGLS).WithNoise(p.noise).WithFixedHyperparameters(true).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mu, want = denseGLS(t, p.K, p.y, p.noise)
	if !relClose(res.Objective, want, 1e-10) || !relClose(res.Mean, mu, 1e-10) {
		t.Errorf("GLS mean: F = %.15g μ = %.15g, oracle %.15g, %.15g", res.Objective, res.Mean, want, mu)
	}
}

// TestExactGradient checks the analytic gradient (R&W eq. 5.9, profiled
// over the GLS mean) against central differences of the dense oracle's
// objective and of the evaluator's own.
func TestExactGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	p := newProblem(rng, 35, 2, 0.8, 1.2, 0.1)
	for _, mn := range []Mean{MeanConstant, MeanGLS, MeanZero} {
		ex := newExactEval(p.x, p.y, kernel.Clone(p.kern), mn)
		theta := append(p.kern.Params(nil), math.Log(p.noise))
		grad := make([]float64, len(theta))
		if _, err := ex.funcGrad(grad, theta); err != nil {
			t.Fatal(err)
		}
		oracle := func(th []float64) float64 {
			ls := []float64{math.Exp(th[1]), math.Exp(th[2])}
			K := naive.RBF(p.rows, math.Exp(th[0]), ls)
			switch mn {
			case MeanZero:
				return naive.ExactNMLL(K, p.y, math.Exp(th[3]))
			case MeanGLS:
				_, f := denseGLS(t, K, p.y, math.Exp(th[3]))
				return f
			}
			_, f := denseMAP(t, K, p.y, math.Exp(th[3]))
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

// checkGradFD checks the analytic gradient grad of the exact GP at theta
// against central differences of the dense oracle and of the fit's own
// objective, each to 1e-6 relative.
func checkGradFD(t *testing.T, mn Mean, theta, grad []float64, oracle, own func([]float64) float64) {
	t.Helper()
	const h = 1e-5
	for i := range theta {
		up := append([]float64(nil), theta...)
		dn := append([]float64(nil), theta...)
		up[i] += h
		dn[i] -= h
		fdO := (oracle(up) - oracle(dn)) / (2 * h)
		fdE := (own(up) - own(dn)) / (2 * h)
		if !relClose(grad[i], fdO, 1e-6) || !relClose(grad[i], fdE, 1e-6) {
			t.Errorf("mean %v, θ[%d]: analytic %.10g, oracle FD %.10g, own FD %.10g", mn, i, grad[i], fdO, fdE)
		}
	}
}

// TestExactEqualsSparseAtMEqualsN checks that with every training point
// inducing, the sparse VAR and MLE objectives (and the GLS mean) equal the
// exact ones: Q = K and the trace term vanishes.
func TestExactEqualsSparseAtMEqualsN(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	p := newProblem(rng, 30, 1, 1.1, 0.6, 0.08)
	f := p.factor(t, 30, 0)
	all := make([]int, 30)
	for i := range all {
		all[i] = i
	}
	if err := f.Factorize(all); err != nil {
		t.Fatal(err)
	}
	f.SetPrior(MeanConstant.prior(p.y))
	f.SetMean(f.MAPMean())
	res, err := NewExact(p.x, p.y, p.kern).WithNoise(p.noise).WithFixedHyperparameters(true).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Objective{VAR, MLE} {
		if v := f.Value(o); !relClose(v, res.Objective, 1e-7) {
			t.Errorf("%v at m = n: %.12g, exact %.12g", o, v, res.Objective)
		}
	}
	if !relClose(f.Mean(), res.Mean, 1e-7) {
		t.Errorf("mean at m = n: sparse %.12g, exact %.12g", f.Mean(), res.Mean)
	}
}

// TestExactPredictOracle checks predictions against a direct dense solve
// (naive.ExactPredict) at the fitted state.
func TestExactPredictOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	p := newProblem(rng, 50, 2, 1.0, 1.0, 0.1)
	res, err := NewExact(p.x, p.y, p.kern).WithNoise(p.noise).WithFixedHyperparameters(true).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	trows := make([][]float64, 7)
	for i := range trows {
		trows[i] = []float64{4 * rng.Float64(), 4 * rng.Float64()}
	}
	trows[0] = p.rows[3] // a training input
	xs, _ := kernel.VectorsFromRows(trows)
	ls := p.kern.Lengthscales()
	Ks := naive.RBFCross(trows, p.rows, p.kern.Variance(), ls)
	kss := make([]float64, len(trows))
	for i := range kss {
		kss[i] = p.kern.Variance()
	}
	yc := make([]float64, len(p.y))
	for i, v := range p.y {
		yc[i] = v - res.Mean
	}
	wm, wv, ok := naive.ExactPredict(p.K, Ks, kss, yc, p.noise)
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
	for i := range gm {
		if !relClose(gm[i], wm[i]+res.Mean, 1e-9) || math.Abs(gv[i]-wv[i]) > 1e-9 || math.Abs(nv[i]-gv[i]-p.noise) > 1e-12 {
			t.Errorf("test point %d: mean %.12g var %.12g, oracle %.12g %.12g", i, gm[i], gv[i], wm[i]+res.Mean, wv[i])
		}
	}
}

// TestExactMeanInvariance checks that shifting the targets by 10⁴ shifts
// the estimated mean and nothing else.
func TestExactMeanInvariance(t *testing.T) {
	train, test := data.SnelsonLike(80, 3)
	shift := func(d *data.Dataset) *data.Dataset {
		y := make([]float64, len(d.Y))
		for i, v := range d.Y {
			y[i] = v + 1e4
		}
		return &data.Dataset{X: d.X, Y: y}
	}
	kern := kernel.NewRBFFromData(train.X, train.Y)
	var ev [2]*Evaluation
	var mu [2]float64
	for s, pair := range [][2]*data.Dataset{{train, test}, {shift(train), shift(test)}} {
		res, err := NewExact(pair[0].X, pair[0].Y, kern).WithNoise(stats.Variance(train.Y) / 4).FitContext(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged {
			t.Errorf("shift %d: not converged (%s)", s, stopText(res.Status, res.Reason))
		}
		if ev[s], err = res.Predictor.Evaluate(pair[1]); err != nil {
			t.Fatal(err)
		}
		mu[s] = res.Mean
	}
	if !relClose(ev[0].SMSE, ev[1].SMSE, 1e-4) || !relClose(ev[0].SNLP, ev[1].SNLP, 1e-4) || math.Abs(mu[1]-mu[0]-1e4) > 1e-4 {
		t.Errorf("y: %v μ %v; y + 1e4: %v μ %v", ev[0], mu[0], ev[1], mu[1])
	}
}

// TestExactBeatsCholQR fits the exact GP and CholQR (m = 10, VAR) to the
// Snelson-like problem: the exact GP's negative log marginal likelihood is
// below the VAR bound at any hyperparameters, so also at the optima.
func TestExactBeatsCholQR(t *testing.T) {
	train, test := data.SnelsonLike(200, 1)
	kern := kernel.NewRBFFromData(train.X, train.Y)
	md := NewModel(train.X, train.Y, kern).WithM(10)
	sres, err := md.Fit()
	if err != nil {
		t.Fatal(err)
	}
	res, err := NewExact(train.X, train.Y, kern).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || res.Objective > sres.Objective+1e-6*math.Abs(sres.Objective) || !(res.Objective <= res.Start) {
		t.Errorf("exact F = %.8g (%s, start %.8g), CholQR m=10 VAR F = %.8g", res.Objective, stopText(res.Status, res.Reason), res.Start, sres.Objective)
	}
	ev, err := res.Predictor.Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	sev, err := md.Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	if ev.SMSE > sev.SMSE+0.05 {
		t.Errorf("exact test SMSE %.4g, CholQR %.4g", ev.SMSE, sev.SMSE)
	}
	t.Logf("exact: F %.6g in %d evaluations (%s), %v; CholQR m=10: F %.6g, %v", res.Objective, res.Evals, stopText(res.Status, res.Reason), ev, sres.Objective, sev)
	// The caller's kernel is not modified.
	if kern.Variance() != kernel.NewRBFFromData(train.X, train.Y).Variance() {
		t.Error("the exact fit changed the caller's kernel")
	}
}

// TestExactBadInputs checks the errors for bad arguments.
func TestExactBadInputs(t *testing.T) {
	x, _ := kernel.VectorsFromRows([][]float64{{0}, {1}, {2}})
	y := []float64{1, 2, 3}
	k := kernel.NewRBF(1, []float64{1})
	ctx := context.Background()
	big, _ := kernel.NewVectors(MaxExactN+1, 1, make([]float64, MaxExactN+1))
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	same := func(e *Exact) *Exact { return e }
	for _, tc := range []struct {
		name string
		x    kernel.Inputs
		y    []float64
		k    kernel.Kernel
		opts func(*Exact) *Exact
		ctx  context.Context
		want string
	}{
		{"nil inputs", nil, y, k, same, ctx, "no training data"},
		{"no targets", x, nil, k, same, ctx, "no training data"},
		{"shapes", x, y[:2], k, same, ctx, "3 inputs but 2 targets"},
		{"NaN target", x, []float64{1, math.NaN(), 3}, k, same, ctx, "target 1 is NaN"},
		{"Inf target", x, []float64{1, 2, math.Inf(1)}, k, same, ctx, "target 2 is +Inf"},
		{"nil kernel", x, y, nil, same, ctx, "no kernel"},
		{"wrong kernel", x, y, kernel.NewRBF(1, []float64{1, 1}), same, ctx, "dimension"},
		{"negative noise", x, y, k, func(e *Exact) *Exact { return e.WithNoise(-1) }, ctx, "noise variance"},
		{"NaN noise", x, y, k, func(e *Exact) *Exact { return e.WithNoise(math.NaN()) }, ctx, "noise variance"},
		{"evaluations", x, y, k, func(e *Exact) *Exact { return e.WithMaxEvals(-1) }, ctx, "maximum evaluations"},
		{"too large", big, make([]float64, MaxExactN+1), k, same, ctx, "limited to n ≤ 20000"},
		{"cancelled", x, y, k, same, cancelled, "context canceled"},
	} {
		res, err := tc.opts(NewExact(tc.x, tc.y, tc.k)).FitContext(tc.ctx)
		if err == nil || res != nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, %v; want an error containing %q", tc.name, res, err, tc.want)
		}
	}
	if _, err := NewExact(x, y, k).FitContext(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v is not context.Canceled", err)
	}
	// Constant targets leave nothing to fit: the objective falls without
	// bound as σ² → 0. At fixed hyperparameters they are fine.
	if _, err := NewExact(x, []float64{2, 2, 2}, k).FitContext(ctx); err == nil || !strings.Contains(err.Error(), "all 3 training targets equal 2") {
		t.Errorf("constant targets: got %v, want the error naming them", err)
	}
	if _, err := NewExact(x, []float64{2, 2, 2}, k).WithFixedHyperparameters(true).WithNoise(0.1).FitContext(ctx); err != nil {
		t.Errorf("constant targets at fixed hyperparameters: %v", err)
	}
}

// jitteredExact fits the exact GP at σ² = 10⁻³⁰⁰ to 20 copies of one
// input, where K + σ²I does not factorise without jitter.
func jitteredExact(t *testing.T) (*kernel.Vectors, *ExactResult) {
	t.Helper()
	x, _ := kernel.NewVectors(20, 1, make([]float64, 20))
	y := make([]float64, 20)
	for i := range y {
		y[i] = float64(i % 3)
	}
	res, err := NewExact(x, y, kernel.NewRBF(1, []float64{1})).WithNoise(1e-300).WithFixedHyperparameters(true).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return x, res
}

// TestExactJitter checks that a matrix K + σ²I that does not factorise
// (one input repeated, σ² far below rounding) gets jitter, reported.
func TestExactJitter(t *testing.T) {
	x, res := jitteredExact(t)
	if !(res.Jitter > 0) || res.Jitter > 1e-4 || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "jitter") {
		t.Errorf("jitter %v, warnings %q", res.Jitter, res.Warnings)
	}
	m, v, err := res.Predictor.Predict(x.Rows([]int{0}))
	if err != nil || math.IsNaN(m[0]) || math.IsNaN(v[0]) {
		t.Errorf("prediction %v %v %v", m, v, err)
	}
}

// TestExactSpectrumStrings fits the exact GP with a discrete kernel (the
// k-mer spectrum on strings): objective and gradient against a dense
// solve and finite differences, and predictions at new strings.
func TestExactSpectrumStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	const alphabet = "ACGT"
	gen := func(n int) ([]string, []float64) {
		s := make([]string, n)
		y := make([]float64, n)
		for i := range s {
			b := make([]byte, 8+rng.IntN(8))
			for j := range b {
				b[j] = alphabet[rng.IntN(4)]
			}
			s[i] = string(b)
			y[i] = float64(strings.Count(s[i], "AC")) + 0.1*rng.NormFloat64()
		}
		return s, y
	}
	s, y := gen(40)
	x, err := kernel.NewStrings(s)
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.NewSpectrum(2, 1)
	fixed, err := NewExact(x, y, k).WithNoise(0.1).WithFixedHyperparameters(true).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	K := kernelDense(k, x)
	if _, want := denseMAP(t, K, y, 0.1); !relClose(fixed.Objective, want, 1e-10) {
		t.Errorf("spectrum: F = %.12g, dense %.12g", fixed.Objective, want)
	}
	ex := newExactEval(x, y, kernel.Clone(k), MeanConstant)
	theta := append(k.Params(nil), math.Log(0.1))
	grad := make([]float64, len(theta))
	if _, err := ex.funcGrad(grad, theta); err != nil {
		t.Fatal(err)
	}
	for i := range theta {
		up := append([]float64(nil), theta...)
		dn := append([]float64(nil), theta...)
		up[i] += 1e-5
		dn[i] -= 1e-5
		fu, _ := ex.factor(up)
		fd, _ := ex.factor(dn)
		if fdv := (fu - fd) / 2e-5; !relClose(grad[i], fdv, 1e-6) {
			t.Errorf("spectrum θ[%d]: analytic %.10g, FD %.10g", i, grad[i], fdv)
		}
	}
	res, err := NewExact(x, y, k).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || !(res.Objective < res.Start) {
		t.Errorf("spectrum fit: F %.6g from %.6g, %s", res.Objective, res.Start, stopText(res.Status, res.Reason))
	}
	ts, ty := gen(30)
	tx, _ := kernel.NewStrings(ts)
	ev, err := res.Predictor.EvaluateInputs(tx, ty)
	if err != nil {
		t.Fatal(err)
	}
	if !(ev.SMSE < 1) {
		t.Errorf("spectrum: test %v", ev)
	}
}
