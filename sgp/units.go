package sgp

import (
	"math"

	"gonum.org/v1/gonum/optimize"

	"github.com/cholqr/sgp/sgp/internal/stats"
	"github.com/cholqr/sgp/sgp/kernel"
)

// A GP regression is equivariant to the units of its data: with the
// targets y → s·y + b the signal and noise variances scale by s², μ maps
// to s·μ + b, the predictions map likewise and both objectives shift by
// exactly n·log s; with input column t scaled by c_t the lengthscales
// (and periods) of t scale by c_t. The fits keep this by construction:
// what their optimisers and stop rules see does not depend on the units.
// The hyperparameters are log values (a change of units translates
// them), the inducing inputs of a continuous fit are optimised in units
// of their column's spread (inputScales), objective changes are measured
// against F − n·log sd(y) (logScaleOf, shiftedConverge), jitter is
// relative to the targets' variance (jitterScale), and the random draws of
// rows go through an order of the rows that does not depend on their
// order in the data, nor on the units or order of the columns
// (canonicalRows). docs/algorithm.md ("Units and equivariance") says
// what is invariant and where it is not.

// logScaleOf returns ½n·log var(y) = n·log sd(y) for targets y (0 for
// constant targets): the amount by which a change of the targets' units
// shifts the objectives, so that F − logScaleOf(y) does not depend on
// them.
func logScaleOf(y []float64) float64 {
	if v := stats.Variance(y); v > 0 && !math.IsInf(v, 0) {
		return 0.5 * float64(len(y)) * math.Log(v)
	}
	return 0
}

// unitFreeScale returns the magnitude against which relative changes of
// an objective value v of n targets are measured: |v − logScale|, the
// magnitude of the objective of the standardised targets, and at least
// n/100 (as cholqr.Factor.ValueScale).
func unitFreeScale(v, logScale float64, n int) float64 {
	return math.Max(math.Abs(v-logScale), float64(n)/100)
}

// shiftedConverge is gonum's FunctionConverge applied to F − offset, with
// offset = logScaleOf(y): its relative test then compares changes of F
// with the objective of the standardised targets, whatever the units of
// y, and the absolute part, rel·n/100, bounds the test where that
// objective is near 0.
type shiftedConverge struct {
	optimize.FunctionConverge
	offset float64
}

// newShiftedConverge returns the test that F − offset changed by less
// than a relative rel (at least rel·n/100) over iters iterations.
func newShiftedConverge(rel float64, iters, n int, offset float64) *shiftedConverge {
	return &shiftedConverge{FunctionConverge: optimize.FunctionConverge{Relative: rel, Absolute: rel * float64(n) / 100, Iterations: iters}, offset: offset}
}

func (c *shiftedConverge) Converged(loc *optimize.Location) optimize.Status {
	l := *loc
	l.F -= c.offset
	return c.FunctionConverge.Converged(&l)
}

// jitterScale returns the variance against which the jitter of a
// continuous fit is relative: the variance of y around a quadratic trend
// in the inputs x (detrendedVariance, the noise floor's reference), at
// least jitterMinRel of var(y); 1 for constant targets. On standardised
// targets without a strong trend it is about 1, so a relative jitter of
// 10⁻⁶ is GPflow's default there; unlike var(y) it is not inflated by a
// smooth trend, which a jitter relative to var(y) would blur (see
// hybridJitter).
func jitterScale(x kernel.Inputs, y []float64) float64 {
	vy := stats.Variance(y)
	if v := max(detrendedVariance(x, y, vy), jitterMinRel*vy); v > 0 && !math.IsInf(v, 0) {
		return v
	}
	return 1
}

// jitterMinRel is the least jitterScale relative to var(y): targets that
// a quadratic trend explains exactly leave no variance around it, and the
// jitter, which keeps K[Z,Z] factorisable, must stay above rounding of
// its diagonal (about var(y)).
const jitterMinRel = 1e-6

// inputScales returns the spread of each column of x, its standard
// deviation (1 for a constant column): a continuous fit optimises the
// inducing inputs in these units, Z_t/scale_t, so that scaling an input
// column scales nothing the optimiser sees. L-BFGS starts from steepest
// descent and scales its curvature model by one number; in raw units
// both depend on how each column is measured.
func inputScales(x *kernel.Vectors) []float64 {
	n, d := x.Len(), x.Dim()
	sc := make([]float64, d)
	for t := range d {
		var mean float64
		for i := range n {
			mean += x.At(i, t)
		}
		mean /= float64(n)
		var ss float64
		for i := range n {
			e := x.At(i, t) - mean
			ss += e * e
		}
		if sc[t] = math.Sqrt(ss / float64(n)); !(sc[t] > 0) || math.IsInf(sc[t], 0) {
			sc[t] = 1
		}
	}
	return sc
}
