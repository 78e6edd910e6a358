package asm

import "math"

// The rational quadratic kernel's values, v·(1 + a·s)^{−α} =
// v·exp(−α·log(1 + a·s)), the logarithm and the exponential in one pass,
// as the AVX2 kernel of rqk_amd64.s computes them four at a time and with
// the same bits here. The steps are logPos's and expNeg's, with two
// changes that shorten the chain of dependent operations, which is what
// bounds their speed (each value's chain is long, and the CPU overlaps
// only a few values' chains): every product-and-sum is fused (one
// rounding, math.FMA, VFMADD on the CPU), and the polynomials are
// evaluated by Estrin's scheme (pairs of coefficients combined with
// z, z², z⁴, z⁸ in a tree) instead of Horner's rule. Relative error against math.Pow: a few units in the
// last place times max(1, α·log(1 + a·s)), plus α times the rounding of
// 1 + a·s (TestRQRowAccuracy), as for Log1pRow followed by ExpRow.

// logPosFMA returns log x for x ≥ 1 by logPos's steps with fused
// multiply–adds.
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
	p := estrin12(f2, &logAtanh)
	r := math.FMA(e, expLn2Hi, math.FMA(e, expLn2Lo, float64(float64(2*f)*p)))
	if !(x < math.Inf(1)) {
		return x
	}
	return r
}

// expNegFMA returns e^x for x ≤ 0 by expNeg's steps with fused
// multiply–adds.
func expNegFMA(x float64) float64 {
	if x < expMin {
		return 0
	}
	k := math.RoundToEven(float64(x * expLog2e))
	r := math.FMA(-k, expLn2Hi, x)
	r = math.FMA(-k, expLn2Lo, r)
	p := estrin14(r, &expTaylor)
	scale := math.Float64frombits(math.Float64bits(float64(k+expMagic)) << 52)
	return float64(p * scale)
}

// estrin12 returns Σ_k h[11−k]·z^k for the coefficients h in Horner's
// order (highest power first), by Estrin's scheme in the order of
// rqk_amd64.s: q_i = h_{2i} + h_{2i+1}·z with h_k the coefficient of z^k,
// then s_j = q_{2j} + q_{2j+1}·z², t = s₀ + s₁·z⁴, and t + s₂·z⁸.
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

// estrin14 returns Σ_k h[13−k]·z^k for the coefficients h in Horner's
// order, by Estrin's scheme in the order of rqk_amd64.s: q_i = h_{2i} +
// h_{2i+1}·z, s_j = q_{2j} + q_{2j+1}·z² (s₃ = q₆), t_l = s_{2l} +
// s_{2l+1}·z⁴, and t₀ + t₁·z⁸.
func estrin14(z float64, h *[14]float64) float64 {
	c := func(k int) float64 { return h[13-k] }
	z2 := float64(z * z)
	s0 := math.FMA(math.FMA(c(3), z, c(2)), z2, math.FMA(c(1), z, c(0)))
	s1 := math.FMA(math.FMA(c(7), z, c(6)), z2, math.FMA(c(5), z, c(4)))
	s2 := math.FMA(math.FMA(c(11), z, c(10)), z2, math.FMA(c(9), z, c(8)))
	s3 := math.FMA(c(13), z, c(12))
	z4 := float64(z2 * z2)
	t0 := math.FMA(s1, z4, s0)
	t1 := math.FMA(s3, z4, s2)
	z8 := float64(z4 * z4)
	return math.FMA(t1, z8, t0)
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
