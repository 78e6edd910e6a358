package sgp

import (
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
	return fromNaive(naive.NewProblem(rng, n, dim, variance, ls, noise))
}

// fromNaive is the oracle's problem with its kernel and inputs.
func fromNaive(q *naive.Problem) *problem {
	x, err := kernel.VectorsFromRows(q.Rows)
	if err != nil {
		panic(err)
	}
	return &problem{x: x, rows: q.Rows, y: q.Y, kern: kernel.NewRBF(q.Variance, q.Lengthscales), noise: q.Noise, K: q.K}
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
