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

// Backend names the implementation in use: "gonum" or "openblas".
func Backend() string { return backend }
