package sgp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/linalg"
	"github.com/cholqr/sgp/sgp/internal/par"

	"github.com/cholqr/sgp/sgp/kernel"
)

// PredictCov returns the predictive mean and the s×s covariance of the
// latent function at the s inputs xs (Rasmussen & Williams 2006, eq.
// 2.24): with V = L⁻¹K[X, xs],
//
//	cov(f*) = K** − K*X (K + σ²I)⁻¹ KX* = K** − VᵀV.
//
// Its diagonal is Predict's variance. It costs O(s·n² + s²·n) flops and
// 8(s·n + s²) bytes; it returns the errors of PredictTo.
func (p *ExactPredictor) PredictCov(xs kernel.Inputs) (mean []float64, cov *mat.SymDense, err error) {
	return p.predictCov(xs, 0)
}

// PredictNoisyCov is PredictCov for noisy observations y* = f* + ε: the
// covariance gains σ² on its diagonal.
func (p *ExactPredictor) PredictNoisyCov(xs kernel.Inputs) (mean []float64, cov *mat.SymDense, err error) {
	return p.predictCov(xs, p.NoiseV)
}

// crossSolved returns V = (L⁻¹K[X, xs])ᵀ (s×n row-major) and the
// predictive mean at xs.
func (p *ExactPredictor) crossSolved(xs kernel.Inputs) (v, mean []float64) {
	s, n := xs.Len(), len(p.alpha)
	v = make([]float64, s*n)
	mean = make([]float64, s)
	par.For(s, max(1, par.MinRows/max(1, n)), func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			row := v[c*n : (c+1)*n]
			p.Kern.Column(row, p.X, 0, n, xs, c)
			m := p.PriorMean
			for i, k := range row {
				m += k * p.alpha[i]
			}
			mean[c] = m
		}
	})
	linalg.Trsm(blas.Right, blas.Lower, blas.Trans, s, n, p.l, n, v, n)
	return v, mean
}

func (p *ExactPredictor) predictCov(xs kernel.Inputs, add float64) (mean []float64, cov *mat.SymDense, err error) {
	defer base.RecoverTo(&err)
	if err := checkPredictInputs(p.Kern, p.InputNames, xs); err != nil {
		return nil, nil, err
	}
	s, n := xs.Len(), len(p.alpha)
	if s == 0 {
		return []float64{}, &mat.SymDense{}, nil
	}
	v, mean := p.crossSolved(xs)
	c := make([]float64, s*s)
	for i0 := 0; i0 < s; i0 += covBlock {
		bw := min(covBlock, s-i0)
		linalg.GemmNT(bw, s-i0, n, v[i0*n:], n, v[i0*n:], n, c[i0*s+i0:], s)
	}
	subtractFromKernel(c, p.Kern, xs, add)
	return mean, mat.NewSymDense(s, c), nil
}

// Sample returns n joint draws of the latent function at the inputs xs
// from the posterior, as the columns of an s×n matrix, with the normal
// deviates taken from rng. The exact GP draws jointly only, from the
// pivoted Cholesky factor of PredictCov's covariance: SampleAuto refuses
// more than MaxJointSample inputs (ask for SampleJoint to draw at more,
// at 8s² bytes and s³/3 flops), and SampleFactored is the sparse model's.
func (p *ExactPredictor) Sample(xs kernel.Inputs, n int, rng *rand.Rand) (*mat.Dense, error) {
	return p.SampleWith(xs, n, rng, SampleOptions{})
}

// SampleNoisy is Sample for noisy observations y* = f* + ε.
func (p *ExactPredictor) SampleNoisy(xs kernel.Inputs, n int, rng *rand.Rand) (*mat.Dense, error) {
	return p.SampleWith(xs, n, rng, SampleOptions{Noisy: true})
}

// SampleWith is Sample with the options o (see Sample for the methods).
// The deviates are drawn in a fixed order: s for each draw, then the
// noise.
func (p *ExactPredictor) SampleWith(xs kernel.Inputs, n int, rng *rand.Rand, o SampleOptions) (out *mat.Dense, err error) {
	defer base.RecoverTo(&err)
	if err := checkSampleArgs(n, rng, o); err != nil {
		return nil, err
	}
	if err := checkPredictInputs(p.Kern, p.InputNames, xs); err != nil {
		return nil, err
	}
	s := xs.Len()
	switch {
	case o.Method == SampleFactored:
		return nil, errors.New("sgp: the exact GP has no inducing inputs to factor its posterior draws by; draw jointly (SampleJoint), or fit a sparse model")
	case o.Method == SampleAuto && s > MaxJointSample:
		return nil, fmt.Errorf("sgp: %d test inputs are more than the exact GP draws jointly by default (MaxJointSample = %d; the s×s covariance is %.3g GB): ask for SampleJoint, draw at fewer inputs, or fit a sparse model", s, MaxJointSample, 8*float64(s)*float64(s)/1e9)
	case s == 0:
		return &mat.Dense{}, nil
	}
	mean, cov, err := p.predictCov(xs, 0)
	if err != nil {
		return nil, err
	}
	c := cov.RawSymmetric().Data
	for i := 0; i < s; i++ {
		for j := 0; j < i; j++ {
			c[i*s+j] = c[j*s+i]
		}
	}
	e := make([]float64, s*n)
	for j := 0; j < n; j++ {
		for i := 0; i < s; i++ {
			e[i*n+j] = rng.NormFloat64()
		}
	}
	data := make([]float64, s*n)
	for i := 0; i < s; i++ {
		for j := 0; j < n; j++ {
			data[i*n+j] = mean[i]
		}
	}
	addJointDraws(data, c, e, s, n)
	if o.Noisy {
		addNoiseDraws(data, math.Sqrt(p.NoiseV), rng)
	}
	return mat.NewDense(s, n, data), nil
}

// PredictGrad returns the gradients in the test input of the predictive
// mean and of the latent variance at each of the s inputs xs, as the rows
// of two s×d matrices (see Predictor.PredictGrad): with k* = K[X, x*],
//
//	∂mean*/∂x* = Σ_i α_i ∂κ(x_i, x*)/∂x*,
//	∂v*/∂x*    = ∂κ(x*, x*)/∂x* − 2 Σ_i ((K + σ²I)⁻¹k*)_i ∂κ(x_i, x*)/∂x*.
//
// It costs O(n²) and n kernel gradients per test point, and returns an
// error for a kernel without input gradients or inputs that are not
// vectors.
func (p *ExactPredictor) PredictGrad(xs kernel.Inputs) (dmean, dvar *mat.Dense, err error) {
	defer base.RecoverTo(&err)
	ig, base, zs, err := gradInputs(p.Kern, p.X, p.InputNames, xs)
	if err != nil {
		return nil, nil, err
	}
	n := len(p.alpha)
	return inputGrads(ig, base, zs, func(b int, kx, wm, wv []float64) {
		for c := 0; c < b; c++ {
			copy(wm[c*n:(c+1)*n], p.alpha)
		}
		copy(wv, kx)
		linalg.Trsm(blas.Right, blas.Lower, blas.Trans, b, n, p.l, n, wv, n)
		linalg.Trsm(blas.Right, blas.Lower, blas.NoTrans, b, n, p.l, n, wv, n)
		for i := range wv {
			wv[i] *= -2
		}
	})
}
