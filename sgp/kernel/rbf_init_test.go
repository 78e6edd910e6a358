package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// TestNewRBFFromDataOutliers checks NewRBFFromData's lengthscales: the
// paper's (max − min)/2 on clean inputs, bit for bit, and half the central
// 90% where a few outlying inputs stretch the range (10 of 500 at 10⁵, the
// rest in [−3, 3]). (sgp's TestOutlierLengthscaleFit fits from both.)
func TestNewRBFFromDataOutliers(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	const n = 500
	clean, dirty, y := make([]float64, 2*n), make([]float64, 2*n), make([]float64, n)
	for i := 0; i < n; i++ {
		a, b := 6*r.Float64()-3, r.NormFloat64()
		clean[2*i], clean[2*i+1] = a, b
		dirty[2*i], dirty[2*i+1] = a, b
		if i%50 == 0 {
			dirty[2*i] = 1e5
		}
		y[i] = math.Sin(math.Min(dirty[2*i], 3)) + 0.05*r.NormFloat64()
	}
	xc, _ := NewVectors(n, 2, clean)
	xd, _ := NewVectors(n, 2, dirty)
	column := func(x *Vectors, t int) []float64 {
		c := make([]float64, x.Len())
		for i := range c {
			c[i] = x.At(i, t)
		}
		slices.Sort(c)
		return c
	}
	for dim := 0; dim < 2; dim++ {
		c := column(xc, dim)
		if got, want := NewRBFFromData(xc, y).Lengthscales()[dim], (c[n-1]-c[0])/2; !scalar.EqualWithinRel(got, want, 1e-14) {
			t.Errorf("clean inputs, dimension %d: lengthscale %v, want the paper's %v", dim, got, want)
		}
	}
	c := column(xd, 0)
	kd := NewRBFFromData(xd, y)
	if got, want := kd.Lengthscales()[0], (c[n-1-n/20]-c[n/20])/2; !scalar.EqualWithinRel(got, want, 1e-14) {
		t.Errorf("outlying inputs: lengthscale %v, want half the central 90%%, %v", got, want)
	}
	if got, want := kd.Lengthscales()[1], NewRBFFromData(xc, y).Lengthscales()[1]; got != want {
		t.Errorf("the clean dimension beside them: lengthscale %v, want %v", got, want)
	}
}
