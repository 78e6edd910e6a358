package sgp_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/internal/kerneltest"
)

func TestSumAndFuncKernel(t *testing.T) {
	t.Parallel()
	x := mustStrings(t, []string{"abab", "bab", "a", "ab"})
	s1, s2 := sgp.NewSpectrum(1, 0.5), sgp.NewSpectrum(2, 2)
	sum := sgp.NewSum(s1, s2)
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
	if !kerneltest.Panics(func() { sgp.NewSum(s1, s1) }) || !kerneltest.Panics(func() { sgp.NewSum() }) {
		t.Errorf("NewSum accepts a repeated component or none")
	}
	if err := sgp.NewSum(s1, sgp.NewWL(1, 1)).Accepts(x); err == nil || !strings.Contains(err.Error(), "component 1") {
		t.Errorf("Sum.Accepts = %v, want an error naming component 1", err)
	}

	calls := 0
	f := sgp.NewFuncKernel(func(x sgp.Inputs, i int, y sgp.Inputs, j int) float64 {
		calls++
		return lengthKernel(x, i, y, j)
	}, 2)
	checkValue(t, "V·f(abab, a)", column(f, x, 0, x, 2), 2*math.Exp(-0.75))
	if calls != 1 {
		t.Errorf("%d calls of f for one kernel value", calls)
	}
	if !kerneltest.Panics(func() { sgp.NewFuncKernel(nil, 1) }) || !kerneltest.Panics(func() { sgp.NewFuncKernel(lengthKernel, 0) }) {
		t.Errorf("NewFuncKernel accepts a nil function or a zero variance")
	}
}
