package asm

import "math"

// The rational quadratic kernel's values, v·(1 + a·s)^{−α} =
// v·exp(−α·log(1 + a·s)), the logarithm and the exponential in one pass,
// as the AVX2 kernel of rqk_amd64.s computes them four at a time and with
// the same bits here. The steps are logPos's and expNeg's, with three
// changes that shorten the work and the chain of dependent operations,
// which is what bounds their speed (each value's chain is long, and the
// CPU overlaps only a few values' chains): the polynomials are minimax
// ones of lower degree (rqLogMinimax, 8 coefficients instead of
// logAtanh's 12; expMinimax, 12 instead of expTaylor's 14), every
// product-and-sum is fused (one rounding, math.FMA, VFMADD on the CPU),
// and the polynomials are evaluated by Estrin's scheme (pairs of
// coefficients combined with z, z², z⁴, z⁸ in a tree) instead of Horner's
// rule. Relative error against math.Pow: a few units in the last place
// times max(1, α·log(1 + a·s)), plus α times the rounding of 1 + a·s
// (TestRQRowAccuracy), as for Log1pRow followed by ExpRow.

// logPosFMA returns log x for x ≥ 1 by logPos's steps with rqLogMinimax's
// polynomial and fused multiply–adds.
func logPosFMA(x float64) float64 {
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
	p := estrin8(f2, &rqLogMinimax)
	r := math.FMA(e, expLn2Hi, math.FMA(e, expLn2Lo, float64(float64(2*f)*p)))
	if !(x < math.Inf(1)) {
		return x
	}
	return r
}

// expNegFMA returns e^x for x ≤ 0 by expNeg's steps with expMinimax's
// polynomial and fused multiply–adds.
func expNegFMA(x float64) float64 {
	if x < expMin {
		return 0
	}
	k := math.RoundToEven(float64(x * expLog2e))
	r := math.FMA(-k, expLn2Hi, x)
	r = math.FMA(-k, expLn2Lo, r)
	p := estrin12(r, &expMinimax)
	scale := math.Float64frombits(math.Float64bits(float64(k+expMagic)) << 52)
	return float64(p * scale)
}

// rqLogMinimax holds the coefficients of atanh(f)/f in z = f² for
// |f| ≤ 0.172 in Horner's order (highest power first): fdlibm's minimax
// coefficients Lg7, …, Lg1 of its log (Go's math.Log's L7, …, L1) halved,
// and 1. Relative error of 2f·P(f²) against log m: below 2·10⁻¹⁸.
var rqLogMinimax = [8]float64{
	0x1.2f112df3e5244p-4, 0x1.39a09d078c69fp-4,
	0x1.7466496cb03dep-4, 0x1.c71c51d8e78afp-4,
	0x1.2492494229359p-3, 0x1.999999997fa04p-3,
	0x1.5555555555593p-2, 0x1.0000000000000p+0,
}

// expMinimax holds the coefficients of a polynomial of degree 11 for e^r on
// |r| ≤ ln 2/2 in Horner's order: 1 + r·Q(r) with Q the Chebyshev
// interpolant of degree 10 of (e^r − 1)/r (computed with 50 digits and
// rounded), so that e^0 = 1 exactly. Relative error against e^r, with the
// coefficients rounded: below 10⁻¹⁷.
var expMinimax = [12]float64{
	0x1.af4de97ca4194p-26, 0x1.28a2ca617b969p-22, 0x1.71de0231960ebp-19,
	0x1.a019a6611cad5p-16, 0x1.a01a01abe7fe1p-13, 0x1.6c16c17f46982p-10,
	0x1.11111111100dcp-7, 0x1.55555555520a4p-5, 0x1.5555555555557p-3,
	0x1.0000000000005p-1, 0x1.0000000000000p+0, 0x1.0000000000000p+0,
}

// estrin8 returns Σ_k h[7−k]·z^k for the coefficients h in Horner's order
// (highest power first), by Estrin's scheme in the order of rqk_amd64.s:
// q_i = h_{2i} + h_{2i+1}·z with h_k the coefficient of z^k, then
// s_j = q_{2j} + q_{2j+1}·z², and s₀ + s₁·z⁴.
func estrin8(z float64, h *[8]float64) float64 {
	c := func(k int) float64 { return h[7-k] }
	z2 := float64(z * z)
	s0 := math.FMA(math.FMA(c(3), z, c(2)), z2, math.FMA(c(1), z, c(0)))
	s1 := math.FMA(math.FMA(c(7), z, c(6)), z2, math.FMA(c(5), z, c(4)))
	z4 := float64(z2 * z2)
	return math.FMA(s1, z4, s0)
}

// estrin12 returns Σ_k h[11−k]·z^k for the coefficients h in Horner's
// order, by Estrin's scheme in the order of rqk_amd64.s: q_i = h_{2i} +
// h_{2i+1}·z, then s_j = q_{2j} + q_{2j+1}·z², t = s₀ + s₁·z⁴, and
// t + s₂·z⁸.
func estrin12(z float64, h *[12]float64) float64 {
	c := func(k int) float64 { return h[11-k] }
	z2 := float64(z * z)
	s0 := math.FMA(math.FMA(c(3), z, c(2)), z2, math.FMA(c(1), z, c(0)))
	s1 := math.FMA(math.FMA(c(7), z, c(6)), z2, math.FMA(c(5), z, c(4)))
	s2 := math.FMA(math.FMA(c(11), z, c(10)), z2, math.FMA(c(9), z, c(8)))
	z4 := float64(z2 * z2)
	t := math.FMA(s1, z4, s0)
	z8 := float64(z4 * z4)
	return math.FMA(s2, z8, t)
}

// rqRowGo is RQRow as a Go loop.
func rqRowGo(dst, s []float64, v, a, alpha float64) {
	dst = dst[:len(s)]
	na := -alpha
	for i, si := range s {
		l := logPosFMA(math.FMA(a, si, 1))
		dst[i] = float64(v * expNegFMA(float64(l*na)))
	}
}
