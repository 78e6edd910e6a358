//go:build !amd64

package asm

// SqAcc4 sets r_q[i] += (x[i] − z_q)² for q < 4 and i < len(x); each r_q
// has at least len(x) elements.
func SqAcc4(x []float64, z0, z1, z2, z3 float64, r0, r1, r2, r3 []float64) {
	sqacc4Go(x, z0, z1, z2, z3, r0, r1, r2, r3)
}

// WSqDot4 returns s_q = Σ_i h_q[i]·(x[i] − z_q)² for q < 4, summed in the
// order wsqdot4Go describes; each h_q has at least len(x) elements.
func WSqDot4(x, h0, h1, h2, h3 []float64, z0, z1, z2, z3 float64) (s0, s1, s2, s3 float64) {
	return wsqdot4Go(x, h0, h1, h2, h3, z0, z1, z2, z3)
}
