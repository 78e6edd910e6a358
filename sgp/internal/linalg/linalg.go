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

// SyrkT sets c (m×m, both triangles) to A·Aᵀ for the row-major m×n matrix
// a with row stride lda. The columns are taken in fixed chunks whose
// products are summed in order, so the result does not depend on the
// number of cores or the scheduling.
func SyrkT(m, n int, a []float64, lda int, c []float64) {
	if m == 0 {
		return
	}
	const chunk = 2048
	chunks := max(1, (n+chunk-1)/chunk)
	parts := make([][]float64, chunks)
	splitMin(chunks, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			c0, c1 := p*chunk, min(n, (p+1)*chunk)
			part := make([]float64, m*m)
			if c1 > c0 {
				syrkRaw(m, c1-c0, a[c0:], lda, part)
			}
			parts[p] = part
		}
	})
	clear(c[:m*m])
	for _, part := range parts {
		for i, v := range part {
			c[i] += v
		}
	}
	symmetrize(m, c)
}

// symmetrize copies the upper triangle of the m×m matrix c to the lower.
func symmetrize(m int, c []float64) {
	for i := 0; i < m; i++ {
		for j := 0; j < i; j++ {
			c[i*m+j] = c[j*m+i]
		}
	}
}
