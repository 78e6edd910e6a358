package kernel

import (
	"fmt"
	"strings"
)

// composite holds what Sum and Product share: the component kernels and
// where each one's θ lies in the concatenated θ.
type composite struct {
	what  string // "Sum" or "Product", for messages
	op    string // " + " or " * ", for descriptions
	comps []Kernel
	off   []int // component c has θ[off[c]:off[c+1]]
}

// newComposite checks the components and lays out their θ. It panics if
// there are none, one is nil, or the same kernel value appears twice (its
// θ would be set twice).
func newComposite(what, op string, components []Kernel) composite {
	if len(components) == 0 {
		panic(fmt.Sprintf("sgp: %s needs at least one component kernel", what))
	}
	k := composite{what: what, op: op, comps: append([]Kernel(nil), components...), off: make([]int, len(components)+1)}
	for c, kc := range components {
		if kc == nil {
			panic(fmt.Sprintf("sgp: %s component %d is nil", what, c))
		}
		for b := range c {
			if sameKernel(components[b], kc) {
				panic(fmt.Sprintf("sgp: %s components %d and %d are the same kernel; create a separate kernel for each", what, b, c))
			}
		}
		k.off[c+1] = k.off[c] + kc.NumParams()
	}
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

// joined joins the components' one-line descriptions with the
// operator, a component for which paren is true in parentheses.
func (k *composite) joined(paren func(Kernel) bool) string {
	parts := make([]string, len(k.comps))
	for c, kc := range k.comps {
		parts[c] = oneLine(kc)
		if paren(kc) {
			parts[c] = "(" + parts[c] + ")"
		}
	}
	return strings.Join(parts, k.op)
}

// kindOf describes the components' kinds for Name: "sum of rbf + linear".
func (k *composite) kindOf() string {
	names := make([]string, len(k.comps))
	for c, kc := range k.comps {
		names[c] = Name(kc)
	}
	return strings.ToLower(k.what) + " of " + strings.Join(names, k.op)
}

func (k *composite) numParams() int { return k.off[len(k.comps)] }

func (k *composite) paramNames() []string {
	names := make([]string, 0, k.numParams())
	for c, kc := range k.comps {
		for _, name := range kc.ParamNames() {
			names = append(names, fmt.Sprintf("k%d.%s", c, name))
		}
	}
	return names
}

func (k *composite) params(dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, k.numParams())
	}
	if len(dst) != k.numParams() {
		panic(errParamLen)
	}
	for c, kc := range k.comps {
		kc.Params(dst[k.off[c]:k.off[c+1]])
	}
	return dst
}

func (k *composite) setParams(theta []float64) {
	if len(theta) != k.numParams() {
		panic(errParamLen)
	}
	for c, kc := range k.comps {
		kc.SetParams(theta[k.off[c]:k.off[c+1]])
	}
}

func (k *composite) accepts(x Inputs) error {
	for c, kc := range k.comps {
		if err := kc.Accepts(x); err != nil {
			return fmt.Errorf("sgp: %s component %d: %w", k.what, c, err)
		}
	}
	return nil
}
