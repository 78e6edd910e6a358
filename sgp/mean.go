package sgp

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// Mean is the prior mean function of the Gaussian process, a constant μ:
// the model is a zero-mean GP for y − μ, and predictions add μ back.
//
//	MeanConstant   μ estimated with the hyperparameters under a prior
//	               N(ȳ, var y) (the default)
//	MeanGLS        μ estimated with the hyperparameters, no prior: the
//	               generalised least-squares estimate
//	MeanZero       μ = 0, the model of Cao et al. (2013) and of most papers
//	MeanFixed(c)   μ = c
//
// An estimated μ is not a parameter of the gradient phase: for a given
// inducing set and hyperparameters both objectives are quadratic in μ, and
// sgp uses their minimiser in closed form at every objective evaluation of
// the gradient phase, after every accepted swap and after every rebuild, so
// the objective being minimised is the profile F(θ, I) = min_μ F(θ, I, μ);
// by the envelope theorem its gradient in θ is ∂F/∂θ at the minimiser. This
// costs O(n + k) per update with the factors already at hand and adds no
// dimension to the conjugate-gradient search. The trace term of VAR does
// not involve μ, so VAR and MLE share the estimate. The sparse model, the
// exact GP (NewExact) and continuous SGPR (NewContinuous) estimate μ the
// same way.
//
// Without a prior the minimiser is the generalised least-squares estimate
//
//	μ̂ = 1ᵀΣ⁻¹y / 1ᵀΣ⁻¹1,   Σ = K̂ + σ²I,
//
// the value GPflow's SGPR with a trainable constant mean function reaches
// (MeanGLS). It is weakly identified when 1ᵀΣ⁻¹1 is small, that is when the
// kernel carries a near-constant component (a large signal variance with
// long lengthscales): the objective then barely moves while μ and the signal
// variance run off together, far outside the targets, and every test point
// the kernel cannot reach from the training points is predicted at μ.
// MeanConstant therefore puts the Gaussian prior μ ~ N(ȳ, τ²) on the mean,
// ȳ and τ² = var y the training targets' mean and variance, and estimates
// μ by maximum a posteriori: the objectives gain the term ½(μ − ȳ)²/τ²
// (Parts.MeanPrior), and
//
//	μ̂ = (1ᵀΣ⁻¹y + ȳ/τ²) / (1ᵀΣ⁻¹1 + 1/τ²).
//
// Where the mean is identified (1ᵀΣ⁻¹1 ≫ 1/τ²) this is the GLS estimate;
// where it is not, it shrinks to ȳ. Like GLS it is equivariant under a
// shift and a scaling of the targets (ȳ and τ shift and scale with them),
// so fits of y + c and s·y are fits of y moved and scaled. docs/defaults.md
// gives the measurements behind the choice.
//
// The zero value is MeanConstant.
type Mean struct {
	kind  meanKind
	value float64 // for meanFixed
}

type meanKind int

const (
	meanConstant meanKind = iota
	meanZero
	meanFixed
	meanGLS
)

// Prior means.
var (
	// MeanConstant estimates a constant mean with the hyperparameters,
	// under the prior N(ȳ, var y).
	MeanConstant = Mean{kind: meanConstant}
	// MeanGLS estimates a constant mean with the hyperparameters, without
	// a prior (the generalised least-squares estimate).
	MeanGLS = Mean{kind: meanGLS}
	// MeanZero is the zero mean.
	MeanZero = Mean{kind: meanZero}
)

// MeanFixed returns the constant mean c, not estimated. It panics if c is
// not finite.
func MeanFixed(c float64) Mean {
	if math.IsNaN(c) || math.IsInf(c, 0) {
		panic("sgp: non-finite mean")
	}
	return Mean{kind: meanFixed, value: c}
}

// Estimated reports whether the mean is estimated from the data.
func (mn Mean) Estimated() bool { return mn.kind == meanConstant || mn.kind == meanGLS }

// fixedValue returns the value of a mean that is not estimated.
func (mn Mean) fixedValue() float64 {
	if mn.kind == meanFixed {
		return mn.value
	}
	return 0
}

// String returns "constant", "gls", "zero" or the fixed value, as
// ParseMean reads them.
func (mn Mean) String() string {
	switch mn.kind {
	case meanGLS:
		return "gls"
	case meanZero:
		return "zero"
	case meanFixed:
		return strconv.FormatFloat(mn.value, 'g', -1, 64)
	}
	return "constant"
}

// ParseMean reads "constant" (estimated under a prior), "gls" (estimated
// without one), "zero" or a number (a fixed constant mean).
func ParseMean(s string) (Mean, error) {
	switch t := strings.ToLower(strings.TrimSpace(s)); t {
	case "constant", "const", "estimate", "estimated":
		return MeanConstant, nil
	case "gls":
		return MeanGLS, nil
	case "zero", "none":
		return MeanZero, nil
	default:
		c, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(c) || math.IsInf(c, 0) {
			return Mean{}, fmt.Errorf("sgp: unknown mean %q: use constant (estimated), gls (estimated without a prior), zero or a finite number", s)
		}
		return MeanFixed(c), nil
	}
}

// startValue returns the mean a model starts from: the sample mean of y
// for an estimated mean (the closed-form estimate then refines it),
// otherwise the fixed value.
func (mn Mean) startValue(y []float64) float64 {
	if !mn.Estimated() {
		return mn.fixedValue()
	}
	m, _ := meanVar(y)
	return mn.startFrom(m)
}

// startFrom is startValue for targets of sample mean m.
func (mn Mean) startFrom(m float64) float64 {
	if !mn.Estimated() {
		return mn.fixedValue()
	}
	if math.IsNaN(m) || math.IsInf(m, 0) {
		return 0
	}
	return m
}

// prior returns the prior of mn on μ for targets y.
func (mn Mean) prior(y []float64) base.MeanPrior {
	if mn.kind != meanConstant {
		return base.MeanPrior{}
	}
	return mn.priorFrom(meanVar(y))
}

// priorFrom is prior for targets of sample mean m and variance v.
func (mn Mean) priorFrom(m, v float64) base.MeanPrior {
	if mn.kind != meanConstant {
		return base.MeanPrior{}
	}
	if math.IsNaN(m) || math.IsInf(m, 0) || math.IsNaN(v) || math.IsInf(v, 0) {
		return base.MeanPrior{}
	}
	return base.MeanPrior{On: true, Ybar: m, Tau2: v}
}
