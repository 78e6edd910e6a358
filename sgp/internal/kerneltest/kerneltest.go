// Package kerneltest is a conformance suite for implementations of
// kernel.Kernel. Every kernel of the project runs it from its own test:
//
//	func TestRBF(t *testing.T) {
//		k := kernel.NewRBF(1, []float64{0.5, 2})
//		kerneltest.Test(t, k, x)
//	}
//
// in the style of gonum's testlapack (DpstrfTest(t, impl)), GPyTorch's
// BaseKernelTestCase and scikit-learn's test_kernel_diag and
// test_kernel_gradient. The suite checks the Kernel contract of
// sgp/kernel/kernel.go: hyperparameter bookkeeping, agreement of Column and Diag over
// sub-ranges, symmetry, positive semi-definiteness, and the gradients AddGrad
// and AddDiagGrad against central finite differences in θ, the log
// hyperparameters.
//
// It builds dense Gram matrices, which package sgp never does, so it uses at
// most maxInputs of the inputs it is given.
//
// Test (this file) runs the checks, one file per part of the contract:
// params.go the hyperparameter bookkeeping, values.go the kernel values
// (Column and Diag over sub-ranges, symmetry, positive semi-definiteness),
// grad.go the gradients against finite differences, block.go the fast
// paths of kernel.BlockEvaluator (against Column and AddGrad) and the
// input gradients of kernel.InputGradient (against finite differences in
// the inducing inputs), and concurrent.go evaluation from several
// goroutines.
package kerneltest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"
)

// Test runs the conformance suite on kernel k with inputs x (at least 2 points k accepts).
// It restores k's hyperparameters before returning.
func Test(t *testing.T, k kernel.Kernel, x kernel.Inputs) {
	t.Helper()
	if x.Len() < 2 {
		t.Fatalf("kerneltest: need at least 2 inputs, got %d", x.Len())
	}
	if x.Len() > maxInputs {
		x = x.Subset(seq(0, maxInputs))
	}
	var snapshot []float64
	if v, ok := x.(*kernel.Vectors); ok {
		snapshot = slices.Clone(v.RawData())
	}
	theta0 := k.Params(nil)
	defer k.SetParams(theta0)

	if !t.Run("Accepts", func(t *testing.T) {
		if err := k.Accepts(x); err != nil {
			t.Fatalf("Accepts(x) = %v, want nil", err)
		}
	}) {
		return
	}

	rnd := rand.New(rand.NewPCG(1, 1))
	t.Run("Params", func(t *testing.T) { testParams(t, k, x, theta0, rnd) })

	perturbed := slices.Clone(theta0)
	for p := range perturbed {
		perturbed[p] += perturbation * (2*rnd.Float64() - 1)
	}
	for _, s := range []struct {
		name  string
		theta []float64
	}{
		{"theta=current", theta0},
		{"theta=perturbed", perturbed},
	} {
		t.Run(s.name, func(t *testing.T) {
			defer k.SetParams(theta0)
			k.SetParams(s.theta)
			t.Run("ColumnSubRange", func(t *testing.T) { testColumnSubRange(t, k, x) })
			t.Run("ColumnCrossInputs", func(t *testing.T) { testColumnCross(t, k, x, rnd) })
			t.Run("DiagSubRange", func(t *testing.T) { testDiagSubRange(t, k, x) })
			t.Run("DiagIsColumnDiagonal", func(t *testing.T) { testDiagColumn(t, k, x) })
			t.Run("Symmetry", func(t *testing.T) { testSymmetry(t, k, x) })
			t.Run("PSD", func(t *testing.T) { testPSD(t, k, x) })
			t.Run("AddGrad", func(t *testing.T) { testAddGrad(t, k, x, s.theta, rnd) })
			t.Run("AddDiagGrad", func(t *testing.T) { testAddDiagGrad(t, k, x, s.theta, rnd) })
			t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, k, x, rnd) })
			if bk, ok := k.(kernel.BlockEvaluator); ok {
				t.Run("Block", func(t *testing.T) { testBlock(t, bk, x, rnd) })
			}
			if ik, ok := k.(kernel.InputGradient); ok {
				if xv, ok := x.(*kernel.Vectors); ok {
					t.Run("InputGrad", func(t *testing.T) { testInputGrad(t, ik, xv, rnd) })
				}
			}
		})
	}

	t.Run("InputsUnmodified", func(t *testing.T) {
		if snapshot == nil {
			t.Skipf("inputs of type %T expose no raw data to compare", x)
		}
		data := x.(*kernel.Vectors).RawData()
		if len(data) != len(snapshot) {
			t.Fatalf("len(RawData) = %d, was %d", len(data), len(snapshot))
		}
		for i := range data {
			// Bit equality: the data must not have been touched at all.
			if math.Float64bits(data[i]) != math.Float64bits(snapshot[i]) {
				t.Errorf("inputs modified: RawData()[%d] = %v, was %v", i, data[i], snapshot[i])
			}
		}
	})
}
