//go:build linux || darwin || freebsd

package linalg

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
	"gonum.org/v1/gonum/blas"
)

// CBLAS enumeration values (cblas.h).
const (
	cblasRowMajor = 101
	cblasNoTrans  = 111
	cblasTrans    = 112
	cblasUpper    = 121
	cblasLower    = 122
	cblasNonUnit  = 131
	cblasLeft     = 141
	cblasRight    = 142
)

// loadOpenBLAS opens the first library of names that loads and exports the
// CBLAS routines used here, binds them, and sets OpenBLAS to one thread:
// the calls are split over goroutines instead, because OpenBLAS's own
// worker threads spin while waiting for work and, on a small machine, take
// the cores from the Go code (kernel evaluations) that runs between calls.
func loadOpenBLAS(names []string) (*backend, error) {
	var errs []error
	for _, name := range names {
		b, err := openOne(name)
		if err == nil {
			return b, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, errors.New("no OpenBLAS library name to try")
	}
	return nil, fmt.Errorf("cannot load OpenBLAS: %w", errors.Join(errs...))
}

// openOne loads the library name, checks that it exports the routines
// used here, binds them and sets OpenBLAS to one thread.
func openOne(name string) (_ *backend, err error) {
	lib, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer func() {
		if err != nil {
			purego.Dlclose(lib)
		}
	}()
	for _, sym := range []string{"cblas_dgemm", "cblas_dsyrk", "cblas_dtrsm", "openblas_set_num_threads"} {
		if _, e := purego.Dlsym(lib, sym); e != nil {
			return nil, fmt.Errorf("%s: no symbol %s", name, sym)
		}
	}
	var (
		gemm       cblasGemm
		syrk       cblasSyrk
		trsm       cblasTrsm
		setThreads func(n int32)
	)
	purego.RegisterLibFunc(&gemm, lib, "cblas_dgemm")
	purego.RegisterLibFunc(&syrk, lib, "cblas_dsyrk")
	purego.RegisterLibFunc(&trsm, lib, "cblas_dtrsm")
	purego.RegisterLibFunc(&setThreads, lib, "openblas_set_num_threads")
	setThreads(1)
	b := cblasBackend(gemm, syrk, trsm)
	b.name = fmt.Sprintf("%s (runtime, %s)", openBLASVersion(lib), name)
	b.dpotrf, b.dpotri = lapackCholesky(lib)
	return b, nil
}

// The CBLAS routines used here, as purego binds them.
type (
	cblasGemm func(order, ta, tb, m, n, k int32, alpha float64, a *float64, lda int32, b *float64, ldb int32, beta float64, c *float64, ldc int32)
	cblasSyrk func(order, uplo, trans, n, k int32, alpha float64, a *float64, lda int32, beta float64, c *float64, ldc int32)
	cblasTrsm func(order, side, uplo, trans, diag, m, n int32, alpha float64, a *float64, lda int32, b *float64, ldb int32)
)

// openBLASVersion returns "openblas" with the library's version and core
// name where it reports them.
func openBLASVersion(lib uintptr) string {
	version := "openblas"
	if _, e := purego.Dlsym(lib, "openblas_get_config"); e == nil {
		var config func() string
		purego.RegisterLibFunc(&config, lib, "openblas_get_config")
		// e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"
		if f := strings.Fields(config()); len(f) >= 2 && strings.EqualFold(f[0], "OpenBLAS") {
			version += " " + f[1]
		}
	}
	if _, e := purego.Dlsym(lib, "openblas_get_corename"); e == nil {
		var core func() string
		purego.RegisterLibFunc(&core, lib, "openblas_get_corename")
		if c := strings.TrimSpace(core()); c != "" {
			version += " " + c
		}
	}
	return version
}

// lapackCholesky binds LAPACK's Cholesky routines through their Fortran
// interface (column-major, arguments by reference; OpenBLAS builds them
// with its own level-3 kernels), nil for a routine the library lacks.
// Row-major lower is column-major upper. The trailing argument is the
// hidden length of the character argument that gfortran-compiled routines
// expect; C implementations ignore it.
func lapackCholesky(lib uintptr) (potrf, potri func(blas.Uplo, int, []float64, int) bool) {
	type routine func(uplo *byte, n *int32, a *float64, lda *int32, info *int32, uplen uintptr)
	bind := func(sym string) func(blas.Uplo, int, []float64, int) bool {
		if _, e := purego.Dlsym(lib, sym); e != nil {
			return nil
		}
		var fn routine
		purego.RegisterLibFunc(&fn, lib, sym)
		return func(uplo blas.Uplo, n int, a []float64, lda int) bool {
			u := byte('L')
			if uplo == blas.Lower {
				u = 'U'
			}
			nn, ld := int32(n), int32(lda)
			var info int32
			fn(&u, &nn, unsafe.SliceData(a), &ld, &info, 1)
			return info == 0
		}
	}
	return bind("dpotrf_"), bind("dpotri_")
}

// cblasBackend returns the backend's level-3 products through CBLAS in
// row-major order; zero-size products are done here.
func cblasBackend(gemm cblasGemm, syrk cblasSyrk, trsm cblasTrsm) *backend {
	// Zero-size calls return before reaching the library, so &x[0] exists.
	p := func(x []float64) *float64 { return unsafe.SliceData(x) }
	tr := func(t bool) int32 {
		if t {
			return cblasTrans
		}
		return cblasNoTrans
	}
	return &backend{
		dgemm: func(ta, tb bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
			if m == 0 || n == 0 {
				return
			}
			if k == 0 {
				for i := 0; i < m; i++ {
					clear(c[i*ldc : i*ldc+n])
				}
				return
			}
			gemm(cblasRowMajor, tr(ta), tr(tb), int32(m), int32(n), int32(k), 1, p(a), int32(lda), p(b), int32(ldb), 0, p(c), int32(ldc))
		},
		dgemmSub: func(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
			if m == 0 || n == 0 || k == 0 {
				return
			}
			gemm(cblasRowMajor, cblasNoTrans, cblasNoTrans, int32(m), int32(n), int32(k), -1, p(a), int32(lda), p(b), int32(ldb), 1, p(c), int32(ldc))
		},
		dsyrk: func(m, k int, a []float64, lda int, c []float64, ldc int) {
			if m == 0 {
				return
			}
			if k == 0 {
				for i := 0; i < m; i++ {
					clear(c[i*ldc+i : i*ldc+m])
				}
				return
			}
			syrk(cblasRowMajor, cblasUpper, cblasNoTrans, int32(m), int32(k), 1, p(a), int32(lda), 0, p(c), int32(ldc))
		},
		dtrsm: func(side blas.Side, uplo blas.Uplo, trans blas.Transpose, m, n int, a []float64, lda int, b []float64, ldb int) {
			if m == 0 || n == 0 {
				return
			}
			s, u, t := int32(cblasLeft), int32(cblasLower), int32(cblasNoTrans)
			if side == blas.Right {
				s = cblasRight
			}
			if uplo == blas.Upper {
				u = cblasUpper
			}
			if trans != blas.NoTrans {
				t = cblasTrans
			}
			trsm(cblasRowMajor, s, u, t, cblasNonUnit, int32(m), int32(n), 1, p(a), int32(lda), p(b), int32(ldb))
		},
	}
}
