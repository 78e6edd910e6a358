package asm

import "golang.org/x/sys/cpu"

// SqAcc4 sets r_q[i] += (x[i] − z_q)² for q < 4 and i < len(x); each r_q
// has at least len(x) elements. It is the inner loop of the RBF kernel's
// squared distances (kernel.RBF.CrossT): with AVX where the CPU has it
// (sqdist_amd64.s; no fused multiply–add, so the same bits as the Go loop
// sqacc4Go), the Go loop otherwise.
func SqAcc4(x []float64, z0, z1, z2, z3 float64, r0, r1, r2, r3 []float64) {
	if len(r0) < len(x) || len(r1) < len(x) || len(r2) < len(x) || len(r3) < len(x) {
		panic("sgp: internal error: SqAcc4 accumulator shorter than its input")
	}
	if cpu.X86.HasAVX {
		sqacc4avx(x, z0, z1, z2, z3, r0, r1, r2, r3)
		return
	}
	sqacc4Go(x, z0, z1, z2, z3, r0, r1, r2, r3)
}

//go:noescape
func sqacc4avx(x []float64, z0, z1, z2, z3 float64, r0, r1, r2, r3 []float64)

// WSqDot4 returns s_q = Σ_i h_q[i]·(x[i] − z_q)² for q < 4, summed in the
// order wsqdot4Go describes (four lanes, then the tail), with AVX where the
// CPU has it and the same bits either way; each h_q has at least len(x)
// elements. It is the inner loop of the RBF lengthscale gradient
// (kernel.RBF.AddGradBlockT), whose four running sums were bound by the latency of
// their additions.
func WSqDot4(x, h0, h1, h2, h3 []float64, z0, z1, z2, z3 float64) (s0, s1, s2, s3 float64) {
	n := len(x)
	if len(h0) < n || len(h1) < n || len(h2) < n || len(h3) < n {
		panic("sgp: internal error: WSqDot4 weights shorter than the inputs")
	}
	if !cpu.X86.HasAVX {
		return wsqdot4Go(x, h0, h1, h2, h3, z0, z1, z2, z3)
	}
	s0, s1, s2, s3 = wsqdot4avx(x[:n&^3], h0, h1, h2, h3, z0, z1, z2, z3)
	return wsqdot4Tail(x, h0, h1, h2, h3, z0, z1, z2, z3, s0, s1, s2, s3)
}

// wsqdot4avx is WSqDot4's four-lane part, for len(x) a multiple of 4.
//
//go:noescape
func wsqdot4avx(x, h0, h1, h2, h3 []float64, z0, z1, z2, z3 float64) (s0, s1, s2, s3 float64)
