package sgp

import (
	"fmt"
	"math"
)

// RBF is the squared-exponential kernel with automatic relevance
// determination (one lengthscale per input dimension):
//
//	κ(x, x′) = V · exp(−½ Σ_t (x_t − x′_t)² / ℓ_t²)
//
// Its hyperparameters, in θ order, are log V, log ℓ₁, …, log ℓ_d. It accepts
// *Vectors of dimension d.
type RBF struct {
	variance float64   // V
	ls       []float64 // ℓ_t
	invLS    []float64 // 1/ℓ_t
}

var _ Kernel = (*RBF)(nil)

// NewRBF returns an RBF kernel with signal variance V and lengthscales ℓ.
// It panics if any value is not positive and finite.
func NewRBF(variance float64, lengthscales []float64) *RBF {
	if len(lengthscales) == 0 {
		panic("sgp: RBF needs at least one lengthscale")
	}
	k := &RBF{ls: make([]float64, len(lengthscales)), invLS: make([]float64, len(lengthscales))}
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
	dst[0] = math.Log(k.variance)
	for t, l := range k.ls {
		dst[1+t] = math.Log(l)
	}
	return dst
}

// SetParams sets V = exp θ₀ and ℓ_t = exp θ_{1+t}.
func (k *RBF) SetParams(theta []float64) {
	if len(theta) != k.NumParams() {
		panic(errParamLen)
	}
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
		return fmt.Errorf("sgp: the RBF kernel needs vector inputs (*sgp.Vectors), got %T", x)
	}
	if v.d != len(k.ls) {
		return fmt.Errorf("sgp: the RBF kernel has %d lengthscales but the inputs have %d dimensions", len(k.ls), v.d)
	}
	return nil
}

// scaledDist2 returns Σ_t ((a_t − b_t)/ℓ_t)². Dividing before squaring
// keeps κ(x, x) = V even for lengthscales whose square underflows.
func (k *RBF) scaledDist2(a, b []float64) float64 {
	var s float64
	for t, w := range k.invLS {
		diff := (a[t] - b[t]) * w
		s += diff * diff
	}
	return s
}

// Column sets dst[i−lo] = κ(x_i, y_j).
func (k *RBF) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	xv, yv := x.(*Vectors), y.(*Vectors)
	z := yv.Row(j)
	for i := lo; i < hi; i++ {
		dst[i-lo] = k.variance * math.Exp(-0.5*k.scaledDist2(xv.Row(i), z))
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
			kv := k.variance * math.Exp(-0.5*k.scaledDist2(xi, z))
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
// (max − min)/2 of the inputs (1 where the inputs are constant).
func NewRBFFromData(x *Vectors, y []float64) *RBF {
	ls := make([]float64, x.d)
	for t := range ls {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := 0; i < x.n; i++ {
			v := x.At(i, t)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		ls[t] = (hi - lo) / 2
		if !(ls[t] > 0) {
			ls[t] = 1
		}
	}
	v := variance(y)
	if !(v > 0) {
		v = 1
	}
	return NewRBF(v, ls)
}
