package sgp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/internal/cholqr"
	"github.com/cholqr/sgp/sgp/internal/naive"
	"github.com/cholqr/sgp/sgp/kernel"
)

// problem is a small random regression problem with its dense kernel
// matrix for the oracle (the engine's tests in package cholqr have the
// same).
type problem struct {
	x     *kernel.Vectors
	rows  [][]float64
	y     []float64
	kern  *kernel.RBF
	noise float64
	K     *mat.SymDense
}

func newProblem(rng *rand.Rand, n, dim int, variance, ls, noise float64) *problem {
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
				// A jittered grid keeps 1-D subsets well conditioned.
				rows[i][t] = 0.25 * (float64(i) + 0.5*rng.Float64())
			}
			s += math.Sin(2 * rows[i][t])
		}
		y[i] = s + 0.3*rng.NormFloat64()
	}
	x, err := kernel.VectorsFromRows(rows)
	if err != nil {
		panic(err)
	}
	return &problem{x: x, rows: rows, y: y, kern: kernel.NewRBF(variance, lss), noise: noise,
		K: naive.RBF(rows, variance, lss)}
}

func (p *problem) factor(t *testing.T, m, z int) *cholqr.Factor {
	t.Helper()
	f, err := cholqr.New(p.x, p.y, p.kern, p.noise, m, z)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (p *problem) oracle(t *testing.T, active []int, o Objective) float64 {
	t.Helper()
	mle, vfe, ok := naive.DTC(p.K, p.y, p.noise, active)
	if !ok {
		t.Fatalf("oracle failed for active set %v", active)
	}
	if o == MLE {
		return mle
	}
	return vfe
}
