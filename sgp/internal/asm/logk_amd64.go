package asm

import "golang.org/x/sys/cpu"

// Log1pRow sets dst[i] = b·log(1 + a·s[i]) for i < len(s), s[i] ≥ 0 and
// a > 0, the rational quadratic kernel's logarithms from its squared
// scaled distances (see logPos): four at a time with AVX2 where the CPU
// has it (logk_amd64.s, the same bits as logPos), the rest in Go.
func Log1pRow(dst, s []float64, a, b float64) {
	if len(dst) < len(s) {
		panic("sgp: internal error: Log1pRow destination shorter than its input")
	}
	done := 0
	if cpu.X86.HasAVX2 {
		done = len(s) &^ 3
		log1pRowAVX2(dst[:done], s[:done], a, b)
	}
	log1pRowGo(dst[done:len(s)], s[done:], a, b)
}

// log1pRowAVX2 is Log1pRow for len(s) a multiple of 4.
//
//go:noescape
func log1pRowAVX2(dst, s []float64, a, b float64)
