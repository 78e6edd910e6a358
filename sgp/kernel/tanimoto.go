package kernel

import "fmt"

// Tanimoto is the Tanimoto or MinMax kernel on non-negative count vectors
// (Ralaivola, Swamidass, Saigo & Baldi 2005, "Graph kernels for chemical
// informatics", Neural Networks 18(8), eq. (8)):
//
//	κ(a, b) = V · Σ_k min(a_k, b_k) / Σ_k max(a_k, b_k)
//
// which for binary vectors is the Tanimoto (Jaccard) similarity. It is
// positive semi-definite: it is the collision probability of consistent
// weighted sampling (Ioffe 2010, ICDM). Two zero vectors have κ = V (they
// hash alike) and a zero vector has κ = 0 with any other, which keeps the
// kernel positive semi-definite; so κ(a, a) = V for every a.
//
// Its only hyperparameter is log V. It accepts *SparseCounts. Σ max is
// computed as Σa + Σb − Σ min from cached sums, so a kernel value needs Σ
// min only: a column goes through an inverted index of the rows (built on
// first use) at O(number of matching indices), a single value is one merge
// of the two index lists, O(nnz_a + nnz_b).
type Tanimoto struct {
	s logScales
}

var (
	_ Kernel         = (*Tanimoto)(nil)
	_ BlockEvaluator = (*Tanimoto)(nil)
)

// NewTanimoto returns the MinMax kernel with variance V. It panics unless
// V is positive and finite.
func NewTanimoto(variance float64) *Tanimoto {
	return &Tanimoto{s: newLogScales("Tanimoto", []float64{variance})}
}

// Variance returns V.
func (k *Tanimoto) Variance() float64 { return k.s.v[0] }

// String describes the kernel in one line, tanimoto(variance V).
func (k *Tanimoto) String() string { return callText("tanimoto", argText("variance", k.s.v[0])) }

// HTML returns the hyperparameters as a table, by name in θ order.
func (k *Tanimoto) HTML() string { return hyperHTML(k) }

// kind describes the kernel for Name.
func (k *Tanimoto) kind() string { return "Tanimoto (MinMax)" }

// NumParams returns 1.
func (k *Tanimoto) NumParams() int { return 1 }

// ParamNames returns "variance".
func (k *Tanimoto) ParamNames() []string { return []string{"variance"} }

// Params returns (log V) in dst.
func (k *Tanimoto) Params(dst []float64) []float64 { return k.s.params(dst) }

// SetParams sets V = exp θ₀.
func (k *Tanimoto) SetParams(theta []float64) { k.s.set(theta) }

// Accepts reports whether x is *SparseCounts.
func (k *Tanimoto) Accepts(x Inputs) error {
	if _, ok := x.(*SparseCounts); !ok {
		return fmt.Errorf("sgp: the Tanimoto kernel needs sparse count inputs (*kernel.SparseCounts), got %T", x)
	}
	return nil
}

// minMax returns Σ min / Σ max given Σ min = m and the sums sa, sb; 0/0 is 1.
func minMax(m, sa, sb float64) float64 {
	den := sa + sb - m
	if den == 0 {
		return 1
	}
	return m / den
}

// Column sets dst[i−lo] = κ(x_i, y_j).
func (k *Tanimoto) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	fx, fy := x.(*SparseCounts).sp, y.(*SparseCounts).sp
	bi, bv := fy.row(j)
	sb := fy.sum[j]
	v := k.s.v[0]
	dst = dst[:hi-lo]
	if hi-lo >= invMinRows {
		clear(dst)
		fx.index().scatterMinSum(dst, lo, hi, bi, bv)
		for i := lo; i < hi; i++ {
			dst[i-lo] = v * minMax(dst[i-lo], fx.sum[i], sb)
		}
		return
	}
	for i := lo; i < hi; i++ {
		ai, av := fx.row(i)
		dst[i-lo] = v * minMax(sparseMinSum(ai, av, bi, bv), fx.sum[i], sb)
	}
}

// Diag sets dst[i−lo] = V.
func (k *Tanimoto) Diag(dst []float64, x Inputs, lo, hi int) {
	for i := range dst[:hi-lo] {
		dst[i] = k.s.v[0]
	}
}

// AddGrad adds the weighted derivatives ∂κ/∂log V = κ.
func (k *Tanimoto) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	if hi-lo >= invMinRows {
		addGradByColumns(k, &grad[0], w, x, lo, hi, y, cols)
		return
	}
	fx, fy := x.(*SparseCounts).sp, y.(*SparseCounts).sp
	v := k.s.v[0]
	var s float64
	for i := lo; i < hi; i++ {
		ai, av := fx.row(i)
		wi := w[(i-lo)*len(cols) : (i-lo+1)*len(cols)]
		for c, j := range cols {
			if wi[c] == 0 {
				continue
			}
			bi, bv := fy.row(j)
			s += wi[c] * v * minMax(sparseMinSum(ai, av, bi, bv), fx.sum[i], fy.sum[j])
		}
	}
	grad[0] += s
}

// AddDiagGrad adds Σ_i w_i V to the derivative for log V.
func (k *Tanimoto) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	var s float64
	for _, v := range w[:hi-lo] {
		s += v
	}
	grad[0] += s * k.s.v[0]
}

func (k *Tanimoto) CrossT(dst []float64, x Inputs, y Inputs, cols []int) {
	crossColumns(k, dst, x, y, cols)
}

// AddGradBlockT uses ∂κ/∂log V = κ: no kernel evaluations.
func (k *Tanimoto) AddGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	addGradScaled(&grad[0], w, kv, x.Len(), len(cols))
}
