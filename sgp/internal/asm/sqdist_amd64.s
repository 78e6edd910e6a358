#include "textflag.h"

// func sqacc4avx(x []float64, z0, z1, z2, z3 float64, r0, r1, r2, r3 []float64)
//
// r_q[i] += (x[i] − z_q)² for q < 4 and i < len(x), four lanes of AVX per
// centre and one load of x for the four. Each difference, square and sum
// is rounded as in the Go loop sqacc4Go (no fused multiply–add), and
// addition commutes exactly, so the results are the same bit for bit.
TEXT ·sqacc4avx(SB), NOSPLIT, $0-152
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSD z0+24(FP), Y0
	VBROADCASTSD z1+32(FP), Y1
	VBROADCASTSD z2+40(FP), Y2
	VBROADCASTSD z3+48(FP), Y3
	MOVQ         r0_base+56(FP), R8
	MOVQ         r1_base+80(FP), R9
	MOVQ         r2_base+104(FP), R10
	MOVQ         r3_base+128(FP), R11
	XORQ         AX, AX
	MOVQ         CX, BX
	ANDQ         $-4, BX

loop4:
	CMPQ    AX, BX
	JGE     tail
	VMOVUPD (SI)(AX*8), Y4
	VSUBPD  Y0, Y4, Y5
	VSUBPD  Y1, Y4, Y6
	VSUBPD  Y2, Y4, Y7
	VSUBPD  Y3, Y4, Y8
	VMULPD  Y5, Y5, Y5
	VMULPD  Y6, Y6, Y6
	VMULPD  Y7, Y7, Y7
	VMULPD  Y8, Y8, Y8
	VADDPD  (R8)(AX*8), Y5, Y5
	VADDPD  (R9)(AX*8), Y6, Y6
	VADDPD  (R10)(AX*8), Y7, Y7
	VADDPD  (R11)(AX*8), Y8, Y8
	VMOVUPD Y5, (R8)(AX*8)
	VMOVUPD Y6, (R9)(AX*8)
	VMOVUPD Y7, (R10)(AX*8)
	VMOVUPD Y8, (R11)(AX*8)
	ADDQ    $4, AX
	JMP     loop4

tail:
	CMPQ   AX, CX
	JGE    done
	VMOVSD (SI)(AX*8), X4
	VSUBSD X0, X4, X5
	VSUBSD X1, X4, X6
	VSUBSD X2, X4, X7
	VSUBSD X3, X4, X8
	VMULSD X5, X5, X5
	VMULSD X6, X6, X6
	VMULSD X7, X7, X7
	VMULSD X8, X8, X8
	VADDSD (R8)(AX*8), X5, X5
	VADDSD (R9)(AX*8), X6, X6
	VADDSD (R10)(AX*8), X7, X7
	VADDSD (R11)(AX*8), X8, X8
	VMOVSD X5, (R8)(AX*8)
	VMOVSD X6, (R9)(AX*8)
	VMOVSD X7, (R10)(AX*8)
	VMOVSD X8, (R11)(AX*8)
	INCQ   AX
	JMP    tail

done:
	VZEROUPPER
	RET

// func wsqdot4avx(x, h0, h1, h2, h3 []float64, z0, z1, z2, z3 float64) (s0, s1, s2, s3 float64)
//
// s_q = Σ_i h_q[i]·(x[i] − z_q)² over len(x) (a multiple of 4) elements:
// one YMM accumulator per centre, lane l taking the elements i ≡ l mod 4,
// each term rounded as (h·δ)·δ, the lanes added as (l₀ + l₁) + (l₂ + l₃):
// wsqdot4Go's order, so the same bits.
TEXT ·wsqdot4avx(SB), NOSPLIT, $0-184
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         h0_base+24(FP), R8
	MOVQ         h1_base+48(FP), R9
	MOVQ         h2_base+72(FP), R10
	MOVQ         h3_base+96(FP), R11
	VBROADCASTSD z0+120(FP), Y0
	VBROADCASTSD z1+128(FP), Y1
	VBROADCASTSD z2+136(FP), Y2
	VBROADCASTSD z3+144(FP), Y3
	VXORPD       Y10, Y10, Y10
	VXORPD       Y11, Y11, Y11
	VXORPD       Y12, Y12, Y12
	VXORPD       Y13, Y13, Y13
	XORQ         AX, AX

wloop:
	CMPQ    AX, CX
	JGE     wsum
	VMOVUPD (SI)(AX*8), Y4
	VSUBPD  Y0, Y4, Y5
	VSUBPD  Y1, Y4, Y6
	VSUBPD  Y2, Y4, Y7
	VSUBPD  Y3, Y4, Y8
	VMULPD  (R8)(AX*8), Y5, Y9
	VMULPD  Y5, Y9, Y9
	VADDPD  Y9, Y10, Y10
	VMULPD  (R9)(AX*8), Y6, Y9
	VMULPD  Y6, Y9, Y9
	VADDPD  Y9, Y11, Y11
	VMULPD  (R10)(AX*8), Y7, Y9
	VMULPD  Y7, Y9, Y9
	VADDPD  Y9, Y12, Y12
	VMULPD  (R11)(AX*8), Y8, Y9
	VMULPD  Y8, Y9, Y9
	VADDPD  Y9, Y13, Y13
	ADDQ    $4, AX
	JMP     wloop

wsum:
	VEXTRACTF128 $1, Y10, X4
	VHADDPD      X10, X10, X10
	VHADDPD      X4, X4, X4
	VADDSD       X4, X10, X10
	VMOVSD       X10, s0+152(FP)
	VEXTRACTF128 $1, Y11, X4
	VHADDPD      X11, X11, X11
	VHADDPD      X4, X4, X4
	VADDSD       X4, X11, X11
	VMOVSD       X11, s1+160(FP)
	VEXTRACTF128 $1, Y12, X4
	VHADDPD      X12, X12, X12
	VHADDPD      X4, X4, X4
	VADDSD       X4, X12, X12
	VMOVSD       X12, s2+168(FP)
	VEXTRACTF128 $1, Y13, X4
	VHADDPD      X13, X13, X13
	VHADDPD      X4, X4, X4
	VADDSD       X4, X13, X13
	VMOVSD       X13, s3+176(FP)
	VZEROUPPER
	RET
