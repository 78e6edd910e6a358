package sgp

import (
	"fmt"
	"math"
	"strings"
	"sync"
)

// Sum is the sum of component kernels,
//
//	κ(x, x′) = Σ_c κ_c(x, x′),
//
// positive semi-definite as each component is. It adds no hyperparameters
// of its own: each component's variance is its weight, so that there is
// one variance per component and no weight that only trades off against a
// component's variance. θ is the concatenation of the components' θ in
// component order; ParamNames prefixes each name with "k<c>." (e.g.
// "k0.variance", "k1.variance"). The paper's BindingDB kernel was such a
// sum of 14 graph kernels with 14 variances (Cao et al. 2013, §5); for
// WL kernels at depths 0…h, NewWLPerDepth computes the same kind of sum
// in one merge per kernel value.
//
// It accepts the inputs every component accepts. Cost: the sum of the
// components' costs; each Column of more than one component uses a
// temporary column taken from a pool.
type Sum struct {
	comps []Kernel
	off   []int // component c has θ[off[c]:off[c+1]]
	pool  sync.Pool
}

var _ Kernel = (*Sum)(nil)

// NewSum returns the sum of the given kernels. The components are used,
// not copied: changing one changes the sum. It panics if there are none,
// one is nil, or the same kernel value appears twice (its θ would be set
// twice).
func NewSum(components ...Kernel) *Sum {
	if len(components) == 0 {
		panic("sgp: Sum needs at least one component kernel")
	}
	k := &Sum{comps: append([]Kernel(nil), components...), off: make([]int, len(components)+1)}
	for c, kc := range components {
		if kc == nil {
			panic(fmt.Sprintf("sgp: Sum component %d is nil", c))
		}
		for b := range c {
			if sameKernel(components[b], kc) {
				panic(fmt.Sprintf("sgp: Sum components %d and %d are the same kernel; create a separate kernel for each", b, c))
			}
		}
		k.off[c+1] = k.off[c] + kc.NumParams()
	}
	k.pool.New = func() any { return new([]float64) }
	return k
}

// sameKernel reports whether a and b are the same pointer.
func sameKernel(a, b Kernel) (same bool) {
	defer func() {
		if recover() != nil { // not comparable: cannot be the same pointer
			same = false
		}
	}()
	return a == b
}

// Components returns the component kernels (the kernels themselves, not
// copies).
func (k *Sum) Components() []Kernel { return append([]Kernel(nil), k.comps...) }

// String describes the sum in one line: its components' descriptions
// joined by " + ", e.g. wl(h 3, variance 0.5) + tanimoto(variance 1), with
// a component that is itself a Sum in parentheses.
func (k *Sum) String() string {
	parts := make([]string, len(k.comps))
	for c, kc := range k.comps {
		parts[c] = kernelText(kc)
		if _, ok := kc.(*Sum); ok {
			parts[c] = "(" + parts[c] + ")"
		}
	}
	return strings.Join(parts, " + ")
}

// HTML returns the hyperparameters as a table, by name ("k<c>.…") in θ
// order.
func (k *Sum) HTML() string { return kernelHTML(k) }

// NumParams returns Σ_c NumParams_c.
func (k *Sum) NumParams() int { return k.off[len(k.comps)] }

// ParamNames returns the components' names prefixed with "k<c>.".
func (k *Sum) ParamNames() []string {
	names := make([]string, 0, k.NumParams())
	for c, kc := range k.comps {
		for _, name := range kc.ParamNames() {
			names = append(names, fmt.Sprintf("k%d.%s", c, name))
		}
	}
	return names
}

// Params returns the concatenated θ of the components in dst.
func (k *Sum) Params(dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, k.NumParams())
	}
	if len(dst) != k.NumParams() {
		panic(errParamLen)
	}
	for c, kc := range k.comps {
		kc.Params(dst[k.off[c]:k.off[c+1]])
	}
	return dst
}

// SetParams sets each component's θ from its part of theta. It panics,
// changing nothing, if len(theta) != NumParams().
func (k *Sum) SetParams(theta []float64) {
	if len(theta) != k.NumParams() {
		panic(errParamLen)
	}
	for c, kc := range k.comps {
		kc.SetParams(theta[k.off[c]:k.off[c+1]])
	}
}

// Accepts returns the first component's objection to x, if any.
func (k *Sum) Accepts(x Inputs) error {
	for c, kc := range k.comps {
		if err := kc.Accepts(x); err != nil {
			return fmt.Errorf("sgp: Sum component %d: %w", c, err)
		}
	}
	return nil
}

// scratch returns a temporary slice of length n from the pool.
func (k *Sum) scratch(n int) *[]float64 {
	p := k.pool.Get().(*[]float64)
	if cap(*p) < n {
		*p = make([]float64, n)
	}
	*p = (*p)[:n]
	return p
}

// Column sets dst[i−lo] = Σ_c κ_c(x_i, y_j).
func (k *Sum) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	k.comps[0].Column(dst, x, lo, hi, y, j)
	if len(k.comps) == 1 {
		return
	}
	p := k.scratch(hi - lo)
	tmp := *p
	for _, kc := range k.comps[1:] {
		kc.Column(tmp, x, lo, hi, y, j)
		for i, v := range tmp {
			dst[i] += v
		}
	}
	k.pool.Put(p)
}

// Diag sets dst[i−lo] = Σ_c κ_c(x_i, x_i).
func (k *Sum) Diag(dst []float64, x Inputs, lo, hi int) {
	k.comps[0].Diag(dst, x, lo, hi)
	if len(k.comps) == 1 {
		return
	}
	p := k.scratch(hi - lo)
	tmp := *p
	for _, kc := range k.comps[1:] {
		kc.Diag(tmp, x, lo, hi)
		for i, v := range tmp {
			dst[i] += v
		}
	}
	k.pool.Put(p)
}

// AddGrad adds each component's weighted derivatives to its part of grad.
func (k *Sum) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	for c, kc := range k.comps {
		kc.AddGrad(grad[k.off[c]:k.off[c+1]], w, x, lo, hi, y, cols)
	}
}

// AddDiagGrad adds each component's weighted diagonal derivatives to its
// part of grad.
func (k *Sum) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	for c, kc := range k.comps {
		kc.AddDiagGrad(grad[k.off[c]:k.off[c+1]], w, x, lo, hi)
	}
}

// FuncKernel is a kernel given by a user function f, scaled by a variance:
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
// gradient phase of Fit reuses the kernel values and calls f no more.
// A model with a FuncKernel cannot be saved.
type FuncKernel struct {
	f     func(x Inputs, i int, y Inputs, j int) float64
	theta [1]float64
	v     float64
}

var (
	_ Kernel      = (*FuncKernel)(nil)
	_ blockKernel = (*FuncKernel)(nil)
)

// NewFuncKernel returns the kernel V·f. It panics if f is nil or V is not
// positive and finite.
func NewFuncKernel(f func(x Inputs, i int, y Inputs, j int) float64, variance float64) *FuncKernel {
	if f == nil {
		panic("sgp: NewFuncKernel needs a function")
	}
	if !(variance > 0) || math.IsInf(variance, 0) {
		panic(fmt.Sprintf("sgp: FuncKernel variance must be positive and finite, got %v", variance))
	}
	k := &FuncKernel{f: f}
	k.SetParams([]float64{math.Log(variance)})
	return k
}

// Variance returns V.
func (k *FuncKernel) Variance() float64 { return k.v }

// String describes the kernel in one line, func(variance V).
func (k *FuncKernel) String() string { return kernelCall("func", kernelArg("variance", k.v)) }

// HTML returns the hyperparameter as a table.
func (k *FuncKernel) HTML() string { return kernelHTML(k) }

// NumParams returns 1.
func (k *FuncKernel) NumParams() int { return 1 }

// ParamNames returns "variance".
func (k *FuncKernel) ParamNames() []string { return []string{"variance"} }

// Params returns (log V) in dst.
func (k *FuncKernel) Params(dst []float64) []float64 {
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
func (k *FuncKernel) SetParams(theta []float64) {
	if len(theta) != 1 {
		panic(errParamLen)
	}
	k.theta[0] = theta[0]
	k.v = math.Exp(theta[0])
}

// Accepts accepts any non-empty inputs: f decides what it can read.
func (k *FuncKernel) Accepts(x Inputs) error {
	if x == nil {
		return fmt.Errorf("sgp: FuncKernel: no inputs")
	}
	return nil
}

// Column sets dst[i−lo] = V·f(x, i, y, j).
func (k *FuncKernel) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	for i := lo; i < hi; i++ {
		dst[i-lo] = k.v * k.f(x, i, y, j)
	}
}

// Diag sets dst[i−lo] = V·f(x, i, x, i).
func (k *FuncKernel) Diag(dst []float64, x Inputs, lo, hi int) {
	for i := lo; i < hi; i++ {
		dst[i-lo] = k.v * k.f(x, i, x, i)
	}
}

// AddGrad adds the weighted derivatives ∂κ/∂log V = κ.
func (k *FuncKernel) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
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
func (k *FuncKernel) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	var s float64
	for i := lo; i < hi; i++ {
		if w[i-lo] != 0 {
			s += w[i-lo] * k.v * k.f(x, i, x, i)
		}
	}
	grad[0] += s
}

func (k *FuncKernel) crossT(dst []float64, x Inputs, y Inputs, cols []int) {
	crossColumns(k, dst, x, y, cols)
}

// addGradBlockT uses ∂κ/∂log V = κ: no calls of f.
func (k *FuncKernel) addGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	addGradScaled(&grad[0], w, kv, x.Len(), len(cols))
}
