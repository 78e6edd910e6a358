package asm

// sqacc4Go is SqAcc4 as a Go loop: r_q[i] += (x[i] − z_q)² for the four
// centres z_0 … z_3 and i < len(x), one load of x[i] for all four.
func sqacc4Go(x []float64, z0, z1, z2, z3 float64, r0, r1, r2, r3 []float64) {
	r0, r1, r2, r3 = r0[:len(x)], r1[:len(x)], r2[:len(x)], r3[:len(x)]
	for i, xv := range x {
		d0, d1, d2, d3 := xv-z0, xv-z1, xv-z2, xv-z3
		r0[i] += d0 * d0
		r1[i] += d1 * d1
		r2[i] += d2 * d2
		r3[i] += d3 * d3
	}
}

// wsqdot4Go is WSqDot4 as Go loops, in the same order: four lanes per
// centre (lane l takes the elements i ≡ l mod 4 of the first len(x)&^3),
// the lanes added as (l₀ + l₁) + (l₂ + l₃), then the last len(x) mod 4
// elements in order. Each term is (h·δ)·δ.
func wsqdot4Go(x, h0, h1, h2, h3 []float64, z0, z1, z2, z3 float64) (s0, s1, s2, s3 float64) {
	n := len(x)
	h0, h1, h2, h3 = h0[:n], h1[:n], h2[:n], h3[:n]
	var a0, a1, a2, a3 [4]float64
	for i := 0; i+4 <= n; i += 4 {
		for l := 0; l < 4; l++ {
			v := x[i+l]
			d0, d1, d2, d3 := v-z0, v-z1, v-z2, v-z3
			a0[l] += float64(float64(h0[i+l]*d0) * d0)
			a1[l] += float64(float64(h1[i+l]*d1) * d1)
			a2[l] += float64(float64(h2[i+l]*d2) * d2)
			a3[l] += float64(float64(h3[i+l]*d3) * d3)
		}
	}
	s0, s1, s2, s3 = (a0[0]+a0[1])+(a0[2]+a0[3]), (a1[0]+a1[1])+(a1[2]+a1[3]), (a2[0]+a2[1])+(a2[2]+a2[3]), (a3[0]+a3[1])+(a3[2]+a3[3])
	return wsqdot4Tail(x, h0, h1, h2, h3, z0, z1, z2, z3, s0, s1, s2, s3)
}

// wsqdot4Tail adds WSqDot4's terms for the last len(x) mod 4 elements, in
// order, to the lanes' sums s0 … s3.
func wsqdot4Tail(x, h0, h1, h2, h3 []float64, z0, z1, z2, z3, s0, s1, s2, s3 float64) (float64, float64, float64, float64) {
	for i := len(x) &^ 3; i < len(x); i++ {
		v := x[i]
		d0, d1, d2, d3 := v-z0, v-z1, v-z2, v-z3
		s0 += float64(float64(h0[i]*d0) * d0)
		s1 += float64(float64(h1[i]*d1) * d1)
		s2 += float64(float64(h2[i]*d2) * d2)
		s3 += float64(float64(h3[i]*d3) * d3)
	}
	return s0, s1, s2, s3
}
