//go:build !amd64

package asm

// ExpRow sets dst[i] = v·exp(−s[i]/2) for i < len(s), the RBF kernel's
// values from the squared scaled distances s (see expNeg).
func ExpRow(dst, s []float64, v float64) { expRowGo(dst, s, v) }

// MaternRow sets dst[i] = v·e^{−a}·((1 + c1·a) + (c2·a)·a) with
// a = √(c·s[i]) for i < len(s), the Matérn kernels' values (see
// maternRowGo).
func MaternRow(dst, s []float64, v, c, c1, c2 float64) { maternRowGo(dst, s, v, c, c1, c2) }
