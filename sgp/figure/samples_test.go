package figure_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/cmpimg"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/figure"
	"github.com/cholqr/sgp/sgp/kernel"
)

// ExampleSamples fits a sparse GP with 10 inducing points to 200 points
// of the embedded Snelson-like data and draws five posterior curves over
// its mean and band to testdata/snelson_samples.png; TestSamplesGolden
// compares that file with testdata/snelson_samples_golden.png.
func ExampleSamples() {
	train, _ := data.SnelsonLike(200, 1)
	m := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).
		WithM(10).WithMaxEpochs(10)
	if _, err := m.Fit(); err != nil {
		fmt.Println(err)
		return
	}
	fig, err := figure.Samples(m, 5, 1, "Snelson-like data, CholQR-VAR, m = 10: 5 posterior draws")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := fig.Save(filepath.Join("testdata", "snelson_samples.png")); err != nil {
		fmt.Println(err)
		return
	}
	w, h := fig.Size()
	fmt.Printf("%g×%g in figure\n", w, h)
	// Output:
	// 6×4 in figure
}

// TestSamplesGolden runs ExampleSamples and compares its PNG with the
// committed golden image, with the tolerance of TestFit1DGolden (the
// BLAS backends round the fit and the draws differently in the last
// digits). Run
//
//	go test ./sgp/figure/ -run TestSamplesGolden -regen
//
// to rewrite testdata/snelson_samples_golden.png after an intended change.
func TestSamplesGolden(t *testing.T) {
	defer func() { _ = os.Stdout.Sync() }()
	cmpimg.CheckPlotApprox(ExampleSamples, t, 0.02, "snelson_samples.png")
}

// TestSamplesErrors checks the errors of Samples and that a seed draws
// the same figure.
func TestSamplesErrors(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(60, 2)
	m := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(5).WithFixedHyperparameters(true)
	a, err := figure.Samples(m, 3, 7, "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := figure.Samples(m, 3, 7, "")
	c, _ := figure.Samples(m, 3, 8, "")
	if string(a.PNG()) != string(b.PNG()) || string(a.PNG()) == string(c.PNG()) {
		t.Error("the same seed drew another figure, or another seed the same")
	}
	if got := a.Plot().Title.Text; got != "Posterior draws (m = 5)" {
		t.Errorf("default title %q", got)
	}
	x2, _ := kernel.NewVectors(4, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1})
	for _, tc := range []struct {
		m    *sgp.Model
		n    int
		want string
	}{
		{nil, 3, "nil model"},
		{m, 0, "1 to 20"},
		{m, 21, "1 to 20"},
		{sgp.NewModel(x2, []float64{0, 1, 2, 3}, kernel.NewRBF(1, []float64{1, 1})).WithM(2), 3, "1-D inputs"},
	} {
		f, err := figure.Samples(tc.m, tc.n, 1, "")
		if err == nil || f != nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Samples(n=%d) = %v, %v; want an error with %q", tc.n, f, err, tc.want)
		}
	}
}
