package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestKernels checks each kernel against a triple loop.
func TestKernels(t *testing.T) {
	t.Parallel()
	for _, be := range testBackends(t) {
		testKernels(t, be)
	}
}

func testKernels(t *testing.T, be *backend) {
	backend := be.name
	rng := rand.New(rand.NewPCG(1, 1))
	for _, sz := range [][2]int{{1, 1}, {3, 700}, {17, 1100}, {40, 33}, {5, 2049}} {
		m, n := sz[0], sz[1]
		a := make([]float64, m*n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		c := make([]float64, m*m)
		be.syrkT(m, n, a, n, c)
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				var s float64
				for p := 0; p < n; p++ {
					s += a[i*n+p] * a[j*n+p]
				}
				if math.Abs(s-c[i*m+j]) > 1e-9*math.Max(1, math.Abs(s)) {
					t.Fatalf("%s SyrkT m=%d n=%d (%d,%d): %g, want %g", backend, m, n, i, j, c[i*m+j], s)
				}
			}
		}
		l := make([]float64, m*m)
		for i := 0; i < m; i++ {
			for j := 0; j < i; j++ {
				l[i*m+j] = 0.1 * rng.NormFloat64()
			}
			l[i*m+i] = 1 + rng.Float64()
		}
		b := append([]float64(nil), a...)
		be.trsmLower(m, n, l, b, n)
		for p := 0; p < n; p++ {
			for i := 0; i < m; i++ {
				var s float64
				for j := 0; j <= i; j++ {
					s += l[i*m+j] * b[j*n+p]
				}
				if math.Abs(s-a[i*n+p]) > 1e-9 {
					t.Fatalf("%s TrsmLower m=%d n=%d: L·X ≠ B at (%d,%d)", backend, m, n, i, p)
				}
			}
		}
		// C (m×n) = AᵀB with A m×m (k=m), B = a (m×n).
		out := make([]float64, m*n)
		be.gemmTN(m, n, m, l, m, a, n, out, n)
		for i := 0; i < m; i++ {
			for p := 0; p < n; p++ {
				var s float64
				for q := 0; q < m; q++ {
					s += l[q*m+i] * a[q*n+p]
				}
				if math.Abs(s-out[i*n+p]) > 1e-9*math.Max(1, math.Abs(s)) {
					t.Fatalf("%s GemmTN m=%d n=%d (%d,%d): %g, want %g", backend, m, n, i, p, out[i*n+p], s)
				}
			}
		}
		// C (m×m) = A·Bᵀ with A = a (m×n), B = a (m×n): the Gram matrix.
		gram := make([]float64, m*m)
		be.gemmNT(m, m, n, a, n, a, n, gram, m)
		for i := range gram {
			if math.Abs(gram[i]-c[i]) > 1e-9*math.Max(1, math.Abs(c[i])) {
				t.Fatalf("%s GemmNT m=%d n=%d entry %d: %g, want %g", backend, m, n, i, gram[i], c[i])
			}
		}
	}
}

// TestTrsm checks every side/uplo/transpose combination by multiplying back.
func TestTrsm(t *testing.T) {
	t.Parallel()
	for _, be := range testBackends(t) {
		testTrsm(t, be)
	}
}

func testTrsm(t *testing.T, be *backend) {
	backend := be.name
	rng := rand.New(rand.NewPCG(2, 2))
	const m, n = 7, 5
	for _, side := range []blas.Side{blas.Left, blas.Right} {
		for _, uplo := range []blas.Uplo{blas.Lower, blas.Upper} {
			for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				na := m
				if side == blas.Right {
					na = n
				}
				a := make([]float64, na*na)
				for i := 0; i < na; i++ {
					for j := 0; j < na; j++ {
						if (uplo == blas.Lower && j < i) || (uplo == blas.Upper && j > i) {
							a[i*na+j] = 0.3 * rng.NormFloat64()
						}
					}
					a[i*na+i] = 1 + rng.Float64()
				}
				op := func(i, j int) float64 {
					if tr == blas.Trans {
						return a[j*na+i]
					}
					return a[i*na+j]
				}
				b := make([]float64, m*n)
				for i := range b {
					b[i] = rng.NormFloat64()
				}
				x := append([]float64(nil), b...)
				be.trsm(side, uplo, tr, m, n, a, na, x, n)
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						var s float64
						if side == blas.Left {
							for p := 0; p < m; p++ {
								s += op(i, p) * x[p*n+j]
							}
						} else {
							for p := 0; p < n; p++ {
								s += x[i*n+p] * op(p, j)
							}
						}
						if math.Abs(s-b[i*n+j]) > 1e-10 {
							t.Fatalf("%s side=%c uplo=%c trans=%c: mismatch at (%d,%d)", backend, side, uplo, tr, i, j)
						}
					}
				}
			}
		}
	}
}
