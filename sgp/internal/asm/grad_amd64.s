#include "textflag.h"

// func maternPsiRowAVX2(dst, psi, s []float64, v, c, c1, c2, pv, p1 float64, cusp bool)
//
// dst[i] as maternRowAVX2 (expk_amd64.s) sets it, by the same operations,
// and psi[i] = (pv·e^{−a})·(1 + p1·a) from the same e^{−a}, divided by a
// where cusp is set (0 where a is not positive): maternPsiRowGo's steps
// (grad.go) in the same order on four lanes, e^{−a} as in maternRowAVX2,
// the other products and sums rounded, so the same bits. Constants from
// expk_amd64.s and rqk_amd64.s.
TEXT ·maternPsiRowAVX2(SB), NOSPLIT, $0-121
	MOVQ         dst_base+0(FP), DI
	MOVQ         psi_base+24(FP), R8
	MOVQ         s_base+48(FP), SI
	MOVQ         s_len+56(FP), CX
	MOVBQZX      cusp+120(FP), R9
	VBROADCASTSD v+72(FP), Y15
	VBROADCASTSD c+80(FP), Y14
	VBROADCASTSD ·expConst+0(SB), Y13
	VBROADCASTSD ·expConst+8(SB), Y12
	VBROADCASTSD ·expConst+16(SB), Y11
	VBROADCASTSD ·expConst+24(SB), Y10
	VBROADCASTSD ·expConst+32(SB), Y9
	XORQ         AX, AX

ploop:
	CMPQ     AX, CX
	JGE      pdone
	VMOVUPD  (SI)(AX*8), Y0
	VMULPD   Y14, Y0, Y0           // c·s
	VSQRTPD  Y0, Y4                // a
	VXORPD   Y0, Y0, Y0
	VSUBPD   Y4, Y0, Y0            // x = −a
	VCMPPD   $0x11, Y10, Y0, Y8    // mask: x < expMin (ordered, quiet)
	VMULPD   Y13, Y0, Y1           // x·log₂e
	VROUNDPD $0, Y1, Y1            // k, to nearest even
	VFNMADD231PD Y12, Y1, Y0       // r = x − k·ln2Hi
	VFNMADD231PD Y11, Y1, Y0       // r −= k·ln2Lo
	VMULPD   Y0, Y0, Y2            // r²
	VMOVUPD      ·expMinimaxCoef+352(SB), Y3
	VFMADD231PD  ·expMinimaxCoef+320(SB), Y0, Y3 // q₀ = c₀ + c₁·r
	VMOVUPD      ·expMinimaxCoef+288(SB), Y7
	VFMADD231PD  ·expMinimaxCoef+256(SB), Y0, Y7 // q₁
	VFMADD231PD  Y7, Y2, Y3                   // s₀ = q₀ + q₁·r²
	VMOVUPD      ·expMinimaxCoef+224(SB), Y7
	VFMADD231PD  ·expMinimaxCoef+192(SB), Y0, Y7 // q₂
	VMOVUPD      ·expMinimaxCoef+160(SB), Y5
	VFMADD231PD  ·expMinimaxCoef+128(SB), Y0, Y5 // q₃
	VFMADD231PD  Y5, Y2, Y7                   // s₁
	VMOVUPD      ·expMinimaxCoef+96(SB), Y5
	VFMADD231PD  ·expMinimaxCoef+64(SB), Y0, Y5  // q₄
	VMOVUPD      ·expMinimaxCoef+32(SB), Y6
	VFMADD231PD  ·expMinimaxCoef+0(SB), Y0, Y6   // q₅
	VFMADD231PD  Y6, Y2, Y5                   // s₂
	VMULPD       Y2, Y2, Y2                   // r⁴
	VFMADD231PD  Y7, Y2, Y3                   // t = s₀ + s₁·r⁴
	VMULPD       Y2, Y2, Y2                   // r⁸
	VFMADD231PD  Y5, Y2, Y3                   // p = t + s₂·r⁸
	VADDPD   Y9, Y1, Y1            // k + expMagic
	VPSLLQ   $52, Y1, Y1           // 2^k
	VMULPD   Y1, Y3, Y3
	VANDNPD  Y3, Y8, Y3            // 0 where x < expMin
	VBROADCASTSD pv+104(FP), Y0
	VMULPD   Y0, Y3, Y0            // pv·e^x
	VBROADCASTSD p1+112(FP), Y1
	VMULPD   Y1, Y4, Y1
	VADDPD   ·expCoef+416(SB), Y1, Y1 // 1 + p1·a
	VMULPD   Y1, Y0, Y0            // ψ = (pv·e^x)·(1 + p1·a)
	VANDNPD  Y0, Y8, Y0            // 0 where x < expMin
	TESTQ    R9, R9
	JZ       pstore
	VDIVPD   Y4, Y0, Y0            // ψ/a
	VXORPD   Y1, Y1, Y1
	VCMPPD   $0x1e, Y1, Y4, Y1     // mask: a > 0 (ordered, quiet)
	VANDPD   Y1, Y0, Y0            // 0 elsewhere

pstore:
	VMOVUPD  Y0, (R8)(AX*8)
	VMULPD   Y15, Y3, Y3           // v·e^x
	VBROADCASTSD c1+88(FP), Y1
	VMULPD   Y1, Y4, Y1
	VADDPD   ·expCoef+416(SB), Y1, Y1 // 1 + c1·a
	VBROADCASTSD c2+96(FP), Y2
	VMULPD   Y2, Y4, Y2
	VMULPD   Y4, Y2, Y2            // (c2·a)·a
	VADDPD   Y2, Y1, Y1
	VMULPD   Y1, Y3, Y3
	VANDNPD  Y3, Y8, Y3            // 0 where x < expMin
	VMOVUPD  Y3, (DI)(AX*8)
	ADDQ     $4, AX
	JMP      ploop

pdone:
	VZEROUPPER
	RET

// func rqGradRowAVX2(dst, psi, dk, s []float64, v, a, nalpha float64)
//
// dst[i] as rqRowAVX2 (rqk_amd64.s) sets it, κ = v·exp(nalpha·L) with
// L = log x, x = 1 + a·s[i], by the same operations, then psi[i] = κ/x and
// dk[i] = (κ − ψ) − κ·L (one rounding): rqGradRowGo's steps (grad.go) in
// the same order on four lanes, so the same bits. L is kept in dk between
// the logarithm and the exponential, whose steps use every free register.
TEXT ·rqGradRowAVX2(SB), NOSPLIT, $0-120
	MOVQ         dst_base+0(FP), DI
	MOVQ         psi_base+24(FP), R8
	MOVQ         dk_base+48(FP), R9
	MOVQ         s_base+72(FP), SI
	MOVQ         s_len+80(FP), CX
	VBROADCASTSD v+96(FP), Y15
	VBROADCASTSD a+104(FP), Y14
	VBROADCASTSD nalpha+112(FP), Y12
	VMOVUPD      ·logConst+32(SB), Y13  // 1
	VBROADCASTSD ·expConst+0(SB), Y11  // log₂e
	VBROADCASTSD ·expConst+24(SB), Y10 // expMin
	VBROADCASTSD ·expConst+32(SB), Y9  // expMagic
	XORQ         AX, AX

gloop:
	CMPQ         AX, CX
	JGE          gdone
	VMOVUPD      (SI)(AX*8), Y0
	VFMADD213PD  Y13, Y14, Y0                 // x = a·s + 1
	VPSRLQ       $52, Y0, Y1
	VORPD        ·logConst+64(SB), Y1, Y1
	VSUBPD       ·logConst+64(SB), Y1, Y1     // the exponent bits as a double
	VSUBPD       ·logConst+96(SB), Y1, Y1     // e
	VANDPD       ·logConst+0(SB), Y0, Y2
	VORPD        Y13, Y2, Y2                  // m in [1, 2)
	VCMPPD       $0x1e, ·logConst+128(SB), Y2, Y3 // mask: m > √2 (ordered, quiet)
	VMULPD       ·logConst+160(SB), Y2, Y4
	VBLENDVPD    Y3, Y4, Y2, Y2               // m/2 where m > √2
	VANDPD       Y13, Y3, Y4
	VADDPD       Y4, Y1, Y1                   // e + 1 there
	VSUBPD       Y13, Y2, Y4
	VADDPD       Y13, Y2, Y5
	VDIVPD       Y5, Y4, Y4                   // f = (m − 1)/(m + 1)
	VMULPD       Y4, Y4, Y5                   // f²
	VMULPD       Y5, Y5, Y6                   // z² (z = f²)
	VMOVUPD      ·rqLogCoef+224(SB), Y7
	VFMADD231PD  ·rqLogCoef+192(SB), Y5, Y7 // q₀ = h₀ + h₁·z
	VMOVUPD      ·rqLogCoef+160(SB), Y8
	VFMADD231PD  ·rqLogCoef+128(SB), Y5, Y8 // q₁
	VFMADD231PD  Y8, Y6, Y7                   // s₀ = q₀ + q₁·z²
	VMOVUPD      ·rqLogCoef+96(SB), Y8
	VFMADD231PD  ·rqLogCoef+64(SB), Y5, Y8  // q₂
	VMOVUPD      ·rqLogCoef+32(SB), Y2
	VFMADD231PD  ·rqLogCoef+0(SB), Y5, Y2   // q₃
	VFMADD231PD  Y2, Y6, Y8                   // s₁ = q₂ + q₃·z²
	VMULPD       Y6, Y6, Y6                   // z⁴
	VFMADD231PD  Y8, Y6, Y7                   // p = s₀ + s₁·z⁴
	VADDPD       Y4, Y4, Y6                   // 2f
	VMULPD       Y7, Y6, Y7                   // 2f·p
	VFMADD231PD  ·logConst+192(SB), Y1, Y7    // e·ln2Lo + 2f·p
	VFMADD231PD  ·logConst+224(SB), Y1, Y7    // L = e·ln2Hi + (…)
	VCMPPD       $0x15, ·logConst+256(SB), Y0, Y3 // mask: !(x < +Inf) (unordered: NaN too)
	VBLENDVPD    Y3, Y0, Y7, Y7               // x there
	VMOVUPD      Y7, (R9)(AX*8)               // L, kept in dk for below
	VMULPD       Y12, Y7, Y0                  // y = −α·L
	VCMPPD       $0x11, Y10, Y0, Y8           // mask: y < expMin (ordered, quiet)
	VMULPD       Y11, Y0, Y1                  // y·log₂e
	VROUNDPD     $0, Y1, Y1                   // k, to nearest even
	VFNMADD231PD ·logConst+224(SB), Y1, Y0    // r = y − k·ln2Hi
	VFNMADD231PD ·logConst+192(SB), Y1, Y0    // r −= k·ln2Lo
	VMULPD       Y0, Y0, Y2                   // r²
	VMOVUPD      ·expMinimaxCoef+352(SB), Y3
	VFMADD231PD  ·expMinimaxCoef+320(SB), Y0, Y3 // q₀ = c₀ + c₁·r
	VMOVUPD      ·expMinimaxCoef+288(SB), Y4
	VFMADD231PD  ·expMinimaxCoef+256(SB), Y0, Y4 // q₁
	VFMADD231PD  Y4, Y2, Y3                   // s₀ = q₀ + q₁·r²
	VMOVUPD      ·expMinimaxCoef+224(SB), Y4
	VFMADD231PD  ·expMinimaxCoef+192(SB), Y0, Y4 // q₂
	VMOVUPD      ·expMinimaxCoef+160(SB), Y5
	VFMADD231PD  ·expMinimaxCoef+128(SB), Y0, Y5 // q₃
	VFMADD231PD  Y5, Y2, Y4                   // s₁
	VMOVUPD      ·expMinimaxCoef+96(SB), Y5
	VFMADD231PD  ·expMinimaxCoef+64(SB), Y0, Y5  // q₄
	VMOVUPD      ·expMinimaxCoef+32(SB), Y6
	VFMADD231PD  ·expMinimaxCoef+0(SB), Y0, Y6   // q₅
	VFMADD231PD  Y6, Y2, Y5                   // s₂
	VMULPD       Y2, Y2, Y2                   // r⁴
	VFMADD231PD  Y4, Y2, Y3                   // t = s₀ + s₁·r⁴
	VMULPD       Y2, Y2, Y2                   // r⁸
	VFMADD231PD  Y5, Y2, Y3                   // p = t + s₂·r⁸
	VADDPD       Y9, Y1, Y1                   // k + expMagic
	VPSLLQ       $52, Y1, Y1                  // 2^k
	VMULPD       Y1, Y3, Y3
	VANDNPD      Y3, Y8, Y3                   // 0 where y < expMin
	VMULPD       Y15, Y3, Y3                  // v·e^y
	VMOVUPD      Y3, (DI)(AX*8)
	VMOVUPD      (SI)(AX*8), Y0
	VFMADD213PD  Y13, Y14, Y0                 // x = a·s + 1
	VDIVPD       Y0, Y3, Y4                   // ψ = κ/x
	VMOVUPD      Y4, (R8)(AX*8)
	VSUBPD       Y4, Y3, Y5                   // κ − ψ
	VMOVUPD      (R9)(AX*8), Y6               // L
	VFNMADD231PD Y6, Y3, Y5                   // (κ − ψ) − κ·L
	VMOVUPD      Y5, (R9)(AX*8)
	ADDQ         $4, AX
	JMP          gloop

gdone:
	VZEROUPPER
	RET
