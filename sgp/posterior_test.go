package sgp

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/internal/naive"
	"github.com/cholqr/sgp/sgp/kernel"
)

// postProblem is a 2-D regression problem for the posterior tests.
type postProblem struct {
	rows [][]float64
	x    *kernel.Vectors
	y    []float64
}

func newPostProblem(rng *rand.Rand, n int) *postProblem {
	p := &postProblem{rows: make([][]float64, n), y: make([]float64, n)}
	for i := range p.rows {
		a, b := 4*rng.Float64(), 4*rng.Float64()
		p.rows[i] = []float64{a, b}
		p.y[i] = math.Sin(2*a) + math.Cos(b) + 0.2*rng.NormFloat64()
	}
	p.x, _ = kernel.VectorsFromRows(p.rows)
	return p
}

// postTestRows returns s random test inputs, then a training input, a
// repeat of the first test input and a given extra input.
func postTestRows(rng *rand.Rand, p *postProblem, s int, extra []float64) [][]float64 {
	rows := make([][]float64, s, s+3)
	for i := range rows {
		rows[i] = []float64{4.5 * rng.Float64(), 4.5 * rng.Float64()}
	}
	return append(rows, p.rows[1], rows[0], extra)
}

// rbfOracle is the RBF of k written independently (naive.RBFFunc).
func rbfOracle(t *testing.T, k kernel.Kernel) naive.Func {
	t.Helper()
	r, ok := k.(*kernel.RBF)
	if !ok {
		t.Fatalf("kernel %T, want *kernel.RBF", k)
	}
	return naive.RBFFunc(r.Variance(), r.Lengthscales())
}

func vectorRows(v kernel.Inputs) [][]float64 {
	x := v.(*kernel.Vectors)
	rows := make([][]float64, x.Len())
	for i := range rows {
		rows[i] = append([]float64(nil), x.Row(i)...)
	}
	return rows
}

// sparseOracle returns the DTC/VFE predictive mean and latent covariance
// of the Predictor p at the test rows, from dense matrices of its kernel,
// inducing inputs (jitter added to K_mm's diagonal), noise and mean.
func sparseOracle(t *testing.T, p *Predictor, pp *postProblem, test [][]float64, jitter float64) ([]float64, *mat.SymDense) {
	t.Helper()
	kf := rbfOracle(t, p.Kern)
	zs := vectorRows(p.X)
	Kmm := naive.Gram(zs, kf)
	for i := range zs {
		Kmm.SetSym(i, i, Kmm.At(i, i)+jitter)
	}
	yc := make([]float64, len(pp.y))
	for i, v := range pp.y {
		yc[i] = v - p.PriorMean
	}
	m, c, ok := naive.PredictDTCCov(Kmm, naive.Cross(zs, pp.rows, kf), naive.Cross(test, zs, kf), naive.Gram(test, kf), yc, p.NoiseV)
	if !ok {
		t.Fatal("oracle failed")
	}
	for i := range m {
		m[i] += p.PriorMean
	}
	return m, c
}

// checkCov compares a predictive mean and covariance with the oracle's
// and the diagonal with the marginal variances, and returns the largest
// covariance error relative to the largest variance.
func checkCov(t *testing.T, name string, r Regressor, xs kernel.Inputs, wm []float64, wc *mat.SymDense) float64 {
	t.Helper()
	gm, gc, err := r.PredictCov(xs)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	_, nc, err := r.PredictNoisyCov(xs)
	if err != nil {
		t.Fatal(err)
	}
	pm, pv, err := r.Predict(xs)
	if err != nil {
		t.Fatal(err)
	}
	s := len(wm)
	var scale, worst float64
	for i := 0; i < s; i++ {
		scale = math.Max(scale, wc.At(i, i))
	}
	for i := 0; i < s; i++ {
		if d := math.Abs(gm[i] - wm[i]); d > 1e-8*(1+math.Abs(wm[i])) {
			t.Errorf("%s: mean %d = %.12g, oracle %.12g", name, i, gm[i], wm[i])
		}
		if gm[i] != pm[i] && math.Abs(gm[i]-pm[i]) > 1e-12*(1+math.Abs(pm[i])) {
			t.Errorf("%s: mean %d = %.15g, Predict's %.15g", name, i, gm[i], pm[i])
		}
		if d := math.Abs(gc.At(i, i) - pv[i]); d > 1e-12*scale {
			t.Errorf("%s: variance %d = %.15g, Predict's %.15g", name, i, gc.At(i, i), pv[i])
		}
		for j := 0; j < s; j++ {
			worst = math.Max(worst, math.Abs(gc.At(i, j)-wc.At(i, j)))
			want := gc.At(i, j)
			if i == j {
				want += r.Noise()
			}
			if math.Abs(nc.At(i, j)-want) > 1e-12*scale {
				t.Errorf("%s: noisy covariance (%d, %d) = %g, latent + σ²δ %g", name, i, j, nc.At(i, j), want)
			}
		}
	}
	if worst > 1e-8*scale {
		t.Errorf("%s: covariance differs from the oracle by %.3g (largest variance %.3g)", name, worst, scale)
	}
	t.Logf("%s: max |cov − oracle| = %.3g, %.3g of the largest variance", name, worst, worst/scale)
	return worst / scale
}

// postModels fits the models that predict on pp: a CholQR model at a
// fixed inducing set, its saved and loaded Predictor, a continuous fit
// and a hybrid fit, with the jitter each Predictor's K_mm has.
func postModels(t *testing.T, rng *rand.Rand, pp *postProblem) (names []string, preds []*Predictor, jitters []float64) {
	t.Helper()
	kern := kernel.NewRBF(1.1, []float64{0.9, 1.3})
	md := NewModel(pp.x, pp.y, kern).WithInducing(rng.Perm(pp.x.Len())[:12]).WithNoise(0.05).WithFixedHyperparameters(true)
	p, err := md.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadPredictor(&buf)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := NewContinuous(pp.x, pp.y, kernel.NewRBF(1.1, []float64{0.9, 1.3})).WithM(10).WithNoise(0.05).WithMaxEvals(15).FitContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	hy := NewModel(pp.x, pp.y, kernel.NewRBF(1.1, []float64{0.9, 1.3})).WithM(8).WithSelector(SelectHybrid).WithMaxEpochs(2)
	if _, err := hy.Fit(); err != nil {
		t.Fatal(err)
	}
	hp, err := hy.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	hj := 0.0
	if r := hy.refined; r != nil {
		hj = r.Jitter
	}
	return []string{"cholqr", "loaded", "continuous", "hybrid"}, []*Predictor{p, loaded, cr.Predictor, hp}, []float64{0, 0, cr.Jitter, hj}
}

// TestPredictCovOracle checks the sparse models' predictive covariance,
// latent and noisy, against the dense DTC/VFE predictive K** − Q** +
// K*m Σ Km* (naive.PredictDTCCov), and its diagonal against Predict.
func TestPredictCovOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(41, 1))
	pp := newPostProblem(rng, 60)
	names, preds, jitters := postModels(t, rng, pp)
	for i, p := range preds {
		test := postTestRows(rng, pp, 9, p.X.(*kernel.Vectors).Row(0))
		xs, _ := kernel.VectorsFromRows(test)
		wm, wc := sparseOracle(t, p, pp, test, jitters[i])
		checkCov(t, names[i], p, xs, wm, wc)
	}
}

// TestExactPredictCovOracle checks the exact GP's predictive covariance
// against the dense K** − K*X(K + σ²I)⁻¹KX* (naive.ExactPredictCov).
func TestExactPredictCovOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(41, 2))
	pp := newPostProblem(rng, 50)
	res, err := NewExact(pp.x, pp.y, kernel.NewRBF(1.1, []float64{0.9, 1.3})).WithNoise(0.05).WithFixedHyperparameters(true).Fit()
	if err != nil {
		t.Fatal(err)
	}
	p := res.Predictor
	kf := rbfOracle(t, p.Kern)
	test := postTestRows(rng, pp, 9, pp.rows[7])
	xs, _ := kernel.VectorsFromRows(test)
	yc := make([]float64, len(pp.y))
	for i, v := range pp.y {
		yc[i] = v - p.PriorMean
	}
	wm, wc, ok := naive.ExactPredictCov(naive.Gram(pp.rows, kf), naive.Cross(test, pp.rows, kf), naive.Gram(test, kf), yc, p.NoiseV+p.Jitter)
	if !ok {
		t.Fatal("oracle failed")
	}
	for i := range wm {
		wm[i] += p.PriorMean
	}
	checkCov(t, "exact", p, xs, wm, wc)
}

// TestPredictCovEmptyAndErrors checks the covariance at no inputs and the
// errors of inputs the model does not take.
func TestPredictCovEmptyAndErrors(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(41, 3))
	pp := newPostProblem(rng, 30)
	p, err := NewModel(pp.x, pp.y, kernel.NewRBF(1, []float64{1, 1})).WithM(5).WithFixedHyperparameters(true).Predictor()
	if err != nil {
		t.Fatal(err)
	}
	empty := pp.x.Rows(nil)
	m, c, err := p.PredictCov(empty)
	if err != nil || len(m) != 0 || !c.IsEmpty() {
		t.Errorf("no inputs: %v, %v, %v", m, c, err)
	}
	wrong, _ := kernel.VectorsFromRows([][]float64{{1, 2, 3}})
	if _, _, err := p.PredictCov(wrong); err == nil {
		t.Error("3-D inputs for a 2-D model: no error")
	}
	if _, err := p.Sample(wrong, 3, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("Sample at 3-D inputs for a 2-D model: no error")
	}
}
