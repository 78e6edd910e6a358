package kernel

import "sync"

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
	composite
	pool sync.Pool
}

var _ Kernel = (*Sum)(nil)

// NewSum returns the sum of the given kernels. The components are used,
// not copied: changing one changes the sum. It panics if there are none,
// one is nil, or the same kernel value appears twice (its θ would be set
// twice).
func NewSum(components ...Kernel) *Sum {
	k := &Sum{composite: newComposite("Sum", " + ", components)}
	k.pool.New = func() any { return new([]float64) }
	return k
}

// Components returns the component kernels (the kernels themselves, not
// copies).
func (k *Sum) Components() []Kernel { return append([]Kernel(nil), k.comps...) }

// String describes the sum in one line: its components' descriptions
// joined by " + ", e.g. wl(h 3, variance 0.5) + tanimoto(variance 1), with
// a component that is itself a Sum in parentheses.
func (k *Sum) String() string {
	return k.joined(func(c Kernel) bool { _, ok := c.(*Sum); return ok })
}

// HTML returns the hyperparameters as a table, by name ("k<c>.…") in θ
// order.
func (k *Sum) HTML() string { return hyperHTML(k) }

// kind describes the kernel for Name: its components' kinds.
func (k *Sum) kind() string {
	return k.kindOf()
}

// NumParams returns Σ_c NumParams_c.
func (k *Sum) NumParams() int { return k.numParams() }

// ParamNames returns the components' names prefixed with "k<c>.".
func (k *Sum) ParamNames() []string {
	return k.paramNames()
}

// Params returns the concatenated θ of the components in dst.
func (k *Sum) Params(dst []float64) []float64 {
	return k.params(dst)
}

// SetParams sets each component's θ from its part of theta. It panics,
// changing nothing, if len(theta) != NumParams().
func (k *Sum) SetParams(theta []float64) {
	k.setParams(theta)
}

// Accepts returns the first component's objection to x, if any.
func (k *Sum) Accepts(x Inputs) error {
	return k.accepts(x)
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
