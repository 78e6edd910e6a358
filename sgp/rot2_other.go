//go:build !amd64

package sgp

// rot2 sets (u[i], v[i]) ← (a·u[i] + b·v[i], c·u[i] + d·v[i]) for
// i < len(u); len(v) ≥ len(u).
func rot2(u, v []float64, a, b, c, d float64) {
	v = v[:len(u)]
	for i, x := range u {
		y := v[i]
		u[i] = a*x + b*y
		v[i] = c*x + d*y
	}
}
