package linalg

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// testBackends returns gonum, the pure-Go backend and, when its library loads, OpenBLAS. With
// SGP_BLAS=openblas set (as CI does for its OpenBLAS run) a missing
// library fails the test instead of skipping that backend.
func testBackends(t *testing.T) []*backend {
	t.Helper()
	out := []*backend{gonumBackend(), goBackend()}
	ob, err := loadOpenBLAS(openblasNames())
	switch {
	case err == nil:
		out = append(out, ob)
	case strings.EqualFold(os.Getenv("SGP_BLAS"), "openblas"):
		t.Fatalf("SGP_BLAS=openblas but: %v", err)
	default:
		t.Logf("OpenBLAS not tested: %v", err)
	}
	return out
}

func randSlice(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

func closeAll(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	for i := range want {
		if d := math.Abs(got[i] - want[i]); !(d <= tol*math.Max(1, math.Abs(want[i]))) {
			t.Fatalf("%s: entry %d = %g, want %g", what, i, got[i], want[i])
		}
	}
}

// TestBackendsAgree runs every primitive each backend binds (dgemm with all
// four transpose pairs, dsyrk, dtrsm with every side/uplo/transpose) on
// odd shapes, padded strides and zero sizes, checking dgemm against a
// triple loop and the others across backends (both checked against loops
// in TestKernels and TestTrsm). Entries outside the output are sentinels
// that must stay untouched.
func TestBackendsAgree(t *testing.T) {
	t.Parallel()
	bes := testBackends(t)
	rng := rand.New(rand.NewPCG(3, 3))
	const sentinel = 12345.0
	shapes := [][3]int{{0, 0, 0}, {0, 3, 2}, {3, 0, 2}, {3, 2, 0}, {1, 1, 1}, {7, 5, 3}, {13, 1, 9}, {33, 65, 17}, {129, 31, 257}, {70, 150, 9}, {40, 600, 7}}
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				ar, ac := m, k
				if ta {
					ar, ac = k, m
				}
				br, bc := k, n
				if tb {
					br, bc = n, k
				}
				lda, ldb, ldc := ac+2, bc+1, n+3
				a := randSlice(rng, max(1, ar*lda))
				b := randSlice(rng, max(1, br*ldb))
				want := make([]float64, max(1, m*ldc))
				for i := range want {
					want[i] = sentinel
				}
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						var s float64
						for p := 0; p < k; p++ {
							ai, bi := i*lda+p, p*ldb+j
							if ta {
								ai = p*lda + i
							}
							if tb {
								bi = j*ldb + p
							}
							x, y := a[ai], b[bi]
							s += x * y
						}
						want[i*ldc+j] = s
					}
				}
				for _, be := range bes {
					c := make([]float64, len(want))
					for i := range c {
						c[i] = sentinel
					}
					be.dgemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc)
					closeAll(t, be.name+" dgemm", c, want, 1e-12*float64(k+1))
				}
			}
		}
		// dsyrk: m×m from m×k, upper triangle; the strict lower stays.
		lda, ldc := k+1, m+2
		a := randSlice(rng, max(1, m*lda))
		var ref []float64
		for _, be := range bes {
			c := make([]float64, max(1, m*ldc))
			for i := range c {
				c[i] = sentinel
			}
			be.dsyrk(m, k, a, lda, c, ldc)
			for i := 0; i < m; i++ {
				for j := 0; j < i; j++ {
					if c[i*ldc+j] != sentinel {
						t.Fatalf("%s dsyrk wrote below the diagonal at (%d,%d)", be.name, i, j)
					}
				}
			}
			if ref == nil {
				ref = c
			} else {
				closeAll(t, be.name+" dsyrk", c, ref, 1e-12*float64(k+1))
			}
		}
		// dtrsm on m×n right-hand sides.
		for _, side := range []blas.Side{blas.Left, blas.Right} {
			for _, uplo := range []blas.Uplo{blas.Lower, blas.Upper} {
				for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
					na := m
					if side == blas.Right {
						na = n
					}
					lda := na + 1
					tri := randSlice(rng, max(1, na*lda))
					for i := 0; i < na; i++ {
						for j := 0; j < na; j++ {
							tri[i*lda+j] *= 0.2
						}
						tri[i*lda+i] = 2 + rng.Float64()
					}
					ldb := n + 2
					b0 := randSlice(rng, max(1, m*ldb))
					var ref []float64
					for _, be := range bes {
						x := append([]float64(nil), b0...)
						be.dtrsm(side, uplo, tr, m, n, tri, lda, x, ldb)
						if ref == nil {
							ref = x
						} else {
							closeAll(t, be.name+" dtrsm", x, ref, 1e-10)
						}
					}
				}
			}
		}
	}
}

// TestSelect checks SGP_BLAS: go forces pure Go, openblas with a library that
// cannot be loaded is an error naming the library (never a silent
// fallback), auto falls back, and an unknown value is an error.
func TestSelect(t *testing.T) {
	t.Parallel()
	bad := []string{"libsgp-no-such-openblas.so.0"}
	for _, mode := range []string{"go", "GO", "gonum"} {
		b, err := selectBackend(mode, openblasNames())
		if err != nil || b.name != goBackend().name {
			t.Fatalf("SGP_BLAS=%s: %v, %v", mode, b, err)
		}
	}
	if _, err := selectBackend("openblas", bad); err == nil || !strings.Contains(err.Error(), bad[0]) || !strings.Contains(err.Error(), "SGP_BLAS=openblas") {
		t.Fatalf("SGP_BLAS=openblas with no library: err = %v", err)
	}
	// A library that loads but is not OpenBLAS.
	if _, err := selectBackend("openblas", []string{"libm.so.6"}); err == nil || !strings.Contains(err.Error(), "cblas_dgemm") {
		t.Fatalf("SGP_BLAS=openblas with libm: err = %v", err)
	}
	for _, mode := range []string{"", "auto"} {
		b, err := selectBackend(mode, bad)
		if err != nil || b.name != goBackend().name {
			t.Fatalf("SGP_BLAS=%q without OpenBLAS: %v, %v", mode, b, err)
		}
	}
	if _, err := selectBackend("mkl", nil); err == nil {
		t.Fatal("SGP_BLAS=mkl accepted")
	}
	if _, err := loadOpenBLAS(openblasNames()); err == nil {
		b, err := selectBackend("auto", openblasNames())
		if err != nil || !strings.HasPrefix(b.name, "openblas") {
			t.Fatalf("auto with OpenBLAS installed: %v, %v", b, err)
		}
	}
}

// BenchmarkDgemm compares the backends' single-call (one core) GEMM on
// C (4000×256) ← A (4000×256) · B (256×256), the comparison that chose
// vek's kernel for the pure-Go backend. Metric: GFLOP/s.
func BenchmarkDgemm(b *testing.B) {
	const m, n, k = 4000, 256, 256
	rng := rand.New(rand.NewPCG(5, 5))
	a, bb, c := randSlice(rng, m*k), randSlice(rng, k*n), make([]float64, m*n)
	bes := []*backend{gonumBackend(), goBackend()}
	names := []string{"gonum", "go-vek"}
	if ob, err := loadOpenBLAS(openblasNames()); err == nil {
		bes, names = append(bes, ob), append(names, "openblas")
	}
	for i, be := range bes {
		b.Run(names[i], func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				be.dgemm(false, false, m, n, k, a, k, bb, n, c, n)
			}
			b.ReportMetric(2*m*n*k*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// TestTrsmLowerRecursive checks TrsmLower's recursive path (backends with
// dgemmSub) against gonum's dtrsm on shapes around the leaf size and the
// column panel, with a padded row stride, including an ill-conditioned L.
func TestTrsmLowerRecursive(t *testing.T) {
	t.Parallel()
	ref := gonumBackend()
	rng := rand.New(rand.NewPCG(9, 9))
	tested := false
	for _, be := range testBackends(t) {
		if be.dgemmSub == nil {
			continue
		}
		tested = true
		for _, sh := range [][2]int{{trsmLeaf, 7}, {trsmLeaf + 1, 1}, {trsmLeaf + 1, 300}, {200, trsmPanel + 5}, {300, 2 * trsmPanel}} {
			m, n := sh[0], sh[1]
			for _, ill := range []bool{false, true} {
				l := randSlice(rng, m*m)
				for i := 0; i < m; i++ {
					for j := 0; j < m; j++ {
						l[i*m+j] *= 0.3 / math.Sqrt(float64(m))
					}
					l[i*m+i] = 1 + rng.Float64()
					if ill && i%7 == 3 {
						l[i*m+i] = 1e-5
					}
				}
				ldb := n + 3
				b0 := randSlice(rng, m*ldb)
				want := append([]float64(nil), b0...)
				ref.dtrsm(blas.Left, blas.Lower, blas.NoTrans, m, n, l, m, want, ldb)
				got := append([]float64(nil), b0...)
				be.trsmLower(m, n, l, got, ldb)
				var scale float64
				for _, v := range want {
					scale = math.Max(scale, math.Abs(v))
				}
				for i := 0; i < m; i++ {
					for j := n; j < ldb; j++ {
						if got[i*ldb+j] != b0[i*ldb+j] {
							t.Fatalf("%s m=%d n=%d: wrote outside B at (%d,%d)", be.name, m, n, i, j)
						}
					}
					for j := 0; j < n; j++ {
						if d := math.Abs(got[i*ldb+j] - want[i*ldb+j]); !(d <= 1e-12*scale) {
							t.Fatalf("%s m=%d n=%d ill=%v: (%d,%d) = %g, want %g", be.name, m, n, ill, i, j, got[i*ldb+j], want[i*ldb+j])
						}
					}
				}
			}
		}
	}
	if !tested {
		t.Skip("no backend with dgemmSub (OpenBLAS) loaded")
	}
}
