package figure

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// TestFit1DAxisNames: Fit1D labels its axes with the data's column names,
// the input's from the CSV header and the target's from
// Model.WithTargetName, which the model's Predictor also carries.
func TestFit1DAxisNames(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("year,co2\n")
	for i := range 40 {
		b.WriteString(strings.Join([]string{strconv.Itoa(1958 + i), strconv.Itoa(315 + i + i%3)}, ",") + "\n")
	}
	d, err := data.ReadCSV(strings.NewReader(b.String()), "co2")
	if err != nil {
		t.Fatal(err)
	}
	m := sgp.NewModel(d.X, d.Y, kernel.NewRBFFromData(d.X, d.Y)).WithM(5).WithTargetName(d.TargetName)
	f, err := Fit1D(m, "")
	if err != nil {
		t.Fatal(err)
	}
	if x, y := f.Plot().X.Label.Text, f.Plot().Y.Label.Text; x != "year" || y != "co2" {
		t.Errorf("axes %q, %q; want year, co2", x, y)
	}
	p, err := m.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	if p.TargetName != "co2" || len(p.InputNames) != 1 || p.InputNames[0] != "year" {
		t.Errorf("predictor names %q, %q", p.InputNames, p.TargetName)
	}
	// Without names, x and y.
	train, _ := data.SnelsonLike(30, 1)
	f, err = Fit1D(sgp.NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(5), "")
	if err != nil {
		t.Fatal(err)
	}
	if x, y := f.Plot().X.Label.Text, f.Plot().Y.Label.Text; x != "x" || y != "y" {
		t.Errorf("unnamed axes %q, %q; want x, y", x, y)
	}
}
