package sgp_test

import (
	"fmt"
	"math"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// ExampleModel fits CholQR to the embedded Snelson-like problem and
// predicts on its test grid.
func ExampleModel() {
	train, test := data.SnelsonLike(200, 1)
	m := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(10).WithObjective(sgp.VAR)
	start, _ := m.Value()
	res, err := m.Fit()
	if err != nil {
		fmt.Println(err)
		return
	}
	mean, variance, _ := m.PredictNoisy(test.X)
	fmt.Println("inducing points:", len(res.Inducing))
	fmt.Println("objective decreased:", res.Objective < start)
	fmt.Println("predictions:", len(mean), len(variance))
	// Output:
	// inducing points: 10
	// objective decreased: true
	// predictions: 301 301
}

// ExampleFactor drives a model by hand, one swap, and reads the factored
// state: the inducing set and the objective read off the factors.
func ExampleFactor() {
	x, _ := kernel.NewVectors(6, 1, []float64{0, 1, 2, 3, 4, 5})
	y := []float64{0, 0.8, 0.9, 0.1, -0.8, -1}
	md := sgp.NewModel(x, y, kernel.NewRBF(1, []float64{1})).WithInducing([]int{0, 1}).WithInfoPivots(2).
		WithNoise(0.01).WithMean(sgp.MeanZero)
	res, err := md.SwapPoint(0)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := md.Factor()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("accepted:", res.Accepted, "removed:", res.Removed, "inducing:", f.Active(nil))
	fmt.Println("objective read off the factors:", math.Abs(res.After-f.Value(sgp.VAR)) < 1e-9)
	fmt.Println("decreased:", res.After < res.Before)
	// Output:
	// accepted: true removed: 0 inducing: [1 5]
	// objective read off the factors: true
	// decreased: true
}
