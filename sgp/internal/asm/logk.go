package asm

import "math"

// The rational quadratic kernel's logarithm, log x for x ≥ 1 (x = 1 + u
// with u ≥ 0), as the AVX2 kernel of logk_amd64.s computes it four at a
// time, and with the same bits here: x = 2^e·m with m in (√2/2, √2]
// (the exponent and mantissa bits, m halved and e raised where the
// mantissa is above √2), f = (m − 1)/(m + 1) so that log m = 2·atanh f,
// 2·atanh f = 2f·Σ_k f^{2k}/(2k + 1) by Horner's rule in f² to the f²²
// term (|f| ≤ 0.172: the remainder is below 10⁻¹⁸ relative), and
// log x = e·ln2Hi + (e·ln2Lo + 2f·P(f²)). Every product and sum is rounded
// (no fused multiply–add). Relative error against math.Log: a few units
// in the last place (TestLogPosAccuracy). +Inf and NaN are returned as
// they are.
const (
	logSqrt2  = 1.41421356237309504880
	logMant   = 1<<52 - 1
	logOne    = 0x3ff0000000000000
	logMagic  = 0x1p52 // the bits of 2⁵² + k hold k in the mantissa, for 0 ≤ k < 2⁵²
	logExpOff = 1023
)

// logAtanh holds 1/23, 1/21, …, 1/3, 1, the coefficients of atanh(f)/f
// in f², in Horner's order (each the double nearest the exact value).
var logAtanh = [12]float64{
	1.0 / 23, 1.0 / 21, 1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13,
	1.0 / 11, 1.0 / 9, 1.0 / 7, 1.0 / 5, 1.0 / 3, 1,
}

// logPos returns log x for x ≥ 1 (see logAtanh and the constants above).
func logPos(x float64) float64 {
	bits := math.Float64bits(x)
	e := float64(math.Float64frombits(bits>>52|math.Float64bits(logMagic)) - logMagic)
	e = float64(e - logExpOff)
	m := math.Float64frombits(bits&logMant | logOne)
	if m > logSqrt2 {
		m = float64(m * 0.5)
		e = float64(e + 1)
	}
	f := float64(float64(m-1) / float64(m+1))
	f2 := float64(f * f)
	p := logAtanh[0]
	for _, c := range logAtanh[1:] {
		p = float64(float64(p*f2) + c)
	}
	r := float64(float64(e*expLn2Hi) + float64(float64(e*expLn2Lo)+float64(float64(2*f)*p)))
	if !(x < math.Inf(1)) {
		return x
	}
	return r
}

// log1pRowGo is Log1pRow as a Go loop.
func log1pRowGo(dst, s []float64, a, b float64) {
	dst = dst[:len(s)]
	for i, si := range s {
		dst[i] = float64(b * logPos(float64(1+float64(a*si))))
	}
}
