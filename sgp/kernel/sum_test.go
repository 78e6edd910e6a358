package kernel_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/kerneltest"

	"github.com/cholqr/sgp/sgp/kernel"
)

func TestSumAndFunc(t *testing.T) {
	t.Parallel()
	x := mustStrings(t, []string{"abab", "bab", "a", "ab"})
	s1, s2 := kernel.NewSpectrum(1, 0.5), kernel.NewSpectrum(2, 2)
	sum := kernel.NewSum(s1, s2)
	if got := fmt.Sprint(sum.ParamNames()); got != "[k0.variance k1.variance]" {
		t.Errorf("ParamNames = %s", got)
	}
	for i := range 4 {
		for j := range 4 {
			checkValue(t, fmt.Sprintf("κ(x%d, x%d)", i, j), column(sum, x, i, x, j), column(s1, x, i, x, j)+column(s2, x, i, x, j))
		}
	}
	sum.SetParams([]float64{0, math.Log(3)})
	checkValue(t, "component 0 variance after Sum.SetParams", s1.Variance(), 1)
	checkValue(t, "component 1 variance after Sum.SetParams", s2.Variance(), 3)
	if !kerneltest.Panics(func() { kernel.NewSum(s1, s1) }) || !kerneltest.Panics(func() { kernel.NewSum() }) {
		t.Errorf("NewSum accepts a repeated component or none")
	}
	if err := kernel.NewSum(s1, kernel.NewWL(1, 1)).Accepts(x); err == nil || !strings.Contains(err.Error(), "component 1") {
		t.Errorf("Sum.Accepts = %v, want an error naming component 1", err)
	}

	calls := 0
	f := kernel.NewFunc(func(x kernel.Inputs, i int, y kernel.Inputs, j int) float64 {
		calls++
		return lengthKernel(x, i, y, j)
	}, 2)
	checkValue(t, "V·f(abab, a)", column(f, x, 0, x, 2), 2*math.Exp(-0.75))
	if calls != 1 {
		t.Errorf("%d calls of f for one kernel value", calls)
	}
	if !kerneltest.Panics(func() { kernel.NewFunc(nil, 1) }) || !kerneltest.Panics(func() { kernel.NewFunc(lengthKernel, 0) }) {
		t.Errorf("NewFunc accepts a nil function or a zero variance")
	}
}
