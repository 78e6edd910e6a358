package naive

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Problem is a small random regression problem for the tests of the
// engine and of the model: inputs, targets, an RBF kernel's
// hyperparameters, a noise variance and the dense kernel matrix K of the
// oracle.
type Problem struct {
	Rows         [][]float64
	Y            []float64
	Variance     float64
	Lengthscales []float64
	Noise        float64
	K            *mat.SymDense
}

// NewProblem draws n inputs of dimension dim (uniform on [0, 4), or a
// jittered grid in one dimension, which keeps 1-D subsets well
// conditioned), targets Σ_t sin(2x_t) plus noise of sd 0.3, and
// lengthscales ls·U(0.5, 1.5) per dimension.
func NewProblem(rng *rand.Rand, n, dim int, variance, ls, noise float64) *Problem {
	rows := make([][]float64, n)
	y := make([]float64, n)
	lss := make([]float64, dim)
	for t := range lss {
		lss[t] = ls * (0.5 + rng.Float64())
	}
	for i := range rows {
		rows[i] = make([]float64, dim)
		var s float64
		for t := range rows[i] {
			rows[i][t] = 4 * rng.Float64()
			if dim == 1 {
				rows[i][t] = 0.25 * (float64(i) + 0.5*rng.Float64())
			}
			s += math.Sin(2 * rows[i][t])
		}
		y[i] = s + 0.3*rng.NormFloat64()
	}
	return &Problem{Rows: rows, Y: y, Variance: variance, Lengthscales: lss, Noise: noise, K: RBF(rows, variance, lss)}
}

// NearDuplicateProblem is a 1-D problem of 24 points on a jittered grid
// whose point 7 is a copy of point 3 moved by 1e-5: given point 3, its
// residual variance is about 2·10⁻¹⁰ of the kernel's variance, below
// what the engine keeps as a pivot.
func NearDuplicateProblem() *Problem {
	rng := rand.New(rand.NewPCG(4, 4))
	const n = 24
	rows := make([][]float64, n)
	y := make([]float64, n)
	for i := range rows {
		rows[i] = []float64{0.25 * (float64(i) + 0.5*rng.Float64())}
	}
	rows[7][0] = rows[3][0] + 1e-5
	for i := range y {
		y[i] = math.Sin(2*rows[i][0]) + 0.1*rng.NormFloat64()
	}
	const variance, ls, noise = 1.7, 0.7, 0.05
	lss := []float64{ls}
	return &Problem{Rows: rows, Y: y, Variance: variance, Lengthscales: lss, Noise: noise, K: RBF(rows, variance, lss)}
}
