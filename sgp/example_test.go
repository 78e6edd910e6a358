package sgp_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// ExampleModel_FitContext fits CholQR with its defaults (the VAR objective,
// a forward-selection start) under a context, and reads the result.
func ExampleModel_FitContext() {
	train, _ := data.SnelsonLike(200, 1)
	k := kernel.NewRBFFromData(train.X, train.Y)
	md := sgp.NewModel(train.X, train.Y, k).WithM(12).WithSeed(1)
	res, err := md.FitContext(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("status:", res.Status, "converged:", res.Converged)
	fmt.Println("inducing points:", len(res.Inducing), "of", res.M)
	fmt.Printf("objective: %.4g\n", res.Objective)
	fmt.Printf("noise standard deviation: %.2g\n", math.Sqrt(res.Hyperparameters().Value("noise")))
	// Output:
	// status: converged converged: true
	// inducing points: 12 of 12
	// objective: 77.38
	// noise standard deviation: 0.3
}

// ExampleModel_Step drives a fit by hand: one epoch (a gradient phase on
// the hyperparameters, then a pass of swaps), then single swaps, each
// accepted only if it lowers the objective.
func ExampleModel_Step() {
	train, _ := data.SnelsonLike(100, 2)
	md := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(8).WithSeed(2)
	start, err := md.Value()
	if err != nil {
		fmt.Println(err)
		return
	}
	rec, err := md.Step()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("epoch", rec.Epoch, "lowered the objective:", rec.Objective < start)
	for range 3 {
		sr, err := md.Swap()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("swap never raises it:", sr.After <= sr.Before)
	}
	idx, _ := md.Inducing()
	fmt.Println("inducing points:", len(idx))
	// Output:
	// epoch 1 lowered the objective: true
	// swap never raises it: true
	// swap never raises it: true
	// swap never raises it: true
	// inducing points: 8
}

// ExampleModel_PredictNoisy predicts at new inputs: the mean and the
// variance of a noisy observation there (Predict gives the latent
// function's variance, without the noise).
func ExampleModel_PredictNoisy() {
	train, _ := data.SnelsonLike(200, 1)
	md := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(12).WithSeed(1)
	if _, err := md.Fit(); err != nil {
		fmt.Println(err)
		return
	}
	xs, _ := kernel.NewVectors(3, 1, []float64{1, 3, 5})
	mean, variance, err := md.PredictNoisy(xs)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range mean {
		fmt.Printf("x=%g: %.2f ± %.2f\n", xs.At(i, 0), mean[i], 1.96*math.Sqrt(variance[i]))
	}
	// Output:
	// x=1: -0.09 ± 0.61
	// x=3: 0.04 ± 0.62
	// x=5: 0.40 ± 0.68
}

// ExamplePredictor_SaveFile saves a fitted model's predictor and loads it
// back: the loaded predictor predicts as the model does.
func ExamplePredictor_SaveFile() {
	train, test := data.SnelsonLike(200, 1)
	md := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(12).WithSeed(1)
	if _, err := md.Fit(); err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "sgp-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.json")
	p, err := md.Predictor()
	if err == nil {
		err = p.SaveFile(path)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	loaded, err := sgp.LoadPredictorFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	want, _, _ := md.PredictNoisy(test.X)
	got, _, _ := loaded.PredictNoisy(test.X)
	diff := 0.0
	for i := range want {
		diff = max(diff, math.Abs(got[i]-want[i]))
	}
	fmt.Println("test points:", len(got), "largest difference below 1e-9:", diff < 1e-9)
	// Output:
	// test points: 301 largest difference below 1e-9: true
}

// ExampleComparison fits the two objectives of the paper and the exact GP
// to the same data and puts them side by side with their test scores.
func ExampleComparison() {
	train, test := data.SnelsonLike(200, 1)
	fit := func(o sgp.Objective) *sgp.Result {
		k := kernel.NewRBFFromData(train.X, train.Y)
		res, err := sgp.NewModel(train.X, train.Y, k).WithM(8).WithSeed(1).WithObjective(o).Fit()
		if err != nil {
			panic(err)
		}
		return res
	}
	exact, err := sgp.NewExact(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).Fit()
	if err != nil {
		fmt.Println(err)
		return
	}
	c := sgp.NewComparison(test).Add("VAR", fit(sgp.VAR)).Add("MLE", fit(sgp.MLE)).Add("exact GP", exact)
	for _, row := range c.Rows {
		fmt.Printf("%-8s objective %.4g  SMSE %.2f\n", row.Name, row.Objective, row.Eval.SMSE)
	}
	// Output:
	// VAR      objective 91.54  SMSE 0.54
	// MLE      objective 62.36  SMSE 0.58
	// exact GP objective 55.95  SMSE 0.29
}

// ExampleModel_CostRanking compares, for one removed inducing point, the
// exact decrease of the objective from adding each candidate with its
// approximation through the information pivots (Cao et al. 2013, §4): the
// approximation ranks the candidates nearly as the exact cost does.
func ExampleModel_CostRanking() {
	train, _ := data.SnelsonLike(200, 1)
	md := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(8).WithSeed(1)
	if _, err := md.Fit(); err != nil {
		fmt.Println(err)
		return
	}
	idx, _ := md.Inducing()
	cr, err := md.CostRanking(idx[0], 50)
	if err != nil {
		fmt.Println(err)
		return
	}
	best := func(v []float64) int {
		b := 0
		for i := range v {
			if v[i] > v[b] {
				b = i
			}
		}
		return b
	}
	fmt.Println("candidates:", len(cr.Candidates), "information pivots:", len(cr.InfoPivots))
	fmt.Println("same best candidate:", best(cr.Exact) == best(cr.Approx))
	// Output:
	// candidates: 50 information pivots: 10
	// same best candidate: true
}

// Example_discrete fits strings with the k-mer spectrum kernel: the
// inducing points are training strings, chosen among the data since
// strings cannot move continuously.
func Example_discrete() {
	words := []string{"GATTACA", "GATTCCA", "CATTACA", "GGTTACA", "TTTTTTT", "TTTATTT", "TATTTTT", "TTTTTAT",
		"ACGTACG", "ACGTTCG", "ACCTACG", "ACGTACC", "CCCCCCC", "CCCGCCC", "CCCCCGC", "GCCCCCC"}
	y := make([]float64, len(words))
	for i, w := range words {
		for _, c := range w {
			if c == 'T' {
				y[i]++
			}
		}
	}
	x, err := kernel.NewStrings(words)
	if err != nil {
		fmt.Println(err)
		return
	}
	md := sgp.NewModel(x, y, kernel.NewSpectrum(2, 1)).WithM(6).WithSeed(1)
	res, err := md.Fit()
	if err != nil {
		fmt.Println(err)
		return
	}
	xs, _ := kernel.NewStrings([]string{"TTTTATT", "CCCCACC"})
	mean, _, err := md.Predict(xs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("inducing strings:", len(res.Inducing))
	for i := range mean {
		fmt.Printf("%s: %d T predicted\n", xs.At(i), int(math.Round(mean[i])))
	}
	// Output:
	// inducing strings: 6
	// TTTTATT: 6 T predicted
	// CCCCACC: 0 T predicted
}

// ExampleNewExact fits the full Gaussian process, the reference for what
// sparsity costs: its objective is the exact negative log marginal
// likelihood, which the sparse VAR objective bounds from above.
func ExampleNewExact() {
	train, _ := data.SnelsonLike(200, 1)
	exact, err := sgp.NewExact(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).Fit()
	if err != nil {
		fmt.Println(err)
		return
	}
	sparse, err := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(8).WithSeed(1).Fit()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("status:", exact.Status, "points:", exact.N)
	fmt.Printf("exact objective: %.4g\n", exact.Objective)
	fmt.Println("VAR bounds it from above:", sparse.Objective >= exact.Objective)
	// Output:
	// status: converged points: 200
	// exact objective: 55.95
	// VAR bounds it from above: true
}

// ExampleNewContinuous fits SGPR with inducing inputs that move
// continuously (Titsias 2009), the method CholQR is compared with on
// vector inputs.
func ExampleNewContinuous() {
	train, _ := data.SnelsonLike(200, 1)
	res, err := sgp.NewContinuous(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).
		WithM(8).WithSeed(1).WithMaxEvals(200).Fit()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("objective:", res.Kind, "inducing inputs:", res.Z.Len())
	fmt.Printf("objective lowered from %.4g to %.4g\n", res.Start, res.Objective)
	// Output:
	// objective: VAR inducing inputs: 8
	// objective lowered from 342.3 to 91.5
}
