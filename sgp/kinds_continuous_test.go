package sgp

import (
	"math"
	"testing"

	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// TestKindsContinuous: continuous SGPR moves the inducing inputs of every
// kernel beyond RBF with input gradients, Matérn-1/2 included, whose inducing
// inputs start on training inputs (the cusp, where it takes the
// subgradient 0), to a finite objective below its start; the hybrid
// selector runs with the kernels that have lengthscales.
func TestKindsContinuous(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(120, 3)
	for _, spec := range []string{"matern12", "matern32", "matern52", "rq", "periodic"} {
		k, err := kernel.Parse(spec, train.X, train.Y)
		if err != nil {
			t.Fatal(err)
		}
		z0 := train.X.Rows([]int{3, 20, 41, 77, 100, 111})
		cr, err := NewContinuous(train.X, train.Y, k).WithInducingInputs(z0).WithNoise(0.1).WithMaxEvals(60).Fit()
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if math.IsNaN(cr.Objective) || math.IsInf(cr.Objective, 0) || !(cr.Objective < cr.Start) {
			t.Errorf("%s: objective %v from %v", spec, cr.Objective, cr.Start)
		}
	}
	for _, spec := range []string{"matern12", "matern52", "rq", "periodic"} {
		k, err := kernel.Parse(spec, train.X, train.Y)
		if err != nil {
			t.Fatal(err)
		}
		md := NewModel(train.X, train.Y, k).WithM(8).WithMaxEpochs(3).WithSelector(SelectHybrid)
		res, err := md.Fit()
		if err != nil {
			t.Fatalf("hybrid %s: %v", spec, err)
		}
		if math.IsNaN(res.Objective) || math.IsInf(res.Objective, 0) {
			t.Errorf("hybrid %s: objective %v", spec, res.Objective)
		}
	}
}
