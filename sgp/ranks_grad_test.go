package sgp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/naive"
	"github.com/cholqr/sgp/sgp/kernel"
)

// ranksGradProblem returns n rows of two inputs and smooth targets with
// noise.
func ranksGradProblem(n int) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(21, 22))
	rows := make([][]float64, n)
	y := make([]float64, n)
	for i := range rows {
		rows[i] = []float64{4 * rng.Float64(), 4 * rng.Float64()}
		y[i] = math.Sin(2*rows[i][0]) + math.Cos(rows[i][1]) + 0.1*rng.NormFloat64()
	}
	return rows, y
}

// sameBits reports whether a and b hold the same float64 bits.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(u, v float64) bool { return math.Float64bits(u) == math.Float64bits(v) })
}

// TestFitRanksLearnsSameForEveryP checks that FitRanks with learned
// hyperparameters gives, on every rank of P = 1…4 (n = 1800: with P = 3
// and 4 some ranks hold no rows), the same hyperparameters, inducing set
// and objective bit for bit; that it moved θ and lowered the objective
// from its start; and that its objective is the dense oracle's at its
// final θ and set within 1e-9.
func TestFitRanksLearnsSameForEveryP(t *testing.T) {
	rows, y := ranksGradProblem(1800)
	kern := kernel.NewRBF(1, []float64{2, 2})
	const noise = 0.3
	o := RanksOptions{M: 12, Objective: VAR, MaxEpochs: 3, Seed: 3, Mean: MeanZero, Learn: true}
	var want *RanksResult
	for P := 1; P <= 4; P++ {
		for r, res := range fitOnRanks(t, P, rows, y, kern, noise, o) {
			if want == nil {
				want = res
				continue
			}
			if !slices.Equal(res.Inducing, want.Inducing) || !sameBits([]float64{res.Value, res.Start}, []float64{want.Value, want.Start}) ||
				!sameBits(res.Hyperparameters.Values, want.Hyperparameters.Values) || res.CGEvals != want.CGEvals {
				t.Errorf("P=%d rank %d: set %v value %.17g θ %v evals %d; want %v %.17g %v %d", P, r,
					res.Inducing, res.Value, res.Hyperparameters.Values, res.CGEvals, want.Inducing, want.Value, want.Hyperparameters.Values, want.CGEvals)
			}
		}
	}
	h := want.Hyperparameters.Values
	if want.CGEvals == 0 || h[0] == 1 || h[3] == noise {
		t.Fatalf("θ %v after %d evaluations: not learned", h, want.CGEvals)
	}
	if !(want.Value < want.Start) {
		t.Errorf("VAR %.10g, not below its start %.10g", want.Value, want.Start)
	}
	_, vfe, ok := naive.DTC(naive.RBF(rows, h[0], h[1:3]), y, h[3], want.Inducing)
	if !ok || math.Abs(vfe-want.Value) > 1e-9*math.Abs(vfe) {
		t.Errorf("value %.12g, dense oracle %.12g at θ %v (ok %v)", want.Value, vfe, h, ok)
	}
	t.Logf("VAR %.10g → %.10g, θ %v, %d evaluations (%v), %d epochs", want.Start, want.Value, h, want.CGEvals, want.CGStatus, want.Epochs)
}

// TestFitRanksLearnsFixed checks that a hyperparameter named in Fixed
// keeps its starting bits while the others are learned, with an
// estimated mean, the same on P = 1 and 2; and that Fixed without Learn,
// or an unknown name, is an error.
func TestFitRanksLearnsFixed(t *testing.T) {
	rows, y := ranksGradProblem(1300)
	kern := kernel.NewRBF(1, []float64{2, 2})
	const noise = 0.05
	o := RanksOptions{M: 8, Objective: MLE, MaxEpochs: 2, Seed: 5, Mean: MeanConstant, Learn: true, Fixed: []string{"noise"}}
	var want *RanksResult
	for P := 1; P <= 2; P++ {
		for r, res := range fitOnRanks(t, P, rows, y, kern, noise, o) {
			h := res.Hyperparameters.Values
			if math.Float64bits(h[3]) != math.Float64bits(noise) || h[1] == 2 {
				t.Errorf("P=%d rank %d: θ %v, want σ² %v held and the lengthscales learned", P, r, h, noise)
			}
			if want == nil {
				want = res
			} else if !sameBits(h, want.Hyperparameters.Values) || !sameBits([]float64{res.Value, res.Mean}, []float64{want.Value, want.Mean}) {
				t.Errorf("P=%d rank %d: θ %v value %.17g μ %v; want %v %.17g %v", P, r, h, res.Value, res.Mean, want.Hyperparameters.Values, want.Value, want.Mean)
			}
		}
	}
	for _, bad := range []RanksOptions{{M: 4, Objective: VAR, Fixed: []string{"noise"}}, {M: 4, Objective: VAR, Learn: true, Fixed: []string{"nosie"}}} {
		x, _ := kernel.NewVectors(len(rows), 2, slices.Concat(rows...))
		if _, err := FitRanks(t.Context(), comm.Local(1)[0], x, y, 0, len(rows), kernel.Clone(kern), noise, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		} else {
			t.Log(fmt.Sprint(err))
		}
	}
}
