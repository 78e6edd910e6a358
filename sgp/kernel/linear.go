package kernel

import (
	"fmt"
	"math"

	"github.com/cholqr/sgp/sgp/internal/par"

	"github.com/cholqr/sgp/sgp/internal/stats"
)

// Linear is the linear (dot product) kernel with one variance per input
// dimension (automatic relevance determination):
//
//	κ(x, x′) = Σ_t V_t · x_t · x′_t
//
// (GPflow's Linear, GPyTorch's LinearKernel; scikit-learn's DotProduct
// with σ₀ = 0). It is the kernel of Bayesian linear regression through
// the origin with weights w_t ~ N(0, V_t); add Const for an intercept
// (linear+const) or multiply by another kernel for a trend that varies.
// Its Gram matrices have rank at most d, so alone it admits at most d
// inducing points.
//
// Its hyperparameters, in θ order, are log V₁, …, log V_d. It accepts
// *Vectors of dimension d. It is a sum of fixed kernels with one variance
// each (ScaledSum, B_t(x, x′) = x_t·x′_t), evaluated in O(d) per value.
type Linear struct {
	theta []float64 // log V_t
	v     []float64 // V_t
}

var (
	_ BlockEvaluator = (*Linear)(nil)
	_ ScaledSum      = (*Linear)(nil)
	_ InputGradient  = (*Linear)(nil)
)

// NewLinear returns a linear kernel with variances V_t, one per input
// dimension. It panics if there are none or one is not positive and
// finite.
func NewLinear(variances []float64) *Linear {
	if len(variances) == 0 {
		panic("sgp: the linear kernel needs at least one variance")
	}
	checkPositive("linear kernel", variances)
	k := &Linear{theta: make([]float64, len(variances)), v: make([]float64, len(variances))}
	theta := make([]float64, len(variances))
	for t, v := range variances {
		theta[t] = math.Log(v)
	}
	k.SetParams(theta)
	return k
}

// NewLinearFromData returns a linear kernel whose prior variance at the
// inputs, averaged over them, is var(y) (1 if y is constant or empty),
// split evenly over the dimensions: V_t = var(y)/(d·mean_i x_it²) (V_t = 1
// for a dimension that is 0 throughout).
func NewLinearFromData(x *Vectors, y []float64) *Linear {
	return newLinearScaled(meanSquares(x), stats.TargetScale(y))
}

// newLinearScaled returns a linear kernel whose prior variance averaged
// over inputs of mean squares ms (one a column) is v.
func newLinearScaled(ms []float64, v float64) *Linear {
	vs := make([]float64, len(ms))
	for t := range vs {
		vs[t] = v / (float64(len(ms)) * ms[t])
		if !(vs[t] > 0) || math.IsInf(vs[t], 0) {
			vs[t] = 1
		}
	}
	return NewLinear(vs)
}

// Dim returns the input dimension d.
func (k *Linear) Dim() int { return len(k.v) }

// Variances returns a copy of V.
func (k *Linear) Variances() []float64 { return append([]float64(nil), k.v...) }

// String describes the kernel in one line, linear(variances [V₁ … V_d]).
func (k *Linear) String() string { return callText("linear", vecText("variances", k.v)) }

// HTML returns the hyperparameters as a table, by name in θ order.
func (k *Linear) HTML() string { return hyperHTML(k) }

// kind describes the kernel for Name.
func (k *Linear) kind() string { return "linear ARD, " + plural(len(k.v), "variance") }

// NumParams returns d.
func (k *Linear) NumParams() int { return len(k.v) }

// ParamNames returns "variance[0]", "variance[1]", ….
func (k *Linear) ParamNames() []string { return indexedNames("variance", len(k.v)) }

// Params returns (log V₁, …, log V_d) in dst.
func (k *Linear) Params(dst []float64) []float64 { return getParams(dst, k.theta) }

// SetParams sets V_t = exp θ_t.
func (k *Linear) SetParams(theta []float64) {
	if len(theta) != len(k.v) {
		panic(errParamLen)
	}
	copy(k.theta, theta)
	for t, th := range theta {
		k.v[t] = math.Exp(th)
	}
}

// Accepts reports whether x is a *Vectors of dimension d.
func (k *Linear) Accepts(x Inputs) error { return acceptsVectors("linear", x, len(k.v)) }

// dot returns Σ_t V_t a_t b_t.
func (k *Linear) dot(a, b []float64) float64 {
	var s float64
	for t, v := range k.v {
		s += v * a[t] * b[t]
	}
	return s
}

// Column sets dst[i−lo] = Σ_t V_t x_it y_jt.
func (k *Linear) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	xv, z := x.(*Vectors), y.(*Vectors).Row(j)
	for i := lo; i < hi; i++ {
		dst[i-lo] = k.dot(xv.Row(i), z)
	}
}

// Diag sets dst[i−lo] = Σ_t V_t x_it².
func (k *Linear) Diag(dst []float64, x Inputs, lo, hi int) {
	xv := x.(*Vectors)
	for i := lo; i < hi; i++ {
		dst[i-lo] = k.dot(xv.Row(i), xv.Row(i))
	}
}

// AddGrad adds the weighted derivatives ∂κ/∂log V_t = V_t x_t x′_t.
func (k *Linear) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	xv, yv := x.(*Vectors), y.(*Vectors)
	for i := lo; i < hi; i++ {
		xi := xv.Row(i)
		wi := w[(i-lo)*len(cols) : (i-lo+1)*len(cols)]
		for c, j := range cols {
			z := yv.Row(j)
			for t, v := range k.v {
				grad[t] += wi[c] * v * xi[t] * z[t]
			}
		}
	}
}

// AddDiagGrad adds Σ_i w_i V_t x_it² to the derivative for log V_t.
func (k *Linear) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	xv := x.(*Vectors)
	for i := lo; i < hi; i++ {
		xi := xv.Row(i)
		for t, v := range k.v {
			grad[t] += w[i-lo] * v * xi[t] * xi[t]
		}
	}
}

// CrossT sets the block column by column, in parallel over the columns.
func (k *Linear) CrossT(dst []float64, x, y Inputs, cols []int) {
	xv, yv := x.(*Vectors), y.(*Vectors)
	n, d := xv.n, len(k.v)
	par.For(len(cols), max(1, par.MinRows/max(1, n*d)), func(c0, c1 int) {
		zv := make([]float64, d)
		for c := c0; c < c1; c++ {
			z := yv.Row(cols[c])
			for t, v := range k.v {
				zv[t] = v * z[t]
			}
			out := dst[c*n : (c+1)*n]
			for i := range out {
				xi := xv.Row(i)
				var s float64
				for t, u := range zv {
					s += xi[t] * u
				}
				out[i] = s
			}
		}
	})
}

// AddGradBlockT adds V_t Σ_c y_ct Σ_i w[c·n+i] x_it to the derivative for
// log V_t.
func (k *Linear) AddGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	xv, yv := x.(*Vectors), y.(*Vectors)
	n, d := xv.n, len(k.v)
	u := make([]float64, d)
	for c, j := range cols {
		clear(u)
		wc := w[c*n : (c+1)*n]
		for i, wi := range wc {
			if wi == 0 {
				continue
			}
			xi := xv.Row(i)
			for t := range u {
				u[t] += wi * xi[t]
			}
		}
		z := yv.Row(j)
		for t, v := range k.v {
			grad[t] += v * z[t] * u[t]
		}
	}
}

// BasisT sets the blocks B_t = x_t·y_t.
func (k *Linear) BasisT(dst []float64, x Inputs, y Inputs, cols []int) {
	xv, yv := x.(*Vectors), y.(*Vectors)
	n, m := xv.n, len(cols)
	for t := range k.v {
		for c, j := range cols {
			zt := yv.At(j, t)
			out := dst[(t*m+c)*n : (t*m+c+1)*n]
			for i := range out {
				out[i] = xv.At(i, t) * zt
			}
		}
	}
}

// InputGradT sets gz to the gradient with respect to the inducing inputs
// z of Σ wx∘K_mn + Σ wz∘K_mm (see InputGradient):
//
//	∂F/∂z_ct = V_t·(Σ_i wx_ci x_it + Σ_b (W_cb + W_bc) z_bt).
func (k *Linear) InputGradT(gz, wx, kx, wz, kz []float64, x, z *Vectors) {
	n, m, d := x.n, z.n, len(k.v)
	par.For(m, 1, func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			g := gz[c*d : (c+1)*d]
			clear(g)
			for i, w := range wx[c*n : (c+1)*n] {
				xi := x.Row(i)
				for t := range g {
					g[t] += w * xi[t]
				}
			}
			for b := 0; b < m; b++ {
				w := wz[c*m+b] + wz[b*m+c]
				zb := z.Row(b)
				for t := range g {
					g[t] += w * zb[t]
				}
			}
			for t, v := range k.v {
				g[t] *= v
			}
		}
	})
}

// Const is the constant kernel κ(x, x′) = V, the prior variance of a
// constant offset (GPflow's Constant, scikit-learn's ConstantKernel,
// GPyTorch's ConstantKernel): added to another kernel it lets the fit
// learn an offset's variance (matern52+const); alone its Gram matrices
// have rank 1. Its only hyperparameter is log V. It accepts any inputs
// and has a zero input gradient.
type Const struct {
	theta [1]float64
	v     float64
}

var (
	_ BlockEvaluator = (*Const)(nil)
	_ ScaledSum      = (*Const)(nil)
	_ InputGradient  = (*Const)(nil)
)

// NewConst returns the constant kernel V. It panics if V is not positive
// and finite.
func NewConst(variance float64) *Const {
	checkPositive("constant kernel", []float64{variance})
	k := &Const{}
	k.SetParams([]float64{math.Log(variance)})
	return k
}

// Variance returns V.
func (k *Const) Variance() float64 { return k.v }

// String describes the kernel in one line, const(variance V).
func (k *Const) String() string { return callText("const", argText("variance", k.v)) }

// HTML returns the hyperparameter as a table.
func (k *Const) HTML() string { return hyperHTML(k) }

// kind describes the kernel for Name.
func (k *Const) kind() string { return "constant" }

// NumParams returns 1.
func (k *Const) NumParams() int { return 1 }

// ParamNames returns "variance".
func (k *Const) ParamNames() []string { return []string{"variance"} }

// Params returns (log V) in dst.
func (k *Const) Params(dst []float64) []float64 { return getParams(dst, k.theta[:]) }

// SetParams sets V = exp θ₀.
func (k *Const) SetParams(theta []float64) {
	if len(theta) != 1 {
		panic(errParamLen)
	}
	k.theta[0] = theta[0]
	k.v = math.Exp(theta[0])
}

// Accepts accepts any inputs.
func (k *Const) Accepts(x Inputs) error {
	if x == nil {
		return fmt.Errorf("sgp: the constant kernel: no inputs")
	}
	return nil
}

// Column sets dst[i−lo] = V.
func (k *Const) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	fill(dst[:hi-lo], k.v)
}

// Diag sets dst[i−lo] = V.
func (k *Const) Diag(dst []float64, x Inputs, lo, hi int) { fill(dst[:hi-lo], k.v) }

// AddGrad adds Σ w·V, ∂κ/∂log V = κ.
func (k *Const) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	grad[0] += sum(w[:(hi-lo)*len(cols)]) * k.v
}

// AddDiagGrad adds Σ w_i·V.
func (k *Const) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	grad[0] += sum(w[:hi-lo]) * k.v
}

// CrossT sets the block to V.
func (k *Const) CrossT(dst []float64, x, y Inputs, cols []int) {
	fill(dst[:x.Len()*len(cols)], k.v)
}

// AddGradBlockT adds Σ w·V.
func (k *Const) AddGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	grad[0] += sum(w[:x.Len()*len(cols)]) * k.v
}

// BasisT sets the block to 1.
func (k *Const) BasisT(dst []float64, x Inputs, y Inputs, cols []int) {
	fill(dst[:x.Len()*len(cols)], 1)
}

// InputGradT sets gz to 0: the constant kernel does not depend on its
// inputs.
func (k *Const) InputGradT(gz, wx, kx, wz, kz []float64, x, z *Vectors) {
	clear(gz[:z.n*z.d])
}
