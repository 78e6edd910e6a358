package sgp

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

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

// canonicalRows returns an order of the rows of vector inputs x with
// targets y that does not depend on the order of the rows, nor on the
// order of the columns, nor on a positive scaling or shift of any column
// or of y: the rows sorted by a key, the row's values standardised by
// their column's mean and sd and sorted, then the standardised target,
// compared lexicographically (rows with equal keys keep their order),
// then shuffled by a fixed permutation of n positions. Position p of the
// order is row order[p]. The random draws of rows of the fits (the
// starting sets, the candidates, the information pivots' refreshes) pick
// positions and read the rows there, so that a fit of the same data in
// another row order draws the same rows. It returns nil for inputs that
// are not vectors, whose draws are of rows in their own order. Space
// O(n·d).
func canonicalRows(x kernel.Inputs, y []float64) []int {
	xv, ok := x.(*kernel.Vectors)
	if !ok || xv.Len() != len(y) {
		return nil
	}
	n, d := xv.Len(), xv.Dim()
	keys := make([]float64, n*(d+1))
	for t := range d {
		mean, sd := 0.0, 0.0
		for i := range n {
			mean += xv.At(i, t)
		}
		mean /= float64(n)
		for i := range n {
			e := xv.At(i, t) - mean
			sd += e * e
		}
		sd = math.Sqrt(sd / float64(n))
		for i := range n {
			if sd > 0 {
				keys[i*(d+1)+t] = (xv.At(i, t) - mean) / sd
			}
		}
	}
	ym, vy := meanVar(y)
	sy := math.Sqrt(vy)
	for i := range n {
		row := keys[i*(d+1) : i*(d+1)+d]
		slices.Sort(row)
		if sy > 0 {
			keys[i*(d+1)+d] = (y[i] - ym) / sy
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return slices.CompareFunc(keys[a*(d+1):(a+1)*(d+1)], keys[b*(d+1):(b+1)*(d+1)], cmp.Compare[float64])
	})
	// The sorted order follows the inputs' values (in one dimension it is
	// the order along the axis), so a tie broken by it, or a scan in it,
	// would favour one end of the data; a fixed shuffle of the positions,
	// which depends on n alone, keeps the order canonical and spreads it.
	shuffled := make([]int, n)
	for p, q := range rand.New(rand.NewPCG(uint64(n), canonicalStream)).Perm(n) {
		shuffled[p] = order[q]
	}
	return shuffled
}

// canonicalStream is the seed of canonicalRows' shuffle.
const canonicalStream = 0x63616e6f6e
