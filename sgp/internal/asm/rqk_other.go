//go:build !amd64

package asm

// RQRow sets dst[i] = v·(1 + a·s[i])^{−α} for i < len(s), s[i] ≥ 0, a > 0
// and α > 0, the rational quadratic kernel's values (see rqRowGo).
func RQRow(dst, s []float64, v, a, alpha float64) { rqRowGo(dst, s, v, a, alpha) }
