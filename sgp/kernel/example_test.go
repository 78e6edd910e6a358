package kernel_test

import (
	"fmt"
	"math"

	"github.com/cholqr/sgp/sgp/kernel"
)

// examplePoints returns six points on a line, x = 0, 1, …, 5, with targets
// of variance 1 and mean 0.
func examplePoints() (*kernel.Vectors, []float64) {
	x, _ := kernel.NewVectors(6, 1, []float64{0, 1, 2, 3, 4, 5})
	return x, []float64{1, -1, 1, -1, 1, -1}
}

// ExampleParse builds a sum and a product of kernels from their command-line
// specifications, with starting hyperparameters from the data: each term of
// a sum starts with its share of the targets' variance, a product's first
// factor with all of it. The linear term is zero at x₀ = 0.
func ExampleParse() {
	x, y := examplePoints()
	for _, spec := range []string{"rbf+linear", "periodic*rbf"} {
		k, err := kernel.Parse(spec, x, y)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(spec, "→", kernel.Name(k), k.ParamNames())
		d := make([]float64, 1)
		k.Diag(d, x, 0, 1)
		fmt.Printf("  κ(x₀, x₀) = %.3g\n", d[0])
	}
	if _, err := kernel.Parse("rbf+", x, y); err != nil {
		fmt.Println(err)
	}
	// Output:
	// rbf+linear → sum of RBF-ARD, 1 lengthscale + linear ARD, 1 variance [k0.variance k0.lengthscale[0] k1.variance[0]]
	//   κ(x₀, x₀) = 0.5
	// periodic*rbf → product of periodic, 1 dimension * RBF-ARD, 1 lengthscale [k0.variance k0.lengthscale[0] k0.period[0] k1.variance k1.lengthscale[0]]
	//   κ(x₀, x₀) = 1
	// sgp: kernel "rbf+": a kernel name is missing at character 5; write sums and products of rbf, matern12, matern32, matern52, rq, linear, periodic, const, such as rbf+linear, periodic*rbf or (rbf+linear)*const
}

// ExampleNewRBFFromData starts an RBF kernel from the data: its variance
// from the targets', its lengthscale from the inputs' spread.
func ExampleNewRBFFromData() {
	x, y := examplePoints()
	k := kernel.NewRBFFromData(x, y)
	fmt.Printf("variance %.3g, lengthscales %.3g\n", k.Variance(), k.Lengthscales())
	// Output:
	// variance 1, lengthscales [2.5]
}

// ExampleMatern evaluates a Matérn ν = 3/2 kernel along a column: κ(x, x′)
// = σ²(1 + √3 r/ℓ) exp(−√3 r/ℓ) at distance r.
func ExampleMatern() {
	x, _ := examplePoints()
	k := kernel.NewMatern(1.5, 2, []float64{1})
	col := make([]float64, x.Len())
	k.Column(col, x, 0, x.Len(), x, 0) // κ(x_i, x_0) for every i
	for i, v := range col[:3] {
		r := float64(i)
		want := 2 * (1 + math.Sqrt(3)*r) * math.Exp(-math.Sqrt(3)*r)
		fmt.Printf("r=%g: %.4f (formula %.4f)\n", r, v, want)
	}
	// Output:
	// r=0: 2.0000 (formula 2.0000)
	// r=1: 0.9667 (formula 0.9667)
	// r=2: 0.2795 (formula 0.2795)
}
