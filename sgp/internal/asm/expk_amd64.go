package asm

import "golang.org/x/sys/cpu"

// ExpRow sets dst[i] = v·exp(−s[i]/2) for i < len(s), the RBF kernel's
// values from the squared scaled distances s (see expNeg): four at a time
// with AVX2 where the CPU has it (expk_amd64.s, the same bits as expNeg),
// the rest in Go. math.Exp took about 4.6 ns a value here, most of the
// time of the kernel block at d = 8 (BenchmarkRBFBlock).
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
