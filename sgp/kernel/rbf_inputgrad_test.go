package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRBFInputGradBlocks checks InputGradT where its product H·X spans
// several groups of inducing points and blocks of rows, both with a
// partial last one (m = 37, n = 2500), against the sum written out point
// by point and row by row, with weights of both signs on K_mn and K_mm.
// (sgp's TestInducingInputGradientFD checks the gradient of the objective
// against finite differences.)
func TestRBFInputGradBlocks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 13))
	const n, m, dim = 2*zBlock + 452, 2*zGroup + 5, 2
	random := func(rows, scale float64) *Vectors {
		v := make([]float64, int(rows)*dim)
		for i := range v {
			v[i] = scale * rng.Float64()
		}
		x, err := NewVectors(int(rows), dim, v)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	x, z := random(n, 6), random(m, 4)
	k := NewRBF(1.1, []float64{0.9, 1.3})
	all := make([]int, m)
	for c := range all {
		all[c] = c
	}
	kx, kz := make([]float64, m*n), make([]float64, m*m)
	k.CrossT(kx, x, z, all)
	k.CrossT(kz, z, z, all)
	wx, wz := make([]float64, m*n), make([]float64, m*m)
	for i := range wx {
		wx[i] = rng.NormFloat64()
	}
	for i := range wz {
		wz[i] = 10 * rng.NormFloat64()
	}
	gz := make([]float64, m*dim)
	k.InputGradT(gz, wx, kx, wz, kz, x, z)
	ls := k.Lengthscales()
	for c := 0; c < m; c++ {
		for t0 := 0; t0 < dim; t0++ {
			var want, scale float64
			for i := 0; i < n; i++ {
				h := wx[c*n+i] * kx[c*n+i]
				want += h * (x.At(i, t0) - z.At(c, t0))
				scale += math.Abs(h * (x.At(i, t0) - z.At(c, t0)))
			}
			for b := 0; b < m; b++ {
				w := (wz[c*m+b] + wz[b*m+c]) * kz[c*m+b]
				want += w * (z.At(b, t0) - z.At(c, t0))
				scale += math.Abs(w * (z.At(b, t0) - z.At(c, t0)))
			}
			want /= ls[t0] * ls[t0]
			scale /= ls[t0] * ls[t0]
			if got := gz[c*dim+t0]; math.Abs(got-want) > 1e-12*scale {
				t.Fatalf("∂/∂z[%d,%d] = %v, point-by-point sum %v (scale %v)", c, t0, got, want, scale)
			}
		}
	}
}
