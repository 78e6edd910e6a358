package kernel_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/internal/kerneltest"
	"github.com/cholqr/sgp/sgp/internal/naive"

	"github.com/cholqr/sgp/sgp/kernel"
)

// rbfCase is a hyperparameter setting of the RBF kernel.
type rbfCase struct {
	name     string
	d        int
	variance float64
	ls       []float64
}

func rbfCases() []rbfCase {
	var cases []rbfCase
	for _, d := range []int{1, 3, 8} {
		for _, s := range []struct {
			name     string
			variance float64
			ls       func(t int) float64
		}{
			{"ls=0.5", 1, func(int) float64 { return 0.5 }},
			{"ls=2,V=3.7", 3.7, func(int) float64 { return 2 }},
			{"ls=mixed,V=0.02", 0.02, func(t int) float64 { return 0.3 * math.Pow(1.7, float64(t%5)) }},
		} {
			ls := make([]float64, d)
			for t := range ls {
				ls[t] = s.ls(t)
			}
			cases = append(cases, rbfCase{fmt.Sprintf("d=%d,%s", d, s.name), d, s.variance, ls})
		}
	}
	return cases
}

// randomRows returns n points of ℝᵈ with standard normal coordinates.
func randomRows(rnd *rand.Rand, n, d int) [][]float64 {
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = make([]float64, d)
		for t := range rows[i] {
			rows[i][t] = rnd.NormFloat64()
		}
	}
	return rows
}

func mustVectors(t *testing.T, rows [][]float64) *kernel.Vectors {
	t.Helper()
	x, err := kernel.VectorsFromRows(rows)
	if err != nil {
		t.Fatalf("VectorsFromRows: %v", err)
	}
	return x
}

func TestRBFKernel(t *testing.T) {
	t.Parallel()
	for _, tc := range rbfCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rnd := rand.New(rand.NewPCG(1, 1))
			x := mustVectors(t, randomRows(rnd, 33, tc.d))
			k := kernel.NewRBF(tc.variance, tc.ls)
			theta := k.Params(nil)
			kerneltest.Test(t, k, x)
			for p, v := range k.Params(nil) {
				if !scalar.EqualWithinAbsOrRel(v, theta[p], 1e-15, 1e-15) {
					t.Errorf("θ[%d] = %v after kerneltest.Test, was %v", p, v, theta[p])
				}
			}
		})
	}
	// More than the 40 inputs the suite evaluates: it must use a subset.
	t.Run("d=2,n=100", func(t *testing.T) {
		t.Parallel()
		rnd := rand.New(rand.NewPCG(1, 1))
		kerneltest.Test(t, kernel.NewRBF(1.5, []float64{0.8, 1.3}), mustVectors(t, randomRows(rnd, 100, 2)))
	})
}

func TestRBFNaive(t *testing.T) {
	t.Parallel()
	// Reference: the naive O(n³) oracle of internal/naive, which computes
	// Σ ((a−b)/ℓ)² where RBF computes Σ (a−b)²·ℓ⁻², hence the tolerance.
	const tol = 1e-14
	for _, tc := range rbfCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rnd := rand.New(rand.NewPCG(1, 1))
			const n, m = 17, 6
			xr, yr := randomRows(rnd, n, tc.d), randomRows(rnd, m, tc.d)
			x, y := mustVectors(t, xr), mustVectors(t, yr)
			k := kernel.NewRBF(tc.variance, tc.ls)
			eq := func(got, want float64) bool {
				return scalar.EqualWithinAbsOrRel(got, want, tol*tc.variance, tol)
			}

			K := naive.RBF(xr, tc.variance, tc.ls)
			col := make([]float64, n)
			for j := range n {
				k.Column(col, x, 0, n, x, j)
				for i, got := range col {
					if want := K.At(i, j); !eq(got, want) {
						t.Errorf("κ(x_%d, x_%d) = %v, naive %v", i, j, got, want)
					}
				}
			}
			diag := make([]float64, n)
			k.Diag(diag, x, 0, n)
			for i, got := range diag {
				if want := K.At(i, i); !eq(got, want) {
					t.Errorf("Diag[%d] = %v, naive %v", i, got, want)
				}
			}

			C := naive.RBFCross(xr, yr, tc.variance, tc.ls)
			for j := range m {
				k.Column(col, x, 0, n, y, j)
				for i, got := range col {
					if want := C.At(i, j); !eq(got, want) {
						t.Errorf("κ(x_%d, y_%d) = %v, naive %v", i, j, got, want)
					}
				}
			}
		})
	}
}

// stringInputs is an Inputs type the RBF kernel does not accept.
type stringInputs []string

func (s stringInputs) Len() int { return len(s) }

func (s stringInputs) Subset(idx []int) kernel.Inputs {
	out := make(stringInputs, len(idx))
	for r, i := range idx {
		out[r] = s[i]
	}
	return out
}

func TestRBFAccepts(t *testing.T) {
	t.Parallel()
	k := kernel.NewRBF(1, []float64{1, 2, 3})
	rnd := rand.New(rand.NewPCG(1, 1))

	if err := k.Accepts(mustVectors(t, randomRows(rnd, 4, 3))); err != nil {
		t.Errorf("Accepts(3-dimensional vectors) = %v, want nil", err)
	}

	err := k.Accepts(mustVectors(t, randomRows(rnd, 4, 5)))
	if err == nil {
		t.Errorf("Accepts(5-dimensional vectors) = nil for a 3-dimensional kernel")
	} else if msg := err.Error(); !strings.Contains(msg, "3") || !strings.Contains(msg, "5") {
		t.Errorf("Accepts(5-dimensional vectors) = %q, want the dimensions 3 and 5 mentioned", msg)
	}

	err = k.Accepts(stringInputs{"a", "b"})
	if err == nil {
		t.Errorf("Accepts(stringInputs) = nil, want an error")
	} else if msg := err.Error(); !strings.Contains(msg, "stringInputs") {
		t.Errorf("Accepts(stringInputs) = %q, want the input type mentioned", msg)
	}
}

func TestRBFNewPanics(t *testing.T) {
	t.Parallel()
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name     string
		variance float64
		ls       []float64
	}{
		{"variance=0", 0, []float64{1}},
		{"variance<0", -1, []float64{1, 2}},
		{"variance=NaN", nan, []float64{1}},
		{"variance=Inf", inf, []float64{1}},
		{"ls=0", 1, []float64{1, 0}},
		{"ls<0", 1, []float64{-0.5}},
		{"ls=NaN", 1, []float64{1, nan, 1}},
		{"ls=Inf", 1, []float64{inf}},
		{"ls=nil", 1, nil},
		{"ls=empty", 1, []float64{}},
	} {
		if !kerneltest.Panics(func() { kernel.NewRBF(tc.variance, tc.ls) }) {
			t.Errorf("%s: NewRBF(%v, %v) did not panic", tc.name, tc.variance, tc.ls)
		}
	}
	if kerneltest.Panics(func() { kernel.NewRBF(1e-300, []float64{1e-150, 1e150}) }) {
		t.Errorf("NewRBF panicked on tiny and huge but valid values")
	}
}

func TestRBFParams(t *testing.T) {
	t.Parallel()
	ls := []float64{0.5, 2, 7}
	k := kernel.NewRBF(3, ls)

	want := []string{"variance", "lengthscale[0]", "lengthscale[1]", "lengthscale[2]"}
	if got := k.ParamNames(); !slices.Equal(got, want) {
		t.Errorf("ParamNames() = %q, want %q", got, want)
	}

	// θ = (log V, log ℓ₁, …) by definition (rbf.go).
	theta := k.Params(nil)
	wantTheta := []float64{math.Log(3), math.Log(0.5), math.Log(2), math.Log(7)}
	for p := range wantTheta {
		if !scalar.EqualWithinAbsOrRel(theta[p], wantTheta[p], 1e-15, 1e-15) {
			t.Errorf("Params()[%d] = %v, want %v", p, theta[p], wantTheta[p])
		}
	}

	// NewRBF copies the lengthscales.
	ls[0] = 100
	if got := k.Lengthscales()[0]; !scalar.EqualWithinAbsOrRel(got, 0.5, 1e-15, 1e-15) {
		t.Errorf("Lengthscales()[0] = %v after changing the caller's slice, want 0.5", got)
	}

	k.SetParams([]float64{math.Log(2), 0, math.Log(3), math.Log(4)})
	if got := k.Variance(); !scalar.EqualWithinAbsOrRel(got, 2, 1e-15, 1e-15) {
		t.Errorf("Variance() = %v after SetParams, want 2", got)
	}
	gotLS := k.Lengthscales()
	for t2, w := range []float64{1, 3, 4} {
		if !scalar.EqualWithinAbsOrRel(gotLS[t2], w, 1e-15, 1e-15) {
			t.Errorf("Lengthscales()[%d] = %v after SetParams, want %v", t2, gotLS[t2], w)
		}
	}
	if k.Dim() != 3 || k.NumParams() != 4 {
		t.Errorf("Dim() = %d, NumParams() = %d, want 3 and 4", k.Dim(), k.NumParams())
	}
}
