package sgp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/internal/stats"
	"github.com/cholqr/sgp/sgp/kernel"
)

// noiseFloorRel is the least noise variance a fit of the hyperparameters
// can reach, relative to the variance of the targets around a quadratic
// trend in the inputs (see noiseFloor). As σ² → 0 on targets with little
// or no noise (a deterministic simulator, a smooth function sampled
// exactly) both objectives run away towards an interpolant whose value
// rounding decides: F can change by nats between two evaluations of one
// state, the fit stalls, and a rebuild that leaves inducing points out
// can raise F by orders of magnitude. The floor
// is 10⁻⁶ of that variance, GPflow's default lower bound on the
// likelihood variance for standardised targets (GPyTorch's is 10⁻⁴); the
// fitted model is then accurate to about that fraction of it.
//
// The variance is taken around a trend, not around the mean, because a
// target dominated by a smooth trend has a variance that says nothing of
// its noise: y = 50 + 3 sin x₀ + x₁²/100 + ε with x₁ ∈ [0, 1000] and
// var ε = 0.25 has var(y) ≈ 8.9·10⁶, and 10⁻⁶ of it (8.9) would hold σ²
// at 35 times the noise, with predictive intervals far too wide; around
// the quadratic trend the variance is about 4.7 and the floor does not
// bind.
const noiseFloorRel = 1e-6

// noiseFloorMin is the least default floor relative to var(y): targets
// that a quadratic trend explains exactly (y = x² sampled without noise)
// leave no variance around it, and a zero floor brings back the rounding
// noiseFloorRel guards against; at 10⁻⁹ of var(y), E_D = σ⁻²(‖y‖² − ‖a‖²)
// (Cao et al. 2013, §3) loses at most about eps·n·var(y)/σ² ≈ 2·10⁻⁷·n
// nats to rounding, well below the fit's tolerance of 10⁻⁴ of its scale.
const noiseFloorMin = 1e-9

// trendMaxDim and trendRows bound the cost of detrendedVariance: the
// quadratic trend has 2d+1 terms, fitted on at most trendRows rows (taken
// at a regular stride), so its normal equations cost at most
// trendRows·(2d+1)² flops.
const (
	trendMaxDim = 64
	trendRows   = 10000
)

// detrendedVariance returns the variance of y around its least-squares
// fit by 1, x_t and x_t² for each input t (no cross terms), estimated on
// at most trendRows rows; vy (var(y)) for inputs that are not vectors,
// or with more than trendMaxDim dimensions, or if the fit fails. The
// columns are standardised, and the normal equations solved with a small
// ridge (10⁻¹⁰ of their diagonal) so that constant or collinear inputs
// do not break them.
func detrendedVariance(x kernel.Inputs, y []float64, vy float64) float64 {
	xv, ok := x.(*kernel.Vectors)
	if !ok || xv.Len() != len(y) || xv.Dim() > trendMaxDim || len(y) < 2 {
		return vy
	}
	return detrendedStrided(xv, y, max(1, len(y)/trendRows), vy)
}

// detrendedStrided is detrendedVariance on the rows 0, stride, 2·stride,
// … of xv and y: a fit over ranks passes the rows detrendedVariance
// takes, gathered from the ranks, with stride 1.
func detrendedStrided(xv *kernel.Vectors, y []float64, stride int, vy float64) float64 {
	n, d := len(y), xv.Dim()
	rows := (n + stride - 1) / stride
	p := 2*d + 1
	if rows <= p {
		return vy
	}
	// Standardise each term on the rows used: mean and sd per column.
	mean, sd := make([]float64, p), make([]float64, p)
	term := func(i, c int) float64 {
		if c == 0 {
			return 1
		}
		v := xv.At(i, (c-1)/2)
		if c%2 == 0 {
			return v * v
		}
		return v
	}
	for c := 1; c < p; c++ {
		var s float64
		for i := 0; i < n; i += stride {
			s += term(i, c)
		}
		mean[c] = s / float64(rows)
		var ss float64
		for i := 0; i < n; i += stride {
			dv := term(i, c) - mean[c]
			ss += dv * dv
		}
		sd[c] = math.Sqrt(ss / float64(rows))
	}
	sd[0] = 1
	col := func(i, c int) float64 {
		if c == 0 {
			return 1
		}
		if !(sd[c] > 0) {
			return 0
		}
		return (term(i, c) - mean[c]) / sd[c]
	}
	var ym float64
	for i := 0; i < n; i += stride {
		ym += y[i]
	}
	ym /= float64(rows)
	ata := mat.NewSymDense(p, nil)
	aty := make([]float64, p)
	row := make([]float64, p)
	for i := 0; i < n; i += stride {
		for c := range row {
			row[c] = col(i, c)
		}
		for a := 0; a < p; a++ {
			aty[a] += row[a] * (y[i] - ym)
			for b := a; b < p; b++ {
				ata.SetSym(a, b, ata.At(a, b)+row[a]*row[b])
			}
		}
	}
	for a := 0; a < p; a++ {
		ata.SetSym(a, a, ata.At(a, a)*(1+1e-10)+1e-300)
	}
	var ch mat.Cholesky
	if !ch.Factorize(ata) {
		return vy
	}
	var beta mat.VecDense
	if err := ch.SolveVecTo(&beta, mat.NewVecDense(p, aty)); err != nil {
		return vy
	}
	var ss float64
	for i := 0; i < n; i += stride {
		r := y[i] - ym
		for c := 0; c < p; c++ {
			r -= beta.AtVec(c) * col(i, c)
		}
		ss += r * r
	}
	v := ss / float64(rows)
	if !(v >= 0) || math.IsInf(v, 0) {
		return vy
	}
	return min(v, vy)
}

// The optimisers of the hyperparameters keep σ² above the noise floor by
// a change of variables (paramMap's coordFloor): the noise's coordinate u
// gives σ² = floor + exp(u), so every u is feasible, the objective stays
// smooth, and its gradient in u vanishes towards the floor (GPyTorch's
// GreaterThan constraint does the same through softplus). A zero floor
// leaves u = log σ².

// noiseFloor returns the noise floor of a fit of targets y at inputs x:
// set if it is positive (WithNoiseFloor, Continuous.WithNoiseFloor,
// Exact.WithNoiseFloor), otherwise noiseFloorRel times the variance
// of y that a quadratic trend in the inputs leaves (detrendedVariance),
// but at least noiseFloorMin·var(y); 0 if that is not a positive finite
// number.
func noiseFloor(x kernel.Inputs, y []float64, set float64) float64 {
	if set > 0 {
		return set
	}
	vy := stats.Variance(y)
	return floorFrom(detrendedVariance(x, y, vy), vy)
}

// floorFrom is noiseFloor's default for targets of variance vy whose
// variance around the trend is dv.
func floorFrom(dv, vy float64) float64 {
	f := max(noiseFloorRel*dv, noiseFloorMin*vy)
	if !(f > 0) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// checkNoiseFloor returns an error unless floor is a valid noise floor:
// 0 (the default) or a positive finite variance.
func checkNoiseFloor(floor float64) error {
	if !(floor >= 0) || math.IsInf(floor, 0) {
		return fmt.Errorf("sgp: noise floor %v must be a finite variance ≥ 0 (0: the default, %g of the targets' variance around a quadratic trend)", floor, noiseFloorRel)
	}
	return nil
}

// atFloorSlack is how close to the floor a fitted noise variance counts as
// at the floor: σ² ≤ (1 + atFloorSlack)·floor. Near the floor the
// objective's gradient in u = log(σ² − floor) vanishes (see paramMap), so
// a fit that presses against it stops a little above it.
const atFloorSlack = 0.05

// atNoiseFloor reports whether the noise variance s2 of a fit ended at
// the floor.
func atNoiseFloor(s2, floor float64) bool {
	return floor > 0 && s2 <= (1+atFloorSlack)*floor
}

// noiseFloorWarning is the warning of a fit whose noise variance s2 ended
// at the floor.
func noiseFloorWarning(s2, floor float64, set bool) string {
	which := fmt.Sprintf("the default, %g of the targets' variance around a quadratic trend in the inputs", noiseFloorRel)
	if set {
		which = "as set"
	}
	return fmt.Sprintf("the noise variance ended at its floor: σ² = %.4g, floor %.4g (%s); the floor, not the data, decided σ² and the predictive variances; if the targets have less noise than that, lower the floor (WithNoiseFloor; sgprepl fit --noise-floor)",
		s2, floor, which)
}
