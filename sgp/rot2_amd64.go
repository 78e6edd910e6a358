package sgp

// rot2 sets (u[i], v[i]) ← (a·u[i] + b·v[i], c·u[i] + d·v[i]) for
// i < len(u); len(v) ≥ len(u). Implemented in rot2_amd64.s.
//
//go:noescape
func rot2(u, v []float64, a, b, c, d float64)
