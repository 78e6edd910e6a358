package kernel_test

import (
	"math"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"
)

// TestCloneIndependent: Clone copies every built-in kernel, those the
// model-file format cannot hold included (parameters beyond
// MaxLogParameter, a Func, sums beyond MaxLeaves, a user Cloner inside a
// sum): the copy has the same θ and values, and setting its θ leaves the
// original's alone.
func TestCloneIndependent(t *testing.T) {
	t.Parallel()
	x := mustVectors(t, [][]float64{{0, 1}, {0.5, -1}, {2, 0.3}})
	wide := make([]kernel.Kernel, kernel.MaxLeaves+1)
	for i := range wide {
		wide[i] = kernel.NewConst(1)
	}
	f := kernel.NewFunc(func(x kernel.Inputs, i int, y kernel.Inputs, j int) float64 {
		a, b := x.(*kernel.Vectors).Row(i), y.(*kernel.Vectors).Row(j)
		return math.Exp(-math.Abs(a[0] - b[0]))
	}, 2)
	cases := map[string]kernel.Kernel{
		"rbf":             kernel.NewRBF(1.5, []float64{0.7, 2}),
		"rbf beyond file": kernel.NewRBF(1, []float64{1e300, 1e-290}),
		"matern32":        kernel.NewMatern(1.5, 1.2, []float64{0.7, 2}),
		"rq":              kernel.NewRQ(1.2, []float64{0.7, 2}, 3),
		"periodic":        kernel.NewPeriodic(1.2, []float64{0.7, 2}, []float64{3, 4}),
		"linear":          kernel.NewLinear([]float64{0.7, 2}),
		"const":           kernel.NewConst(0.3),
		"func":            f,
		"sum":             kernel.NewSum(kernel.NewRBF(1, []float64{1, 1}), kernel.NewProduct(kernel.NewLinear([]float64{1, 2}), kernel.NewConst(2))),
		"wide sum":        kernel.NewSum(wide...),
		"sum of a cloner": kernel.NewSum(kernel.NewConst(1), &userCloner{kernel.NewRBF(1, []float64{1, 1})}),
	}
	for name, k := range cases {
		c := kernel.Clone(k)
		if c == k {
			t.Errorf("%s: Clone returned the kernel itself", name)
			continue
		}
		th := k.Params(nil)
		if got := c.Params(nil); !sameBits(got, th) {
			t.Errorf("%s: copy's θ %v, want %v", name, got, th)
		}
		want, got := make([]float64, 3), make([]float64, 3)
		for j := range 3 {
			k.Column(want, x, 0, 3, x, j)
			c.Column(got, x, 0, 3, x, j)
			if !sameBits(got, want) {
				t.Errorf("%s: copy's column %d %v, want %v", name, j, got, want)
			}
		}
		moved := append([]float64(nil), th...)
		for p := range moved {
			moved[p] += 0.25
		}
		c.SetParams(moved)
		if after := k.Params(nil); !sameBits(after, th) {
			t.Errorf("%s: setting the copy's θ changed the original's to %v", name, after)
		}
	}
	// A kernel Clone cannot copy is returned as it is, alone or in a sum.
	u := &userKernel{kernel.NewRBF(1, []float64{1, 1})}
	if kernel.Clone(u) != kernel.Kernel(u) {
		t.Error("Clone of a kernel it cannot copy did not return it")
	}
	if s := kernel.NewSum(kernel.NewConst(1), u); kernel.Clone(s) != kernel.Kernel(s) {
		t.Error("Clone of a sum holding a kernel it cannot copy did not return the sum")
	}
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// userKernel is a kernel of another package, which Clone cannot copy.
type userKernel struct{ *kernel.RBF }

// userCloner is one that copies itself.
type userCloner struct{ *kernel.RBF }

func (k *userCloner) Clone() kernel.Kernel {
	return &userCloner{kernel.Clone(k.RBF).(*kernel.RBF)}
}
