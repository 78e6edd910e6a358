package cholqr

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/kernel"
)

// rowScaled is the kernel k(x_i, x_j)·w_i·w_j on the training rows, by
// Kernel's methods alone (Column and Diag; the embedded interface hides
// the wrapped kernel's block methods).
type rowScaled struct {
	kernel.Kernel
	w []float64
}

func (k rowScaled) Column(dst []float64, x kernel.Inputs, lo, hi int, y kernel.Inputs, j int) {
	k.Kernel.Column(dst, x, lo, hi, y, j)
	for i := range dst {
		dst[i] *= k.w[lo+i] * k.w[j]
	}
}

func (k rowScaled) Diag(dst []float64, x kernel.Inputs, lo, hi int) {
	k.Kernel.Diag(dst, x, lo, hi)
	for i := range dst {
		dst[i] *= k.w[lo+i] * k.w[lo+i]
	}
}

// plain hides a kernel's optional interfaces.
type plain struct{ kernel.Kernel }

// TestKnownNoiseIsScaledProblem checks that a Factor with known noise
// (SetKnownNoise) is the Factor of the scaled problem K' = DKD, y' = Dy,
// noise 1, D = Λ^{-1/2}, built from a kernel that scales its values: the
// same data fit and trace bit for bit, the complexity less Σ log λ_i,
// and the same swaps, accepted and rejected, over a sequence of swaps
// with the same random draws.
func TestKnownNoiseIsScaledProblem(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := newProblem(rng, 150, 2, 1.3, 0.8, 0.05)
	n, m, z := 150, 10, 8
	s2 := make([]float64, n)
	w, ys := make([]float64, n), make([]float64, n)
	var logLam float64
	for i := range s2 {
		s2[i] = 0.01 * math.Pow(100, rng.Float64())
		lam := s2[i] + p.noise
		w[i] = 1 / math.Sqrt(lam)
		ys[i] = p.y[i] * w[i]
		logLam += math.Log(lam)
	}
	a, err := New(p.x, p.y, plain{p.kern}, p.noise, m, z)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetKnownNoise(s2); err != nil {
		t.Fatal(err)
	}
	b, err := New(p.x, ys, rowScaled{p.kern, w}, 1, m, z)
	if err != nil {
		t.Fatal(err)
	}
	start := []int{0, 15, 30, 45, 60, 75, 90, 105, 120, 135}
	for _, f := range []*Factor{a, b} {
		if err := f.Factorize(start); err != nil {
			t.Fatal(err)
		}
	}
	same := func(when string) {
		t.Helper()
		pa, pb := a.Parts(), b.Parts()
		if pa.DataFit != pb.DataFit || pa.Trace != pb.Trace || math.Abs(pa.Complexity-logLam-pb.Complexity) > 1e-12*math.Abs(pa.Complexity) {
			t.Fatalf("%s: known noise %+v, scaled problem %+v (Σ log λ = %v)", when, pa, pb, logLam)
		}
		if !slices.Equal(a.Active(nil), b.Active(nil)) || !slices.Equal(a.InfoPivots(nil), b.InfoPivots(nil)) {
			t.Fatalf("%s: sets %v %v, scaled problem %v %v", when, a.Active(nil), a.InfoPivots(nil), b.Active(nil), b.InfoPivots(nil))
		}
	}
	same("factorised")
	ra, rb := rand.New(rand.NewPCG(7, 8)), rand.New(rand.NewPCG(7, 8))
	accepted := 0
	for s := range 40 {
		o := base.VAR
		if s%2 == 1 {
			o = base.MLE
		}
		sa := a.Swap(s%m, o, ra.IntN)
		sb := b.Swap(s%m, o, rb.IntN)
		if sa.Accepted != sb.Accepted || sa.Proposed != sb.Proposed {
			t.Fatalf("swap %d: known noise %+v, scaled problem %+v", s, sa, sb)
		}
		if sa.Accepted {
			accepted++
		}
		same("after a swap")
	}
	if accepted == 0 {
		t.Error("no swap was accepted")
	}
	t.Logf("%d of 40 swaps accepted, the same on both", accepted)
}
