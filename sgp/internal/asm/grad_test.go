package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sameBits reports whether a and b are the same float64, any NaN matching
// any NaN.
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// gradTestDistances returns squared distances from 0 to beyond the
// underflow of every kernel, their count not a multiple of 4 (the Go loop
// takes the tail).
func gradTestDistances() []float64 {
	rng := rand.New(rand.NewPCG(5, 55))
	s := []float64{0, 1e-300, 1e-20, 1e-8, 0.5, 1, 3, 100, 1e4, 1e6, 1e300}
	for range 5000 {
		s = append(s, rng.ExpFloat64(), 200*rng.Float64(), math.Pow(10, 30*rng.Float64()-20))
	}
	return s[:len(s)-1]
}

// TestMaternPsiRowMatches checks that MaternPsiRow's values are
// MaternRow's bit for bit and its ψ within 10⁻¹⁴ relative of the
// smoothness's formula by math.Exp (ν = 1/2: V·e^{−a}/a, 0 at a = 0;
// ν = 3/2: 3V·e^{−a}; ν = 5/2: (5/3)·V·(1 + a)·e^{−a}, a = √(2ν·s)).
func TestMaternPsiRowMatches(t *testing.T) {
	s := gradTestDistances()
	const v = 1.3
	type nu struct {
		c, c1, c2, pv, p1 float64
		cusp              bool
		psi               func(a float64) float64
	}
	for _, k := range []nu{
		{1, 0, 0, v, 0, true, func(a float64) float64 {
			if a == 0 {
				return 0
			}
			return v * math.Exp(-a) / a
		}},
		{3, 1, 0, 3 * v, 0, false, func(a float64) float64 { return 3 * v * math.Exp(-a) }},
		{5, 1, 1.0 / 3, (5.0 / 3) * v, 1, false, func(a float64) float64 { return (5.0 / 3) * v * (1 + a) * math.Exp(-a) }},
	} {
		want, got, psi := make([]float64, len(s)), make([]float64, len(s)), make([]float64, len(s))
		MaternRow(want, s, v, k.c, k.c1, k.c2)
		MaternPsiRow(got, psi, s, v, k.c, k.c1, k.c2, k.pv, k.p1, k.cusp)
		for i, si := range s {
			if !sameBits(got[i], want[i]) {
				t.Fatalf("2ν = %v, s = %v: MaternPsiRow value %v, MaternRow %v", k.c, si, got[i], want[i])
			}
			a := math.Sqrt(k.c * si)
			w := k.psi(a)
			if -a < expMin {
				w = 0
			}
			if !(math.Abs(psi[i]-w) <= 1e-14*math.Abs(w)) {
				t.Fatalf("2ν = %v, s = %v: ψ %v, want %v", k.c, si, psi[i], w)
			}
		}
	}
}

// TestRQGradRowMatches checks that RQGradRow's values are RQRow's bit for
// bit, its ψ within 10⁻¹⁵ relative of V·(1 + u)^{−α−1} and its dk within
// 10⁻¹⁴ (relative to κ·max(1, log(1 + u))) of κ·(u/(1 + u) − log(1 + u)),
// u = s/(2α), by math.Log1p and math.Pow, for several shapes α.
func TestRQGradRowMatches(t *testing.T) {
	s := gradTestDistances()
	const v = 1.3
	for _, alpha := range []float64{0.05, 0.7, 1, 2.5, 40, 1e4} {
		a := 0.5 / alpha
		want, got := make([]float64, len(s)), make([]float64, len(s))
		psi, dk := make([]float64, len(s)), make([]float64, len(s))
		RQRow(want, s, v, a, alpha)
		RQGradRow(got, psi, dk, s, v, a, alpha)
		for i, si := range s {
			if !sameBits(got[i], want[i]) {
				t.Fatalf("α = %v, s = %v: RQGradRow value %v, RQRow %v", alpha, si, got[i], want[i])
			}
			u := a * si
			l := math.Log1p(u)
			k := want[i]
			wpsi := k / (1 + u)
			if !(math.Abs(psi[i]-wpsi) <= 1e-15*wpsi) {
				t.Fatalf("α = %v, s = %v: ψ %v, want %v", alpha, si, psi[i], wpsi)
			}
			wdk := k * (u/(1+u) - l)
			if !(math.Abs(dk[i]-wdk) <= 1e-14*k*math.Max(1, l)) {
				t.Fatalf("α = %v, s = %v: dk %v, want %v", alpha, si, dk[i], wdk)
			}
		}
	}
}
