package sgp

import "github.com/cholqr/sgp/sgp/internal/linalg"

// BLAS describes the dense linear-algebra backend in use, e.g.
// "openblas 0.3.21 Haswell (runtime, /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0)"
// or "go (vek GEMM, blocked)". The environment variable SGP_BLAS chooses it: auto (the
// default: OpenBLAS when its shared library is installed, e.g. Debian's
// libopenblas0, else pure Go), openblas (an error if it cannot be loaded)
// or go. OpenBLAS is opened at run time; no build flag is needed.
//
// The error is non-nil when SGP_BLAS names a backend that cannot be used;
// the fitting and prediction routines then panic with that error, so a
// program should check BLAS at start-up.
func BLAS() (string, error) { return linalg.Backend() }
