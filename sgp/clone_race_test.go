package sgp

import (
	"math"
	"sync"
	"testing"

	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// TestModelsShareNoKernel: two models made from one kernel value, fitted
// at the same time, each fit their own copy (run with -race): a Func, a
// sum holding one, and the caller's kernel is left as it was.
func TestModelsShareNoKernel(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(120, 3)
	f := func(x kernel.Inputs, i int, y kernel.Inputs, j int) float64 {
		d := x.(*kernel.Vectors).At(i, 0) - y.(*kernel.Vectors).At(j, 0)
		return math.Exp(-d * d / 2)
	}
	for name, k := range map[string]kernel.Kernel{
		"func":     kernel.NewFunc(f, 1),
		"rbf+func": kernel.NewSum(kernel.NewRBF(0.5, []float64{1}), kernel.NewFunc(f, 0.5)),
	} {
		before := k.Params(nil)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for g := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[g] = NewModel(train.X, train.Y, k).WithM(8).WithMaxEpochs(2).WithSeed(uint64(g + 1)).Fit()
			}()
		}
		wg.Wait()
		for g, err := range errs {
			if err != nil {
				t.Errorf("%s: fit %d: %v", name, g, err)
			}
		}
		after := k.Params(nil)
		for p := range before {
			if math.Float64bits(after[p]) != math.Float64bits(before[p]) {
				t.Errorf("%s: the fits changed the caller's kernel: θ %v, was %v", name, after, before)
				break
			}
		}
	}
}
