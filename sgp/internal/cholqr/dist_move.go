package cholqr

import (
	"math"

	"github.com/cholqr/sgp/sgp/internal/base"
)

// transpose exchanges the active pivots at positions l and l+1 (as one
// step of Factor.move; Cao et al. 2013, §3.2): G ← G·X with the reflection
// X = [s c; c −s] on columns (l, l+1), (c, s) ∝ (G[p, l+1], G[p, l]) and p
// the pivot that comes to sit at l; A ← XAX; R ← H·R·X with the Givens
// rotation H that re-triangularises it; Q ← diag(I_n, X)·Q·Hᵀ; a ← Ha,
// b ← Hb. G[p, :] is a replicated pivot row and R and the σI rows of Q are
// replicated, so every rank computes the same rotations and applies them
// to its own rows: no messages.
func (f *Dist) transpose(l int) {
	tc, m, t := f.tcap, f.mcap, f.t
	gl, gl1 := f.pivRows[(l+1)*tc+l], f.pivRows[(l+1)*tc+l+1]
	rho := math.Hypot(gl, gl1)
	c, s := gl1/rho, gl/rho
	refl := func(u, v *float64) { *u, *v = s**u+c**v, c**u-s**v }
	gu, gv := f.gcol(l), f.gcol(l+1)
	for i := range gu {
		refl(&gu[i], &gv[i])
	}
	for r := 0; r < t; r++ {
		refl(&f.pivRows[r*tc+l], &f.pivRows[r*tc+l+1])
	}
	for i := 0; i < tc; i++ {
		f.pivRows[l*tc+i], f.pivRows[(l+1)*tc+i] = f.pivRows[(l+1)*tc+i], f.pivRows[l*tc+i]
	}
	f.pivRows[l*tc+l], f.pivRows[l*tc+l+1] = rho, 0
	f.perm[l], f.perm[l+1] = f.perm[l+1], f.perm[l]
	xa, xb := f.pivX[l*f.dim:(l+1)*f.dim], f.pivX[(l+1)*f.dim:(l+2)*f.dim]
	for i := range xa {
		xa[i], xb[i] = xb[i], xa[i]
	}
	for r := 0; r < t; r++ {
		refl(&f.gram[r*tc+l], &f.gram[r*tc+l+1])
	}
	for i := 0; i < t; i++ {
		refl(&f.gram[l*tc+i], &f.gram[(l+1)*tc+i])
	}
	// R·X, then H on rows (l, l+1).
	for r := 0; r <= l+1; r++ {
		refl(&f.r[r*m+l], &f.r[r*m+l+1])
	}
	x, y := f.r[l*m+l], f.r[(l+1)*m+l]
	rr := math.Hypot(x, y)
	ch, sh := x/rr, y/rr
	giv := func(u, v *float64) { *u, *v = ch**u+sh**v, -sh**u+ch**v }
	for j := l; j < f.k; j++ {
		giv(&f.r[l*m+j], &f.r[(l+1)*m+j])
	}
	f.r[l*m+l], f.r[(l+1)*m+l] = rr, 0
	giv(&f.a[l], &f.a[l+1])
	giv(&f.b[l], &f.b[l+1])
	qu, qv := f.qcol(l), f.qcol(l+1)
	for i := range qu {
		giv(&qu[i], &qv[i])
	}
	su, sv := f.qs[l*m:(l+1)*m], f.qs[(l+1)*m:(l+2)*m]
	for i := range su {
		giv(&su[i], &sv[i])
	}
	for col := 0; col < f.k; col++ {
		refl(&f.qs[col*m+l], &f.qs[col*m+l+1])
	}
	if f.r[(l+1)*m+l+1] < 0 {
		for j := l + 1; j < f.k; j++ {
			f.r[(l+1)*m+j] = -f.r[(l+1)*m+j]
		}
		f.a[l+1], f.b[l+1] = -f.a[l+1], -f.b[l+1]
		for i := range qv {
			qv[i] = -qv[i]
		}
		for i := range sv {
			sv[i] = -sv[i]
		}
	}
}

// removeLast moves the active pivot at position p to the last active
// position and takes it out of the QR factorisation and of G, restoring
// its contribution to d: no messages.
func (f *Dist) removeLast(p int) {
	for l := p; l < f.k-1; l++ {
		f.transpose(l)
	}
	f.k--
	k, m := f.k, f.mcap
	for c := 0; c < k; c++ {
		f.qs[c*m+k] = 0
	}
	for i := 0; i <= k; i++ {
		f.r[i*m+k] = 0
	}
	clear(f.qcol(k))
	clear(f.qs[k*m : (k+1)*m])
	f.a[k], f.b[k] = 0, 0
	f.dropLast()
}

// Remove removes global row j from the inducing set without messages
// (see transpose). It panics if j is not active.
func (f *Dist) Remove(j int) {
	if !f.ok {
		panic(errBadFactor)
	}
	for p, v := range f.perm[:f.k] {
		if v == j {
			f.removeLast(p)
			return
		}
	}
	panic(errNotActive)
}

// SwapWith proposes to replace the active point at position p by row j
// (not active), with Factor.Swap's rule: remove it, score j exactly, and
// accept only if the objective decreases by more than a relative
// swapThreshold; otherwise the removed point returns, last in the
// inducing set as after Factor's rejected swap. Messages: those of one
// pivot append and Gram–Schmidt, and of a second append on rejection.
func (f *Dist) SwapWith(p, j int, o base.Objective) base.SwapResult {
	if !f.ok {
		panic(errBadFactor)
	}
	if p < 0 || p >= f.k || j < 0 || j >= f.n {
		panic(errIndex)
	}
	if f.IsActive(j) {
		panic(errIsActive)
	}
	out := f.perm[p]
	res := base.SwapResult{Removed: out, Proposed: j, Before: f.Value(o), After: math.NaN()}
	f.stats.Swaps++
	f.removeLast(p)
	removed := f.Value(o)
	if f.appendPivot(j, 1e-6) {
		f.gramSchmidt()
		res.ExactDelta = gainF(o, f.tent.anew, 2*math.Log(f.tent.r), f.tent.gg, f.noise)
		after := removed - res.ExactDelta
		if after < res.Before-swapThreshold*f.ValueScale(res.Before) {
			f.commitActive()
			res.Accepted, res.After = true, after
			f.stats.Accepted++
			return res
		}
		f.tent = tentative{}
		f.dropLast()
	}
	if !f.appendPivot(out, 0) {
		panic("sgp: internal error: cannot restore a removed inducing point")
	}
	f.gramSchmidt()
	f.commitActive()
	res.After = res.Before
	return res
}

// GreedyVariance returns m points chosen greedily by largest residual
// variance (as Factor.GreedyVariance, rows' ties broken by the smaller
// global index): each step takes every rank's best row and one ArgMax,
// then adds the winner. It leaves them factorised; if fewer qualify, the
// rest are the first rows not chosen.
func (f *Dist) GreedyVariance(m int) []int {
	_ = f.Factorize(nil)
	active := make([]int, 0, m)
	for len(active) < m {
		best, bv := -1, 0.0
		for i, v := range f.d {
			if v > 0 && (best < 0 || v > bv) {
				best, bv = f.lo+i, v
			}
		}
		_, best = f.c.ArgMax(bv, best)
		if best < 0 || f.Add(best) != nil {
			break
		}
		active = append(active, best)
	}
	for i := 0; len(active) < m && i < f.n; i++ {
		if !f.IsActive(i) {
			active = append(active, i)
		}
	}
	return active
}
