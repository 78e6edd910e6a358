//go:build !amd64

package asm

// Rot2 sets (u[i], v[i]) ← (a·u[i] + b·v[i], c·u[i] + d·v[i]) for
// i < len(u); len(v) ≥ len(u). The conversions round each product, as
// rot2_amd64.s does, where the compiler would otherwise fuse them.
func Rot2(u, v []float64, a, b, c, d float64) {
	v = v[:len(u)]
	for i, x := range u {
		y := v[i]
		u[i] = float64(a*x) + float64(b*y)
		v[i] = float64(c*x) + float64(d*y)
	}
}
