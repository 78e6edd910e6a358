package asm

import "golang.org/x/sys/cpu"

// RQRow sets dst[i] = v·(1 + a·s[i])^{−α} for i < len(s), s[i] ≥ 0, a > 0
// and α > 0: the rational quadratic kernel's values from its squared
// scaled distances (a = 1/(2α)), and its ψ (exponent α + 1). Four at a
// time with AVX2 and FMA where the CPU has them (rqk_amd64.s, the same
// bits as its Go loop), the rest in Go.
func RQRow(dst, s []float64, v, a, alpha float64) {
	if len(dst) < len(s) {
		panic("sgp: internal error: RQRow destination shorter than its input")
	}
	done := 0
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		done = len(s) &^ 3
		rqRowAVX2(dst[:done], s[:done], v, a, -alpha)
	}
	rqRowGo(dst[done:len(s)], s[done:], v, a, alpha)
}

// rqRowAVX2 is RQRow for len(s) a multiple of 4, with nalpha = −α.
//
//go:noescape
func rqRowAVX2(dst, s []float64, v, a, nalpha float64)
