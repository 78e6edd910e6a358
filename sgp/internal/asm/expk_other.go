//go:build !amd64

package asm

// ExpRow sets dst[i] = v·exp(−s[i]/2) for i < len(s), the RBF kernel's
// values from the squared scaled distances s (see expNeg).
func ExpRow(dst, s []float64, v float64) { expRowGo(dst, s, v) }
