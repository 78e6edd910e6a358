#include "textflag.h"

// func rot2(u, v []float64, a, b, c, d float64)
//
// (u[i], v[i]) ← (a·u[i] + b·v[i], c·u[i] + d·v[i]) for i < len(u), two
// lanes of SSE2 (every amd64 CPU has it) and four elements per iteration.
// Each product and each sum is rounded, as in the Go loop of rot2_other.go.
TEXT ·rot2(SB), NOSPLIT, $0-80
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
