#include "textflag.h"

// expCoef: expTaylor (expk.go), each coefficient four times, one YMM load each.
DATA ·expCoef+0(SB)/8, $0x3de6124613a86d09
DATA ·expCoef+8(SB)/8, $0x3de6124613a86d09
DATA ·expCoef+16(SB)/8, $0x3de6124613a86d09
DATA ·expCoef+24(SB)/8, $0x3de6124613a86d09
DATA ·expCoef+32(SB)/8, $0x3e21eed8eff8d898
DATA ·expCoef+40(SB)/8, $0x3e21eed8eff8d898
DATA ·expCoef+48(SB)/8, $0x3e21eed8eff8d898
DATA ·expCoef+56(SB)/8, $0x3e21eed8eff8d898
DATA ·expCoef+64(SB)/8, $0x3e5ae64567f544e4
DATA ·expCoef+72(SB)/8, $0x3e5ae64567f544e4
DATA ·expCoef+80(SB)/8, $0x3e5ae64567f544e4
DATA ·expCoef+88(SB)/8, $0x3e5ae64567f544e4
DATA ·expCoef+96(SB)/8, $0x3e927e4fb7789f5c
DATA ·expCoef+104(SB)/8, $0x3e927e4fb7789f5c
DATA ·expCoef+112(SB)/8, $0x3e927e4fb7789f5c
DATA ·expCoef+120(SB)/8, $0x3e927e4fb7789f5c
DATA ·expCoef+128(SB)/8, $0x3ec71de3a556c734
DATA ·expCoef+136(SB)/8, $0x3ec71de3a556c734
DATA ·expCoef+144(SB)/8, $0x3ec71de3a556c734
DATA ·expCoef+152(SB)/8, $0x3ec71de3a556c734
DATA ·expCoef+160(SB)/8, $0x3efa01a01a01a01a
DATA ·expCoef+168(SB)/8, $0x3efa01a01a01a01a
DATA ·expCoef+176(SB)/8, $0x3efa01a01a01a01a
DATA ·expCoef+184(SB)/8, $0x3efa01a01a01a01a
DATA ·expCoef+192(SB)/8, $0x3f2a01a01a01a01a
DATA ·expCoef+200(SB)/8, $0x3f2a01a01a01a01a
DATA ·expCoef+208(SB)/8, $0x3f2a01a01a01a01a
DATA ·expCoef+216(SB)/8, $0x3f2a01a01a01a01a
DATA ·expCoef+224(SB)/8, $0x3f56c16c16c16c17
DATA ·expCoef+232(SB)/8, $0x3f56c16c16c16c17
DATA ·expCoef+240(SB)/8, $0x3f56c16c16c16c17
DATA ·expCoef+248(SB)/8, $0x3f56c16c16c16c17
DATA ·expCoef+256(SB)/8, $0x3f81111111111111
DATA ·expCoef+264(SB)/8, $0x3f81111111111111
DATA ·expCoef+272(SB)/8, $0x3f81111111111111
DATA ·expCoef+280(SB)/8, $0x3f81111111111111
DATA ·expCoef+288(SB)/8, $0x3fa5555555555555
DATA ·expCoef+296(SB)/8, $0x3fa5555555555555
DATA ·expCoef+304(SB)/8, $0x3fa5555555555555
DATA ·expCoef+312(SB)/8, $0x3fa5555555555555
DATA ·expCoef+320(SB)/8, $0x3fc5555555555555
DATA ·expCoef+328(SB)/8, $0x3fc5555555555555
DATA ·expCoef+336(SB)/8, $0x3fc5555555555555
DATA ·expCoef+344(SB)/8, $0x3fc5555555555555
DATA ·expCoef+352(SB)/8, $0x3fe0000000000000
DATA ·expCoef+360(SB)/8, $0x3fe0000000000000
DATA ·expCoef+368(SB)/8, $0x3fe0000000000000
DATA ·expCoef+376(SB)/8, $0x3fe0000000000000
DATA ·expCoef+384(SB)/8, $0x3ff0000000000000
DATA ·expCoef+392(SB)/8, $0x3ff0000000000000
DATA ·expCoef+400(SB)/8, $0x3ff0000000000000
DATA ·expCoef+408(SB)/8, $0x3ff0000000000000
DATA ·expCoef+416(SB)/8, $0x3ff0000000000000
DATA ·expCoef+424(SB)/8, $0x3ff0000000000000
DATA ·expCoef+432(SB)/8, $0x3ff0000000000000
DATA ·expCoef+440(SB)/8, $0x3ff0000000000000
GLOBL ·expCoef(SB), RODATA|NOPTR, $448

// expConst: log₂e, expLn2Hi, expLn2Lo, expMin, expMagic and −1/2 (expk.go).
DATA ·expConst+0(SB)/8, $0x3ff71547652b82fe
DATA ·expConst+8(SB)/8, $0x3fe62e42fee00000
DATA ·expConst+16(SB)/8, $0x3dea39ef35793c76
DATA ·expConst+24(SB)/8, $0xc086200000000000
DATA ·expConst+32(SB)/8, $0x43380000000003ff
DATA ·expConst+40(SB)/8, $0xbfe0000000000000
GLOBL ·expConst(SB), RODATA|NOPTR, $48

// func expRowAVX2(dst, s []float64, v float64)
//
// dst[i] = v·e^x with x = −s[i]/2, for len(s) a multiple of 4: expNeg's
// steps (expk.go) in the same order on four lanes, each product and sum
// rounded (no fused multiply–add), so the same bits. Lanes with x < expMin
// are set to 0 by a mask; a NaN propagates through the arithmetic.
TEXT ·expRowAVX2(SB), NOSPLIT, $0-56
	MOVQ         dst_base+0(FP), DI
	MOVQ         s_base+24(FP), SI
	MOVQ         s_len+32(FP), CX
	VBROADCASTSD v+48(FP), Y15
	VBROADCASTSD ·expConst+0(SB), Y13
	VBROADCASTSD ·expConst+8(SB), Y12
	VBROADCASTSD ·expConst+16(SB), Y11
	VBROADCASTSD ·expConst+24(SB), Y10
	VBROADCASTSD ·expConst+32(SB), Y9
	VBROADCASTSD ·expConst+40(SB), Y14
	XORQ         AX, AX

loop:
	CMPQ     AX, CX
	JGE      done
	VMOVUPD  (SI)(AX*8), Y0
	VMULPD   Y14, Y0, Y0           // x = −s/2
	VCMPPD   $0x11, Y10, Y0, Y8    // mask: x < expMin (ordered, quiet)
	VMULPD   Y13, Y0, Y1           // x·log₂e
	VROUNDPD $0, Y1, Y1            // k, to nearest even
	VMULPD   Y12, Y1, Y2
	VSUBPD   Y2, Y0, Y2            // r = x − k·ln2Hi
	VMULPD   Y11, Y1, Y3
	VSUBPD   Y3, Y2, Y2            // r −= k·ln2Lo
	VMOVUPD  ·expCoef+0(SB), Y3    // p = 1/13!
	VMULPD   Y2, Y3, Y3
	VADDPD   ·expCoef+32(SB), Y3, Y3
	VMULPD   Y2, Y3, Y3
	VADDPD   ·expCoef+64(SB), Y3, Y3
	VMULPD   Y2, Y3, Y3
	VADDPD   ·expCoef+96(SB), Y3, Y3
	VMULPD   Y2, Y3, Y3
	VADDPD   ·expCoef+128(SB), Y3, Y3
	VMULPD   Y2, Y3, Y3
	VADDPD   ·expCoef+160(SB), Y3, Y3
	VMULPD   Y2, Y3, Y3
	VADDPD   ·expCoef+192(SB), Y3, Y3
	VMULPD   Y2, Y3, Y3
	VADDPD   ·expCoef+224(SB), Y3, Y3
	VMULPD   Y2, Y3, Y3
	VADDPD   ·expCoef+256(SB), Y3, Y3
	VMULPD   Y2, Y3, Y3
	VADDPD   ·expCoef+288(SB), Y3, Y3
	VMULPD   Y2, Y3, Y3
	VADDPD   ·expCoef+320(SB), Y3, Y3
	VMULPD   Y2, Y3, Y3
	VADDPD   ·expCoef+352(SB), Y3, Y3
	VMULPD   Y2, Y3, Y3
	VADDPD   ·expCoef+384(SB), Y3, Y3
	VMULPD   Y2, Y3, Y3
	VADDPD   ·expCoef+416(SB), Y3, Y3
	VADDPD   Y9, Y1, Y1            // k + expMagic
	VPSLLQ   $52, Y1, Y1           // 2^k
	VMULPD   Y1, Y3, Y3
	VANDNPD  Y3, Y8, Y3            // 0 where x < expMin
	VMULPD   Y15, Y3, Y3           // v·e^x
	VMOVUPD  Y3, (DI)(AX*8)
	ADDQ     $4, AX
	JMP      loop

done:
	VZEROUPPER
	RET

// func maternRowAVX2(dst, s []float64, v, c, c1, c2 float64)
//
// dst[i] = v·e^{−a}·((1 + c1·a) + (c2·a)·a) with a = √(c·s[i]), for
// len(s) a multiple of 4: maternRowGo's steps (expk.go) in the same order
// on four lanes, e^{−a} as expNegFMA (rqk.go) computes it (fused
// multiply–adds, expMinimaxCoef of rqk_amd64.s by Estrin's scheme), the
// other products and sums rounded, so the same bits. Lanes with
// −a < expMin are set to 0 by a mask. x = 0 − a is +0 where Go's −a is
// −0: e^{±0} = 1 either way.
TEXT ·maternRowAVX2(SB), NOSPLIT, $0-80
	MOVQ         dst_base+0(FP), DI
	MOVQ         s_base+24(FP), SI
	MOVQ         s_len+32(FP), CX
	VBROADCASTSD v+48(FP), Y15
	VBROADCASTSD c+56(FP), Y14
	VBROADCASTSD ·expConst+0(SB), Y13
	VBROADCASTSD ·expConst+8(SB), Y12
	VBROADCASTSD ·expConst+16(SB), Y11
	VBROADCASTSD ·expConst+24(SB), Y10
	VBROADCASTSD ·expConst+32(SB), Y9
	XORQ         AX, AX

mloop:
	CMPQ     AX, CX
	JGE      mdone
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
	VMULPD   Y15, Y3, Y3           // v·e^x
	VBROADCASTSD c1+64(FP), Y1
	VMULPD   Y1, Y4, Y1
	VADDPD   ·expCoef+416(SB), Y1, Y1 // 1 + c1·a
	VBROADCASTSD c2+72(FP), Y2
	VMULPD   Y2, Y4, Y2
	VMULPD   Y4, Y2, Y2            // (c2·a)·a
	VADDPD   Y2, Y1, Y1
	VMULPD   Y1, Y3, Y3
	VANDNPD  Y3, Y8, Y3            // 0 where x < expMin
	VMOVUPD  Y3, (DI)(AX*8)
	ADDQ     $4, AX
	JMP      mloop

mdone:
	VZEROUPPER
	RET
