package asm

import "math"

// The gradient blocks of the Matérn and rational quadratic kernels need,
// besides the values, ψ = −2·∂κ/∂s at the same squared scaled distances s
// (and, for RQ, the factor of ∂κ/∂log α). MaternPsiRow and RQGradRow form
// them in the pass that forms the values, from the exponential and the
// logarithm that pass computes anyway, so that a gradient block needs no
// second pass of distances and transcendental functions. Their values are
// MaternRow's and RQRow's, bit for bit.

// maternPsiRowGo is MaternPsiRow as a Go loop: the values as maternRowGo,
// and ψ = (pv·e^{−a})·(1 + p1·a), divided by a with cusp (0 where a is
// not positive), 0 where −a < expMin.
func maternPsiRowGo(dst, psi, s []float64, v, c, c1, c2, pv, p1 float64, cusp bool) {
	dst, psi = dst[:len(s)], psi[:len(s)]
	for i, si := range s {
		a := math.Sqrt(float64(c * si))
		x := -a
		if x < expMin {
			dst[i], psi[i] = 0, 0
			continue
		}
		e := expNegFMA(x)
		q := float64(float64(pv*e) * float64(1+float64(p1*a)))
		if cusp {
			if a > 0 {
				q = float64(q / a)
			} else {
				q = 0
			}
		}
		psi[i] = q
		p := float64(float64(1+float64(c1*a)) + float64(float64(c2*a)*a))
		dst[i] = float64(float64(v*e) * p)
	}
}

// rqGradRowGo is RQGradRow as a Go loop: κ as rqRowGo, ψ = κ/x and
// dk = (κ − ψ) − κ·log x (one rounding) with x = 1 + a·s.
func rqGradRowGo(dst, psi, dk, s []float64, v, a, alpha float64) {
	dst, psi, dk = dst[:len(s)], psi[:len(s)], dk[:len(s)]
	na := -alpha
	for i, si := range s {
		x := math.FMA(a, si, 1)
		l := logPosFMA(x)
		k := float64(v * expNegFMA(float64(l*na)))
		q := float64(k / x)
		dst[i], psi[i] = k, q
		dk[i] = math.FMA(-k, l, float64(k-q))
	}
}
