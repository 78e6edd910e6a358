package asm

import "golang.org/x/sys/cpu"

// MaternPsiRow sets dst[i] as MaternRow(dst, s, v, c, c1, c2) does, the
// Matérn kernel's values, and psi[i] = (pv·e^{−a})·(1 + p1·a) with
// a = √(c·s[i]) and the same e^{−a}, divided by a with cusp (0 where a is
// not positive), 0 where e^{−a} underflows: the kernel's ψ (pv, p1 = 3V, 0
// for ν = 3/2; (5/3)·V, 1 for ν = 5/2; V, 0 and cusp for ν = 1/2). Four at
// a time with AVX2 where the CPU has it (grad_amd64.s, the same bits as
// its Go loop), the rest in Go.
func MaternPsiRow(dst, psi, s []float64, v, c, c1, c2, pv, p1 float64, cusp bool) {
	if len(dst) < len(s) || len(psi) < len(s) {
		panic("sgp: internal error: MaternPsiRow destination shorter than its input")
	}
	done := 0
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		done = len(s) &^ 3
		maternPsiRowAVX2(dst[:done], psi[:done], s[:done], v, c, c1, c2, pv, p1, cusp)
	}
	maternPsiRowGo(dst[done:len(s)], psi[done:len(s)], s[done:], v, c, c1, c2, pv, p1, cusp)
}

// maternPsiRowAVX2 is MaternPsiRow for len(s) a multiple of 4.
//
//go:noescape
func maternPsiRowAVX2(dst, psi, s []float64, v, c, c1, c2, pv, p1 float64, cusp bool)

// RQGradRow sets dst[i] as RQRow(dst, s, v, a, α) does, the rational
// quadratic kernel's values κ, and from the same logarithm psi[i] = κ/x
// and dk[i] = (κ − ψ) − κ·log x (one rounding) with x = 1 + a·s[i]: with
// a = 1/(2α), the kernel's ψ and ∂κ/∂log α divided by α. Four at a time
// with AVX2 and FMA where the CPU has them (grad_amd64.s, the same bits
// as its Go loop), the rest in Go.
func RQGradRow(dst, psi, dk, s []float64, v, a, alpha float64) {
	if len(dst) < len(s) || len(psi) < len(s) || len(dk) < len(s) {
		panic("sgp: internal error: RQGradRow destination shorter than its input")
	}
	done := 0
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		done = len(s) &^ 3
		rqGradRowAVX2(dst[:done], psi[:done], dk[:done], s[:done], v, a, -alpha)
	}
	rqGradRowGo(dst[done:len(s)], psi[done:len(s)], dk[done:len(s)], s[done:], v, a, alpha)
}

// rqGradRowAVX2 is RQGradRow for len(s) a multiple of 4, with nalpha = −α.
//
//go:noescape
func rqGradRowAVX2(dst, psi, dk, s []float64, v, a, nalpha float64)
