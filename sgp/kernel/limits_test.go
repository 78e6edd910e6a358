package kernel_test

import (
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"
)

// TestExpressionLimits: Parse and FromDescription share the limits on
// nesting and leaves: an expression within them parses and its
// description loads, one beyond them is refused by both.
func TestExpressionLimits(t *testing.T) {
	t.Parallel()
	x, err := kernel.VectorsFromRows([][]float64{{0}, {1}, {2}, {3}})
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{0, 1, 0, 1}
	// nest wraps e in n pairs of a product and a sum: n pairs add 2n
	// levels of nesting.
	nest := func(e string, n int) string {
		for range n {
			e = "(" + e + ")*const+const"
		}
		return e
	}
	within := []string{
		nest("rbf+rbf", 3) + "*const", // 1 + 6 + 1 = 8 levels
		strings.Repeat("rbf+", kernel.MaxLeaves-1) + "rbf",
	}
	beyond := []string{
		nest("rbf*rbf+rbf", 4), // the audit's: 2 + 8 = 10 levels, 4 pairs of parentheses
		nest("rbf+rbf", 4),     // 9 levels
		strings.Repeat("rbf+", kernel.MaxLeaves) + "rbf",
		strings.Repeat("(rbf+rbf)*", 600) + "rbf", // 1201 leaves, 2 levels
	}
	for _, spec := range within {
		k, err := kernel.Parse(spec, x, y)
		if err != nil {
			t.Fatalf("Parse(%.60q…): %v", spec, err)
		}
		d, err := kernel.Describe(k)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := kernel.FromDescription(d); err != nil {
			t.Errorf("Parse(%.60q…) gives a kernel whose description does not load: %v", spec, err)
		}
	}
	for _, spec := range beyond {
		if _, _, err := kernel.SplitSpec(spec); err == nil {
			t.Errorf("SplitSpec(%.60q…) accepted a kernel beyond the limits", spec)
		} else if !strings.Contains(err.Error(), "at most") && !strings.Contains(err.Error(), "more than") {
			t.Errorf("SplitSpec(%.60q…): %v does not say which limit", spec, err)
		}
		if _, err := kernel.Parse(spec, x, y); err == nil {
			t.Errorf("Parse(%.60q…) accepted a kernel beyond the limits", spec)
		}
	}
	// The same shapes built in Go are refused by FromDescription.
	deep := kernel.Kernel(kernel.NewRBF(1, []float64{1}))
	for range kernel.MaxNesting + 1 {
		deep = kernel.NewSum(deep, kernel.NewConst(1))
	}
	wide := make([]kernel.Kernel, kernel.MaxLeaves+1)
	for i := range wide {
		wide[i] = kernel.NewConst(1)
	}
	for _, k := range []kernel.Kernel{deep, kernel.NewProduct(kernel.NewConst(1), kernel.NewSum(wide...))} {
		d, err := kernel.Describe(k)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := kernel.FromDescription(d); err == nil {
			t.Errorf("FromDescription accepted %d-leaf kernel beyond the limits", len(d.Components))
		}
	}
}
