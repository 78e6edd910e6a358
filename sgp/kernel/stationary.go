package kernel

import (
	"fmt"
	"math"
	"strconv"

	"github.com/cholqr/sgp/sgp/internal/asm"
	"github.com/cholqr/sgp/sgp/internal/linalg"
	"github.com/cholqr/sgp/sgp/internal/par"
)

// The stationary kernels of a scaled distance: RBF, Matern and RQ are
//
//	κ(x, x′) = φ(s),   s = Σ_t (x_t − x′_t)²/ℓ_t²,
//
// for a profile φ (V·e^{−s/2} for RBF). They share the block of squared
// scaled distances (scaledCrossT) and, through
//
//	ψ(s) = −2·φ′(s),   ∂κ/∂log ℓ_t = ψ(s)·(x_t − x′_t)²/ℓ_t²,
//	∂κ/∂x′_t = ψ(s)·(x_t − x′_t)/ℓ_t²,
//
// the sums of their lengthscale gradients (scaledGradT) and of their
// input gradients (scaledInputGradT). For RBF ψ = φ = κ, so that its
// values serve as ψ; the other kernels form ψ in their value pass
// (CrossAuxT, with the same distances and transcendental functions) or
// again from the inputs (AddGradBlockT, InputGradT).

// scaledT returns the rows of x (all of them for rows = nil) multiplied by
// invLS, transposed (d×len(rows), or d×n), and their squared norms.
func scaledT(x *Vectors, rows []int, invLS []float64) (xs, norms []float64) {
	d := len(invLS)
	n := x.n
	if rows != nil {
		n = len(rows)
	}
	xs = make([]float64, d*n)
	norms = make([]float64, n)
	for r := 0; r < n; r++ {
		i := r
		if rows != nil {
			i = rows[r]
		}
		xi := x.Row(i)
		var s float64
		for t, w := range invLS {
			v := xi[t] * w
			xs[t*n+r] = v
			s += v * v
		}
		norms[r] = s
	}
	return xs, norms
}

// scaledCrossT is the block of a stationary kernel of the scaled distance,
// κ(x, z) = φ(Σ_t (x_t − z_t)²·invLS_t²): it sets dst[c·n+i] to φ of the
// squared scaled distance between x_i and y_cols[c], applying
// profile(dst, r2) to tiles of the squared distances r2 (at most rbfTile
// of one column at a time; profile sets dst[i] = φ(r2[i])). The inputs are
// scaled and stored transposed, so that the inner loop runs over
// contiguous memory. The distances are differenced directly: the
// expansion ‖x̃‖² + ‖z̃‖² − 2x̃·z̃ would be faster (a matrix product) but its
// rounding, about ε·‖x̃‖² absolute, is amplified by an ill-conditioned
// K[I,I].
//
// The rows are taken in tiles of rbfTile, each tile against every column,
// so that a tile's scaled inputs and squared distances stay in the L1
// cache, and four columns are taken together, so that each load of a
// scaled input serves four differences (asm.SqAcc4, four lanes at a time
// where the CPU has AVX, the same bits as its Go loop). Each value is
// computed by the same operations in the same order either way.
func scaledCrossT(dst []float64, xv, yv *Vectors, cols []int, invLS []float64, profile func(dst, r2 []float64)) {
	n := xv.n
	scaledDistTiles(xv, yv, cols, invLS, func(c, i0, i1 int, r2 []float64) {
		profile(dst[c*n+i0:c*n+i1], r2)
	})
}

// scaledDistTiles forms the squared scaled distances of scaledCrossT, in
// its tiles and order, and calls emit(c, i0, i1, r2) with those between
// the rows [i0, i1) of x and y_cols[c]. The tiles of rows are split over
// the cores; emit is called concurrently for distinct tiles.
func scaledDistTiles(xv, yv *Vectors, cols []int, invLS []float64, emit func(c, i0, i1 int, r2 []float64)) {
	n, m, d := xv.n, len(cols), len(invLS)
	xs, _ := scaledT(xv, nil, invLS)
	zs, _ := scaledT(yv, cols, invLS)
	par.For(n, max(rbfTile, par.MinRows*4/max(1, m)), func(lo, hi int) {
		var buf [4][rbfTile]float64
		for i0 := lo; i0 < hi; i0 += rbfTile {
			i1 := min(hi, i0+rbfTile)
			r2 := buf[0][:i1-i0]
			c := 0
			// Four columns at a time share each load of x̃_t.
			for ; c+4 <= m; c += 4 {
				r0, r1, r2, r3 := buf[0][:i1-i0], buf[1][:i1-i0], buf[2][:i1-i0], buf[3][:i1-i0]
				clear(r0)
				clear(r1)
				clear(r2)
				clear(r3)
				for t := 0; t < d; t++ {
					asm.SqAcc4(xs[t*n+i0:t*n+i1], zs[t*m+c], zs[t*m+c+1], zs[t*m+c+2], zs[t*m+c+3], r0, r1, r2, r3)
				}
				emit(c, i0, i1, r0)
				emit(c+1, i0, i1, r1)
				emit(c+2, i0, i1, r2)
				emit(c+3, i0, i1, r3)
			}
			for ; c < m; c++ {
				clear(r2)
				for t := 0; t < d; t++ {
					z := zs[t*m+c]
					xt := xs[t*n+i0 : t*n+i1]
					xt = xt[:len(r2)]
					for i, xv := range xt {
						diff := xv - z
						r2[i] += diff * diff
					}
				}
				emit(c, i0, i1, r2)
			}
		}
	})
}

// rbfTile is the number of rows scaledCrossT takes at a time (2 KB of squared
// distances, 16 KB of scaled inputs at d = 8).
const rbfTile = 256

// scaledGradT adds to grad[0] Σ_c Σ_i w[c·n+i]·kv[c·n+i] (the derivative
// for log V, ∂κ/∂log V = κ) and to grad[1+t] Σ_c Σ_i w[c·n+i]·psi[c·n+i]·
// (x̃_it − z̃_ct)² with x̃ = x/ℓ, differencing directly: the expansion would
// cancel badly here, where the weights W of an ill-conditioned K[I,I] are
// large and of both signs. Cost O(n·m·d), split over the inducing points.
// psi may be kv (RBF). With ext not nil it also adds
// extScale·Σ_c Σ_i w[c·n+i]·ext[c·n+i] to grad[1+d], the derivative for a
// kernel's extra hyperparameter (RQ's log α).
//
// The inducing points are taken four at a time, so that four sums share
// each load of x̃_t, and each sum over the rows is formed in four lanes
// (asm.WSqDot4, AVX where the CPU has it), which overlaps the additions
// whose latency bounds a single running sum. A point left over from the
// groups of four is summed in the same lane order, so the bits do not
// depend on how the points are split over the cores.
func scaledGradT(grad, w, kv, psi, ext []float64, extScale float64, xv, yv *Vectors, cols []int, invLS []float64) {
	n, m, d := xv.n, len(cols), len(invLS)
	xs, _ := scaledT(xv, nil, invLS)
	zs, _ := scaledT(yv, cols, invLS)
	slots := 1 + d
	if ext != nil {
		slots++
	}
	// One partial sum per inducing point, added in order (deterministic).
	parts := make([]float64, m*slots)
	// weigh sets h = w∘psi over column c and adds Σ w∘kv (and Σ w∘ext) to
	// the column's sums.
	weigh := func(h []float64, c int) {
		wr, kr, pr := w[c*n:(c+1)*n], kv[c*n:(c+1)*n], psi[c*n:(c+1)*n]
		var s float64
		if ext == nil {
			for i := range h {
				h[i] = wr[i] * pr[i]
				s += wr[i] * kr[i]
			}
			parts[c*slots] += s
			return
		}
		er := ext[c*n : (c+1)*n]
		var se float64
		for i := range h {
			h[i] = wr[i] * pr[i]
			s += wr[i] * kr[i]
			se += wr[i] * er[i]
		}
		parts[c*slots] += s
		parts[c*slots+1+d] += extScale * se
	}
	par.For(m, max(1, par.MinRows*4/max(1, n)), func(c0, c1 int) {
		h := make([]float64, 4*n)
		c := c0
		for ; c+4 <= c1; c += 4 {
			h0, h1, h2, h3 := h[:n], h[n:2*n], h[2*n:3*n], h[3*n:4*n]
			weigh(h0, c)
			weigh(h1, c+1)
			weigh(h2, c+2)
			weigh(h3, c+3)
			for t := 0; t < d; t++ {
				z0, z1, z2, z3 := zs[t*m+c], zs[t*m+c+1], zs[t*m+c+2], zs[t*m+c+3]
				st0, st1, st2, st3 := asm.WSqDot4(xs[t*n:(t+1)*n], h0, h1, h2, h3, z0, z1, z2, z3)
				parts[c*slots+1+t] += st0
				parts[(c+1)*slots+1+t] += st1
				parts[(c+2)*slots+1+t] += st2
				parts[(c+3)*slots+1+t] += st3
			}
		}
		h = h[:n]
		for ; c < c1; c++ {
			acc := parts[c*slots : (c+1)*slots]
			weigh(h, c)
			for t := 0; t < d; t++ {
				// The same sum as in a group of four (one lane each), so
				// that the split of the points over goroutines, which
				// decides the groups, does not change the bits.
				z := zs[t*m+c]
				st, _, _, _ := asm.WSqDot4(xs[t*n:(t+1)*n], h, h, h, h, z, z, z, z)
				acc[1+t] += st
			}
		}
	})
	for c := 0; c < m; c++ {
		for p, v := range parts[c*slots : (c+1)*slots] {
			grad[p] += v
		}
	}
}

// scaledInputGradT sets gz to the gradient with respect to the inducing
// inputs z of Σ wx∘K_mn + Σ wz∘K_mm (see InputGradient) for a stationary
// kernel with ψ values px[c·n+i] = ψ(x_i, z_c) and pz[a·m+b] = ψ(z_a, z_b)
// (px = kx and pz = kz for RBF): with H = wx∘px,
//
//	∂F/∂z_ct = Σ_i H_ci (x_it − z_ct)/ℓ_t² + Σ_b (W_cb + W_bc) ψ_cb (z_bt − z_ct)/ℓ_t².
//
// The sums Σ_i H_ci x_it are the level-3 product H·X, taken by groups of
// zGroup inducing points and blocks of zBlock rows (Hᵀ of a block formed,
// then multiplied with its rows of X) and added block by block in order:
// each group's result is the same whichever goroutine computes it. The
// K_mm part is differenced directly: its weights, of an ill-conditioned
// K_mm, are large and of both signs.
func scaledInputGradT(gz, wx, px, wz, pz []float64, x, z *Vectors, invLS []float64) {
	n, m, d := x.n, z.n, len(invLS)
	groups := (m + zGroup - 1) / zGroup
	par.For(groups, 1, func(g0, g1 int) {
		ht := make([]float64, zBlock*zGroup)
		prod := make([]float64, zGroup*d)
		var hs [zGroup]float64
		for grp := g0; grp < g1; grp++ {
			c0, c1 := grp*zGroup, min(m, (grp+1)*zGroup)
			gc := c1 - c0
			clear(gz[c0*d : c1*d])
			clear(hs[:])
			for i0 := 0; i0 < n; i0 += zBlock {
				bl := min(zBlock, n-i0)
				for c := c0; c < c1; c++ {
					wr, kr := wx[c*n+i0:c*n+i0+bl], px[c*n+i0:c*n+i0+bl]
					kr = kr[:len(wr)]
					q := c - c0
					var s float64
					for i, w := range wr {
						h := w * kr[i]
						ht[i*gc+q] = h
						s += h
					}
					hs[q] += s
				}
				linalg.GemmTN(gc, d, bl, ht, gc, x.data[i0*d:], d, prod, d)
				for q, v := range prod[:gc*d] {
					gz[c0*d+q] += v
				}
			}
			for c := c0; c < c1; c++ {
				g := gz[c*d : (c+1)*d]
				zc := z.Row(c)
				for t := 0; t < d; t++ {
					g[t] -= hs[c-c0] * zc[t]
				}
				for b := 0; b < m; b++ {
					w := (wz[c*m+b] + wz[b*m+c]) * pz[c*m+b]
					zb := z.Row(b)
					for t := 0; t < d; t++ {
						g[t] += w * (zb[t] - zc[t])
					}
				}
				for t := 0; t < d; t++ {
					g[t] *= invLS[t] * invLS[t]
				}
			}
		}
	})
}

// zGroup and zBlock are scaledInputGradT's groups of inducing points and
// blocks of rows: a block's Hᵀ is zBlock·zGroup values (128 KiB).
const (
	zGroup = 16
	zBlock = 1024
)

// seqCols returns 0, 1, …, m−1.
func seqCols(m int) []int {
	s := make([]int, m)
	for i := range s {
		s[i] = i
	}
	return s
}

// scaledGradDistT is scaledGradT for a kernel whose ψ is not its value:
// it adds to grad[0] Σ w∘kv, to grad[1+t] Σ_c Σ_i w_ci·ψ_ci·(x̃_it − z̃_ct)²
// and, with extra, to grad[1+d] the sums psiFn returns, where
// psiFn(psi, s, kv, w) sets psi[i] = ψ at the squared scaled distances
// s[i] (at most rbfTile of one column, with that column's values kv and
// weights w) and returns the weighted sum of the derivative for the
// kernel's extra hyperparameter (0 for none).
//
// The squared distances are formed inside, rbfTile rows of four inducing
// points at a time (asm.SqAcc4, the operations of scaledCrossT), and ψ
// from them while they are in the L1 cache; no n×m block is allocated.
// The sums are then taken as scaledGradT's (asm.WSqDot4). The inducing
// points are split over the cores; every column's sums are added in the
// same order whatever the split, so the bits do not depend on it.
func scaledGradDistT(grad, w, kv []float64, xv, yv *Vectors, cols []int, invLS []float64, extra bool,
	psiFn func(psi, s, kv, w []float64) float64) {
	n, m, d := xv.n, len(cols), len(invLS)
	xs, _ := scaledT(xv, nil, invLS)
	zs, _ := scaledT(yv, cols, invLS)
	slots := 2 + d // log V, the lengthscales, the extra parameter
	parts := make([]float64, m*slots)
	// psiCol sets h[i0:i1] = ψ of column c from the distances r and adds
	// the column's extra sum.
	psiCol := func(h, r []float64, c, i0, i1 int) {
		parts[c*slots+1+d] += psiFn(h[i0:i1], r, kv[c*n+i0:c*n+i1], w[c*n+i0:c*n+i1])
	}
	// weigh sets h = w∘h over column c and returns Σ w∘kv.
	weigh := func(h []float64, c int) float64 {
		wr, kr := w[c*n:(c+1)*n], kv[c*n:(c+1)*n]
		var s float64
		for i := range h {
			h[i] *= wr[i]
			s += wr[i] * kr[i]
		}
		return s
	}
	par.For(m, max(1, par.MinRows*4/max(1, n)), func(c0, c1 int) {
		h := make([]float64, 4*n)
		var buf [4][rbfTile]float64
		c := c0
		for ; c+4 <= c1; c += 4 {
			h0, h1, h2, h3 := h[:n], h[n:2*n], h[2*n:3*n], h[3*n:4*n]
			for i0 := 0; i0 < n; i0 += rbfTile {
				i1 := min(n, i0+rbfTile)
				r0, r1, r2, r3 := buf[0][:i1-i0], buf[1][:i1-i0], buf[2][:i1-i0], buf[3][:i1-i0]
				clear(r0)
				clear(r1)
				clear(r2)
				clear(r3)
				for t := 0; t < d; t++ {
					asm.SqAcc4(xs[t*n+i0:t*n+i1], zs[t*m+c], zs[t*m+c+1], zs[t*m+c+2], zs[t*m+c+3], r0, r1, r2, r3)
				}
				psiCol(h0, r0, c, i0, i1)
				psiCol(h1, r1, c+1, i0, i1)
				psiCol(h2, r2, c+2, i0, i1)
				psiCol(h3, r3, c+3, i0, i1)
			}
			parts[c*slots] += weigh(h0, c)
			parts[(c+1)*slots] += weigh(h1, c+1)
			parts[(c+2)*slots] += weigh(h2, c+2)
			parts[(c+3)*slots] += weigh(h3, c+3)
			for t := 0; t < d; t++ {
				z0, z1, z2, z3 := zs[t*m+c], zs[t*m+c+1], zs[t*m+c+2], zs[t*m+c+3]
				st0, st1, st2, st3 := asm.WSqDot4(xs[t*n:(t+1)*n], h0, h1, h2, h3, z0, z1, z2, z3)
				parts[c*slots+1+t] += st0
				parts[(c+1)*slots+1+t] += st1
				parts[(c+2)*slots+1+t] += st2
				parts[(c+3)*slots+1+t] += st3
			}
		}
		h = h[:n]
		for ; c < c1; c++ {
			for i0 := 0; i0 < n; i0 += rbfTile {
				i1 := min(n, i0+rbfTile)
				r := buf[0][:i1-i0]
				clear(r)
				// The operations of asm.SqAcc4 in one lane, so that the
				// split of the points over goroutines, which decides the
				// groups, does not change the bits.
				for t := 0; t < d; t++ {
					z := zs[t*m+c]
					xt := xs[t*n+i0 : t*n+i1]
					xt = xt[:len(r)]
					for i, xv := range xt {
						diff := xv - z
						r[i] += diff * diff
					}
				}
				psiCol(h, r, c, i0, i1)
			}
			parts[c*slots] += weigh(h, c)
			for t := 0; t < d; t++ {
				z := zs[t*m+c]
				st, _, _, _ := asm.WSqDot4(xs[t*n:(t+1)*n], h, h, h, h, z, z, z, z)
				parts[c*slots+1+t] += st
			}
		}
	})
	np := 1 + d
	if extra {
		np++
	}
	for c := 0; c < m; c++ {
		for p, v := range parts[c*slots : c*slots+np] {
			grad[p] += v
		}
	}
}

// psiT returns the n×m block (transposed, as CrossT) of ψ between x and
// y_cols, psi applied to tiles of the squared scaled distances as
// scaledCrossT's profile.
func psiT(xv, yv *Vectors, cols []int, invLS []float64, psi func(dst, r2 []float64)) []float64 {
	p := make([]float64, xv.n*len(cols))
	scaledCrossT(p, xv, yv, cols, invLS, psi)
	return p
}

// checkPositive panics unless every value is positive and finite, for
// kernel name.
func checkPositive(name string, values ...[]float64) {
	for _, vs := range values {
		for _, v := range vs {
			if !(v > 0) || math.IsInf(v, 0) {
				panic("sgp: " + name + " hyperparameters must be positive and finite, got " + strconv.FormatFloat(v, 'g', -1, 64))
			}
		}
	}
}

// scaledDist2 returns Σ_t ((a_t − b_t)·invLS_t)². Dividing before
// squaring keeps κ(x, x) = V even for lengthscales whose square
// underflows.
func scaledDist2(a, b, invLS []float64) float64 {
	var s float64
	for t, w := range invLS {
		diff := (a[t] - b[t]) * w
		s += diff * diff
	}
	return s
}

// stationaryColumn sets dst[i−lo] = φ(s_i) for the squared scaled
// distances s_i between the rows x_i, i in [lo, hi), and z, applying
// profile to rbfTile distances at a time.
func stationaryColumn(dst []float64, x *Vectors, lo, hi int, z, invLS []float64, profile func(dst, r2 []float64)) {
	var buf [rbfTile]float64
	for i0 := lo; i0 < hi; i0 += rbfTile {
		i1 := min(hi, i0+rbfTile)
		r2 := buf[:i1-i0]
		for i := range r2 {
			r2[i] = scaledDist2(x.Row(i0+i), z, invLS)
		}
		profile(dst[i0-lo:i1-lo], r2)
	}
}

// fill sets every dst[i] = v.
func fill(dst []float64, v float64) {
	for i := range dst {
		dst[i] = v
	}
}

// sum returns Σ v_i.
func sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

// plural returns "1 name" or "n names".
func plural(n int, name string) string {
	if n == 1 {
		return "1 " + name
	}
	return strconv.Itoa(n) + " " + name + "s"
}

// lengthscaledNames returns "variance", "lengthscale[0]", …,
// "lengthscale[d−1]".
func lengthscaledNames(d int) []string {
	names := make([]string, 1+d)
	names[0] = "variance"
	for t := range d {
		names[1+t] = "lengthscale[" + strconv.Itoa(t) + "]"
	}
	return names
}

// indexedNames returns "name[0]", …, "name[d−1]".
func indexedNames(name string, d int) []string {
	names := make([]string, d)
	for t := range names {
		names[t] = name + "[" + strconv.Itoa(t) + "]"
	}
	return names
}

// getParams copies theta into dst (a new slice for nil) and returns it,
// as Kernel.Params. It panics if dst has the wrong length.
func getParams(dst, theta []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(theta))
	}
	if len(dst) != len(theta) {
		panic(errParamLen)
	}
	copy(dst, theta)
	return dst
}

// acceptsVectors returns nil if x is a *Vectors of dimension d, and
// otherwise an error saying what the kernel name needs.
func acceptsVectors(name string, x Inputs, d int) error {
	v, ok := x.(*Vectors)
	if !ok {
		return fmt.Errorf("sgp: the %s kernel needs vector inputs (*kernel.Vectors), got %T", name, x)
	}
	if v.d != d {
		return fmt.Errorf("sgp: the %s kernel is of dimension %d but the inputs have %d dimensions", name, d, v.d)
	}
	return nil
}
