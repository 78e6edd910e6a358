package sgp

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/internal/naive"
	"github.com/cholqr/sgp/sgp/kernel"
)

// denseNystromNoise returns the dense oracle's Q + Λ, Q = K[:, I]K[I,I]⁻¹K[I, :]
// and Λ = diag(lam), and tr(Λ⁻¹(K − Q)).
func denseNystromNoise(t *testing.T, K mat.Symmetric, I []int, lam []float64) (*mat.SymDense, float64) {
	t.Helper()
	n, m := len(lam), len(I)
	knm := mat.NewDense(n, m, nil)
	kmm := mat.NewSymDense(m, nil)
	for a, ja := range I {
		for i := 0; i < n; i++ {
			knm.Set(i, a, K.At(i, ja))
		}
		for b, jb := range I {
			kmm.SetSym(a, b, K.At(ja, jb))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(kmm) {
		t.Fatal("oracle: K[I,I] not positive definite")
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
		trace += (K.At(i, i) - q.At(i, i)) / lam[i]
	}
	return S, trace
}

// lambdas returns s² + σ².
func lambdas(s2 []float64, noise float64) []float64 {
	lam := make([]float64, len(s2))
	for i, v := range s2 {
		lam[i] = v + noise
	}
	return lam
}

// TestModelNoiseVariancesOracle checks the objectives (VAR and MLE; zero,
// GLS, prior and fixed means) of a CholQR Model with known per-point
// noise at a given inducing set against the dense oracle on Q + Λ, and
// its predictive mean, variance and covariance against the dense DTC
// predictive of Λ.
func TestModelNoiseVariancesOracle(t *testing.T) {
	p, s2, _ := knownNoiseProblem(71, 45, 2)
	I := []int{3, 11, 19, 27, 35, 40, 7, 22}
	lam := lambdas(s2, p.noise)
	S, trace := denseNystromNoise(t, p.K, I, lam)
	ybar, tau2 := meanVar(p.y)
	var worst float64
	for _, tc := range []struct {
		name string
		mean Mean
	}{{"zero", MeanZero}, {"gls", MeanGLS}, {"prior", MeanConstant}, {"fixed", MeanFixed(0.7)}} {
		var mu, fmle float64
		switch tc.name {
		case "zero", "fixed":
			mu = tc.mean.fixedValue()
		case "gls":
			sy, s1 := denseSums(t, S, p.y, 0)
			mu = sy / s1
		case "prior":
			mu, _ = denseMAP(t, S, p.y, 0)
		}
		yc := make([]float64, len(p.y))
		for i, v := range p.y {
			yc[i] = v - mu
		}
		fmle = naive.ExactNMLL(S, yc, 0)
		if tc.name == "prior" {
			fmle += 0.5 * (mu - ybar) * (mu - ybar) / tau2
		}
		for _, obj := range []Objective{VAR, MLE} {
			want := fmle
			if obj == VAR {
				want += 0.5 * trace
			}
			md := NewModel(p.x, p.y, p.kern).WithInducing(I).WithNoise(p.noise).WithNoiseVariances(s2).WithMean(tc.mean).WithObjective(obj)
			got, err := md.Value()
			if err != nil {
				t.Fatal(err)
			}
			gmu, _ := md.Mean()
			if !relClose(got, want, 1e-10) || math.Abs(gmu-mu) > 1e-10*(1+math.Abs(mu)) {
				t.Errorf("%s mean, %v: F = %.15g, oracle %.15g; μ = %.15g, oracle %.15g", tc.name, obj, got, want, gmu, mu)
			}
			worst = math.Max(worst, math.Abs(got-want)/math.Abs(want))
		}
	}
	t.Logf("objective: max relative error %.3g against the dense oracle", worst)

	// Prediction: the dense DTC predictive with Λ, Q's inducing inputs x_I.
	md := NewModel(p.x, p.y, p.kern).WithInducing(I).WithNoise(p.noise).WithNoiseVariances(s2)
	mu, _ := md.Mean()
	zr := make([][]float64, len(I))
	for a, j := range I {
		zr[a] = p.rows[j]
	}
	trows := [][]float64{p.rows[2], {1.1, 2.9}, {3.7, 0.4}, p.rows[I[0]]}
	xs, _ := kernel.VectorsFromRows(trows)
	v, ls := p.kern.Variance(), p.kern.Lengthscales()
	wm, wv, wc := denseDTCNoise(t, naive.RBFCross(p.rows, zr, v, ls), naive.RBFCross(trows, zr, v, ls), naive.RBF(zr, v, ls), naive.RBF(trows, v, ls), p.y, mu, lam)
	gm, gv, err := md.Predict(xs)
	if err != nil {
		t.Fatal(err)
	}
	cm, cov, err := md.PredictCov(xs)
	if err != nil {
		t.Fatal(err)
	}
	var eM, eV, eC float64
	for i := range trows {
		eM = math.Max(eM, math.Max(math.Abs(gm[i]-wm[i]), math.Abs(cm[i]-wm[i])))
		eV = math.Max(eV, math.Abs(gv[i]-wv[i]))
		for j := range trows {
			eC = math.Max(eC, math.Abs(cov.At(i, j)-wc.At(i, j)))
		}
	}
	if eM > 1e-9 || eV > 1e-9 || eC > 1e-9 {
		t.Errorf("against the dense DTC predictive: max |Δmean| %.3g, |Δvar| %.3g, |Δcov| %.3g", eM, eV, eC)
	}
	t.Logf("prediction: max |Δmean| %.3g, |Δvar| %.3g, |Δcov| %.3g against the dense oracle", eM, eV, eC)
	noise, _ := md.Noise()
	tn := []float64{0.1, 0, 2, 0.5}
	_, nv, err := md.PredictNoisyWith(xs, tn)
	if err != nil {
		t.Fatal(err)
	}
	for i := range nv {
		if math.Abs(nv[i]-gv[i]-noise-tn[i]) > 1e-12 {
			t.Errorf("PredictNoisyWith adds %.12g at %d, want σ² + s² = %v", nv[i]-gv[i], i, noise+tn[i])
		}
	}
}

// denseDTCNoise is the dense DTC predictive of noise Λ = diag(lam) at
// inducing inputs Z: with M = K_ZZ + K_ZnΛ⁻¹K_nZ, mean μ + K_*Z M⁻¹K_ZnΛ⁻¹(y − μ)
// and covariance K_** − K_*Z K_ZZ⁻¹K_Z* + K_*Z M⁻¹K_Z*.
func denseDTCNoise(t *testing.T, knm, ksm *mat.Dense, kmm, kss *mat.SymDense, y []float64, mu float64, lam []float64) ([]float64, []float64, *mat.SymDense) {
	t.Helper()
	n, m := knm.Dims()
	s, _ := ksm.Dims()
	M := mat.NewSymDense(m, nil)
	u := mat.NewVecDense(m, nil)
	for a := 0; a < m; a++ {
		for b := 0; b <= a; b++ {
			v := kmm.At(a, b)
			for i := 0; i < n; i++ {
				v += knm.At(i, a) * knm.At(i, b) / lam[i]
			}
			M.SetSym(a, b, v)
		}
		var v float64
		for i := 0; i < n; i++ {
			v += knm.At(i, a) * (y[i] - mu) / lam[i]
		}
		u.SetVec(a, v)
	}
	var chM, chK mat.Cholesky
	if !chM.Factorize(M) || !chK.Factorize(kmm) {
		t.Fatal("oracle: not positive definite")
	}
	var beta mat.VecDense
	if err := chM.SolveVecTo(&beta, u); err != nil {
		t.Fatal(err)
	}
	var s1, s2, q1, q2 mat.Dense
	if err := chM.SolveTo(&s1, ksm.T()); err != nil {
		t.Fatal(err)
	}
	if err := chK.SolveTo(&s2, ksm.T()); err != nil {
		t.Fatal(err)
	}
	q1.Mul(ksm, &s1)
	q2.Mul(ksm, &s2)
	mean, vr := make([]float64, s), make([]float64, s)
	cov := mat.NewSymDense(s, nil)
	for i := 0; i < s; i++ {
		mean[i] = mu
		for a := 0; a < m; a++ {
			mean[i] += ksm.At(i, a) * beta.AtVec(a)
		}
		for j := 0; j <= i; j++ {
			cov.SetSym(i, j, kss.At(i, j)-q2.At(i, j)+q1.At(i, j))
		}
		vr[i] = cov.At(i, i)
	}
	return mean, vr, cov
}

// TestModelNoiseVariancesGradient checks the gradient phase's objective
// with known noise (noiseEval at Z = x_I) against the factor's: its value
// equals the Model's at the same θ, and its gradient in θ and log σ²
// equals central differences of the Model's objective.
func TestModelNoiseVariancesGradient(t *testing.T) {
	p, s2, _ := knownNoiseProblem(73, 40, 2)
	I := []int{1, 9, 17, 25, 33, 38}
	for _, obj := range []Objective{VAR, MLE} {
		md := NewModel(p.x, p.y, p.kern).WithInducing(I).WithNoise(p.noise).WithNoiseVariances(s2).WithMean(MeanGLS).WithObjective(obj)
		theta := md.Params()
		theta[0] += 0.2
		theta[1] -= 0.1
		ev := newNoiseEval(p.x, p.y, kernel.Clone(p.kern), obj, p.x.Subset(I), s2, MeanGLS, 0)
		grad := make([]float64, len(theta))
		f, err := ev.FuncGrad(grad, theta)
		if err != nil {
			t.Fatal(err)
		}
		at := func(th []float64) float64 {
			if err := md.SetParams(th); err != nil {
				t.Fatal(err)
			}
			v, err := md.Value()
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		if v := at(theta); !relClose(f, v, 1e-11) {
			t.Errorf("%v: gradient phase F = %.15g, factor %.15g", obj, f, v)
		}
		var worst float64
		for i := range theta {
			h := 1e-5
			tp, tm := slices.Clone(theta), slices.Clone(theta)
			tp[i] += h
			tm[i] -= h
			fd := (at(tp) - at(tm)) / (2 * h)
			e := math.Abs(fd-grad[i]) / math.Max(1, math.Abs(fd))
			worst = math.Max(worst, e)
			if e > 1e-6 {
				t.Errorf("%v: ∂F/∂θ[%d] = %.10g, central difference of the factor's F %.10g", obj, i, grad[i], fd)
			}
		}
		t.Logf("%v: gradient max relative error %.3g against central differences", obj, worst)
	}
}

// noiseFit fits md for a few epochs and returns its inducing set (sorted)
// and objective; the fit must have accepted swaps, for the set to be the
// swaps' and not the start's alone.
func noiseFit(t *testing.T, md *Model) ([]int, float64) {
	t.Helper()
	res, err := md.WithMaxEpochs(4).Fit()
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for _, e := range md.Trace() {
		accepted += e.Accepted
	}
	if accepted == 0 {
		t.Errorf("the fit accepted no swaps")
	}
	set := slices.Clone(res.Inducing)
	slices.Sort(set)
	return set, res.Objective
}

// TestModelNoiseVariancesZero checks that s² = 0 everywhere is the model
// without known noise: the same swaps at fixed hyperparameters and the
// same objective to rounding, and the same fit with them learned.
func TestModelNoiseVariancesZero(t *testing.T) {
	p, _, _ := knownNoiseProblem(75, 80, 2)
	zero := make([]float64, len(p.y))
	for _, fixed := range []bool{true, false} {
		mk := func() *Model {
			return NewModel(p.x, p.y, p.kern).WithM(8).WithNoise(0.05).WithFixedHyperparameters(fixed)
		}
		s0, f0 := noiseFit(t, mk())
		s1, f1 := noiseFit(t, mk().WithNoiseVariances(zero))
		tol := 1e-12
		if !fixed {
			tol = 1e-10 // two implementations of the gradient phase's arithmetic
		}
		if !slices.Equal(s0, s1) || !relClose(f0, f1, tol) {
			t.Errorf("fixed=%v: s² = 0: set %v, F %.15g; without: %v, F %.15g", fixed, s1, f1, s0, f0)
		}
		t.Logf("fixed hyperparameters %v: F %.15g vs %.15g (relative %.3g)", fixed, f1, f0, math.Abs(f1-f0)/math.Abs(f0))
	}
}

// TestModelNoiseVariancesEqual checks that s² = c/2 with σ² fixed at c/2
// fits as σ² fixed at c without known noise.
func TestModelNoiseVariancesEqual(t *testing.T) {
	p, _, _ := knownNoiseProblem(77, 80, 2)
	c := 0.06
	half := make([]float64, len(p.y))
	for i := range half {
		half[i] = c / 2
	}
	s0, f0 := noiseFit(t, NewModel(p.x, p.y, p.kern).WithM(8).WithFixedAt("noise", c))
	s1, f1 := noiseFit(t, NewModel(p.x, p.y, p.kern).WithM(8).WithFixedAt("noise", c/2).WithNoiseVariances(half))
	if !slices.Equal(s0, s1) || !relClose(f0, f1, 1e-10) {
		t.Errorf("s² = c/2, σ² = c/2: set %v, F %.15g; σ² = c: %v, F %.15g", s1, f1, s0, f0)
	}
	t.Logf("F %.15g vs %.15g (relative %.3g)", f1, f0, math.Abs(f1-f0)/math.Abs(f0))
}

// TestModelNoiseVariancesUnits checks that scaling the targets by a, the
// known noise variances and the kernel's and noise's variances by a²
// gives the same inducing set and F shifted by n·log a.
func TestModelNoiseVariancesUnits(t *testing.T) {
	p, s2, _ := knownNoiseProblem(79, 80, 2)
	a := 37.0
	ya, s2a := make([]float64, len(p.y)), make([]float64, len(s2))
	for i := range ya {
		ya[i], s2a[i] = a*p.y[i], a*a*s2[i]
	}
	ka := kernel.Clone(p.kern).(*kernel.RBF)
	th := ka.Params(nil)
	th[0] += 2 * math.Log(a)
	ka.SetParams(th)
	for _, fixed := range []bool{true, false} {
		s0, f0 := noiseFit(t, NewModel(p.x, p.y, p.kern).WithM(8).WithNoise(0.05).WithNoiseVariances(s2).WithFixedHyperparameters(fixed))
		s1, f1 := noiseFit(t, NewModel(p.x, ya, ka).WithM(8).WithNoise(0.05*a*a).WithNoiseVariances(s2a).WithFixedHyperparameters(fixed))
		want := f0 + float64(len(p.y))*math.Log(a)
		if !slices.Equal(s0, s1) || !relClose(f1, want, 1e-10) {
			t.Errorf("fixed=%v: scaled by %v: set %v, F %.15g; unscaled %v, F + n·log a %.15g", fixed, a, s1, f1, s0, want)
		}
		t.Logf("fixed hyperparameters %v: F %.15g vs %.15g (relative %.3g)", fixed, f1, want, math.Abs(f1-want)/math.Abs(want))
	}
}

// TestModelNoiseVariancesPermuted checks that permuting the rows (inputs,
// targets and known noise together) gives the same model.
func TestModelNoiseVariancesPermuted(t *testing.T) {
	p, s2, _ := knownNoiseProblem(81, 80, 2)
	n := len(p.y)
	perm := rand.New(rand.NewPCG(5, 6)).Perm(n)
	rows, y, s := make([][]float64, n), make([]float64, n), make([]float64, n)
	for i, j := range perm {
		rows[i], y[i], s[i] = p.rows[j], p.y[j], s2[j]
	}
	xp, _ := kernel.VectorsFromRows(rows)
	s0, f0 := noiseFit(t, NewModel(p.x, p.y, p.kern).WithM(8).WithNoiseVariances(s2))
	s1, f1 := noiseFit(t, NewModel(xp, y, p.kern).WithM(8).WithNoiseVariances(s))
	for i, j := range s1 {
		s1[i] = perm[j]
	}
	slices.Sort(s1)
	if !slices.Equal(s0, s1) || !relClose(f0, f1, 1e-9) {
		t.Errorf("permuted: set %v, F %.15g; original %v, F %.15g", s1, f1, s0, f0)
	}
	t.Logf("F %.15g vs %.15g (relative %.3g)", f1, f0, math.Abs(f1-f0)/math.Abs(f0))
}

// TestModelNoiseVariancesHybrid checks that the hybrid selector's
// continuous refinement fits the known-noise objective: its objective is
// continuous SGPR's with the same s² at its inducing inputs and
// hyperparameters, and the model predicts with that fit.
func TestModelNoiseVariancesHybrid(t *testing.T) {
	p, s2, _ := knownNoiseProblem(83, 80, 2)
	md := NewModel(p.x, p.y, p.kern).WithM(8).WithSelector(SelectHybrid).WithNoiseVariances(s2).WithMaxEpochs(3)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	cr := md.Refined()
	if cr == nil {
		t.Fatal("the hybrid fit has no continuous refinement")
	}
	ev := newNoiseEval(p.x, p.y, kernel.Clone(p.kern), cr.Kind, cr.Z, s2, MeanConstant, cr.Jitter)
	f, err := ev.FuncGrad(nil, cr.Params)
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(f, cr.Objective, 1e-10) {
		t.Errorf("refinement's objective %.15g; the known-noise objective at its point %.15g", cr.Objective, f)
	}
	hom := NewEvaluatorInputs(p.x, p.y, kernel.Clone(p.kern), cr.Kind, cr.Z)
	hom.jitter = cr.Jitter
	hom.SetMean(MeanConstant)
	if fh, err := hom.FuncGrad(nil, cr.Params); err == nil && relClose(fh, cr.Objective, 1e-6) {
		t.Errorf("the refinement's objective %.15g is the homoscedastic one %.15g", cr.Objective, fh)
	}
	xs, _ := kernel.VectorsFromRows([][]float64{{0.3, 1.2}, {2.5, 2.5}})
	gm, gv, _ := md.Predict(xs)
	wm, wv, _ := cr.Predictor.Predict(xs)
	for i := range gm {
		if gm[i] != wm[i] || gv[i] != wv[i] {
			t.Errorf("the model predicts %v ± %v, its refinement %v ± %v", gm[i], gv[i], wm[i], wv[i])
		}
	}
	if s := md.String(); !strings.Contains(s, "known noise") {
		t.Errorf("the display does not say the known noise variances are used:\n%s", s)
	}
	if !cr.Predictor.KnownNoise() {
		t.Error("the refinement's Predictor does not say it conditions on the known noise")
	}
}

// TestModelNoiseVariancesSaveLoad checks that a saved CholQR model with
// known noise loads to the same predictions, those of the weighted
// problem, and that the display says the known noise is used.
func TestModelNoiseVariancesSaveLoad(t *testing.T) {
	p, s2, _ := knownNoiseProblem(85, 60, 2)
	md := NewModel(p.x, p.y, p.kern).WithM(8).WithNoiseVariances(s2).WithMaxEpochs(3)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := md.Save(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := LoadPredictor(&buf)
	if err != nil {
		t.Fatal(err)
	}
	xs, _ := kernel.VectorsFromRows([][]float64{{0.3, 1.2}, {2.5, 2.5}, p.rows[4]})
	gm, gv, _ := md.Predict(xs)
	lm, lv, err := q.Predict(xs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range gm {
		if !relClose(lm[i], gm[i], 1e-12) || !relClose(lv[i], gv[i], 1e-10) {
			t.Errorf("loaded: %.12g ± %.12g, fitted %.12g ± %.12g", lm[i], lv[i], gm[i], gv[i])
		}
	}
	// Without the known noise the same inducing set and θ predict
	// otherwise: the saved factors are the weighted problem's.
	idx, _ := md.Inducing()
	h := NewModel(p.x, p.y, md.Kernel()).WithInducing(idx).WithNoise(q.NoiseV)
	hm, _, _ := h.Predict(xs)
	if relClose(hm[0], gm[0], 1e-6) {
		t.Errorf("the homoscedastic model at the same point predicts the same mean %.12g", hm[0])
	}
	if s := md.String(); !strings.Contains(s, "known noise") {
		t.Errorf("the display does not say the known noise variances are used:\n%s", s)
	}
	mp, _ := md.Predictor()
	hp, _ := h.Predictor()
	if !mp.KnownNoise() || !q.KnownNoise() || hp.KnownNoise() || !strings.Contains(q.String(), "known noise") {
		t.Errorf("KnownNoise: fitted %v, loaded %v, homoscedastic %v; loaded display:\n%s", mp.KnownNoise(), q.KnownNoise(), hp.KnownNoise(), q)
	}
}

// TestModelNoiseVariancesFitOracle checks a fitted model's objective, its
// factors updated by the swaps, against the dense oracle at its inducing
// set, hyperparameters and mean, for CholQR (VAR and MLE) and for the
// baselines that run on the same factor (VAR).
func TestModelNoiseVariancesFitOracle(t *testing.T) {
	p, s2, _ := knownNoiseProblem(87, 60, 2)
	for _, tc := range []struct {
		sel Selector
		obj Objective
	}{{SelectCholQR, VAR}, {SelectCholQR, MLE}, {SelectRandom, VAR}, {SelectGreedyVariance, VAR}, {SelectTitsias(8), VAR}} {
		obj := tc.obj
		md := NewModel(p.x, p.y, p.kern).WithM(8).WithNoiseVariances(s2).WithMean(MeanGLS).WithObjective(obj).WithMaxEpochs(3).WithSelector(tc.sel)
		if _, err := md.Fit(); err != nil {
			t.Fatal(err)
		}
		got, _ := md.Value()
		idx, _ := md.Inducing()
		noise, _ := md.Noise()
		mu, _ := md.Mean()
		K := kernelDense(md.Kernel(), p.x)
		S, trace := denseNystromNoise(t, K, idx, lambdas(s2, noise))
		yc := make([]float64, len(p.y))
		for i, v := range p.y {
			yc[i] = v - mu
		}
		want := naive.ExactNMLL(S, yc, 0)
		if obj == VAR {
			want += 0.5 * trace
		}
		sy, s1 := denseSums(t, S, p.y, 0)
		if !relClose(got, want, 1e-10) || math.Abs(mu-sy/s1) > 1e-9*(1+math.Abs(mu)) {
			t.Errorf("%v, %v: fitted F = %.15g, oracle %.15g; μ = %.15g, GLS oracle %.15g", tc.sel, obj, got, want, mu, sy/s1)
		}
		t.Logf("%v, %v: fitted F relative error %.3g against the dense oracle", tc.sel, obj, math.Abs(got-want)/math.Abs(want))
	}
}

// TestModelNoiseVariancesInputs checks a CholQR fit with known noise
// against the dense oracle for inputs that are not vectors (strings under
// the spectrum kernel, a block kernel) and for a kernel with Kernel's
// methods alone (plainKernel), whose gradient phase takes the column-by-column paths;
// for the latter also the gradient phase's gradient against central
// differences of the factor's objective.
func TestModelNoiseVariancesInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(89, 90))
	n := 50
	s, y, s2 := make([]string, n), make([]float64, n), make([]float64, n)
	for i := range s {
		b := make([]byte, 8+rng.IntN(8))
		for j := range b {
			b[j] = "ACGT"[rng.IntN(4)]
		}
		s[i] = string(b)
		s2[i] = 0.01 * math.Pow(100, rng.Float64())
		y[i] = float64(strings.Count(s[i], "AC")) + math.Sqrt(s2[i])*rng.NormFloat64()
	}
	xs, err := kernel.NewStrings(s)
	if err != nil {
		t.Fatal(err)
	}
	p, ps2, _ := knownNoiseProblem(91, 50, 2)
	for _, tc := range []struct {
		name string
		x    kernel.Inputs
		y    []float64
		s2   []float64
		k    kernel.Kernel
	}{{"spectrum", xs, y, s2, kernel.NewSpectrum(2, 1)}, {"plain", p.x, p.y, ps2, plainKernel{kernel.Clone(p.kern)}}} {
		md := NewModel(tc.x, tc.y, tc.k).WithM(8).WithNoiseVariances(tc.s2).WithMean(MeanGLS).WithMaxEpochs(3)
		start, err := md.Value()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := md.Fit(); err != nil {
			t.Fatal(err)
		}
		got, _ := md.Value()
		if !(got < start) {
			t.Errorf("%s: F %.6g from %.6g", tc.name, got, start)
		}
		idx, _ := md.Inducing()
		noise, _ := md.Noise()
		mu, _ := md.Mean()
		S, trace := denseNystromNoise(t, kernelDense(md.Kernel(), tc.x), idx, lambdas(tc.s2, noise))
		yc := make([]float64, len(tc.y))
		for i, v := range tc.y {
			yc[i] = v - mu
		}
		if want := naive.ExactNMLL(S, yc, 0) + 0.5*trace; !relClose(got, want, 1e-10) {
			t.Errorf("%s: fitted F = %.15g, oracle %.15g", tc.name, got, want)
		}
		if tc.name != "plain" {
			continue
		}
		theta := md.Params()
		ev := newNoiseEval(tc.x, tc.y, plainKernel{kernel.Clone(p.kern)}, VAR, tc.x.Subset(idx), tc.s2, MeanGLS, 0)
		grad := make([]float64, len(theta))
		if _, err := ev.FuncGrad(grad, theta); err != nil {
			t.Fatal(err)
		}
		for i := range theta {
			tp, tm := slices.Clone(theta), slices.Clone(theta)
			tp[i] += 1e-5
			tm[i] -= 1e-5
			md.SetParams(tp)
			fp, _ := md.Value()
			md.SetParams(tm)
			fm, _ := md.Value()
			if fd := (fp - fm) / 2e-5; math.Abs(fd-grad[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("plain kernel: ∂F/∂θ[%d] = %.10g, central difference %.10g", i, grad[i], fd)
			}
		}
	}
}

// TestModelNoiseVariancesDisplay checks that the fit's summary, as text
// and as HTML, says the known noise was used, for CholQR and the hybrid,
// and that a fit without it says nothing of it.
func TestModelNoiseVariancesDisplay(t *testing.T) {
	p, _, _ := knownNoiseProblem(79, 80, 2)
	s2 := make([]float64, len(p.y))
	for i := range s2 {
		s2[i] = 0.01 * float64(1+i%3)
	}
	for _, sel := range []Selector{SelectCholQR, SelectHybrid} {
		for _, known := range []bool{false, true} {
			md := NewModel(p.x, p.y, kernel.Clone(p.kern)).WithM(8).WithMaxEpochs(2).WithSelector(sel)
			if known {
				md.WithNoiseVariances(s2)
			}
			res, err := md.Fit()
			if err != nil {
				t.Fatal(err)
			}
			for _, out := range []string{res.String(), res.HTML()} {
				if got := strings.Contains(out, "known noise"); got != known {
					t.Errorf("%v, known noise %v: the summary names it %v:\n%s", sel, known, got, out)
				}
			}
		}
	}
}
