package sgp

// sqacc4Go is sqacc4 as a Go loop: r_q[i] += (x[i] − z_q)² for the four
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
