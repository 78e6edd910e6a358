#include "textflag.h"

// logCoef: logAtanh (logk.go), each coefficient four times, one YMM load each.
DATA ·logCoef+0(SB)/8, $0x3fa642c8590b2164
DATA ·logCoef+8(SB)/8, $0x3fa642c8590b2164
DATA ·logCoef+16(SB)/8, $0x3fa642c8590b2164
DATA ·logCoef+24(SB)/8, $0x3fa642c8590b2164
DATA ·logCoef+32(SB)/8, $0x3fa8618618618618
DATA ·logCoef+40(SB)/8, $0x3fa8618618618618
DATA ·logCoef+48(SB)/8, $0x3fa8618618618618
DATA ·logCoef+56(SB)/8, $0x3fa8618618618618
DATA ·logCoef+64(SB)/8, $0x3faaf286bca1af28
DATA ·logCoef+72(SB)/8, $0x3faaf286bca1af28
DATA ·logCoef+80(SB)/8, $0x3faaf286bca1af28
DATA ·logCoef+88(SB)/8, $0x3faaf286bca1af28
DATA ·logCoef+96(SB)/8, $0x3fae1e1e1e1e1e1e
DATA ·logCoef+104(SB)/8, $0x3fae1e1e1e1e1e1e
DATA ·logCoef+112(SB)/8, $0x3fae1e1e1e1e1e1e
DATA ·logCoef+120(SB)/8, $0x3fae1e1e1e1e1e1e
DATA ·logCoef+128(SB)/8, $0x3fb1111111111111
DATA ·logCoef+136(SB)/8, $0x3fb1111111111111
DATA ·logCoef+144(SB)/8, $0x3fb1111111111111
DATA ·logCoef+152(SB)/8, $0x3fb1111111111111
DATA ·logCoef+160(SB)/8, $0x3fb3b13b13b13b14
DATA ·logCoef+168(SB)/8, $0x3fb3b13b13b13b14
DATA ·logCoef+176(SB)/8, $0x3fb3b13b13b13b14
DATA ·logCoef+184(SB)/8, $0x3fb3b13b13b13b14
DATA ·logCoef+192(SB)/8, $0x3fb745d1745d1746
DATA ·logCoef+200(SB)/8, $0x3fb745d1745d1746
DATA ·logCoef+208(SB)/8, $0x3fb745d1745d1746
DATA ·logCoef+216(SB)/8, $0x3fb745d1745d1746
DATA ·logCoef+224(SB)/8, $0x3fbc71c71c71c71c
DATA ·logCoef+232(SB)/8, $0x3fbc71c71c71c71c
DATA ·logCoef+240(SB)/8, $0x3fbc71c71c71c71c
DATA ·logCoef+248(SB)/8, $0x3fbc71c71c71c71c
DATA ·logCoef+256(SB)/8, $0x3fc2492492492492
DATA ·logCoef+264(SB)/8, $0x3fc2492492492492
DATA ·logCoef+272(SB)/8, $0x3fc2492492492492
DATA ·logCoef+280(SB)/8, $0x3fc2492492492492
DATA ·logCoef+288(SB)/8, $0x3fc999999999999a
DATA ·logCoef+296(SB)/8, $0x3fc999999999999a
DATA ·logCoef+304(SB)/8, $0x3fc999999999999a
DATA ·logCoef+312(SB)/8, $0x3fc999999999999a
DATA ·logCoef+320(SB)/8, $0x3fd5555555555555
DATA ·logCoef+328(SB)/8, $0x3fd5555555555555
DATA ·logCoef+336(SB)/8, $0x3fd5555555555555
DATA ·logCoef+344(SB)/8, $0x3fd5555555555555
DATA ·logCoef+352(SB)/8, $0x3ff0000000000000
DATA ·logCoef+360(SB)/8, $0x3ff0000000000000
DATA ·logCoef+368(SB)/8, $0x3ff0000000000000
DATA ·logCoef+376(SB)/8, $0x3ff0000000000000
GLOBL ·logCoef(SB), RODATA|NOPTR, $384

// logConst: the mantissa mask, 1, 2⁵², 1023, √2, 1/2, expLn2Lo, expLn2Hi and
// +Inf (logk.go, expk.go), each four times.
DATA ·logConst+0(SB)/8, $0x000fffffffffffff
DATA ·logConst+8(SB)/8, $0x000fffffffffffff
DATA ·logConst+16(SB)/8, $0x000fffffffffffff
DATA ·logConst+24(SB)/8, $0x000fffffffffffff
DATA ·logConst+32(SB)/8, $0x3ff0000000000000
DATA ·logConst+40(SB)/8, $0x3ff0000000000000
DATA ·logConst+48(SB)/8, $0x3ff0000000000000
DATA ·logConst+56(SB)/8, $0x3ff0000000000000
DATA ·logConst+64(SB)/8, $0x4330000000000000
DATA ·logConst+72(SB)/8, $0x4330000000000000
DATA ·logConst+80(SB)/8, $0x4330000000000000
DATA ·logConst+88(SB)/8, $0x4330000000000000
DATA ·logConst+96(SB)/8, $0x408ff80000000000
DATA ·logConst+104(SB)/8, $0x408ff80000000000
DATA ·logConst+112(SB)/8, $0x408ff80000000000
DATA ·logConst+120(SB)/8, $0x408ff80000000000
DATA ·logConst+128(SB)/8, $0x3ff6a09e667f3bcd
DATA ·logConst+136(SB)/8, $0x3ff6a09e667f3bcd
DATA ·logConst+144(SB)/8, $0x3ff6a09e667f3bcd
DATA ·logConst+152(SB)/8, $0x3ff6a09e667f3bcd
DATA ·logConst+160(SB)/8, $0x3fe0000000000000
DATA ·logConst+168(SB)/8, $0x3fe0000000000000
DATA ·logConst+176(SB)/8, $0x3fe0000000000000
DATA ·logConst+184(SB)/8, $0x3fe0000000000000
DATA ·logConst+192(SB)/8, $0x3dea39ef35793c76
DATA ·logConst+200(SB)/8, $0x3dea39ef35793c76
DATA ·logConst+208(SB)/8, $0x3dea39ef35793c76
DATA ·logConst+216(SB)/8, $0x3dea39ef35793c76
DATA ·logConst+224(SB)/8, $0x3fe62e42fee00000
DATA ·logConst+232(SB)/8, $0x3fe62e42fee00000
DATA ·logConst+240(SB)/8, $0x3fe62e42fee00000
DATA ·logConst+248(SB)/8, $0x3fe62e42fee00000
DATA ·logConst+256(SB)/8, $0x7ff0000000000000
DATA ·logConst+264(SB)/8, $0x7ff0000000000000
DATA ·logConst+272(SB)/8, $0x7ff0000000000000
DATA ·logConst+280(SB)/8, $0x7ff0000000000000
GLOBL ·logConst(SB), RODATA|NOPTR, $288

// func log1pRowAVX2(dst, s []float64, a, b float64)
//
// dst[i] = b·log(1 + a·s[i]) for len(s) a multiple of 4: logPos's steps
// (logk.go) in the same order on four lanes, each product and sum rounded
// (no fused multiply–add), so the same bits. Lanes where 1 + a·s is +Inf
// or NaN take that value.
TEXT ·log1pRowAVX2(SB), NOSPLIT, $0-64
	MOVQ         dst_base+0(FP), DI
	MOVQ         s_base+24(FP), SI
	MOVQ         s_len+32(FP), CX
	VBROADCASTSD a+48(FP), Y14
	VBROADCASTSD b+56(FP), Y15
	VMOVUPD      ·logConst+32(SB), Y13
	XORQ         AX, AX

loop:
	CMPQ      AX, CX
	JGE       done
	VMOVUPD   (SI)(AX*8), Y0
	VMULPD    Y14, Y0, Y0
	VADDPD    Y13, Y0, Y0                    // x = 1 + a·s
	VPSRLQ    $52, Y0, Y1
	VORPD     ·logConst+64(SB), Y1, Y1
	VSUBPD    ·logConst+64(SB), Y1, Y1 // the exponent bits as a double
	VSUBPD    ·logConst+96(SB), Y1, Y1   // e
	VANDPD    ·logConst+0(SB), Y0, Y2
	VORPD     Y13, Y2, Y2                    // m in [1, 2)
	VCMPPD    $0x1e, ·logConst+128(SB), Y2, Y3 // mask: m > √2 (ordered, quiet)
	VMULPD    ·logConst+160(SB), Y2, Y4
	VBLENDVPD Y3, Y4, Y2, Y2                 // m/2 where m > √2
	VANDPD    Y13, Y3, Y4
	VADDPD    Y4, Y1, Y1                     // e + 1 there
	VSUBPD    Y13, Y2, Y4
	VADDPD    Y13, Y2, Y5
	VDIVPD    Y5, Y4, Y4                     // f = (m − 1)/(m + 1)
	VMULPD    Y4, Y4, Y5                     // f²
	VMOVUPD   ·logCoef+0(SB), Y6             // p = 1/23
	VMULPD    Y5, Y6, Y6
	VADDPD    ·logCoef+32(SB), Y6, Y6
	VMULPD    Y5, Y6, Y6
	VADDPD    ·logCoef+64(SB), Y6, Y6
	VMULPD    Y5, Y6, Y6
	VADDPD    ·logCoef+96(SB), Y6, Y6
	VMULPD    Y5, Y6, Y6
	VADDPD    ·logCoef+128(SB), Y6, Y6
	VMULPD    Y5, Y6, Y6
	VADDPD    ·logCoef+160(SB), Y6, Y6
	VMULPD    Y5, Y6, Y6
	VADDPD    ·logCoef+192(SB), Y6, Y6
	VMULPD    Y5, Y6, Y6
	VADDPD    ·logCoef+224(SB), Y6, Y6
	VMULPD    Y5, Y6, Y6
	VADDPD    ·logCoef+256(SB), Y6, Y6
	VMULPD    Y5, Y6, Y6
	VADDPD    ·logCoef+288(SB), Y6, Y6
	VMULPD    Y5, Y6, Y6
	VADDPD    ·logCoef+320(SB), Y6, Y6
	VMULPD    Y5, Y6, Y6
	VADDPD    ·logCoef+352(SB), Y6, Y6
	VADDPD    Y4, Y4, Y7                     // 2f
	VMULPD    Y6, Y7, Y7                     // 2f·p
	VMULPD    ·logConst+192(SB), Y1, Y8
	VADDPD    Y7, Y8, Y8                     // e·ln2Lo + 2f·p
	VMULPD    ·logConst+224(SB), Y1, Y9
	VADDPD    Y8, Y9, Y9                     // log x
	VCMPPD    $0x15, ·logConst+256(SB), Y0, Y3 // mask: !(x < +Inf) (unordered: NaN too)
	VBLENDVPD Y3, Y0, Y9, Y9                 // x there
	VMULPD    Y15, Y9, Y9                    // b·log x
	VMOVUPD   Y9, (DI)(AX*8)
	ADDQ      $4, AX
	JMP       loop

done:
	VZEROUPPER
	RET
