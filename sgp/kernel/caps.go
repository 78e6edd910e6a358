package kernel

import (
	"strings"
)

// Caps says what a kernel offers the fitters of package sgp beyond the
// Kernel interface, and so which of them can use it. Every fitter needs
// only Kernel except those that move inducing inputs continuously.
type Caps struct {
	// InputGradient: κ is differentiable in its inputs (the kernel is an
	// InputGradient), so that inducing inputs can move along the
	// objective's gradient.
	InputGradient bool
	// Lengthscales: θ begins with a signal variance and one lengthscale
	// per input dimension (Lengthscaled).
	Lengthscales bool
	// Copyable: Clone copies it (a built-in kernel, a Func or a Cloner), so that a fit can
	// work on a copy while the model keeps the original.
	Copyable bool
	// Continuous: continuous SGPR (sgp.NewContinuous, sgprepl's
	// --selector sgpr-continuous) can fit it: it has input gradients.
	Continuous bool
	// Hybrid: the hybrid selector (sgp.SelectHybrid) can refine CholQR's
	// fit with it: input gradients, lengthscales (for its k-means starts
	// and to find inputs switched off) and a copy for each continuous fit.
	Hybrid bool
}

// Capabilities returns what k offers the fitters (Caps), from the
// interfaces it implements: the one definition of which kernel each
// selector takes, used by package sgp, the command line and their
// messages.
func Capabilities(k Kernel) Caps {
	_, grad := k.(InputGradient)
	_, ls := k.(Lengthscaled)
	c := Caps{InputGradient: grad, Lengthscales: ls, Copyable: Clone(k) != k}
	c.Continuous = grad
	c.Hybrid = grad && ls && c.Copyable
	return c
}

// SpecCapabilities returns the Capabilities of the kernel that the
// specification spec names (SplitSpec), without data: a kernel of
// numeric columns is built, as Parse builds it, on a small prototype of
// one input column; the kernels of discrete inputs have none of Caps'
// capabilities but Copyable. It returns SplitSpec's error for a spec it
// cannot read.
func SpecCapabilities(spec string) (Caps, error) {
	name, _, err := SplitSpec(spec)
	if err != nil {
		return Caps{}, err
	}
	if !NumericSpec(name) {
		return Caps{Copyable: true}, nil
	}
	x, err := NewVectors(4, 1, []float64{0, 1, 2, 3})
	if err != nil {
		return Caps{}, err
	}
	k, err := Parse(name, x, []float64{0, 1, 0, 1})
	if err != nil {
		return Caps{}, err
	}
	return Capabilities(k), nil
}

// NamesWith returns the specifications of the single kernels of numeric
// inputs (rbf, matern12, …, const) whose capabilities satisfy has, in
// the order SplitSpec documents them; NamesWith(func(c Caps) bool {
// return c.Hybrid }) lists the kernels the hybrid selector takes.
// Sums and products have input gradients through no kernel, so they
// satisfy only what needs none of Caps.
func NamesWith(has func(Caps) bool) []string {
	var names []string
	for _, name := range numericLeaves {
		if c, err := SpecCapabilities(name); err == nil && has(c) {
			names = append(names, name)
		}
	}
	return names
}

// ListNames writes names for a message: "a", "a or b", "a, b or c".
func ListNames(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
