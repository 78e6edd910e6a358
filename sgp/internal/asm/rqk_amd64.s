#include "textflag.h"

// func rqRowAVX2(dst, s []float64, v, a, nalpha float64)
//
// dst[i] = v·exp(nalpha·log(1 + a·s[i])) for len(s) a multiple of 4:
// rqRowGo's steps (rqk.go) in the same order on four lanes, the same
// operations fused (VFMADD, one rounding), the polynomials by Estrin's
// scheme as estrin12 and estrin14, and the other operations rounded, so
// the same bits. Constants from logk_amd64.s (logConst, logCoef) and
// expk_amd64.s (expConst, expCoef). Lanes where 1 + a·s is +Inf or NaN take
// that value as the logarithm; lanes whose exponent is below expMin are 0.
TEXT ·rqRowAVX2(SB), NOSPLIT, $0-72
	MOVQ         dst_base+0(FP), DI
	MOVQ         s_base+24(FP), SI
	MOVQ         s_len+32(FP), CX
	VBROADCASTSD v+48(FP), Y15
	VBROADCASTSD a+56(FP), Y14
	VBROADCASTSD nalpha+64(FP), Y12
	VMOVUPD      ·logConst+32(SB), Y13  // 1
	VBROADCASTSD ·expConst+0(SB), Y11  // log₂e
	VBROADCASTSD ·expConst+24(SB), Y10 // expMin
	VBROADCASTSD ·expConst+32(SB), Y9  // expMagic
	XORQ         AX, AX

loop:
	CMPQ         AX, CX
	JGE          done
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
	VMOVUPD      ·logCoef+352(SB), Y7
	VFMADD231PD  ·logCoef+320(SB), Y5, Y7   // q₀ = h₀ + h₁·z
	VMOVUPD      ·logCoef+288(SB), Y8
	VFMADD231PD  ·logCoef+256(SB), Y5, Y8   // q₁
	VFMADD231PD  Y8, Y6, Y7                   // s₀ = q₀ + q₁·z²
	VMOVUPD      ·logCoef+224(SB), Y8
	VFMADD231PD  ·logCoef+192(SB), Y5, Y8   // q₂
	VMOVUPD      ·logCoef+160(SB), Y2
	VFMADD231PD  ·logCoef+128(SB), Y5, Y2   // q₃
	VFMADD231PD  Y2, Y6, Y8                   // s₁
	VMOVUPD      ·logCoef+96(SB), Y2
	VFMADD231PD  ·logCoef+64(SB), Y5, Y2   // q₄
	VMOVUPD      ·logCoef+32(SB), Y3
	VFMADD231PD  ·logCoef+0(SB), Y5, Y3  // q₅
	VFMADD231PD  Y3, Y6, Y2                   // s₂
	VMULPD       Y6, Y6, Y6                   // z⁴
	VFMADD231PD  Y8, Y6, Y7                   // t = s₀ + s₁·z⁴
	VMULPD       Y6, Y6, Y6                   // z⁸
	VFMADD231PD  Y2, Y6, Y7                   // p = t + s₂·z⁸
	VADDPD       Y4, Y4, Y6                   // 2f
	VMULPD       Y7, Y6, Y7                   // 2f·p
	VFMADD231PD  ·logConst+192(SB), Y1, Y7    // e·ln2Lo + 2f·p
	VFMADD231PD  ·logConst+224(SB), Y1, Y7    // L = e·ln2Hi + (…)
	VCMPPD       $0x15, ·logConst+256(SB), Y0, Y3 // mask: !(x < +Inf) (unordered: NaN too)
	VBLENDVPD    Y3, Y0, Y7, Y7               // x there
	VMULPD       Y12, Y7, Y0                  // y = −α·L
	VCMPPD       $0x11, Y10, Y0, Y8           // mask: y < expMin (ordered, quiet)
	VMULPD       Y11, Y0, Y1                  // y·log₂e
	VROUNDPD     $0, Y1, Y1                   // k, to nearest even
	VFNMADD231PD ·logConst+224(SB), Y1, Y0    // r = y − k·ln2Hi
	VFNMADD231PD ·logConst+192(SB), Y1, Y0    // r −= k·ln2Lo
	VMULPD       Y0, Y0, Y2                   // r²
	VMOVUPD      ·expCoef+416(SB), Y3
	VFMADD231PD  ·expCoef+384(SB), Y0, Y3   // q₀ = c₀ + c₁·r
	VMOVUPD      ·expCoef+352(SB), Y4
	VFMADD231PD  ·expCoef+320(SB), Y0, Y4   // q₁
	VFMADD231PD  Y4, Y2, Y3                   // s₀ = q₀ + q₁·r²
	VMOVUPD      ·expCoef+288(SB), Y4
	VFMADD231PD  ·expCoef+256(SB), Y0, Y4   // q₂
	VMOVUPD      ·expCoef+224(SB), Y5
	VFMADD231PD  ·expCoef+192(SB), Y0, Y5   // q₃
	VFMADD231PD  Y5, Y2, Y4                   // s₁
	VMOVUPD      ·expCoef+160(SB), Y5
	VFMADD231PD  ·expCoef+128(SB), Y0, Y5   // q₄
	VMOVUPD      ·expCoef+96(SB), Y6
	VFMADD231PD  ·expCoef+64(SB), Y0, Y6  // q₅
	VFMADD231PD  Y6, Y2, Y5                   // s₂
	VMOVUPD      ·expCoef+32(SB), Y6
	VFMADD231PD  ·expCoef+0(SB), Y0, Y6  // s₃ = q₆
	VMULPD       Y2, Y2, Y2                   // r⁴
	VFMADD231PD  Y4, Y2, Y3                   // t₀ = s₀ + s₁·r⁴
	VFMADD231PD  Y6, Y2, Y5                   // t₁ = s₂ + s₃·r⁴
	VMULPD       Y2, Y2, Y2                   // r⁸
	VFMADD231PD  Y5, Y2, Y3                   // p = t₀ + t₁·r⁸
	VADDPD       Y9, Y1, Y1                   // k + expMagic
	VPSLLQ       $52, Y1, Y1                  // 2^k
	VMULPD       Y1, Y3, Y3
	VANDNPD      Y3, Y8, Y3                   // 0 where y < expMin
	VMULPD       Y15, Y3, Y3                  // v·e^y
	VMOVUPD      Y3, (DI)(AX*8)
	ADDQ         $4, AX
	JMP          loop

done:
	VZEROUPPER
	RET
