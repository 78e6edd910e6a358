package sgp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/internal/naive"
	"github.com/cholqr/sgp/sgp/kernel"
)

// mcZ is the bound, in standard errors, of the Monte Carlo checks: each
// sample mean and sample covariance entry is asymptotically normal, and
// 4.5 standard errors are exceeded with probability 7·10⁻⁶ each.
const mcZ = 4.5

// momentErrors returns the largest standardised errors of the sample mean
// and covariance of the draws (columns of d) against mean m and
// covariance c: |m̂ᵢ − mᵢ| / √(Cᵢᵢ/N) and |Ĉᵢⱼ − Cᵢⱼ| / √((CᵢᵢCⱼⱼ +
// Cᵢⱼ²)/N), the standard errors of Gaussian draws. Entries whose standard
// error is below 10⁻¹² (a point with no posterior variance) are compared
// absolutely with 10⁻⁹.
func momentErrors(d *mat.Dense, m []float64, c mat.Symmetric) (zMean, zCov float64, worst string) {
	s, n := d.Dims()
	fn := float64(n)
	mh := make([]float64, s)
	for i := range mh {
		for j := 0; j < n; j++ {
			mh[i] += d.At(i, j)
		}
		mh[i] /= fn
	}
	z := func(diff, se float64) float64 {
		if se < 1e-12 {
			if math.Abs(diff) > 1e-9 {
				return math.Inf(1)
			}
			return 0
		}
		return math.Abs(diff) / se
	}
	for i := 0; i < s; i++ {
		if v := z(mh[i]-m[i], math.Sqrt(c.At(i, i)/fn)); v > zMean {
			zMean = v
		}
		for j := 0; j <= i; j++ {
			var ch float64
			for r := 0; r < n; r++ {
				ch += (d.At(i, r) - mh[i]) * (d.At(j, r) - mh[j])
			}
			ch /= fn - 1
			cij := c.At(i, j)
			if v := z(ch-cij, math.Sqrt((c.At(i, i)*c.At(j, j)+cij*cij)/fn)); v > zCov {
				zCov, worst = v, fmt.Sprintf("(%d, %d)", i, j)
			}
		}
	}
	return zMean, zCov, worst
}

// sampleCase is a model and its posterior at some test inputs.
type sampleCase struct {
	name string
	r    Regressor
	xs   kernel.Inputs
}

// sampleCases returns a CholQR model with few inducing points (a large
// residual K** − Q**) and an exact GP, at test inputs that include a
// training input and a repeated one.
func sampleCases(t *testing.T, rng *rand.Rand) (*postProblem, *Predictor, []sampleCase) {
	t.Helper()
	pp := newPostProblem(rng, 40)
	p, err := NewModel(pp.x, pp.y, kernel.NewRBF(1.1, []float64{0.9, 1.3})).WithInducing(rng.Perm(40)[:4]).WithNoise(0.05).WithFixedHyperparameters(true).Predictor()
	if err != nil {
		t.Fatal(err)
	}
	res, err := NewExact(pp.x, pp.y, kernel.NewRBF(1.1, []float64{0.9, 1.3})).WithNoise(0.05).WithFixedHyperparameters(true).Fit()
	if err != nil {
		t.Fatal(err)
	}
	xs, _ := kernel.VectorsFromRows(postTestRows(rng, pp, 5, p.X.(*kernel.Vectors).Row(0)))
	return pp, p, []sampleCase{{"cholqr", p, xs}, {"exact", res.Predictor, xs}}
}

// TestSampleMoments checks that the sample mean and covariance of joint
// draws, latent and noisy, agree with PredictCov and PredictNoisyCov
// within Monte Carlo error (mcZ standard errors), that a seed gives the
// same draws again, and that the latent draws at a repeated input are
// equal.
func TestSampleMoments(t *testing.T) {
	t.Parallel()
	const draws = 20000
	_, _, cases := sampleCases(t, rand.New(rand.NewPCG(43, 1)))
	for _, c := range cases {
		for _, noisy := range []bool{false, true} {
			d, err := c.r.SampleWith(c.xs, draws, rand.New(rand.NewPCG(7, 8)), SampleOptions{Noisy: noisy})
			if err != nil {
				t.Fatal(err)
			}
			m, cov, err := c.r.PredictCov(c.xs)
			if noisy {
				m, cov, err = c.r.PredictNoisyCov(c.xs)
			}
			if err != nil {
				t.Fatal(err)
			}
			zm, zc, at := momentErrors(d, m, cov)
			t.Logf("%s noisy=%v: %d draws, largest |error| %.2f standard errors in the mean, %.2f in the covariance (at %s)", c.name, noisy, draws, zm, zc, at)
			if zm > mcZ || zc > mcZ {
				t.Errorf("%s noisy=%v: sample moments off by %.2f (mean), %.2f (covariance at %s) standard errors", c.name, noisy, zm, zc, at)
			}
			again, _ := c.r.SampleWith(c.xs, draws, rand.New(rand.NewPCG(7, 8)), SampleOptions{Noisy: noisy})
			if !mat.Equal(d, again) {
				t.Errorf("%s: the same seed gave other draws", c.name)
			}
			if s, _ := d.Dims(); !noisy {
				// Row s−2 repeats row 0: the latent draws are equal there.
				var diff float64
				for j := 0; j < draws; j++ {
					diff = math.Max(diff, math.Abs(d.At(0, j)-d.At(s-2, j)))
				}
				if diff > 1e-6 {
					t.Errorf("%s: latent draws at a repeated input differ by %g", c.name, diff)
				}
			}
		}
	}
}

// TestSampleFactored checks the factored draws of a sparse model against
// their own covariance, PredictCov's with the residual K** − Q** kept on
// the diagonal only, and that the Monte Carlo check tells the two
// methods apart: the joint draws fail it and the factored ones fail the
// joint covariance, where the residual correlates test inputs.
func TestSampleFactored(t *testing.T) {
	t.Parallel()
	const draws = 20000
	_, p, cases := sampleCases(t, rand.New(rand.NewPCG(43, 2)))
	xs := cases[0].xs
	test := vectorRows(xs)
	kf := rbfOracle(t, p.Kern)
	zs := vectorRows(p.X)
	var chol mat.Cholesky
	if !chol.Factorize(naive.Gram(zs, kf)) {
		t.Fatal("K_mm")
	}
	Ksm := naive.Cross(test, zs, kf)
	var a, q mat.Dense
	if err := chol.SolveTo(&a, Ksm.T()); err != nil {
		t.Fatal(err)
	}
	q.Mul(Ksm, &a)
	_, joint, err := p.PredictCov(xs)
	if err != nil {
		t.Fatal(err)
	}
	s := len(test)
	factored := mat.NewSymDense(s, nil)
	for i := 0; i < s; i++ {
		for j := i; j < s; j++ {
			v := joint.At(i, j)
			if i != j {
				v -= kf(test[i], test[j]) - q.At(i, j)
			}
			factored.SetSym(i, j, v)
		}
	}
	m, _, _ := p.Predict(xs)
	fd, err := p.SampleWith(xs, draws, rand.New(rand.NewPCG(9, 9)), SampleOptions{Method: SampleFactored})
	if err != nil {
		t.Fatal(err)
	}
	jd, err := p.SampleWith(xs, draws, rand.New(rand.NewPCG(9, 9)), SampleOptions{Method: SampleJoint})
	if err != nil {
		t.Fatal(err)
	}
	zm, zc, at := momentErrors(fd, m, factored)
	t.Logf("factored: largest |error| %.2f (mean), %.2f (covariance at %s) standard errors", zm, zc, at)
	if zm > mcZ || zc > mcZ {
		t.Errorf("factored draws: off their covariance by %.2f, %.2f standard errors", zm, zc)
	}
	_, zj, _ := momentErrors(jd, m, factored)
	_, zf, _ := momentErrors(fd, m, joint)
	t.Logf("joint draws against the factored covariance: %.1f standard errors; factored against the joint: %.1f", zj, zf)
	if zj < 10*mcZ {
		t.Errorf("joint draws pass the factored covariance (%.2f standard errors): the check cannot tell them apart", zj)
	}
	if zf < 10*mcZ {
		t.Errorf("factored draws pass the joint covariance (%.2f standard errors)", zf)
	}
}

// TestSampleAutoAndErrors checks that SampleAuto draws factored above
// MaxJointSample inputs for a sparse model and refuses them for the exact
// GP, and the errors for bad arguments.
func TestSampleAutoAndErrors(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(43, 3))
	_, p, cases := sampleCases(t, rng)
	rows := make([][]float64, MaxJointSample+1)
	for i := range rows {
		rows[i] = []float64{4 * rng.Float64(), 4 * rng.Float64()}
	}
	big, _ := kernel.VectorsFromRows(rows)
	auto, err := p.Sample(big, 2, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	fac, err := p.SampleWith(big, 2, rand.New(rand.NewPCG(5, 5)), SampleOptions{Method: SampleFactored})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(auto, fac) {
		t.Error("SampleAuto above MaxJointSample is not SampleFactored")
	}
	ex := cases[1].r
	if _, err := ex.Sample(big, 1, rng); err == nil || !strings.Contains(err.Error(), "MaxJointSample") {
		t.Errorf("exact GP at %d inputs: %v", big.Len(), err)
	}
	if _, err := ex.SampleWith(cases[1].xs, 1, rng, SampleOptions{Method: SampleFactored}); err == nil {
		t.Error("exact GP, factored: no error")
	}
	for _, r := range []Regressor{p, ex} {
		if _, err := r.Sample(cases[0].xs, 0, rng); err == nil {
			t.Error("0 draws: no error")
		}
		if _, err := r.Sample(cases[0].xs, 1, nil); err == nil {
			t.Error("nil source: no error")
		}
		if _, err := r.SampleWith(cases[0].xs, 1, rng, SampleOptions{Method: 7}); err == nil {
			t.Error("unknown method: no error")
		}
	}
}

// TestPosteriorBlocks checks the covariance and the joint draws at more
// test inputs than one block of rows of their products (covBlock): the
// covariance against the oracles, the draws' moments at inputs on both
// sides of the blocks' edges.
func TestPosteriorBlocks(t *testing.T) {
	t.Parallel()
	const draws = 4000
	rng := rand.New(rand.NewPCG(43, 4))
	pp, p, cases := sampleCases(t, rng)
	test := postTestRows(rng, pp, 2*covBlock+37, p.X.(*kernel.Vectors).Row(1))
	xs, _ := kernel.VectorsFromRows(test)
	wm, wc := sparseOracle(t, p, pp, test, 0)
	checkCov(t, "cholqr", p, xs, wm, wc)
	ex := cases[1].r.(*ExactPredictor)
	kf := rbfOracle(t, ex.Kern)
	yc := make([]float64, len(pp.y))
	for i, v := range pp.y {
		yc[i] = v - ex.PriorMean
	}
	em, ec, ok := naive.ExactPredictCov(naive.Gram(pp.rows, kf), naive.Cross(test, pp.rows, kf), naive.Gram(test, kf), yc, ex.NoiseV+ex.Jitter)
	if !ok {
		t.Fatal("oracle failed")
	}
	for i := range em {
		em[i] += ex.PriorMean
	}
	checkCov(t, "exact", ex, xs, em, ec)
	pick := []int{0, 1, covBlock - 1, covBlock, covBlock + 40, 2*covBlock - 1, 2 * covBlock, len(test) - 1}
	for _, c := range []struct {
		name string
		r    Regressor
		m    []float64
		cov  *mat.SymDense
	}{{"cholqr", p, wm, wc}, {"exact", ex, em, ec}} {
		d, err := c.r.Sample(xs, draws, rand.New(rand.NewPCG(11, 12)))
		if err != nil {
			t.Fatal(err)
		}
		sub := mat.NewDense(len(pick), draws, nil)
		subC := mat.NewSymDense(len(pick), nil)
		subM := make([]float64, len(pick))
		for a, i := range pick {
			sub.SetRow(a, d.RawRowView(i))
			subM[a] = c.m[i]
			for b, j := range pick {
				subC.SetSym(a, b, c.cov.At(i, j))
			}
		}
		zm, zc, at := momentErrors(sub, subM, subC)
		t.Logf("%s: %d draws at %d inputs: largest |error| %.2f (mean), %.2f (covariance at %s) standard errors", c.name, draws, len(test), zm, zc, at)
		if zm > mcZ || zc > mcZ {
			t.Errorf("%s: sample moments off by %.2f, %.2f standard errors", c.name, zm, zc)
		}
	}
}
