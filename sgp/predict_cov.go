package sgp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/linalg"
	"github.com/cholqr/sgp/sgp/internal/par"

	"github.com/cholqr/sgp/sgp/kernel"
)

// The joint posterior of a sparse model at s test inputs x*. With the
// Predictor's G* = W⁻¹K[I, *] (k×s) and H* = R⁻ᵀG*, the predictive
// covariance of the latent f* (Titsias 2009, eq. 6; the DTC/VFE
// predictive, Quiñonero-Candela & Rasmussen 2005, eq. 20b) is
//
//	cov(f*) = K** − Q** + K*m Σ Km*  =  K** − G*ᵀG* + σ²H*ᵀH*,
//
// Q** = K*m K_mm⁻¹ Km* = G*ᵀG* the Nyström part and Σ = (K_mm + σ⁻²K_mn
// K_nm)⁻¹, whose K*m Σ Km* is σ²H*ᵀH* because RᵀR = GᵀG + σ²I with G =
// K_nm W⁻ᵀ. Its diagonal is Predict's variance. Noisy observations add
// σ²I.
//
// The posterior of the whitened inducing values v = W⁻¹u is N(R⁻¹a,
// σ²R⁻¹R⁻ᵀ), and f* = G*ᵀv + e with e ~ N(0, K** − Q**) independent of v:
// a draw is mean* + σH*ᵀξ + e, ξ ~ N(0, I_k). Sample draws the first part
// in k dimensions at any size; the residual e jointly (SampleJoint) from a
// pivoted Cholesky factor of the s×s matrix K** − Q**, or independently at
// each point (SampleFactored), each eᵢ ~ N(0, κ(xᵢ, xᵢ) − ‖gᵢ‖²).

// MaxJointSample is the largest number of test inputs at which Sample and
// SampleNoisy (SampleAuto) draw jointly, forming and factorising the s×s
// residual covariance (8s² bytes, about s³/3 flops: 32 MB and a second or
// two at 2000); above it they draw the residual of a sparse model
// independently at each point (SampleFactored), in O(s·k) memory.
const MaxJointSample = 2000

// SampleMethod says how Sample draws the part of the posterior that the
// inducing inputs do not explain (the residual K** − Q**). A draw of a
// sparse model is mean* + σH*ᵀξ + e, ξ ~ N(0, I_k) the whitened inducing
// values' deviation (their posterior is N(R⁻¹a, σ²R⁻¹R⁻ᵀ)) and e ~ N(0,
// K** − Q**) the residual, independent of ξ: the first part is drawn
// exactly in k dimensions by every method.
type SampleMethod int

const (
	// SampleAuto is SampleJoint for at most MaxJointSample test inputs,
	// SampleFactored above.
	SampleAuto SampleMethod = iota
	// SampleJoint draws from the full joint posterior, exactly: the
	// residual from the pivoted Cholesky factor of its s×s covariance.
	SampleJoint
	// SampleFactored draws the inducing part exactly and the residual
	// independently at each point: each point's marginal, and every
	// covariance the inducing inputs carry, are exact; the residual's
	// correlation between different test points is left out (exact when
	// K** − Q** is diagonal: test inputs at inducing inputs, far from each
	// other, or a kernel the inducing set spans). Only a sparse model
	// (Predictor) has it.
	SampleFactored
)

// String returns "auto", "joint" or "factored".
func (m SampleMethod) String() string {
	switch m {
	case SampleAuto:
		return "auto"
	case SampleJoint:
		return "joint"
	case SampleFactored:
		return "factored"
	}
	return fmt.Sprintf("SampleMethod(%d)", int(m))
}

// SampleOptions configures SampleWith.
type SampleOptions struct {
	// Noisy draws observations y* = f* + ε instead of the latent f*.
	Noisy bool
	// Method is how the residual is drawn (default SampleAuto).
	Method SampleMethod
}

// PredictCov returns the predictive mean and the s×s covariance of the
// latent function at the s inputs xs, the DTC/VFE predictive (Titsias
// 2009, eq. 6)
//
//	cov(f*) = K** − Q** + K*m Σ Km* = K** − G*ᵀG* + σ²H*ᵀH*,
//
// with G* = W⁻¹K[I, *], H* = R⁻ᵀG* and Σ = (K_mm + σ⁻²K_mn K_nm)⁻¹. Its
// diagonal is Predict's variance. It costs O(s²k) flops and 8s² bytes
// (800 MB at s = 10⁴) besides s²/2 kernel evaluations; it returns the
// errors of PredictTo.
func (p *Predictor) PredictCov(xs kernel.Inputs) (mean []float64, cov *mat.SymDense, err error) {
	return p.predictCov(xs, 0)
}

// PredictNoisyCov is PredictCov for noisy observations y* = f* + ε: the
// covariance gains σ² on its diagonal.
func (p *Predictor) PredictNoisyCov(xs kernel.Inputs) (mean []float64, cov *mat.SymDense, err error) {
	return p.predictCov(xs, p.NoiseV)
}

// checkPredictInputs returns the errors of PredictTo for xs.
func checkPredictInputs(k kernel.Kernel, names []string, xs kernel.Inputs) error {
	if xs == nil {
		return errors.New("sgp: no inputs to predict at")
	}
	if err := checkInputNames(names, xs); err != nil {
		return err
	}
	return k.Accepts(xs)
}

// crossFactors returns G* = W⁻¹K[I, xs] and H* = R⁻ᵀG* (k×s row-major)
// and the predictive mean at xs.
func (p *Predictor) crossFactors(xs kernel.Inputs) (g, h, mean []float64) {
	s, k := xs.Len(), len(p.a)
	g = make([]float64, k*s)
	par.For(k, max(1, par.MinRows/max(1, s)), func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			p.Kern.Column(g[c*s:(c+1)*s], xs, 0, s, p.X, c)
		}
	})
	h = make([]float64, k*s)
	mean = make([]float64, s)
	for i := range mean {
		mean[i] = p.PriorMean
	}
	if k == 0 || s == 0 {
		return g, h, mean
	}
	linalg.Trsm(blas.Left, blas.Lower, blas.NoTrans, k, s, p.w, k, g, s)
	copy(h, g)
	linalg.Trsm(blas.Left, blas.Upper, blas.Trans, k, s, p.r, k, h, s)
	for c := 0; c < k; c++ {
		b := p.beta[c]
		for i, v := range g[c*s : (c+1)*s] {
			mean[i] += v * b
		}
	}
	return g, h, mean
}

func (p *Predictor) predictCov(xs kernel.Inputs, add float64) (mean []float64, cov *mat.SymDense, err error) {
	defer base.RecoverTo(&err)
	if err := checkPredictInputs(p.Kern, p.InputNames, xs); err != nil {
		return nil, nil, err
	}
	s, k := xs.Len(), len(p.a)
	if s == 0 {
		return []float64{}, &mat.SymDense{}, nil
	}
	g, h, mean := p.crossFactors(xs)
	// −G*ᵀG* + σ²H*ᵀH* = −G*ᵀP with P = G* − σ²R⁻¹H*: one product.
	if k > 0 {
		linalg.Trsm(blas.Left, blas.Upper, blas.NoTrans, k, s, p.r, k, h, s)
		for i, v := range h {
			h[i] = g[i] - p.NoiseV*v
		}
	}
	c := make([]float64, s*s)
	upperTN(s, k, g, h, c)
	subtractFromKernel(c, p.Kern, xs, add)
	return mean, mat.NewSymDense(s, c), nil
}

// covBlock is the number of rows of an s×s product that upperTN,
// lowerTN and upperNT form at a time.
const covBlock = 256

// upperTN sets the upper triangle of the s×s row-major c to that of AᵀB,
// for the k×s row-major a and b, by blocks of rows: half the flops of
// the whole product.
func upperTN(s, k int, a, b, c []float64) {
	for i0 := 0; i0 < s; i0 += covBlock {
		bw := min(covBlock, s-i0)
		linalg.GemmTN(bw, s-i0, k, a[i0:], s, b[i0:], s, c[i0*s+i0:], s)
	}
}

// lowerTN sets the lower triangle of the s×s row-major c to that of AᵀA
// for the k×s row-major a (and some entries above it, within the blocks
// of rows).
func lowerTN(s, k int, a, c []float64) {
	for i0 := 0; i0 < s; i0 += covBlock {
		bw := min(covBlock, s-i0)
		linalg.GemmTN(bw, i0+bw, k, a[i0:], s, a, s, c[i0*s:], s)
	}
}

// subtractFromKernel sets the upper triangle of the s×s row-major c to
// K(xs, xs) − c, with the diagonal at least 0 and then add added to it.
// Rows are paired (i, s−1−i) so that the triangle splits evenly.
func subtractFromKernel(c []float64, k kernel.Kernel, xs kernel.Inputs, add float64) {
	s := xs.Len()
	par.For((s+1)/2, max(1, par.MinRows*4/max(1, s)), func(t0, t1 int) {
		row := make([]float64, s)
		one := func(i int) {
			r := row[:s-i]
			k.Column(r, xs, i, s, xs, i)
			ci := c[i*s+i : (i+1)*s]
			for j, v := range r {
				ci[j] = v - ci[j]
			}
			ci[0] = math.Max(ci[0], 0) + add
		}
		for t := t0; t < t1; t++ {
			one(t)
			if i := s - 1 - t; i != t {
				one(i)
			}
		}
	})
}

// Sample returns n joint draws of the latent function at the inputs xs
// from the posterior, as the columns of an s×n matrix, with the normal
// deviates taken from rng (a seeded math/rand/v2 source gives the same
// draws again). It draws jointly for at most MaxJointSample inputs and
// factored above (SampleAuto; see SampleMethod).
func (p *Predictor) Sample(xs kernel.Inputs, n int, rng *rand.Rand) (*mat.Dense, error) {
	return p.SampleWith(xs, n, rng, SampleOptions{})
}

// SampleNoisy is Sample for noisy observations y* = f* + ε.
func (p *Predictor) SampleNoisy(xs kernel.Inputs, n int, rng *rand.Rand) (*mat.Dense, error) {
	return p.SampleWith(xs, n, rng, SampleOptions{Noisy: true})
}

// SampleWith is Sample with the options o: latent or noisy, and how the
// residual is drawn. The deviates are drawn in a fixed order (for each
// draw: k for the inducing part, s for a joint residual; then those of a
// factored residual; then the noise), so a seed gives the same draws
// again for the same model and inputs with the same BLAS backend (another
// rounds the factors differently in the last digits).
func (p *Predictor) SampleWith(xs kernel.Inputs, n int, rng *rand.Rand, o SampleOptions) (out *mat.Dense, err error) {
	defer base.RecoverTo(&err)
	if err := checkSampleArgs(n, rng, o); err != nil {
		return nil, err
	}
	if err := checkPredictInputs(p.Kern, p.InputNames, xs); err != nil {
		return nil, err
	}
	s, k := xs.Len(), len(p.a)
	if s == 0 {
		return &mat.Dense{}, nil
	}
	joint := o.Method == SampleJoint || o.Method == SampleAuto && s <= MaxJointSample
	g, h, mean := p.crossFactors(xs)
	var resid []float64 // the joint residual's factor, or the per-point variances
	if joint {
		resid = make([]float64, s*s)
		lowerTN(s, k, g, resid)
		lowerFromKernel(resid, p.Kern, xs)
	} else {
		resid = make([]float64, s)
		p.Kern.Diag(resid, xs, 0, s)
		for c := 0; c < k; c++ {
			for i, v := range g[c*s : (c+1)*s] {
				resid[i] -= v * v
			}
		}
	}
	xi := make([]float64, k*n)
	e := make([]float64, s*n)
	for j := 0; j < n; j++ {
		for c := 0; c < k; c++ {
			xi[c*n+j] = rng.NormFloat64()
		}
		if joint {
			for i := 0; i < s; i++ {
				e[i*n+j] = rng.NormFloat64()
			}
		}
	}
	data := make([]float64, s*n)
	linalg.GemmTN(s, n, k, h, s, xi, n, data, n)
	sd := math.Sqrt(p.NoiseV)
	for i := 0; i < s; i++ {
		for j := 0; j < n; j++ {
			data[i*n+j] = mean[i] + sd*data[i*n+j]
		}
	}
	if joint {
		addJointDraws(data, resid, e, s, n)
	} else {
		for i, v := range resid {
			si := math.Sqrt(math.Max(v, 0))
			for j := 0; j < n; j++ {
				data[i*n+j] += si * rng.NormFloat64()
			}
		}
	}
	if o.Noisy {
		addNoiseDraws(data, sd, rng)
	}
	return mat.NewDense(s, n, data), nil
}

// checkSampleArgs returns an error for a number of draws below 1, a nil
// source or an unknown method.
func checkSampleArgs(n int, rng *rand.Rand, o SampleOptions) error {
	switch {
	case n < 1:
		return fmt.Errorf("sgp: %d posterior draws asked for; ask for at least 1", n)
	case rng == nil:
		return errors.New("sgp: no random source for the posterior draws (rand.New(rand.NewPCG(seed, seq)))")
	case o.Method < SampleAuto || o.Method > SampleFactored:
		return fmt.Errorf("sgp: unknown sample method %v", o.Method)
	}
	return nil
}

// lowerFromKernel sets the lower triangle of the s×s row-major c to that
// of K(xs, xs) − c. Rows are paired (i, s−1−i) so that the triangle
// splits evenly.
func lowerFromKernel(c []float64, k kernel.Kernel, xs kernel.Inputs) {
	s := xs.Len()
	par.For((s+1)/2, max(1, par.MinRows*4/max(1, s)), func(t0, t1 int) {
		row := make([]float64, s)
		one := func(i int) {
			r := row[:i+1]
			k.Column(r, xs, 0, i+1, xs, i)
			ci := c[i*s : i*s+i+1]
			for j, v := range r {
				ci[j] = v - ci[j]
			}
		}
		for t := t0; t < t1; t++ {
			one(t)
			if i := s - 1 - t; i != t {
				one(i)
			}
		}
	})
}

// addJointDraws adds L·e to the s×n row-major draws out, for the pivoted
// Cholesky factor PᵀCP = LLᵀ of the s×s covariance c (its lower
// triangle; overwritten) and the s×n standard normal deviates e (overwritten). The
// pivoted factorisation stops at the numerical rank (pivots below s·ε·max
// C_ii), which a residual K** − Q** of nearby or repeated test inputs is
// far below s; the rest of the factor is zero.
func addJointDraws(out, c, e []float64, s, n int) {
	piv := make([]int, s)
	work := make([]float64, 2*s)
	sym := blas64.Symmetric{Uplo: blas.Lower, N: s, Stride: s, Data: c}
	l, rank, _ := lapack64.Pstrf(sym, piv, -1, work)
	for i := 0; i < s; i++ {
		clear(c[i*s+min(i+1, rank) : (i+1)*s])
	}
	blas64.Trmm(blas.Left, blas.NoTrans, 1, l, blas64.General{Rows: s, Cols: n, Stride: n, Data: e})
	for r := 0; r < s; r++ {
		dst, src := out[piv[r]*n:(piv[r]+1)*n], e[r*n:(r+1)*n]
		for j, v := range src {
			dst[j] += v
		}
	}
}

// addNoiseDraws adds independent N(0, sd²) deviates to every entry of
// out, in order.
func addNoiseDraws(out []float64, sd float64, rng *rand.Rand) {
	for i := range out {
		out[i] += sd * rng.NormFloat64()
	}
}
