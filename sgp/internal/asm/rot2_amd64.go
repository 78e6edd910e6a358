package asm

import "golang.org/x/sys/cpu"

// Rot2 sets (u[i], v[i]) ← (a·u[i] + b·v[i], c·u[i] + d·v[i]) for
// i < len(u); len(v) ≥ len(u): with AVX where the CPU has it, SSE2
// otherwise, the same bits either way (rot2_amd64.s). The move rotations
// spend most of a swap here; AVX halves the time on columns in cache, and
// matters less once the rotations stream G and Q from memory.
func Rot2(u, v []float64, a, b, c, d float64) {
	if cpu.X86.HasAVX {
		rot2avx(u, v, a, b, c, d)
		return
	}
	rot2sse2(u, v, a, b, c, d)
}

//go:noescape
func rot2sse2(u, v []float64, a, b, c, d float64)

//go:noescape
func rot2avx(u, v []float64, a, b, c, d float64)
