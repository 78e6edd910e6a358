//go:build !amd64

package asm

// Log1pRow sets dst[i] = b·log(1 + a·s[i]) for i < len(s), s[i] ≥ 0 and
// a > 0, the rational quadratic kernel's logarithms (see logPos).
func Log1pRow(dst, s []float64, a, b float64) { log1pRowGo(dst, s, a, b) }
