package sgp

import "golang.org/x/sys/cpu"

// sqacc4 sets r_q[i] += (x[i] − z_q)² for q < 4 and i < len(x); each r_q
// has at least len(x) elements. It is the inner loop of the RBF kernel's
// squared distances (crossT): with AVX where the CPU has it
// (sqdist_amd64.s; no fused multiply–add, so the same bits as the Go loop
// sqacc4Go), the Go loop otherwise.
func sqacc4(x []float64, z0, z1, z2, z3 float64, r0, r1, r2, r3 []float64) {
	if len(r0) < len(x) || len(r1) < len(x) || len(r2) < len(x) || len(r3) < len(x) {
		panic("sgp: internal error: sqacc4 accumulator shorter than its input")
	}
	if cpu.X86.HasAVX {
		sqacc4avx(x, z0, z1, z2, z3, r0, r1, r2, r3)
		return
	}
	sqacc4Go(x, z0, z1, z2, z3, r0, r1, r2, r3)
}

//go:noescape
func sqacc4avx(x []float64, z0, z1, z2, z3 float64, r0, r1, r2, r3 []float64)
