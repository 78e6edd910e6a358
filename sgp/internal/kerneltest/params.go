package kerneltest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/kernel"
)

// testParams checks the hyperparameter bookkeeping: counts, names, Params
// and SetParams.
func testParams(t *testing.T, k kernel.Kernel, x kernel.Inputs, theta0 []float64, rnd *rand.Rand) {
	defer k.SetParams(theta0)
	testParamsRead(t, k)
	testParamsSet(t, k, x, theta0, rnd)
}

// testParamsRead checks what reading the hyperparameters gives: counts,
// names and Params into a given slice.
func testParamsRead(t *testing.T, k kernel.Kernel) {
	np := k.NumParams()
	t.Run("Count", func(t *testing.T) {
		if got := len(k.ParamNames()); got != np {
			t.Errorf("len(ParamNames()) = %d, NumParams() = %d", got, np)
		}
		if got := len(k.Params(nil)); got != np {
			t.Errorf("len(Params(nil)) = %d, NumParams() = %d", got, np)
		}
	})

	t.Run("Names", func(t *testing.T) {
		seen := make(map[string]int)
		for p, name := range k.ParamNames() {
			if name == "" {
				t.Errorf("ParamNames()[%d] is empty", p)
			}
			if q, ok := seen[name]; ok {
				t.Errorf("ParamNames()[%d] = ParamNames()[%d] = %q", q, p, name)
			}
			seen[name] = p
		}
	})

	t.Run("Dst", func(t *testing.T) {
		want := k.Params(nil)
		dst := make([]float64, np)
		for p := range dst {
			dst[p] = math.NaN()
		}
		got := k.Params(dst)
		if len(got) != np {
			t.Fatalf("len(Params(dst)) = %d, want %d", len(got), np)
		}
		if np > 0 && &got[0] != &dst[0] {
			t.Errorf("Params(dst) did not return dst")
		}
		for p := range dst {
			if !scalar.EqualWithinAbsOrRel(dst[p], want[p], identityTol, identityTol) {
				t.Errorf("Params(dst)[%d] = %v, Params(nil)[%d] = %v", p, dst[p], p, want[p])
			}
		}
	})

}

// testParamsSet checks setting the hyperparameters: no aliasing of the
// slices, SetParams(Params(nil)) changing no value, SetParams then Params
// giving θ back, and a wrong length panicking without changing the
// kernel.
func testParamsSet(t *testing.T, k kernel.Kernel, x kernel.Inputs, theta0 []float64, rnd *rand.Rand) {
	np := k.NumParams()
	t.Run("NoAliasing", func(t *testing.T) {
		defer k.SetParams(theta0)
		got := k.Params(nil)
		for p := range got {
			got[p] += 1
		}
		checkParams(t, "after changing the slice Params returned", k, theta0)
		theta := slices.Clone(theta0)
		k.SetParams(theta)
		for p := range theta {
			theta[p] += 1
		}
		checkParams(t, "after changing the slice given to SetParams", k, theta0)
	})

	t.Run("RoundTrip", func(t *testing.T) {
		defer k.SetParams(theta0)
		before := gram(k, x)
		k.SetParams(k.Params(nil))
		after := gram(k, x)
		scale := maxDiag(before)
		n := x.Len()
		for i := range n {
			for j := range n {
				b, a := before.At(i, j), after.At(i, j)
				if !near(a, b, scale, identityTol) {
					t.Errorf("κ(x_%d, x_%d) = %v after SetParams(Params(nil)), was %v", i, j, a, b)
				}
			}
		}
	})

	t.Run("SetThenGet", func(t *testing.T) {
		defer k.SetParams(theta0)
		theta := slices.Clone(theta0)
		for p := range theta {
			theta[p] += 2 * perturbation * (2*rnd.Float64() - 1)
		}
		k.SetParams(theta)
		checkParams(t, "after SetParams(θ′)", k, theta)
	})

	t.Run("WrongLength", func(t *testing.T) {
		defer k.SetParams(theta0)
		lengths := []int{np + 1, np + 5}
		if np > 0 {
			lengths = append(lengths, np-1, 0)
		}
		for _, l := range lengths {
			if !Panics(func() { k.SetParams(make([]float64, l)) }) {
				t.Errorf("SetParams with %d values (NumParams = %d) did not panic", l, np)
			}
			checkParams(t, fmt.Sprintf("after SetParams with %d values panicked", l), k, theta0)
		}
	})
}

// checkParams reports an error if k.Params(nil) is not close to want.
func checkParams(t *testing.T, when string, k kernel.Kernel, want []float64) {
	t.Helper()
	got := k.Params(nil)
	if len(got) != len(want) {
		t.Errorf("%s: len(Params(nil)) = %d, want %d", when, len(got), len(want))
		return
	}
	for p := range got {
		if !scalar.EqualWithinAbsOrRel(got[p], want[p], identityTol, identityTol) {
			t.Errorf("%s: Params(nil)[%d] = %v, want %v", when, p, got[p], want[p])
		}
	}
}
