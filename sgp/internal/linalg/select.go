package linalg

import (
	"fmt"
	"strings"
)

// openblasNames are the names and paths tried, in order, to open OpenBLAS:
// Debian's libopenblas0 (pthread variant first, then the alternatives link
// and the OpenMP variant), then whatever the dynamic loader finds.
func openblasNames() []string {
	return []string{
		"/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
		"/usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0",
		"/usr/lib/x86_64-linux-gnu/libopenblas.so.0",
		"/usr/lib/aarch64-linux-gnu/libopenblas.so.0",
		"/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0",
		"libopenblas.so.0",
		"libopenblas.so",
		"/usr/lib64/libopenblas.so.0",
		"/usr/local/lib/libopenblas.so",
		"/opt/homebrew/opt/openblas/lib/libopenblas.dylib",
		"/usr/local/opt/openblas/lib/libopenblas.dylib",
	}
}

// selectBackend returns the backend for the value of SGP_BLAS, trying the
// library names in order for OpenBLAS. An explicit "openblas" that cannot
// be loaded is an error; "auto" (or empty) falls back to pure Go.
func selectBackend(mode string, names []string) (*backend, error) {
	switch strings.ToLower(strings.TrimSpace(mode)) {
	case "go", "gonum":
		return goBackend(), nil
	case "", "auto":
		if b, err := loadOpenBLAS(names); err == nil {
			return b, nil
		}
		return goBackend(), nil
	case "openblas":
		b, err := loadOpenBLAS(names)
		if err != nil {
			return nil, fmt.Errorf("SGP_BLAS=openblas: %w (install it, e.g. apt-get install libopenblas0, or set SGP_BLAS=go)", err)
		}
		return b, nil
	default:
		return nil, fmt.Errorf("SGP_BLAS=%q: want openblas, go or auto", mode)
	}
}
