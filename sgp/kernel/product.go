package kernel

// Product is the product of component kernels,
//
//	κ(x, x′) = Π_c κ_c(x, x′),
//
// positive semi-definite as each component is (Schur's product theorem):
// periodic*rbf is a periodic pattern that drifts, linear*linear a
// quadratic trend. θ is the concatenation of the components' θ in
// component order and ParamNames prefixes each name with "k<c>.", as
// Sum's.
//
// A product of kernels that each have a variance has one variance too
// many: only their product V₁·V₂·… is identified by the data. The product
// keeps them all, as GPflow's Product does, rather than fixing all but
// one: the objective is flat along the directions that trade one variance
// against another, which L-BFGS follows without harm, and every
// component stays the kernel it is alone (its display, its saved form).
// Parse starts every variance but the first component's at 1, so that
// the product's variance starts at var(y).
//
// It accepts the inputs every component accepts. Its derivatives are its
// components' weighted by the product of the other components' values,
// ∂κ/∂θ_p = (∂κ_c/∂θ_p)·Π_{c′≠c} κ_{c′} for θ_p of component c, so its
// blocks (CrossT, AddGradBlockT) evaluate every component's block: the
// cost is the sum of the components' costs, and a block of n×m values
// per component is held while it is formed.
type Product struct {
	composite
}

var _ BlockEvaluator = (*Product)(nil)

// NewProduct returns the product of the given kernels. The components are
// used, not copied: changing one changes the product. It panics if there
// are none, one is nil, or the same kernel value appears twice (its θ
// would be set twice).
func NewProduct(components ...Kernel) *Product {
	return &Product{composite: newComposite("Product", " * ", components)}
}

// Components returns the component kernels (the kernels themselves, not
// copies).
func (k *Product) Components() []Kernel { return append([]Kernel(nil), k.comps...) }

// String describes the product in one line: its components' descriptions
// joined by " * ", e.g. periodic(…) * rbf(…), with a component that is a
// Sum or a Product in parentheses.
func (k *Product) String() string {
	return k.joined(func(c Kernel) bool {
		switch c.(type) {
		case *Sum, *Product:
			return true
		}
		return false
	})
}

// HTML returns the hyperparameters as a table, by name ("k<c>.…") in θ
// order.
func (k *Product) HTML() string { return hyperHTML(k) }

// kind describes the kernel for Name: its components' kinds.
func (k *Product) kind() string {
	return k.kindOf()
}

// NumParams returns Σ_c NumParams_c.
func (k *Product) NumParams() int { return k.numParams() }

// ParamNames returns the components' names prefixed with "k<c>.".
func (k *Product) ParamNames() []string {
	return k.paramNames()
}

// Params returns the concatenated θ of the components in dst.
func (k *Product) Params(dst []float64) []float64 {
	return k.params(dst)
}

// SetParams sets each component's θ from its part of theta. It panics,
// changing nothing, if len(theta) != NumParams().
func (k *Product) SetParams(theta []float64) {
	k.setParams(theta)
}

// Accepts returns the first component's objection to x, if any.
func (k *Product) Accepts(x Inputs) error {
	return k.accepts(x)
}

// Column sets dst[i−lo] = Π_c κ_c(x_i, y_j).
func (k *Product) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	k.comps[0].Column(dst, x, lo, hi, y, j)
	tmp := make([]float64, hi-lo)
	for _, kc := range k.comps[1:] {
		kc.Column(tmp, x, lo, hi, y, j)
		for i, v := range tmp {
			dst[i] *= v
		}
	}
}

// Diag sets dst[i−lo] = Π_c κ_c(x_i, x_i).
func (k *Product) Diag(dst []float64, x Inputs, lo, hi int) {
	k.comps[0].Diag(dst, x, lo, hi)
	tmp := make([]float64, hi-lo)
	for _, kc := range k.comps[1:] {
		kc.Diag(tmp, x, lo, hi)
		for i, v := range tmp {
			dst[i] *= v
		}
	}
}

// others returns, for each component c, w∘Π_{c′≠c} vals[c′] (each of
// len(w)), the products formed directly, not by division, so that a zero
// value of one component does not lose the others' derivatives.
func others(w []float64, vals [][]float64) [][]float64 {
	out := make([][]float64, len(vals))
	for c := range vals {
		o := make([]float64, len(w))
		copy(o, w)
		for b, v := range vals {
			if b == c {
				continue
			}
			for i := range o {
				o[i] *= v[i]
			}
		}
		out[c] = o
	}
	return out
}

// AddGrad adds to each component's part of grad its derivatives weighted
// by w and the other components' values.
func (k *Product) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	nr, nc := hi-lo, len(cols)
	vals := make([][]float64, len(k.comps))
	col := make([]float64, nr)
	for c, kc := range k.comps {
		v := make([]float64, nr*nc)
		for q, j := range cols {
			kc.Column(col, x, lo, hi, y, j)
			for i, kv := range col {
				v[i*nc+q] = kv
			}
		}
		vals[c] = v
	}
	for c, wc := range others(w[:nr*nc], vals) {
		k.comps[c].AddGrad(grad[k.off[c]:k.off[c+1]], wc, x, lo, hi, y, cols)
	}
}

// AddDiagGrad adds to each component's part of grad its diagonal
// derivatives weighted by w and the other components' diagonals.
func (k *Product) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	vals := make([][]float64, len(k.comps))
	for c, kc := range k.comps {
		vals[c] = make([]float64, hi-lo)
		kc.Diag(vals[c], x, lo, hi)
	}
	for c, wc := range others(w[:hi-lo], vals) {
		k.comps[c].AddDiagGrad(grad[k.off[c]:k.off[c+1]], wc, x, lo, hi)
	}
}

// crossT sets kc's block (transposed, as CrossT), by its own CrossT or
// column by column.
func crossT(kc Kernel, dst []float64, x, y Inputs, cols []int) {
	if bk, ok := kc.(BlockEvaluator); ok {
		bk.CrossT(dst, x, y, cols)
		return
	}
	crossColumns(kc, dst, x, y, cols)
}

// addGradT adds kc's derivatives weighted by w (n×m, transposed as
// CrossT's blocks) given its values kv, by its own AddGradBlockT or, for
// a kernel without one, by AddGrad on w in row-major order.
func addGradT(kc Kernel, grad, w, kv []float64, x, y Inputs, cols []int) {
	if bk, ok := kc.(BlockEvaluator); ok {
		bk.AddGradBlockT(grad, w, kv, x, y, cols)
		return
	}
	n, m := x.Len(), len(cols)
	wr := make([]float64, n*m)
	for c := range m {
		for i := range n {
			wr[i*m+c] = w[c*n+i]
		}
	}
	kc.AddGrad(grad, wr, x, 0, n, y, cols)
}

// CrossT sets the block to the product of the components' blocks.
func (k *Product) CrossT(dst []float64, x, y Inputs, cols []int) {
	nm := x.Len() * len(cols)
	crossT(k.comps[0], dst[:nm], x, y, cols)
	tmp := make([]float64, nm)
	for _, kc := range k.comps[1:] {
		crossT(kc, tmp, x, y, cols)
		for i, v := range tmp {
			dst[i] *= v
		}
	}
}

// AddGradBlockT evaluates every component's block and adds each
// component's derivatives weighted by w and the other components' values.
func (k *Product) AddGradBlockT(grad, w, kv []float64, x, y Inputs, cols []int) {
	nm := x.Len() * len(cols)
	vals := make([][]float64, len(k.comps))
	for c, kc := range k.comps {
		vals[c] = make([]float64, nm)
		crossT(kc, vals[c], x, y, cols)
	}
	for c, wc := range others(w[:nm], vals) {
		addGradT(k.comps[c], grad[k.off[c]:k.off[c+1]], wc, vals[c], x, y, cols)
	}
}
