package kernel

import (
	"slices"
	"testing"
)

// TestCapabilities checks the capability of each kernel the
// specifications name against what the fitters need: the hybrid takes
// the kernels with lengthscales and input gradients, periodic among
// them; continuous SGPR every single kernel with input gradients; no
// sum, product or discrete kernel takes either.
func TestCapabilities(t *testing.T) {
	t.Parallel()
	hybrid := NamesWith(func(c Caps) bool { return c.Hybrid })
	if want := []string{"rbf", "matern12", "matern32", "matern52", "rq", "periodic"}; !slices.Equal(hybrid, want) {
		t.Errorf("hybrid kernels %v, want %v", hybrid, want)
	}
	cont := NamesWith(func(c Caps) bool { return c.Continuous })
	if !slices.Equal(cont, numericLeaves) {
		t.Errorf("continuous kernels %v, want %v", cont, numericLeaves)
	}
	for _, spec := range []string{"rbf+linear", "periodic*rbf", "wl:3", "spectrum", "tanimoto", "histogram"} {
		c, err := SpecCapabilities(spec)
		if err != nil {
			t.Fatal(err)
		}
		if c.Continuous || c.Hybrid || c.InputGradient {
			t.Errorf("%s: %+v, want no input gradient", spec, c)
		}
	}
	if _, err := SpecCapabilities("frob"); err == nil {
		t.Error("SpecCapabilities(frob): no error")
	}
	// A kernel of a user's function is copied (Clone gives it its own
	// variance, sharing the function) but not differentiated.
	f := NewFunc(func(x Inputs, i int, y Inputs, j int) float64 { return 1 }, 1)
	if c := Capabilities(f); !c.Copyable || c.Hybrid || c.Continuous || c.InputGradient {
		t.Errorf("Func: %+v", c)
	}
	if got := ListNames([]string{"a", "b", "c"}); got != "a, b or c" {
		t.Errorf("ListNames: %q", got)
	}
}
