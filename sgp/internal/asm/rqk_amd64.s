#include "textflag.h"

// rqLogCoef: rqLogMinimax (rqk.go), each coefficient four times, one YMM load each.
DATA ·rqLogCoef+0(SB)/8, $0x3fb2f112df3e5244
DATA ·rqLogCoef+8(SB)/8, $0x3fb2f112df3e5244
DATA ·rqLogCoef+16(SB)/8, $0x3fb2f112df3e5244
DATA ·rqLogCoef+24(SB)/8, $0x3fb2f112df3e5244
DATA ·rqLogCoef+32(SB)/8, $0x3fb39a09d078c69f
DATA ·rqLogCoef+40(SB)/8, $0x3fb39a09d078c69f
DATA ·rqLogCoef+48(SB)/8, $0x3fb39a09d078c69f
DATA ·rqLogCoef+56(SB)/8, $0x3fb39a09d078c69f
DATA ·rqLogCoef+64(SB)/8, $0x3fb7466496cb03de
DATA ·rqLogCoef+72(SB)/8, $0x3fb7466496cb03de
DATA ·rqLogCoef+80(SB)/8, $0x3fb7466496cb03de
DATA ·rqLogCoef+88(SB)/8, $0x3fb7466496cb03de
DATA ·rqLogCoef+96(SB)/8, $0x3fbc71c51d8e78af
DATA ·rqLogCoef+104(SB)/8, $0x3fbc71c51d8e78af
DATA ·rqLogCoef+112(SB)/8, $0x3fbc71c51d8e78af
DATA ·rqLogCoef+120(SB)/8, $0x3fbc71c51d8e78af
DATA ·rqLogCoef+128(SB)/8, $0x3fc2492494229359
DATA ·rqLogCoef+136(SB)/8, $0x3fc2492494229359
DATA ·rqLogCoef+144(SB)/8, $0x3fc2492494229359
DATA ·rqLogCoef+152(SB)/8, $0x3fc2492494229359
DATA ·rqLogCoef+160(SB)/8, $0x3fc999999997fa04
DATA ·rqLogCoef+168(SB)/8, $0x3fc999999997fa04
DATA ·rqLogCoef+176(SB)/8, $0x3fc999999997fa04
DATA ·rqLogCoef+184(SB)/8, $0x3fc999999997fa04
DATA ·rqLogCoef+192(SB)/8, $0x3fd5555555555593
DATA ·rqLogCoef+200(SB)/8, $0x3fd5555555555593
DATA ·rqLogCoef+208(SB)/8, $0x3fd5555555555593
DATA ·rqLogCoef+216(SB)/8, $0x3fd5555555555593
DATA ·rqLogCoef+224(SB)/8, $0x3ff0000000000000
DATA ·rqLogCoef+232(SB)/8, $0x3ff0000000000000
DATA ·rqLogCoef+240(SB)/8, $0x3ff0000000000000
DATA ·rqLogCoef+248(SB)/8, $0x3ff0000000000000
GLOBL ·rqLogCoef(SB), RODATA|NOPTR, $256

// expMinimaxCoef: expMinimax (rqk.go), each coefficient four times, one YMM load each.
DATA ·expMinimaxCoef+0(SB)/8, $0x3e5af4de97ca4194
DATA ·expMinimaxCoef+8(SB)/8, $0x3e5af4de97ca4194
DATA ·expMinimaxCoef+16(SB)/8, $0x3e5af4de97ca4194
DATA ·expMinimaxCoef+24(SB)/8, $0x3e5af4de97ca4194
DATA ·expMinimaxCoef+32(SB)/8, $0x3e928a2ca617b969
DATA ·expMinimaxCoef+40(SB)/8, $0x3e928a2ca617b969
DATA ·expMinimaxCoef+48(SB)/8, $0x3e928a2ca617b969
DATA ·expMinimaxCoef+56(SB)/8, $0x3e928a2ca617b969
DATA ·expMinimaxCoef+64(SB)/8, $0x3ec71de0231960eb
DATA ·expMinimaxCoef+72(SB)/8, $0x3ec71de0231960eb
DATA ·expMinimaxCoef+80(SB)/8, $0x3ec71de0231960eb
DATA ·expMinimaxCoef+88(SB)/8, $0x3ec71de0231960eb
DATA ·expMinimaxCoef+96(SB)/8, $0x3efa019a6611cad5
DATA ·expMinimaxCoef+104(SB)/8, $0x3efa019a6611cad5
DATA ·expMinimaxCoef+112(SB)/8, $0x3efa019a6611cad5
DATA ·expMinimaxCoef+120(SB)/8, $0x3efa019a6611cad5
DATA ·expMinimaxCoef+128(SB)/8, $0x3f2a01a01abe7fe1
DATA ·expMinimaxCoef+136(SB)/8, $0x3f2a01a01abe7fe1
DATA ·expMinimaxCoef+144(SB)/8, $0x3f2a01a01abe7fe1
DATA ·expMinimaxCoef+152(SB)/8, $0x3f2a01a01abe7fe1
DATA ·expMinimaxCoef+160(SB)/8, $0x3f56c16c17f46982
DATA ·expMinimaxCoef+168(SB)/8, $0x3f56c16c17f46982
DATA ·expMinimaxCoef+176(SB)/8, $0x3f56c16c17f46982
DATA ·expMinimaxCoef+184(SB)/8, $0x3f56c16c17f46982
DATA ·expMinimaxCoef+192(SB)/8, $0x3f811111111100dc
DATA ·expMinimaxCoef+200(SB)/8, $0x3f811111111100dc
DATA ·expMinimaxCoef+208(SB)/8, $0x3f811111111100dc
DATA ·expMinimaxCoef+216(SB)/8, $0x3f811111111100dc
DATA ·expMinimaxCoef+224(SB)/8, $0x3fa55555555520a4
DATA ·expMinimaxCoef+232(SB)/8, $0x3fa55555555520a4
DATA ·expMinimaxCoef+240(SB)/8, $0x3fa55555555520a4
DATA ·expMinimaxCoef+248(SB)/8, $0x3fa55555555520a4
DATA ·expMinimaxCoef+256(SB)/8, $0x3fc5555555555557
DATA ·expMinimaxCoef+264(SB)/8, $0x3fc5555555555557
DATA ·expMinimaxCoef+272(SB)/8, $0x3fc5555555555557
DATA ·expMinimaxCoef+280(SB)/8, $0x3fc5555555555557
DATA ·expMinimaxCoef+288(SB)/8, $0x3fe0000000000005
DATA ·expMinimaxCoef+296(SB)/8, $0x3fe0000000000005
DATA ·expMinimaxCoef+304(SB)/8, $0x3fe0000000000005
DATA ·expMinimaxCoef+312(SB)/8, $0x3fe0000000000005
DATA ·expMinimaxCoef+320(SB)/8, $0x3ff0000000000000
DATA ·expMinimaxCoef+328(SB)/8, $0x3ff0000000000000
DATA ·expMinimaxCoef+336(SB)/8, $0x3ff0000000000000
DATA ·expMinimaxCoef+344(SB)/8, $0x3ff0000000000000
DATA ·expMinimaxCoef+352(SB)/8, $0x3ff0000000000000
DATA ·expMinimaxCoef+360(SB)/8, $0x3ff0000000000000
DATA ·expMinimaxCoef+368(SB)/8, $0x3ff0000000000000
DATA ·expMinimaxCoef+376(SB)/8, $0x3ff0000000000000
GLOBL ·expMinimaxCoef(SB), RODATA|NOPTR, $384

// func rqRowAVX2(dst, s []float64, v, a, nalpha float64)
//
// dst[i] = v·exp(nalpha·log(1 + a·s[i])) for len(s) a multiple of 4:
// rqRowGo's steps (rqk.go) in the same order on four lanes, the same
// operations fused (VFMADD, one rounding), the polynomials by Estrin's
// scheme as estrin8 and estrin12 with rqLogCoef and expMinimaxCoef (above),
// and the other operations rounded, so the same bits. Other constants
// from logk_amd64.s (logConst) and expk_amd64.s (expConst). Lanes where 1 + a·s is +Inf or NaN take
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
	ADDQ         $4, AX
	JMP          loop

done:
	VZEROUPPER
	RET
