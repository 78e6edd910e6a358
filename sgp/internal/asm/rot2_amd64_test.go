package asm

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestRot2KernelsAgree checks the SSE2 and AVX rotation kernels against
// the scalar expressions, bit for bit, at every length of both unrolled
// loops' tails, whichever one Rot2 picks on this CPU.
func TestRot2KernelsAgree(t *testing.T) {
	checkRot2(t, "sse2", rot2sse2, 20)
	if !cpu.X86.HasAVX {
		t.Log("no AVX here: only the SSE2 kernel is checked")
		return
	}
	checkRot2(t, "avx", rot2avx, 20)
}
