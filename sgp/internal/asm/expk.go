package asm

import "math"

// The RBF kernel's exponential, exp(x) for x ≤ 0, as the AVX2 kernel of
// expk_amd64.s computes it four at a time, and with the same bits here:
// x = k·ln 2 + r with k = round(x·log₂e) (to even) and |r| ≤ ln 2/2, r
// formed in two steps with ln 2 = expLn2Hi + expLn2Lo (k·expLn2Hi is
// exact for |k| < 2¹¹); e^r by Horner's rule on its Taylor series to the
// r¹³ term (the remainder is below 5·10⁻¹⁸ relative); and 2^k built in
// the exponent bits. Every product and sum is rounded (no fused
// multiply–add). Relative error against math.Exp: within 4.5·10⁻¹⁶, a
// few units in the last place (TestExpNegAccuracy). Below expMin the
// result is 0, where math.Exp gives at most 3.3·10⁻³⁰⁸; a NaN stays NaN.
const (
	expLog2e = 1.44269504088896340736
	expLn2Hi = 6.93147180369123816490e-01 // the high bits of ln 2 (fdlibm)
	expLn2Lo = 1.90821492927058770002e-10 // ln 2 − expLn2Hi
	expMin   = -708.0
	// expMagic + k for an integer |k| < 2⁵¹ holds 1023 + k in the low bits
	// of its mantissa: shifted left by 52 they are the exponent bits of 2^k.
	expMagic = 0x1.8p52 + 1023
)

// expTaylor holds 1/13!, 1/12!, …, 1/1!, 1/0!, the coefficients of e^r in
// Horner's order (each the double nearest the exact value).
var expTaylor = [14]float64{
	1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
	1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24,
	1.0 / 6, 1.0 / 2, 1, 1,
}

// expNeg returns e^x for x ≤ 0 (see expTaylor and the constants above).
func expNeg(x float64) float64 {
	if x < expMin {
		return 0
	}
	k := math.RoundToEven(float64(x * expLog2e))
	r := float64(x - float64(k*expLn2Hi))
	r = float64(r - float64(k*expLn2Lo))
	p := expTaylor[0]
	for _, c := range expTaylor[1:] {
		p = float64(p*r) + c
	}
	scale := math.Float64frombits(math.Float64bits(float64(k+expMagic)) << 52)
	return float64(p * scale)
}

// expRowGo is ExpRow as a Go loop.
func expRowGo(dst, s []float64, v float64) {
	dst = dst[:len(s)]
	for i, si := range s {
		dst[i] = float64(v * expNeg(float64(-0.5*si)))
	}
}

// maternRowGo is MaternRow as a Go loop: a = √(c·s), e^{−a} by
// expNegFMA, and v·e^{−a}·((1 + c1·a) + (c2·a)·a), 0 where −a < expMin.
func maternRowGo(dst, s []float64, v, c, c1, c2 float64) {
	dst = dst[:len(s)]
	for i, si := range s {
		a := math.Sqrt(float64(c * si))
		x := -a
		if x < expMin {
			dst[i] = 0
			continue
		}
		p := float64(float64(1+float64(c1*a)) + float64(float64(c2*a)*a))
		dst[i] = float64(float64(v*expNegFMA(x)) * p)
	}
}
