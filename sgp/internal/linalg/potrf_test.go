package linalg

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// potrfCases factorises and inverts a random SPD n×n matrix (row stride
// lda) on backend be and checks both by reconstruction.
func potrfCases(t *testing.T, be *backend, n, lda int, uplo blas.Uplo, rng *rand.Rand) {
	t.Helper()
	// A = BBᵀ + nI, symmetric positive definite, in both triangles; the
	// padding beyond column n holds a sentinel that must survive.
	b := randSlice(rng, n*n)
	a := make([]float64, n*lda)
	for i := range a {
		a[i] = 777
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for k := 0; k < n; k++ {
				s += b[i*n+k] * b[j*n+k]
			}
			if i == j {
				s += float64(n)
			}
			a[i*lda+j] = s
		}
	}
	orig := append([]float64(nil), a...)
	f := append([]float64(nil), a...)
	if !potrfWith(be, uplo, n, f, lda) {
		t.Fatalf("%s n=%d: not positive definite", be.name, n)
	}
	// Reconstruct A from the factor's triangle (zeros elsewhere).
	tri := func(i, j int) float64 {
		if uplo == blas.Lower && j <= i || uplo == blas.Upper && j >= i {
			return f[i*lda+j]
		}
		return 0
	}
	scale := float64(n) * float64(n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for k := 0; k < n; k++ {
				if uplo == blas.Lower {
					s += tri(i, k) * tri(j, k) // LLᵀ
				} else {
					s += tri(k, i) * tri(k, j) // UᵀU
				}
			}
			if d := math.Abs(s - orig[i*lda+j]); d > 1e-12*scale {
				t.Fatalf("%s n=%d uplo=%c: factor reproduces A[%d,%d] = %g as %g", be.name, n, uplo, i, j, orig[i*lda+j], s)
			}
		}
		for j := n; j < lda; j++ {
			if f[i*lda+j] != 777 {
				t.Fatalf("%s: padding overwritten", be.name)
			}
		}
	}
	// The inverse: A·A⁻¹ = I using the computed triangle mirrored.
	if !potriWith(be, uplo, n, f, lda) {
		t.Fatalf("%s n=%d: singular factor", be.name, n)
	}
	inv := func(i, j int) float64 {
		if uplo == blas.Lower && j > i || uplo == blas.Upper && j < i {
			i, j = j, i
		}
		return f[i*lda+j]
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for k := 0; k < n; k++ {
				s += orig[i*lda+k] * inv(k, j)
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(s-want) > 1e-10 {
				t.Fatalf("%s n=%d uplo=%c: (A·A⁻¹)[%d,%d] = %g", be.name, n, uplo, i, j, s)
			}
		}
	}
}

// potrfWith and potriWith call the backend's routine, or gonum's LAPACK
// where the backend has none (as Potrf and Potri do).
func potrfWith(be *backend, uplo blas.Uplo, n int, a []float64, lda int) bool {
	if be.dpotrf != nil {
		return be.dpotrf(uplo, n, a, lda)
	}
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: uplo, N: n, Stride: lda, Data: a})
	return ok
}

func potriWith(be *backend, uplo blas.Uplo, n int, a []float64, lda int) bool {
	if be.dpotri != nil {
		return be.dpotri(uplo, n, a, lda)
	}
	_, ok := lapack64.Potri(blas64.Triangular{Uplo: uplo, Diag: blas.NonUnit, N: n, Stride: lda, Data: a})
	return ok
}

// TestPotrfPotri checks each backend's Cholesky factorisation and inverse
// (OpenBLAS's LAPACK through its Fortran interface, gonum's otherwise) by
// reconstruction, on both triangles, odd sizes and padded strides, and
// that a matrix that is not positive definite is reported.
func TestPotrfPotri(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	bound := 0
	for _, be := range testBackends(t) {
		if be.dpotrf != nil && be.dpotri != nil {
			bound++
		}
		for _, n := range []int{1, 2, 7, 64, 131} {
			for _, uplo := range []blas.Uplo{blas.Lower, blas.Upper} {
				potrfCases(t, be, n, n+3, uplo, rng)
			}
		}
		// Indefinite: diag(1, −1).
		a := []float64{1, 0, 0, -1}
		if potrfWith(be, blas.Lower, 2, a, 2) {
			t.Errorf("%s: an indefinite matrix factorised", be.name)
		}
	}
	if bound == 0 && strings.EqualFold(os.Getenv("SGP_BLAS"), "openblas") {
		t.Error("SGP_BLAS=openblas but no backend binds dpotrf_ and dpotri_")
	}
}

// TestVecKernels checks MulRows and SubColumns against loops, with a
// padded stride, on sizes that split over the cores unevenly.
func TestVecKernels(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 6))
	for _, sh := range [][2]int{{0, 5}, {1, 1}, {3, 7}, {37, 5001}, {130, 9000}} {
		m, n := sh[0], sh[1]
		lda := n + 2
		a := randSlice(rng, max(1, m*lda))
		x1, x2 := randSlice(rng, n), randSlice(rng, n)
		d1, d2 := make([]float64, m), make([]float64, m)
		MulRows(m, n, a, lda, [][]float64{x1, x2}, [][]float64{d1, d2})
		for r := 0; r < m; r++ {
			var s1, s2 float64
			for i := 0; i < n; i++ {
				s1 += a[r*lda+i] * x1[i]
				s2 += a[r*lda+i] * x2[i]
			}
			if math.Abs(d1[r]-s1) > 1e-10*math.Sqrt(float64(n)) || math.Abs(d2[r]-s2) > 1e-10*math.Sqrt(float64(n)) {
				t.Fatalf("MulRows %dx%d row %d: %g, %g want %g, %g", m, n, r, d1[r], d2[r], s1, s2)
			}
		}
		xr := randSlice(rng, m)
		y := randSlice(rng, n)
		want := append([]float64(nil), y...)
		for i := 0; i < n; i++ {
			for r := 0; r < m; r++ {
				want[i] -= a[r*lda+i] * xr[r]
			}
		}
		SubColumns(m, n, a, lda, xr, y)
		closeAll(t, "SubColumns", y, want, 1e-10*math.Sqrt(float64(m)+1))
	}
}
