package kernel

import (
	"fmt"
	"math"
)

// Func is a kernel given by a user function f, scaled by a variance:
//
//	κ(x_i, y_j) = V · f(x, i, y, j)
//
// for use from the interactive interpreter or for quick experiments; f may
// read any Inputs. f must be symmetric (f(x, i, y, j) = f(y, j, x, i)),
// positive semi-definite, and safe for concurrent calls: Column is called
// from several goroutines on disjoint rows. Nothing checks this; run
// kerneltest on a sample to do so.
//
// Its only hyperparameter is log V, with ∂κ/∂log V = κ; the shape of f has
// no parameters to learn. It is slower than the built-in kernels: each value
// is a call through a function value (through reflection when f is
// interpreted), O(1) calls per kernel value, and nothing is cached. The
// gradient phase of sgp.Model.Fit reuses the kernel values and calls f no more.
// A model with a Func cannot be saved.
type Func struct {
	f     func(x Inputs, i int, y Inputs, j int) float64
	theta [1]float64
	v     float64
}

var (
	_ BlockEvaluator = (*Func)(nil)
	_ ScaledSum      = (*Func)(nil)
)

// NewFunc returns the kernel V·f. It panics if f is nil or V is not
// positive and finite.
func NewFunc(f func(x Inputs, i int, y Inputs, j int) float64, variance float64) *Func {
	if f == nil {
		panic("sgp: NewFunc needs a function")
	}
	if !(variance > 0) || math.IsInf(variance, 0) {
		panic(fmt.Sprintf("sgp: Func variance must be positive and finite, got %v", variance))
	}
	k := &Func{f: f}
	k.SetParams([]float64{math.Log(variance)})
	return k
}

// Variance returns V.
func (k *Func) Variance() float64 { return k.v }

// String describes the kernel in one line, func(variance V).
func (k *Func) String() string { return callText("func", argText("variance", k.v)) }

// HTML returns the hyperparameter as a table.
func (k *Func) HTML() string { return hyperHTML(k) }

// kind describes the kernel for Name.
func (k *Func) kind() string { return "function (kernel.NewFunc)" }

// NumParams returns 1.
func (k *Func) NumParams() int { return 1 }

// ParamNames returns "variance".
func (k *Func) ParamNames() []string { return []string{"variance"} }

// Params returns (log V) in dst.
func (k *Func) Params(dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, 1)
	}
	if len(dst) != 1 {
		panic(errParamLen)
	}
	dst[0] = k.theta[0]
	return dst
}

// SetParams sets V = exp θ₀.
func (k *Func) SetParams(theta []float64) {
	if len(theta) != 1 {
		panic(errParamLen)
	}
	k.theta[0] = theta[0]
	k.v = math.Exp(theta[0])
}

// Accepts accepts any non-empty inputs: f decides what it can read.
func (k *Func) Accepts(x Inputs) error {
	if x == nil {
		return fmt.Errorf("sgp: Func: no inputs")
	}
	return nil
}

// Column sets dst[i−lo] = V·f(x, i, y, j).
func (k *Func) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	for i := lo; i < hi; i++ {
		dst[i-lo] = k.v * k.f(x, i, y, j)
	}
}

// Diag sets dst[i−lo] = V·f(x, i, x, i).
func (k *Func) Diag(dst []float64, x Inputs, lo, hi int) {
	for i := lo; i < hi; i++ {
		dst[i-lo] = k.v * k.f(x, i, x, i)
	}
}

// AddGrad adds the weighted derivatives ∂κ/∂log V = κ.
func (k *Func) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	var s float64
	for i := lo; i < hi; i++ {
		wi := w[(i-lo)*len(cols) : (i-lo+1)*len(cols)]
		for c, j := range cols {
			if wi[c] != 0 {
				s += wi[c] * k.v * k.f(x, i, y, j)
			}
		}
	}
	grad[0] += s
}

// AddDiagGrad adds Σ_i w_i·V·f(x, i, x, i) to the derivative for log V.
func (k *Func) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	var s float64
	for i := lo; i < hi; i++ {
		if w[i-lo] != 0 {
			s += w[i-lo] * k.v * k.f(x, i, x, i)
		}
	}
	grad[0] += s
}

func (k *Func) CrossT(dst []float64, x Inputs, y Inputs, cols []int) {
	crossColumns(k, dst, x, y, cols)
}

// AddGradBlockT uses ∂κ/∂log V = κ: no calls of f.
func (k *Func) AddGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	addGradScaled(&grad[0], w, kv, x.Len(), len(cols))
}

// BasisT sets the block f, κ/V.
func (k *Func) BasisT(dst []float64, x Inputs, y Inputs, cols []int) {
	unitBasisT(k, k.v, dst, x, y, cols)
}
