//go:build !amd64

package sgp

// sqacc4 sets r_q[i] += (x[i] − z_q)² for q < 4 and i < len(x); each r_q
// has at least len(x) elements.
func sqacc4(x []float64, z0, z1, z2, z3 float64, r0, r1, r2, r3 []float64) {
	sqacc4Go(x, z0, z1, z2, z3, r0, r1, r2, r3)
}
