package kernel

import (
	"fmt"
	"math"
	"slices"

	"github.com/cholqr/sgp/sgp/internal/asm"

	"github.com/cholqr/sgp/sgp/internal/stats"
)

// RBF is the squared-exponential kernel with automatic relevance
// determination (one lengthscale per input dimension):
//
//	κ(x, x′) = V · exp(−½ Σ_t (x_t − x′_t)² / ℓ_t²)
//
// Its hyperparameters, in θ order, are log V, log ℓ₁, …, log ℓ_d. It accepts
// *Vectors of dimension d.
type RBF struct {
	theta    []float64 // (log V, log ℓ₁, …): the state; the rest derives from it
	variance float64   // V
	ls       []float64 // ℓ_t
	invLS    []float64 // 1/ℓ_t
}

var (
	_ BlockEvaluator = (*RBF)(nil)
	_ InputGradient  = (*RBF)(nil)
	_ Lengthscaled   = (*RBF)(nil)
)

// NewRBF returns an RBF kernel with signal variance V and lengthscales ℓ.
// It panics if any value is not positive and finite.
func NewRBF(variance float64, lengthscales []float64) *RBF {
	if len(lengthscales) == 0 {
		panic("sgp: RBF needs at least one lengthscale")
	}
	k := &RBF{theta: make([]float64, 1+len(lengthscales)), ls: make([]float64, len(lengthscales)), invLS: make([]float64, len(lengthscales))}
	theta := make([]float64, 1+len(lengthscales))
	theta[0] = math.Log(variance)
	for t, l := range lengthscales {
		theta[1+t] = math.Log(l)
	}
	for _, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			panic(fmt.Sprintf("sgp: RBF variance and lengthscales must be positive and finite, got %v, %v", variance, lengthscales))
		}
	}
	k.SetParams(theta)
	return k
}

// Dim returns the input dimension d.
func (k *RBF) Dim() int { return len(k.ls) }

// Variance returns the signal variance V.
func (k *RBF) Variance() float64 { return k.variance }

// Lengthscales returns a copy of ℓ.
func (k *RBF) Lengthscales() []float64 { return append([]float64(nil), k.ls...) }

// String describes the kernel in one line,
// rbf(variance V, lengthscales [ℓ₁ … ℓ_d]).
func (k *RBF) String() string {
	return callText("rbf", argText("variance", k.variance), vecText("lengthscales", k.ls))
}

// HTML returns the hyperparameters as a table, by name in θ order.
func (k *RBF) HTML() string { return hyperHTML(k) }

// kind describes the kernel for Name.
func (k *RBF) kind() string {
	if len(k.ls) == 1 {
		return "RBF-ARD, 1 lengthscale"
	}
	return fmt.Sprintf("RBF-ARD, %d lengthscales", len(k.ls))
}

// NumParams returns 1 + d.
func (k *RBF) NumParams() int { return 1 + len(k.ls) }

// ParamNames returns "variance", "lengthscale[0]", ….
func (k *RBF) ParamNames() []string {
	names := make([]string, 1+len(k.ls))
	names[0] = "variance"
	for t := range k.ls {
		names[1+t] = fmt.Sprintf("lengthscale[%d]", t)
	}
	return names
}

// Params returns (log V, log ℓ₁, …, log ℓ_d) in dst.
func (k *RBF) Params(dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, k.NumParams())
	}
	if len(dst) != k.NumParams() {
		panic(errParamLen)
	}
	copy(dst, k.theta)
	return dst
}

// SetParams sets V = exp θ₀ and ℓ_t = exp θ_{1+t}.
func (k *RBF) SetParams(theta []float64) {
	if len(theta) != k.NumParams() {
		panic(errParamLen)
	}
	copy(k.theta, theta)
	k.variance = math.Exp(theta[0])
	for t := range k.ls {
		k.ls[t] = math.Exp(theta[1+t])
		k.invLS[t] = 1 / k.ls[t]
	}
}

// Accepts reports whether x is a *Vectors of dimension d.
func (k *RBF) Accepts(x Inputs) error {
	v, ok := x.(*Vectors)
	if !ok {
		return fmt.Errorf("sgp: the RBF kernel needs vector inputs (*kernel.Vectors), got %T", x)
	}
	if v.d != len(k.ls) {
		return fmt.Errorf("sgp: the RBF kernel has %d lengthscales but the inputs have %d dimensions", len(k.ls), v.d)
	}
	return nil
}

// Column sets dst[i−lo] = κ(x_i, y_j).
func (k *RBF) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	xv, yv := x.(*Vectors), y.(*Vectors)
	z := yv.Row(j)
	for i := lo; i < hi; i++ {
		dst[i-lo] = k.variance * math.Exp(-0.5*scaledDist2(xv.Row(i), z, k.invLS))
	}
}

// Diag sets dst[i−lo] = V.
func (k *RBF) Diag(dst []float64, x Inputs, lo, hi int) {
	for i := range dst[:hi-lo] {
		dst[i] = k.variance
	}
}

// AddGrad adds the weighted kernel derivatives to grad:
//
//	∂κ/∂log V = κ,   ∂κ/∂log ℓ_t = κ · (x_t − x′_t)²/ℓ_t².
func (k *RBF) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	xv, yv := x.(*Vectors), y.(*Vectors)
	d := len(k.ls)
	for i := lo; i < hi; i++ {
		xi := xv.Row(i)
		wi := w[(i-lo)*len(cols) : (i-lo+1)*len(cols)]
		for c, j := range cols {
			if wi[c] == 0 {
				continue
			}
			z := yv.Row(j)
			kv := k.variance * math.Exp(-0.5*scaledDist2(xi, z, k.invLS))
			wk := wi[c] * kv
			grad[0] += wk
			for t := 0; t < d; t++ {
				diff := (xi[t] - z[t]) * k.invLS[t]
				grad[1+t] += wk * diff * diff
			}
		}
	}
}

// AddDiagGrad adds Σ w_i · V to the derivative with respect to log V; the
// diagonal does not depend on the lengthscales.
func (k *RBF) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	var s float64
	for _, v := range w[:hi-lo] {
		s += v
	}
	grad[0] += s * k.variance
}

// NewRBFFromData returns an RBF kernel initialised from the data as in Cao
// et al. (2013): signal variance var(y) and, in each dimension, lengthscale
// (max − min)/2 of the inputs (1 where the inputs are constant). Data
// that are finite give a kernel, however large or small they are: a
// variance of the targets that is not finite starts at 1, and a
// lengthscale stays finite; sgp's fits refuse a start beyond
// MaxLogParameter, saying what to scale.
//
// Where a few outlying inputs stretch a dimension's range more than
// four times its central 90% (from the 5th to the 95th percentile), the
// lengthscale is half that central spread instead: with 10 of 500 inputs
// at 10⁵ and the rest in [−3, 3], the range's lengthscale would make the
// kernel see the 490 as one point, admit only 2 inducing points and
// explain everything as noise.
func NewRBFFromData(x *Vectors, y []float64) *RBF {
	return NewRBF(stats.TargetScale(y), spreadLengthscales(inputSpread(x)))
}

// spreadLengthscales returns NewRBFFromData's lengthscales from s: half
// each column's range, or half its central 90% of s.Sample where the
// range is more than outlierStretch times that.
func spreadLengthscales(s *Spread) []float64 {
	d := len(s.Lo)
	ls := make([]float64, d)
	col := make([]float64, len(s.Sample)/max(1, d))
	for t := range ls {
		ls[t] = s.Hi[t]/2 - s.Lo[t]/2 // (hi − lo)/2 overflows for a range beyond MaxFloat64
		for i := range col {
			col[i] = s.Sample[i*d+t]
		}
		if len(col) > 0 {
			slices.Sort(col)
			q05, q95 := col[len(col)/20], col[len(col)-1-len(col)/20]
			if central := q95/2 - q05/2; central > 0 && ls[t] > outlierStretch*central {
				ls[t] = central
			}
		}
		if !(ls[t] > 0) {
			ls[t] = 1
		}
		ls[t] = min(ls[t], maxFromData)
	}
	return ls
}

// maxFromData bounds the lengthscales and periods from the data: far
// beyond MaxLogParameter, so that a fit refuses them, but with exp(log ℓ)
// finite (math.Exp overflows near log MaxFloat64).
const maxFromData = 1e300

// CrossT evaluates the block as V·exp(−r²/2) of the squared distances r²
// of the inputs scaled by 1/ℓ, four values at a time with
// AVX2 where the CPU has it (asm.ExpRow, within a few units in the last
// place of math.Exp, the same bits as its Go loop).
func (k *RBF) CrossT(dst []float64, x, y Inputs, cols []int) {
	v := k.variance
	scaledCrossT(dst, x.(*Vectors), y.(*Vectors), cols, k.invLS, func(dst, r2 []float64) { asm.ExpRow(dst, r2, v) })
}

// AddGradBlockT uses ∂κ/∂log V = κ and ∂κ/∂log ℓ_t = κ·(x̃_t − z̃_t)²
// with x̃ = x/ℓ: cost O(n·m·d),
// split over the inducing points.
func (k *RBF) AddGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	scaledGradT(grad, w, kv, kv, nil, 0, x.(*Vectors), y.(*Vectors), cols, k.invLS)
}

// InputGradT sets gz to the gradient with respect to the inducing inputs
// z of Σ wx∘K_mn + Σ wz∘K_mm (see InputGradient) with H = wx∘kx,
//
//	∂F/∂z_ct = Σ_i H_ci (x_it − z_ct)/ℓ_t² + Σ_b (W_cb + W_bc) K_cb (z_bt − z_ct)/ℓ_t²
//
// since ∂κ(x, z)/∂z_t = κ·(x_t − z_t)/ℓ_t², where W_cb = wz[c·m+b] and
// K_cb = kz[c·m+b].
func (k *RBF) InputGradT(gz, wx, kx, wz, kz []float64, x, z *Vectors) {
	scaledInputGradT(gz, wx, kx, wz, kz, x, z, k.invLS)
}

// outlierStretch is how many times its central 90% a dimension's range
// must be for NewRBFFromData to take its lengthscale from the central
// spread: clean inputs stay below it (uniform: 1.1; Gaussian: 2.3 at
// n = 10⁴, 3.0 at n = 10⁶; exponential: 3.1 at n = 10⁴), so their
// lengthscales are the paper's; only heavier tails or outliers move it.
const outlierStretch = 4
