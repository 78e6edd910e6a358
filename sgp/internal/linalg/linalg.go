// Package linalg holds the dense level-3 kernels whose speed decides the
// cost of the gradient phase: C ← AᵀA (Syrk), B ← L⁻¹B (TrsmLower) and
// C ← AᵀB (GemmTN), on row-major matrices.
//
// The default build uses gonum's pure-Go BLAS, split over the cores. With
// the build tag openblas and the OpenBLAS library installed (Debian:
// libopenblas-dev) the same calls go to OpenBLAS through cgo, which is
// about ten times faster on AVX2 machines (measured: C ← AᵀB with
// 10000×512 A and 512×512 B, 0.64 s with gonum, 0.077 s with OpenBLAS).
package linalg

import (
	"runtime"
	"sync"
)

// Backend names the implementation in use: "gonum" or "openblas".
func Backend() string { return backend }

// split runs fn on column ranges of [0, n) concurrently.
func split(n int, fn func(lo, hi int)) {
	splitMin(n, 256, fn)
}

// splitMin is split with at least minPer items per goroutine.
func splitMin(n, minPer int, fn func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if p > n/minPer {
		p = max(1, n/minPer)
	}
	if p <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + p - 1) / p
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}
