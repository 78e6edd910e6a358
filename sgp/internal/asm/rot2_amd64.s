#include "textflag.h"

// func rot2sse2(u, v []float64, a, b, c, d float64)
//
// (u[i], v[i]) ← (a·u[i] + b·v[i], c·u[i] + d·v[i]) for i < len(u), two
// lanes of SSE2 (every amd64 CPU has it) and four elements per iteration.
// Each product and each sum is rounded, as in the Go loop of rot2_other.go.
TEXT ·rot2sse2(SB), NOSPLIT, $0-80
	MOVQ   u_base+0(FP), SI
	MOVQ   u_len+8(FP), CX
	MOVQ   v_base+24(FP), DI
	MOVSD  a+48(FP), X0
	MOVSD  b+56(FP), X1
	MOVSD  c+64(FP), X2
	MOVSD  d+72(FP), X3
	UNPCKLPD X0, X0
	UNPCKLPD X1, X1
	UNPCKLPD X2, X2
	UNPCKLPD X3, X3
	XORQ   AX, AX
	MOVQ   CX, BX
	ANDQ   $-4, BX

loop4:
	CMPQ   AX, BX
	JGE    tail
	MOVUPD (SI)(AX*8), X4
	MOVUPD 16(SI)(AX*8), X8
	MOVUPD (DI)(AX*8), X5
	MOVUPD 16(DI)(AX*8), X9
	MOVAPD X4, X6
	MOVAPD X8, X10
	MOVAPD X5, X7
	MOVAPD X9, X11
	MULPD  X0, X4
	MULPD  X0, X8
	MULPD  X1, X5
	MULPD  X1, X9
	ADDPD  X5, X4
	ADDPD  X9, X8
	MULPD  X2, X6
	MULPD  X2, X10
	MULPD  X3, X7
	MULPD  X3, X11
	ADDPD  X7, X6
	ADDPD  X11, X10
	MOVUPD X4, (SI)(AX*8)
	MOVUPD X8, 16(SI)(AX*8)
	MOVUPD X6, (DI)(AX*8)
	MOVUPD X10, 16(DI)(AX*8)
	ADDQ   $4, AX
	JMP    loop4

tail:
	CMPQ   AX, CX
	JGE    done
	MOVSD  (SI)(AX*8), X4
	MOVSD  (DI)(AX*8), X5
	MOVSD  X4, X6
	MOVSD  X5, X7
	MULSD  X0, X4
	MULSD  X1, X5
	ADDSD  X5, X4
	MULSD  X2, X6
	MULSD  X3, X7
	ADDSD  X7, X6
	MOVSD  X4, (SI)(AX*8)
	MOVSD  X6, (DI)(AX*8)
	INCQ   AX
	JMP    tail

done:
	RET

// func rot2avx(u, v []float64, a, b, c, d float64)
//
// rot2 with four lanes of AVX and eight elements per iteration, for CPUs
// that have AVX (rot2_amd64.go checks). No fused multiply–add: each
// product and each sum is rounded as in rot2sse2, so the results are the
// same bit for bit.
TEXT ·rot2avx(SB), NOSPLIT, $0-80
	MOVQ         u_base+0(FP), SI
	MOVQ         u_len+8(FP), CX
	MOVQ         v_base+24(FP), DI
	VBROADCASTSD a+48(FP), Y0
	VBROADCASTSD b+56(FP), Y1
	VBROADCASTSD c+64(FP), Y2
	VBROADCASTSD d+72(FP), Y3
	XORQ         AX, AX
	MOVQ         CX, BX
	ANDQ         $-8, BX

avxloop8:
	CMPQ    AX, BX
	JGE     avxtail
	VMOVUPD (SI)(AX*8), Y4
	VMOVUPD 32(SI)(AX*8), Y8
	VMOVUPD (DI)(AX*8), Y5
	VMOVUPD 32(DI)(AX*8), Y9
	VMULPD  Y0, Y4, Y6
	VMULPD  Y0, Y8, Y10
	VMULPD  Y1, Y5, Y7
	VMULPD  Y1, Y9, Y11
	VADDPD  Y7, Y6, Y6
	VADDPD  Y11, Y10, Y10
	VMULPD  Y2, Y4, Y4
	VMULPD  Y2, Y8, Y8
	VMULPD  Y3, Y5, Y5
	VMULPD  Y3, Y9, Y9
	VADDPD  Y5, Y4, Y4
	VADDPD  Y9, Y8, Y8
	VMOVUPD Y6, (SI)(AX*8)
	VMOVUPD Y10, 32(SI)(AX*8)
	VMOVUPD Y4, (DI)(AX*8)
	VMOVUPD Y8, 32(DI)(AX*8)
	ADDQ    $8, AX
	JMP     avxloop8

avxtail:
	CMPQ   AX, CX
	JGE    avxdone
	VMOVSD (SI)(AX*8), X4
	VMOVSD (DI)(AX*8), X5
	VMULSD X0, X4, X6
	VMULSD X1, X5, X7
	VADDSD X7, X6, X6
	VMULSD X2, X4, X4
	VMULSD X3, X5, X5
	VADDSD X5, X4, X4
	VMOVSD X6, (SI)(AX*8)
	VMOVSD X4, (DI)(AX*8)
	INCQ   AX
	JMP    avxtail

avxdone:
	VZEROUPPER
	RET
