package cli

import (
	"testing"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// TestDefaultMIsTheModels: the m that fit reports and fits without --m is
// the one sgp.NewModel chooses without WithM.
func TestDefaultMIsTheModels(t *testing.T) {
	t.Parallel()
	for _, n := range []int{3, 40, 199, 201, 400} {
		train, _ := data.SnelsonLike(n, 1)
		res, err := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).
			WithFixedHyperparameters(true).WithMaxEpochs(1).Fit()
		if err != nil {
			t.Fatal(err)
		}
		if res.M != defaultM(n) {
			t.Errorf("n=%d: the model's default m is %d, the CLI's %d", n, res.M, defaultM(n))
		}
	}
}
