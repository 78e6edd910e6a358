package kernel

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cholqr/sgp/sgp/internal/table"
)

// The kernels' displays. A kernel's String is one line, its name and
// then its settings and hyperparameters by name in parentheses,
// name(setting value, hyperparameter value, …), as oneLine writes it;
// a Sum joins its components' lines with " + " (a Sum within a Sum in
// parentheses) and a Product with " * " (a Sum or Product within it in
// parentheses), so that every combination of kernels reads alike. Its HTML
// is a table of the hyperparameters by name, in θ order (hyperHTML), with
// Name in the caption.

// Name describes k for a display: its kind and settings, such as
// "RBF-ARD, 2 lengthscales" or "WL subtree, depth 3", or for a kernel of
// another package the name of its type.
func Name(k Kernel) string {
	if n, ok := k.(interface{ kind() string }); ok {
		return n.kind()
	}
	return typeName(k)
}

// Text describes k in one line, its structure and hyperparameters by
// name, as the built-in kernels' String methods write it:
// matern52(variance 1.2, lengthscales [0.8 2.1]) + linear(variances [0.3 0.1]);
// for a kernel of another package without a String method, its type name
// and its hyperparameters by name.
func Text(k Kernel) string { return oneLine(k) }

// oneLine describes k in one line: its String, or for a kernel without
// one (a user's type) its type name and its hyperparameters by name.
func oneLine(k Kernel) string {
	if s, ok := k.(fmt.Stringer); ok {
		return s.String()
	}
	names, theta := k.ParamNames(), k.Params(nil)
	args := make([]string, len(theta))
	for i, v := range theta {
		args[i] = argText(names[i], math.Exp(v))
	}
	return callText(typeName(k), args...)
}

// typeName returns the name of k's type without its package, or
// "kernel" for the interpreter's wrapper of a kernel written in a session
// (a type whose name starts with "_").
func typeName(k Kernel) string {
	name := fmt.Sprintf("%T", k)
	name = name[strings.LastIndexAny(name, ".*")+1:]
	if name == "" || strings.HasPrefix(name, "_") {
		return "kernel"
	}
	return name
}

// callText returns name(arg, arg, …).
func callText(name string, args ...string) string {
	return name + "(" + strings.Join(args, ", ") + ")"
}

// argText returns "name v", v to 4 significant digits.
func argText(name string, v float64) string {
	return name + " " + strconv.FormatFloat(v, 'g', 4, 64)
}

// vecText returns "name [v₁ v₂ …]", each to 4 significant digits; of more
// than 8 values, the first 6 and the last, with their number.
func vecText(name string, vs []float64) string {
	var b strings.Builder
	b.WriteString(name + " [")
	for i, v := range vs {
		if len(vs) > 8 && i == 6 {
			b.WriteString(" …")
			continue
		}
		if len(vs) > 8 && i > 6 && i < len(vs)-1 {
			continue
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(v, 'g', 4, 64))
	}
	b.WriteByte(']')
	if len(vs) > 8 {
		fmt.Fprintf(&b, " (%d)", len(vs))
	}
	return b.String()
}

// hyperHTML returns k as a table: its kind in the caption, a row for each
// hyperparameter (exp θ by ParamNames, in θ order).
func hyperHTML(k Kernel) string {
	return table.HTML("kernel: "+Name(k), table.Hyper(k.ParamNames(), k.Params(nil)))
}

// String describes the inputs by their shape and first rows, not their
// whole data.
func (v *Vectors) String() string {
	if v == nil {
		return "kernel.Vectors(nil)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "kernel.Vectors %d×%d [", v.n, v.d)
	for i := 0; i < min(v.n, 3); i++ {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString("[")
		for t, x := range v.Row(i)[:min(v.d, 6)] {
			if t > 0 {
				b.WriteString(" ")
			}
			b.WriteString(table.G(x))
		}
		if v.d > 6 {
			b.WriteString(" …")
		}
		b.WriteString("]")
	}
	if v.n > 3 {
		b.WriteString(" …")
	}
	b.WriteString("]")
	return b.String()
}
