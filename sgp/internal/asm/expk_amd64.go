package asm

import "golang.org/x/sys/cpu"

// ExpRow sets dst[i] = v·exp(−s[i]/2) for i < len(s), the RBF kernel's
// values from the squared scaled distances s (see expNeg): four at a time
// with AVX2 where the CPU has it (expk_amd64.s, the same bits as expNeg),
// the rest in Go. The exponential is most of the cost of an RBF kernel
// block at small d (BenchmarkRBFBlock).
func ExpRow(dst, s []float64, v float64) {
	if len(dst) < len(s) {
		panic("sgp: internal error: ExpRow destination shorter than its input")
	}
	done := 0
	if cpu.X86.HasAVX2 {
		done = len(s) &^ 3
		expRowAVX2(dst[:done], s[:done], v)
	}
	expRowGo(dst[done:len(s)], s[done:], v)
}

// expRowAVX2 is ExpRow for len(s) a multiple of 4.
//
//go:noescape
func expRowAVX2(dst, s []float64, v float64)

// MaternRow sets dst[i] = v·e^{−a}·((1 + c1·a) + (c2·a)·a) with
// a = √(c·s[i]) for i < len(s), the Matérn kernels' values from the
// squared scaled distances s (c = 2ν; c1, c2 = 0, 0 for ν = 1/2, 1, 0
// for ν = 3/2 and 1, 1/3 for ν = 5/2), 0 where e^{−a} underflows (see
// expNegFMA): four at a time with AVX2 and FMA where the CPU has them
// (expk_amd64.s, the same bits as its Go loop), the rest in Go.
func MaternRow(dst, s []float64, v, c, c1, c2 float64) {
	if len(dst) < len(s) {
		panic("sgp: internal error: MaternRow destination shorter than its input")
	}
	done := 0
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		done = len(s) &^ 3
		maternRowAVX2(dst[:done], s[:done], v, c, c1, c2)
	}
	maternRowGo(dst[done:len(s)], s[done:], v, c, c1, c2)
}

// maternRowAVX2 is MaternRow for len(s) a multiple of 4.
//
//go:noescape
func maternRowAVX2(dst, s []float64, v, c, c1, c2 float64)
