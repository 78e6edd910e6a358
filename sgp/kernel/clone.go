package kernel

// Cloner is implemented by a kernel of another package that can copy
// itself for Clone: Clone returns a kernel whose hyperparameters are
// independent of k's (SetParams on one does not change the other) and
// that computes the same values.
type Cloner interface {
	Clone() Kernel
}

// Clone returns an independent copy of k with the same θ, bit for bit:
// setting the hyperparameters of one does not change the other, and the
// two may be used from different goroutines at the same time. A Sum or a
// Product copies its components; a Func's copy has its own variance and
// calls the same function f, which is shared (it must be safe for
// concurrent calls, as Func says). A kernel of another package is copied
// by its Clone method (Cloner). Clone returns k itself when it cannot copy
// it: a kernel of another package that is not a Cloner, or a sum or
// product holding one.
func Clone(k Kernel) Kernel {
	if c, ok := cloneKernel(k); ok {
		return c
	}
	return k
}

// cloneKernel returns a copy of k and true, or false if k cannot be
// copied.
//
// The built-in kernels are matched by their types, not by a method: a
// type of another package that embeds one has its method set but may
// compute other values.
func cloneKernel(k Kernel) (Kernel, bool) {
	switch k := k.(type) {
	case *RBF:
		return k.clone()
	case *Matern:
		return k.clone()
	case *RQ:
		return k.clone()
	case *Periodic:
		return k.clone()
	case *Linear:
		return k.clone()
	case *Const:
		return k.clone()
	case *Func:
		return k.clone()
	case *HistogramIntersection:
		return k.clone()
	case *Spectrum:
		return k.clone()
	case *WL:
		return k.clone()
	case *Tanimoto:
		return k.clone()
	case *Sum:
		return k.clone()
	case *Product:
		return k.clone()
	case Cloner:
		c := k.Clone()
		return c, c != nil
	}
	return nil, false
}

func (k *RBF) clone() (Kernel, bool) {
	d := len(k.ls)
	c := &RBF{theta: make([]float64, 1+d), ls: make([]float64, d), invLS: make([]float64, d)}
	c.SetParams(k.theta)
	return c, true
}

func (k *Matern) clone() (Kernel, bool) {
	d := len(k.ls)
	c := &Matern{nu: k.nu, theta: make([]float64, 1+d), ls: make([]float64, d), invLS: make([]float64, d)}
	c.SetParams(k.theta)
	return c, true
}

func (k *RQ) clone() (Kernel, bool) {
	d := len(k.ls)
	c := &RQ{theta: make([]float64, 2+d), ls: make([]float64, d), invLS: make([]float64, d)}
	c.SetParams(k.theta)
	return c, true
}

func (k *Periodic) clone() (Kernel, bool) {
	d := len(k.ls)
	c := &Periodic{theta: make([]float64, 1+2*d), ls: make([]float64, d), periods: make([]float64, d), invLS2: make([]float64, 2*d)}
	c.SetParams(k.theta)
	return c, true
}

func (k *Linear) clone() (Kernel, bool) {
	c := &Linear{theta: make([]float64, len(k.v)), v: make([]float64, len(k.v))}
	c.SetParams(k.theta)
	return c, true
}

func (k *Const) clone() (Kernel, bool) {
	c := *k
	return &c, true
}

func (k *Func) clone() (Kernel, bool) {
	c := *k
	return &c, true
}

// clone returns a copy of s.
func (s *logScales) clone() logScales {
	c := logScales{theta: make([]float64, len(s.theta)), v: make([]float64, len(s.v))}
	c.set(s.theta)
	return c
}

func (k *HistogramIntersection) clone() (Kernel, bool) {
	return &HistogramIntersection{s: k.s.clone()}, true
}

func (k *Spectrum) clone() (Kernel, bool) {
	return &Spectrum{k: k.k, s: k.s.clone()}, true
}

func (k *WL) clone() (Kernel, bool) {
	return &WL{h: k.h, perDepth: k.perDepth, s: k.s.clone()}, true
}

func (k *Tanimoto) clone() (Kernel, bool) {
	return &Tanimoto{s: k.s.clone()}, true
}

func (k *Sum) clone() (Kernel, bool) {
	comps, ok := k.cloneComponents()
	if !ok {
		return nil, false
	}
	return NewSum(comps...), true
}

func (k *Product) clone() (Kernel, bool) {
	comps, ok := k.cloneComponents()
	if !ok {
		return nil, false
	}
	return NewProduct(comps...), true
}

// cloneComponents returns copies of the components, or false if one
// cannot be copied.
func (k *composite) cloneComponents() ([]Kernel, bool) {
	comps := make([]Kernel, len(k.comps))
	for c, kc := range k.comps {
		cc, ok := cloneKernel(kc)
		if !ok {
			return nil, false
		}
		comps[c] = cc
	}
	return comps, true
}
