package sgp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Mean is the prior mean function of the Gaussian process, a constant μ:
// the model is a zero-mean GP for y − μ, and predictions add μ back.
//
//	MeanConstant   μ estimated with the hyperparameters (the default)
//	MeanZero       μ = 0, the model of Cao et al. (2013) and of most papers
//	MeanFixed(c)   μ = c
//
// The estimated μ is not a parameter of the gradient phase: for a given
// inducing set and hyperparameters both objectives are quadratic in μ, and
// their minimiser is the generalised least-squares estimate
//
//	μ̂ = 1ᵀΣ⁻¹y / 1ᵀΣ⁻¹1,   Σ = K̂ + σ²I
//
// (the trace term of VAR does not involve μ). sgp uses it in closed form at
// every objective evaluation of the gradient phase, after every accepted
// swap and after every rebuild, so the objective being minimised is the
// profile F(θ, I) = min_μ F(θ, I, μ); by the envelope theorem its gradient
// in θ is ∂F/∂θ at μ = μ̂. This costs O(n + k) per update with the factors
// already at hand, adds no dimension to the conjugate-gradient search and
// needs no scale for μ; at an optimum it is the value that GPflow's SGPR
// with a trainable constant mean function reaches, so the objectives
// compare directly.
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
)

// Prior means.
var (
	// MeanConstant estimates a constant mean with the hyperparameters.
	MeanConstant = Mean{kind: meanConstant}
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
func (mn Mean) Estimated() bool { return mn.kind == meanConstant }

// fixedValue returns the value of a mean that is not estimated.
func (mn Mean) fixedValue() float64 {
	if mn.kind == meanFixed {
		return mn.value
	}
	return 0
}

// String returns "constant", "zero" or the fixed value, as ParseMean reads
// them.
func (mn Mean) String() string {
	switch mn.kind {
	case meanZero:
		return "zero"
	case meanFixed:
		return strconv.FormatFloat(mn.value, 'g', -1, 64)
	}
	return "constant"
}

// ParseMean reads "constant" (estimated), "zero" or a number (a fixed
// constant mean).
func ParseMean(s string) (Mean, error) {
	switch t := strings.ToLower(strings.TrimSpace(s)); t {
	case "constant", "const", "estimate", "estimated":
		return MeanConstant, nil
	case "zero", "none":
		return MeanZero, nil
	default:
		c, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(c) || math.IsInf(c, 0) {
			return Mean{}, fmt.Errorf("sgp: unknown mean %q: use constant (estimated), zero or a finite number", s)
		}
		return MeanFixed(c), nil
	}
}

// startValue returns the mean a model starts from: the sample mean of y
// for an estimated mean (GLSMean then refines it), otherwise the fixed
// value.
func (mn Mean) startValue(y []float64) float64 {
	if mn.kind != meanConstant {
		return mn.fixedValue()
	}
	m, _ := meanVar(y)
	if math.IsNaN(m) || math.IsInf(m, 0) {
		return 0
	}
	return m
}
