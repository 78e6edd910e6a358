//go:build !amd64

package asm

// MaternPsiRow sets dst[i] as MaternRow(dst, s, v, c, c1, c2) does and
// psi[i] = (pv·e^{−a})·(1 + p1·a), a = √(c·s[i]), divided by a with cusp
// (0 where a = 0), 0 where e^{−a} underflows (see maternPsiRowGo).
func MaternPsiRow(dst, psi, s []float64, v, c, c1, c2, pv, p1 float64, cusp bool) {
	maternPsiRowGo(dst, psi, s, v, c, c1, c2, pv, p1, cusp)
}

// RQGradRow sets dst[i] as RQRow(dst, s, v, a, α) does, psi[i] = dst[i]/x
// and dk[i] = (dst[i] − psi[i]) − dst[i]·log x with x = 1 + a·s[i] (see
// rqGradRowGo).
func RQGradRow(dst, psi, dk, s []float64, v, a, alpha float64) {
	rqGradRowGo(dst, psi, dk, s, v, a, alpha)
}
