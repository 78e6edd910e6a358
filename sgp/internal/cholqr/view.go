package cholqr

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/kernel"
)

// The views of the state for inspection (sgp.Factor) and for the models
// (prediction, the gradient phase): copies or read-only slices, never
// storage a caller may change.

// GMatrix returns a copy of the partial Cholesky factor of the inducing
// set, G[:, :k] (n×k, rows in data order): K̂ = GGᵀ.
func (f *Factor) GMatrix() *mat.Dense {
	f.check()
	return f.colsMatrix(0, f.k)
}

// InfoMatrix returns a copy of L_z = G[:, k:k+z] (n×z), the partial
// Cholesky factor of the residual K − K̂ at the information pivots.
func (f *Factor) InfoMatrix() *mat.Dense {
	f.check()
	return f.colsMatrix(f.k, f.t)
}

func (f *Factor) colsMatrix(c0, c1 int) *mat.Dense {
	if c1 == c0 {
		return &mat.Dense{}
	}
	out := mat.NewDense(f.n, c1-c0, nil)
	for c := c0; c < c1; c++ {
		for i, v := range f.col(c) {
			out.Set(i, c-c0, v)
		}
	}
	return out
}

// QMatrix returns a copy of Q ((n+k)×k): the thin QR factor of [G; σI].
func (f *Factor) QMatrix() *mat.Dense {
	f.check()
	k, rows := f.k, f.n+f.k
	if k == 0 {
		return &mat.Dense{}
	}
	out := mat.NewDense(rows, k, nil)
	for c := 0; c < k; c++ {
		for i, v := range f.qcol(c)[:rows] {
			out.Set(i, c, v)
		}
	}
	return out
}

// RMatrix returns a copy of R (k×k upper triangular).
func (f *Factor) RMatrix() *mat.TriDense {
	f.check()
	k := f.k
	if k == 0 {
		return &mat.TriDense{}
	}
	out := mat.NewTriDense(k, mat.Upper, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			out.SetTri(i, j, f.r[i*f.mcap+j])
		}
	}
	return out
}

// QtY returns a copy of a = Q[:n, :]ᵀy.
func (f *Factor) QtY() []float64 {
	f.check()
	return append([]float64(nil), f.a[:f.k]...)
}

// Ready reports whether the state is factorised: after a successful
// Factorize and until a failed update or Lend invalidates it.
func (f *Factor) Ready() bool { return f.ok }

// Inputs returns the training inputs.
func (f *Factor) Inputs() kernel.Inputs { return f.x }

// Targets returns the training targets as given, before the mean is
// subtracted; the caller must not modify them.
func (f *Factor) Targets() []float64 { return f.yraw }

// Pos returns the position of point i in the pivot order: in [0, k) for
// an inducing point, in [k, k+z) for an information pivot, −1 otherwise.
func (f *Factor) Pos(i int) int { return f.pos[i] }

// LastFactorized returns a copy of the inducing set of the last
// successful Factorize (or of the set Lend took over), to rebuild from
// when the state is not Ready.
func (f *Factor) LastFactorized() []int { return slices.Clone(f.lastFactorized) }

// LogScale returns n·log sd(y) (0 for constant targets), the amount by
// which changing the units of y shifts the objectives (see ValueScale).
func (f *Factor) LogScale() float64 { return f.logScale }

// SetPrior sets the prior on an estimated mean that MAPMean and the
// objective's term Parts.MeanPrior use; the zero MeanPrior is none.
func (f *Factor) SetPrior(p base.MeanPrior) { f.prior = p }

// Order returns the canonical order of the rows set by SetOrder (nil
// if none); the caller must not modify it.
func (f *Factor) Order() []int { return f.order }

// SetNoiseOnly sets σ² without refactorising, for a caller that changes
// the kernel's hyperparameters too and calls Factorize after both (as
// the Factor cannot see a change of the kernel, the state is then stale
// until that Factorize). SetNoise refactorises at once.
func (f *Factor) SetNoiseOnly(noise float64) {
	if f.wt != nil {
		f.setSigma2(noise)
		return
	}
	f.noise = noise
}

// RecordDrift records in Stats the relative objective drift d that a
// caller measured against a fresh evaluation of the state (the gradient
// phase's first evaluation): LastDrift, and MaxDrift if larger.
func (f *Factor) RecordDrift(d float64) {
	f.stats.LastDrift = d
	f.stats.MaxDrift = math.Max(f.stats.MaxDrift, d)
}

// InducingFactors returns, for the k inducing points in pivot order,
// w = G[I, :k] (k×k row-major, lower triangular: K[I,I] = wwᵀ), the
// triangle r = R (k×k row-major, upper triangular) and a = Q[:n,:]ᵀ(y − μ),
// all copies: what a predictor needs of the state (sgp.Predictor).
func (f *Factor) InducingFactors() (w, r, a []float64) {
	f.check()
	k, n := f.k, f.n
	w, r = make([]float64, k*k), make([]float64, k*k)
	a = slices.Clone(f.a[:k])
	for i, ji := range f.perm[:k] {
		for c := 0; c <= i; c++ {
			w[i*k+c] = f.g[c*n+ji]
		}
		for c := i; c < k; c++ {
			r[i*k+c] = f.r[i*f.mcap+c]
		}
	}
	return w, r, a
}
