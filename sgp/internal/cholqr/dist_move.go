package cholqr

import (
	"math"
)

// transpose exchanges the pivots at positions l and l+1, both active or
// both information pivots (as one step of Factor.move; Cao et al. 2013,
// §3.2): G ← G·X with the reflection X = [s c; c −s] on columns (l, l+1),
// (c, s) ∝ (G[p, l+1], G[p, l]) and p the pivot that comes to sit at l,
// after which G[p, l] = ρ and G[p, l+1] = 0 exactly; A ← XAX. If the
// pivots are active, also R ← H·R·X with the Givens rotation H that
// re-triangularises it, Q ← diag(I_n, X)·Q·Hᵀ, a ← Ha and b ← Hb.
// G[p, :] is a replicated pivot row and R and the σI rows of Q are
// replicated, so every rank computes the same rotations and applies them
// to its own rows: no messages.
func (f *Dist) transpose(l int) {
	tc, t := f.tcap, f.t
	gl, gl1 := f.pivRows[(l+1)*tc+l], f.pivRows[(l+1)*tc+l+1]
	rho := math.Hypot(gl, gl1)
	c, s := gl1/rho, gl/rho
	refl := func(u, v *float64) { *u, *v = s**u+c**v, c**u-s**v }
	gu, gv := f.gcol(l), f.gcol(l+1)
	for i := range gu {
		refl(&gu[i], &gv[i])
	}
	p, q := f.perm[l+1], f.perm[l]
	if pl := f.local(p); pl >= 0 {
		gu[pl], gv[pl] = rho, 0
		f.lpos[pl] = l
	}
	if ql := f.local(q); ql >= 0 {
		f.lpos[ql] = l + 1
	}
	for r := 0; r < t; r++ {
		refl(&f.pivRows[r*tc+l], &f.pivRows[r*tc+l+1])
	}
	for i := 0; i < tc; i++ {
		f.pivRows[l*tc+i], f.pivRows[(l+1)*tc+i] = f.pivRows[(l+1)*tc+i], f.pivRows[l*tc+i]
	}
	f.pivRows[l*tc+l], f.pivRows[l*tc+l+1] = rho, 0
	f.perm[l], f.perm[l+1] = p, q
	xa, xb := f.pivX[l*f.dim:(l+1)*f.dim], f.pivX[(l+1)*f.dim:(l+2)*f.dim]
	for i := range xa {
		xa[i], xb[i] = xb[i], xa[i]
	}
	f.pivK[l], f.pivK[l+1] = f.pivK[l+1], f.pivK[l]
	for r := 0; r < t; r++ {
		refl(&f.gram[r*tc+l], &f.gram[r*tc+l+1])
	}
	for i := 0; i < t; i++ {
		refl(&f.gram[l*tc+i], &f.gram[(l+1)*tc+i])
	}
	if l+1 < f.k {
		f.transposeQR(l, refl)
	}
}

// transposeQR is the part of transpose for active pivots: R·X, then H
// on rows (l, l+1) of R, a and b, and Q·Hᵀ and the σI rows' X.
func (f *Dist) transposeQR(l int, refl func(u, v *float64)) {
	m := f.mcap
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

// move moves the pivot at position from to position to, the pivots in
// between shifting by one, as Factor.move: both positions in the active
// block or both among the information pivots, by adjacent transpositions.
// No messages.
func (f *Dist) move(from, to int) {
	if (from < f.k) != (to < f.k) {
		panic("sgp: internal error: a move across the active block's end")
	}
	if from < to && to < f.k {
		f.needQ()
	}
	for l := from; l < to; l++ {
		f.transpose(l)
	}
	if from > to && from < f.k {
		panic("sgp: internal error: an active pivot moved to an earlier position")
	}
	for l := from - 1; l >= to; l-- {
		f.transpose(l)
	}
}

// needQ panics if Q is stale (see addNoQ).
func (f *Dist) needQ() {
	if f.qStale {
		panic("sgp: internal error: Q is stale after addNoQ; Factorize first")
	}
}

// dropActive removes the last active column from the QR factorisation,
// as Factor.dropActive: k ← k−1, and the point stays the first
// information pivot of G.
func (f *Dist) dropActive() {
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
}

// removeToPark removes the active point at position p as
// Factor.removeToPark: it moves to the end of the active block, its QR
// column is kept (parkedQ, parkedR, parkedA, parkedB) and dropped, and it
// moves past the information pivots and out of G; it stays parked (the
// rows it may not be drawn or chosen as) until restorePark or
// discardPark. No messages.
func (f *Dist) removeToPark(p int) {
	f.move(p, f.k-1)
	k, m, nl := f.k-1, f.mcap, f.nl
	copy(f.parkedQ[:nl], f.qcol(k))
	copy(f.parkedQ[nl:nl+k+1], f.qs[k*m:k*m+k+1])
	for i := 0; i <= k; i++ {
		f.parkedR[i] = f.r[i*m+k]
	}
	f.parkedA, f.parkedB = f.a[k], f.b[k]
	f.dropActive()
	f.move(f.k, f.t-1)
	f.parked = f.perm[f.t-1]
	f.dropInfoLast()
}

// discardPark forgets the parked point: its removal is final.
func (f *Dist) discardPark() { f.parked = -1 }

// restorePark re-inserts the parked point as the last active point, as
// Factor.restorePark: its column of G is appended again after the
// information pivots (one pivot append: Dist parks no column) and moved
// before them, and its QR column is the parked one, still valid since
// the active block is the same.
func (f *Dist) restorePark() {
	if f.t >= f.tcap {
		f.dropInfoLast()
	}
	j := f.parked
	f.parked = -1
	if !f.appendPivot(j, 0) {
		panic("sgp: internal error: cannot restore a removed inducing point")
	}
	f.move(f.t-1, f.k)
	k, m, nl := f.k, f.mcap, f.nl
	copy(f.qcol(k), f.parkedQ[:nl])
	copy(f.qs[k*m:k*m+k+1], f.parkedQ[nl:nl+k+1])
	for i := 0; i <= k; i++ {
		f.r[i*m+k] = f.parkedR[i]
	}
	f.a[k], f.b[k] = f.parkedA, f.parkedB
	f.k++
}
