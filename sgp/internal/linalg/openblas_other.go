//go:build !(linux || darwin || freebsd)

package linalg

import (
	"fmt"
	"runtime"
)

// loadOpenBLAS reports that run-time loading is not available here.
func loadOpenBLAS(names []string) (*backend, error) {
	return nil, fmt.Errorf("cannot open OpenBLAS at run time on %s", runtime.GOOS)
}
