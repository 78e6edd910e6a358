package kernel

import "math"

// Kernel is a positive semi-definite covariance function κ(x, x′) with
// positive hyperparameters, seen through their logarithms θ.
//
// A Kernel is read by column and by diagonal only: package sgp never asks it
// for an n×n matrix. Column, Diag, AddGrad and AddDiagGrad each work on a
// half-open row range [lo, hi) of x so that callers can split the rows
// across goroutines; they must therefore be safe for concurrent use as long
// as SetParams is not called at the same time.
type Kernel interface {
	// NumParams returns the number of hyperparameters.
	NumParams() int
	// ParamNames returns a name for each hyperparameter, in θ order.
	ParamNames() []string
	// Params stores θ, the log hyperparameters, in dst and returns it. If
	// dst is nil a new slice is allocated.
	Params(dst []float64) []float64
	// SetParams sets the hyperparameters from θ. It panics if
	// len(theta) != NumParams().
	SetParams(theta []float64)
	// Accepts returns nil if the kernel can evaluate inputs of x's kind and
	// shape, and otherwise an error saying why not.
	Accepts(x Inputs) error

	// Column sets dst[i−lo] = κ(x_i, y_j) for i in [lo, hi).
	Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int)
	// Diag sets dst[i−lo] = κ(x_i, x_i) for i in [lo, hi).
	Diag(dst []float64, x Inputs, lo, hi int)
	// AddGrad adds to grad[p], for every hyperparameter p,
	//	Σ_{i∈[lo,hi)} Σ_c w[(i−lo)·len(cols)+c] · ∂κ(x_i, y_cols[c])/∂θ_p
	// where w is (hi−lo)×len(cols) row-major.
	AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int)
	// AddDiagGrad adds to grad[p] Σ_{i∈[lo,hi)} w[i−lo] · ∂κ(x_i, x_i)/∂θ_p.
	AddDiagGrad(grad, w []float64, x Inputs, lo, hi int)
}

// The optional interfaces below give package sgp faster paths for the
// built-in kernels; sgp asserts them on any Kernel and falls back to
// Column, Diag and AddGrad where a kernel has none, so a kernel of
// another package needs only Kernel. Their blocks are stored transposed,
// hence the T: an n×m block B with B_ic = κ(x_i, y_cols[c]) is held as
// dst[c·n+i], each of its m columns contiguous.

// BlockEvaluator is implemented by kernels that evaluate a whole n×m
// cross-covariance block faster than column by column (RBF, Matern, RQ
// and Periodic by tiles of scaled inputs, the discrete kernels by
// inverted indices) and whose derivatives follow from their values and
// inputs, so that a gradient needs at most one more pass over the block. The engine uses it to factorise, score and
// differentiate against a set of inducing points at once.
type BlockEvaluator interface {
	Kernel
	// CrossT sets dst[c·n+i] = κ(x_i, y_cols[c]) for the n = x.Len()
	// inputs x and every c.
	CrossT(dst []float64, x, y Inputs, cols []int)
	// AddGradBlockT adds to grad[p], for every hyperparameter p,
	//	Σ_c Σ_i w[c·n+i] · ∂κ(x_i, y_cols[c])/∂θ_p
	// given kv[c·n+i] = κ(x_i, y_cols[c]), as CrossT set it. It may
	// overwrite w.
	AddGradBlockT(grad, w, kv []float64, x, y Inputs, cols []int)
}

// AuxBlockEvaluator is implemented by block kernels whose derivatives need
// more of each entry than its value, which their AddGradBlockT forms again
// from the inputs: the Matérn kernels (ψ = −2·∂κ/∂r², r² the squared
// scaled distance) and RQ (ψ and the factor of ∂κ/∂log α). CrossAuxT
// forms these auxiliary values in the pass that forms the values, from the
// distances and the exponential or logarithm that pass computes anyway,
// and AddGradAuxT sums the derivatives from them as RBF's AddGradBlockT
// sums RBF's from its values, without a second pass of distances and
// transcendental functions. The engine uses it when it keeps the values
// of a whole gradient evaluation, at the cost of NumAux more blocks.
type AuxBlockEvaluator interface {
	BlockEvaluator
	// NumAux returns the number of auxiliary values per kernel entry.
	NumAux() int
	// CrossAuxT sets dst as CrossT does, the same values bit for bit,
	// and aux[(a·len(cols)+c)·n+i], for a < NumAux(), to the a-th
	// auxiliary value of (x_i, y_cols[c]).
	CrossAuxT(dst, aux []float64, x, y Inputs, cols []int)
	// AddGradAuxT adds to grad what AddGradBlockT adds, given kv and aux
	// as CrossAuxT set them for the same inputs and hyperparameters. It
	// may overwrite w.
	AddGradAuxT(grad, w, kv, aux []float64, x, y Inputs, cols []int)
}

// ScaledSum is implemented by kernels that are sums of fixed kernels with
// one variance each,
//
//	κ(x, x′) = Σ_p V_p · B_p(x, x′),   θ_p = log V_p for every parameter p,
//
// with the B_p independent of θ: the WL kernel (one B per depth, or one
// in all), the histogram intersection (one per channel), the Tanimoto and
// spectrum kernels and Func (one each). For a fixed inducing set the
// engine evaluates the blocks B_p(x_i, z_c) once and forms K_mn and its
// derivatives from them at every θ, instead of evaluating the kernel.
type ScaledSum interface {
	Kernel
	// BasisT sets dst[(p·len(cols)+c)·n+i] = B_p(x_i, y_cols[c]) for the
	// n = x.Len() inputs x, every c and every parameter p.
	BasisT(dst []float64, x, y Inputs, cols []int)
}

// InputGradient is implemented by kernels on *Vectors that are
// differentiable in their inputs: RBF, Matern, RQ, Periodic, Linear and
// Const (Matérn-1/2 with the subgradient 0 where two inputs coincide; see
// Matern). Continuous SGPR (sgp.NewContinuous, and the hybrid selector
// that refines a CholQR selection) moves the m inducing inputs Z along
// this gradient.
type InputGradient interface {
	Kernel
	// InputGradT sets gz (m×d, row-major, for the m×d inputs z) to the
	// gradient with respect to z of
	//	Σ_{c<m} Σ_{i<n} wx[c·n+i] · κ(x_i, z_c) + Σ_{a,b<m} wz[a·m+b] · κ(z_a, z_b)
	// given kx[c·n+i] = κ(x_i, z_c) and kz[a·m+b] = κ(z_a, z_b) at the
	// current hyperparameters; x is n×d.
	InputGradT(gz, wx, kx, wz, kz []float64, x, z *Vectors)
}

// AuxInputGradient is implemented by kernels whose InputGradT forms the
// ψ of K_mn again from the inputs, Matern and RQ: InputGradAuxT reads it
// from the auxiliary values of their value pass (AuxBlockEvaluator)
// instead, which continuous SGPR and the hybrid selector have at hand.
type AuxInputGradient interface {
	InputGradient
	AuxBlockEvaluator
	// InputGradAuxT sets gz as InputGradT does, given also aux as
	// CrossAuxT(kx, aux, x, z, [0, …, m−1]) set it.
	InputGradAuxT(gz, wx, kx, aux, wz, kz []float64, x, z *Vectors)
}

// Lengthscaled is implemented by kernels on *Vectors with a signal
// variance V and one lengthscale ℓ_t per input dimension, whose θ begins
// with (log V, log ℓ₁, …, log ℓ_d) in that order: RBF, Matern and RQ
// (whose log α follows). The hybrid
// selector uses the lengthscales to place its k-means centres and to
// find inputs whose lengthscale has grown until the kernel ignores them.
type Lengthscaled interface {
	Kernel
	// Variance returns the signal variance V.
	Variance() float64
	// Lengthscales returns a copy of ℓ, one per input dimension.
	Lengthscales() []float64
}

// Panic messages for programmer errors.
const (
	errParamLen = "sgp: wrong number of hyperparameters"
	errIndex    = "sgp: index out of range"
)

// variance returns the population variance of v.
func variance(v []float64) float64 {
	var mean float64
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	var s float64
	for _, x := range v {
		s += (x - mean) * (x - mean)
	}
	return s / float64(len(v))
}

// targetVariance returns var(y), or 1 if it is not positive and finite.
func targetVariance(y []float64) float64 {
	if len(y) == 0 {
		return 1
	}
	v := variance(y)
	if !(v > 0) || math.IsInf(v, 0) {
		return 1
	}
	return v
}
