package sgp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Predictor holds what prediction needs from a fitted model, independent
// of the training data (Cao et al. 2013, §2; Titsias 2009): the kernel, the
// noise σ², the prior mean μ, the inducing inputs x_I, W = G[I, :] (k×k
// lower triangular in pivot order, K[I,I] = WWᵀ), R from the QR of [G; σI]
// and a = Q[:n,:]ᵀ(y − μ). For a test input x*, with g* = W⁻¹K[I, *],
//
//	mean* = μ + g*ᵀR⁻¹a,    v* = κ(x*, x*) − ‖g*‖² + σ²‖R⁻ᵀg*‖²   (latent f*)
//
// and the variance of a noisy observation y* adds σ². Cost O(k²) per test
// point after O(k²) set-up, plus k kernel evaluations.
type Predictor struct {
	Kern   Kernel
	NoiseV float64 // σ²
	// PriorMean is μ, the constant prior mean added to every predictive
	// mean (0 for a zero-mean model).
	PriorMean float64
	X         Inputs    // inducing inputs x_I, in pivot order
	W         []float64 // k×k row-major, lower triangular
	R         []float64 // k×k row-major, upper triangular
	A         []float64 // k
	beta      []float64 // R⁻¹a
	inducer   []int
}

// NewPredictor copies the prediction state out of a factor, including a
// copy of a built-in kernel, so later fitting does not change it.
func NewPredictor(f *Factor) *Predictor {
	f.check()
	k, n := f.k, f.n
	p := &Predictor{Kern: cloneKernel(f.kern), NoiseV: f.noise, PriorMean: f.mu, W: make([]float64, k*k), R: make([]float64, k*k), A: append([]float64(nil), f.a[:k]...)}
	p.inducer = f.Active(nil)
	p.X = f.x.Subset(p.inducer)
	for a, ja := range p.inducer {
		for b := 0; b <= a; b++ {
			p.W[a*k+b] = f.g[b*n+ja]
		}
		for b := a; b < k; b++ {
			p.R[a*k+b] = f.r[a*f.mcap+b]
		}
	}
	p.prepare()
	return p
}

func (p *Predictor) prepare() {
	k := len(p.A)
	p.beta = append([]float64(nil), p.A...)
	blas64.Trsv(blas.NoTrans, p.rt(), blas64.Vector{N: k, Data: p.beta, Inc: 1})
}

func (p *Predictor) rt() blas64.Triangular {
	k := len(p.A)
	return blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: k, Stride: max(1, k), Data: p.R}
}

func (p *Predictor) wt() blas64.Triangular {
	k := len(p.A)
	return blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: k, Stride: max(1, k), Data: p.W}
}

// PredictTo stores the predictive mean and latent variance at the s inputs
// xs in mean and variance (each of length s, allocated if nil) and returns
// them. Add σ² (Noise) to the variance for noisy observations. It returns
// an error if the kernel does not accept xs.
func (p *Predictor) PredictTo(mean, variance []float64, xs Inputs) (_, _ []float64, err error) {
	defer recoverTo(&err)
	if err := p.Kern.Accepts(xs); err != nil {
		return nil, nil, err
	}
	s, k := xs.Len(), len(p.A)
	if mean == nil {
		mean = make([]float64, s)
	}
	if variance == nil {
		variance = make([]float64, s)
	}
	if len(mean) != s || len(variance) != s {
		return nil, nil, fmt.Errorf("sgp: prediction buffers of length %d and %d for %d inputs", len(mean), len(variance), s)
	}
	// Work in blocks of test points to bound memory at O(k·block).
	const block = 2048
	gs := make([]float64, k*min(block, s))
	hs := make([]float64, k*min(block, s))
	kss := make([]float64, min(block, s))
	for lo := 0; lo < s; lo += block {
		hi := min(s, lo+block)
		b := hi - lo
		// Row c of gs = κ(xs[lo:hi], x_I[c]).
		parallelFor(k, max(1, minRowsPerTask/b), func(c0, c1 int) {
			for c := c0; c < c1; c++ {
				p.Kern.Column(gs[c*b:(c+1)*b], xs, lo, hi, p.X, c)
			}
		})
		kernelDiagRange(p.Kern, kss[:b], xs, lo, hi)
		g := blas64.General{Rows: k, Cols: b, Stride: b, Data: gs[:k*b]}
		if k > 0 {
			blas64.Trsm(blas.Left, blas.NoTrans, 1, p.wt(), g)
		}
		copy(hs[:k*b], gs[:k*b])
		h := blas64.General{Rows: k, Cols: b, Stride: b, Data: hs[:k*b]}
		if k > 0 {
			blas64.Trsm(blas.Left, blas.Trans, 1, p.rt(), h)
		}
		for i := 0; i < b; i++ {
			var mu, gg, hh float64
			for c := 0; c < k; c++ {
				gv, hv := gs[c*b+i], hs[c*b+i]
				mu += gv * p.beta[c]
				gg += gv * gv
				hh += hv * hv
			}
			mean[lo+i] = p.PriorMean + mu
			variance[lo+i] = math.Max(kss[i]-gg+p.NoiseV*hh, 0)
		}
	}
	return mean, variance, nil
}

// kernelDiagRange sets dst[i−lo] = κ(x_i, x_i) for i in [lo, hi).
func kernelDiagRange(k Kernel, dst []float64, x Inputs, lo, hi int) {
	k.Diag(dst, x, lo, hi)
}

// Noise returns σ².
func (p *Predictor) Noise() float64 { return p.NoiseV }

// Predict returns the predictive mean and latent variance at xs, as
// Model.Predict does for the model the Predictor was taken from.
func (p *Predictor) Predict(xs Inputs) (mean, variance []float64, err error) {
	return p.PredictTo(nil, nil, xs)
}

// PredictNoisy returns the predictive mean and the variance of a noisy
// observation y* = f* + ε at xs, as Model.PredictNoisy does.
func (p *Predictor) PredictNoisy(xs Inputs) (mean, variance []float64, err error) {
	mean, variance, err = p.PredictTo(nil, nil, xs)
	return withNoise(mean, variance, err, p.NoiseV)
}

// withNoise adds the noise variance s2 to latent predictive variances,
// giving those of a noisy observation y* = f* + ε, or passes err on.
func withNoise(mean, variance []float64, err error, s2 float64) ([]float64, []float64, error) {
	if err != nil {
		return nil, nil, err
	}
	for i := range variance {
		variance[i] += s2
	}
	return mean, variance, nil
}

// Predict returns the predictive mean and latent variance at xs from the
// model's current state. Add the noise variance (Noise) for observations.
func (md *Model) Predict(xs Inputs) (mean, variance []float64, err error) {
	defer md.recoverPanic(&err)
	p, err := md.Predictor()
	if err != nil {
		return nil, nil, err
	}
	return p.PredictTo(nil, nil, xs)
}

// PredictNoisy returns the predictive mean and the variance of a noisy
// observation y* = f* + ε at xs.
func (md *Model) PredictNoisy(xs Inputs) (mean, variance []float64, err error) {
	defer md.recoverPanic(&err)
	p, err := md.Predictor()
	if err != nil {
		return nil, nil, err
	}
	return p.PredictNoisy(xs)
}

// Predictor returns a snapshot of the model for prediction: after a
// hybrid fit (SelectHybrid) that of its continuous refinement.
func (md *Model) Predictor() (p *Predictor, err error) {
	defer md.recoverPanic(&err)
	if err := md.build(); err != nil {
		return nil, err
	}
	if md.refined != nil {
		return md.refined.Predictor, nil
	}
	return NewPredictor(md.f), nil
}
