package kernel

import (
	"fmt"
	"math"

	"github.com/cholqr/sgp/sgp/internal/asm"

	"github.com/cholqr/sgp/sgp/internal/stats"
)

// Matern is the Matérn kernel of smoothness ν = 1/2, 3/2 or 5/2 with
// automatic relevance determination (one lengthscale per input
// dimension): with r = √(Σ_t (x_t − x′_t)²/ℓ_t²) and a = √(2ν)·r,
//
//	ν = 1/2:  κ = V · e^{−a}
//	ν = 3/2:  κ = V · (1 + a) · e^{−a}
//	ν = 5/2:  κ = V · (1 + a + a²/3) · e^{−a}
//
// (Rasmussen & Williams 2006, eq. 4.17; GPflow's Matern12/32/52,
// scikit-learn's Matern(nu), GPyTorch's MaternKernel(nu)). Its sample
// paths are ⌈ν⌉ − 1 times differentiable: rougher than RBF's, which is the
// limit ν → ∞.
//
// Its hyperparameters, in θ order, are log V, log ℓ₁, …, log ℓ_d, as RBF's.
// It accepts *Vectors of dimension d. Its block (CrossT) shares RBF's
// squared scaled distances and vectorised exponential; its gradients with
// respect to θ and to the inputs follow from ψ = −2·∂κ/∂r², as RBF's:
//
//	ν = 1/2:  ψ = κ/a         ν = 3/2:  ψ = 3V·e^{−a}      ν = 5/2:  ψ = (5/3)·V·(1 + a)·e^{−a}
//
// The Matérn-1/2 kernel is not differentiable where two inputs coincide
// (r = 0, a cusp): there its InputGradT uses the subgradient 0 (ψ = 0), as
// a Clarke subgradient of the cusp, so that continuous SGPR and the hybrid
// selector run with it; an inducing input that sits on a training input
// is moved by the other inputs' pull alone. Its hyperparameter
// derivatives are continuous (ψ·(x_t − x′_t)²/ℓ_t² ≤ κ·a → 0).
type Matern struct {
	nu       int       // 2ν: 1, 3 or 5
	theta    []float64 // (log V, log ℓ₁, …): the state; the rest derives from it
	variance float64   // V
	ls       []float64 // ℓ_t
	invLS    []float64 // 1/ℓ_t
}

var (
	_ AuxInputGradient = (*Matern)(nil)
	_ Lengthscaled     = (*Matern)(nil)
)

// NewMatern returns a Matérn kernel of smoothness nu (0.5, 1.5 or 2.5)
// with signal variance V and lengthscales ℓ. It panics for another nu or
// a value that is not positive and finite.
func NewMatern(nu, variance float64, lengthscales []float64) *Matern {
	var twoNu int
	switch nu {
	case 0.5, 1.5, 2.5:
		twoNu = int(2 * nu)
	default:
		panic(fmt.Sprintf("sgp: Matérn smoothness ν must be 0.5, 1.5 or 2.5, got %v", nu))
	}
	if len(lengthscales) == 0 {
		panic("sgp: Matérn kernel needs at least one lengthscale")
	}
	checkPositive("Matérn", []float64{variance}, lengthscales)
	d := len(lengthscales)
	k := &Matern{nu: twoNu, theta: make([]float64, 1+d), ls: make([]float64, d), invLS: make([]float64, d)}
	theta := make([]float64, 1+d)
	theta[0] = math.Log(variance)
	for t, l := range lengthscales {
		theta[1+t] = math.Log(l)
	}
	k.SetParams(theta)
	return k
}

// NewMaternFromData returns a Matérn kernel of smoothness nu started as
// NewRBFFromData starts RBF: variance var(y) and each lengthscale half
// the inputs' range (or central spread, for outlying inputs).
func NewMaternFromData(nu float64, x *Vectors, y []float64) *Matern {
	return NewMatern(nu, stats.TargetScale(y), lengthscalesFromData(x))
}

// Nu returns the smoothness ν.
func (k *Matern) Nu() float64 { return float64(k.nu) / 2 }

// Dim returns the input dimension d.
func (k *Matern) Dim() int { return len(k.ls) }

// Variance returns the signal variance V.
func (k *Matern) Variance() float64 { return k.variance }

// Lengthscales returns a copy of ℓ.
func (k *Matern) Lengthscales() []float64 { return append([]float64(nil), k.ls...) }

// specName returns matern12, matern32 or matern52.
func (k *Matern) specName() string { return fmt.Sprintf("matern%d2", k.nu) }

// String describes the kernel in one line,
// matern52(variance V, lengthscales [ℓ₁ … ℓ_d]).
func (k *Matern) String() string {
	return callText(k.specName(), argText("variance", k.variance), vecText("lengthscales", k.ls))
}

// HTML returns the hyperparameters as a table, by name in θ order.
func (k *Matern) HTML() string { return hyperHTML(k) }

// kind describes the kernel for Name.
func (k *Matern) kind() string {
	return fmt.Sprintf("Matérn-%d/2 ARD, %s", k.nu, plural(len(k.ls), "lengthscale"))
}

// NumParams returns 1 + d.
func (k *Matern) NumParams() int { return 1 + len(k.ls) }

// ParamNames returns "variance", "lengthscale[0]", ….
func (k *Matern) ParamNames() []string { return lengthscaledNames(len(k.ls)) }

// Params returns (log V, log ℓ₁, …, log ℓ_d) in dst.
func (k *Matern) Params(dst []float64) []float64 { return getParams(dst, k.theta) }

// SetParams sets V = exp θ₀ and ℓ_t = exp θ_{1+t}.
func (k *Matern) SetParams(theta []float64) {
	if len(theta) != k.NumParams() {
		panic(errParamLen)
	}
	copy(k.theta, theta)
	k.variance = math.Exp(theta[0])
	for t := range k.ls {
		k.ls[t] = math.Exp(theta[1+t])
		k.invLS[t] = 1 / k.ls[t]
	}
}

// Accepts reports whether x is a *Vectors of dimension d.
func (k *Matern) Accepts(x Inputs) error { return acceptsVectors("Matérn", x, len(k.ls)) }

// profile sets dst[i] = κ at the squared scaled distances r2[i]: a =
// √(2ν·r²) and the polynomial times V·e^{−a}, four at a time
// (asm.MaternRow).
func (k *Matern) profile(dst, r2 []float64) {
	c1, c2 := k.poly()
	asm.MaternRow(dst, r2, k.variance, float64(k.nu), c1, c2)
}

// poly returns the coefficients c1, c2 of the polynomial
// (1 + c1·a) + (c2·a)·a of the value (asm.MaternRow).
func (k *Matern) poly() (c1, c2 float64) {
	switch k.nu {
	case 3:
		return 1, 0
	case 5:
		return 1, 1.0 / 3
	}
	return 0, 0
}

// psiProfile sets dst[i] = ψ at the squared scaled distances r2[i], from
// a = √(2ν·r²) as the values are (asm.MaternRow): 3V·e^{−a} for ν = 3/2,
// (5/3)·V·(1 + a)·e^{−a} for ν = 5/2, and V·e^{−a}/a for ν = 1/2, 0 at
// a = 0 (the subgradient at the cusp).
func (k *Matern) psiProfile(dst, r2 []float64) {
	switch k.nu {
	case 3:
		asm.MaternRow(dst, r2, 3*k.variance, 3, 0, 0)
	case 5:
		asm.MaternRow(dst, r2, (5.0/3)*k.variance, 5, 1, 0)
	default:
		asm.MaternRow(dst, r2, k.variance, 1, 0, 0)
		dst = dst[:len(r2)]
		for i, s := range r2 {
			if s > 0 {
				dst[i] /= math.Sqrt(s)
			} else {
				dst[i] = 0
			}
		}
	}
}

// psi returns ψ at the squared scaled distance s where κ = kv.
func (k *Matern) psi(s, kv float64) float64 {
	a := math.Sqrt(float64(k.nu) * s)
	switch k.nu {
	case 1:
		if a == 0 {
			return 0 // the subgradient at the cusp
		}
		return kv / a
	case 3:
		return 3 * kv / (1 + a)
	}
	return (5.0 / 3) * kv * (1 + a) / (1 + a + a*a*(1.0/3))
}

// value returns κ at the squared scaled distance s.
func (k *Matern) value(s float64) float64 {
	a := math.Sqrt(float64(k.nu) * s)
	v := k.variance * math.Exp(-a)
	switch k.nu {
	case 3:
		v *= 1 + a
	case 5:
		v *= 1 + a + a*a*(1.0/3)
	}
	return v
}

// Column sets dst[i−lo] = κ(x_i, y_j), in tiles of rows.
func (k *Matern) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	stationaryColumn(dst, x.(*Vectors), lo, hi, y.(*Vectors).Row(j), k.invLS, k.profile)
}

// Diag sets dst[i−lo] = V.
func (k *Matern) Diag(dst []float64, x Inputs, lo, hi int) { fill(dst[:hi-lo], k.variance) }

// AddGrad adds the weighted kernel derivatives to grad:
//
//	∂κ/∂log V = κ,   ∂κ/∂log ℓ_t = ψ · (x_t − x′_t)²/ℓ_t².
func (k *Matern) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	xv, yv := x.(*Vectors), y.(*Vectors)
	for i := lo; i < hi; i++ {
		xi := xv.Row(i)
		wi := w[(i-lo)*len(cols) : (i-lo+1)*len(cols)]
		for c, j := range cols {
			if wi[c] == 0 {
				continue
			}
			z := yv.Row(j)
			s := scaledDist2(xi, z, k.invLS)
			kv := k.value(s)
			grad[0] += wi[c] * kv
			wp := wi[c] * k.psi(s, kv)
			for t, il := range k.invLS {
				diff := (xi[t] - z[t]) * il
				grad[1+t] += wp * diff * diff
			}
		}
	}
}

// AddDiagGrad adds Σ w_i · V to the derivative with respect to log V.
func (k *Matern) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	grad[0] += sum(w[:hi-lo]) * k.variance
}

// CrossT evaluates the block from the squared scaled distances, with
// e^{−a} four values at a time where the CPU has AVX2.
func (k *Matern) CrossT(dst []float64, x, y Inputs, cols []int) {
	scaledCrossT(dst, x.(*Vectors), y.(*Vectors), cols, k.invLS, k.profile)
}

// AddGradBlockT sums the derivatives as RBF's, with ψ formed from the
// squared scaled distances tile by tile, in parallel: one more pass of
// distances than RBF's, O(n·m·d), and no n×m block. ψ is the profile's
// derivative for ν = 3/2 and 5/2, and κ/a from the values kv for ν = 1/2
// (0 at a = 0), which needs no exponential.
func (k *Matern) AddGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	psiFn := func(psi, s, _, _ []float64) float64 {
		k.psiProfile(psi, s)
		return 0
	}
	if k.nu == 1 {
		psiFn = func(psi, s, kv, _ []float64) float64 {
			psi, kv = psi[:len(s)], kv[:len(s)]
			for i, si := range s {
				if si > 0 {
					psi[i] = kv[i] / math.Sqrt(si)
				} else {
					psi[i] = 0
				}
			}
			return 0
		}
	}
	scaledGradDistT(grad, w, kv, x.(*Vectors), y.(*Vectors), cols, k.invLS, false, psiFn)
}

// NumAux returns 1: ψ (see AuxBlockEvaluator).
func (k *Matern) NumAux() int { return 1 }

// CrossAuxT sets dst as CrossT does and aux to ψ at the same entries
// (see Matern), from the same e^{−a} in the same pass, for ν = 1/2 0
// where a = 0.
func (k *Matern) CrossAuxT(dst, aux []float64, x, y Inputs, cols []int) {
	xv := x.(*Vectors)
	n := xv.n
	c1, c2 := k.poly()
	pv, p1 := k.variance, 0.0 // ν = 1/2, then divided by a
	switch k.nu {
	case 3:
		pv = 3 * k.variance
	case 5:
		pv, p1 = (5.0/3)*k.variance, 1
	}
	scaledDistTiles(xv, y.(*Vectors), cols, k.invLS, func(c, i0, i1 int, r2 []float64) {
		asm.MaternPsiRow(dst[c*n+i0:c*n+i1], aux[c*n+i0:c*n+i1], r2, k.variance, float64(k.nu), c1, c2, pv, p1, k.nu == 1)
	})
}

// AddGradAuxT sums the derivatives from the values kv and ψ in aux (as
// CrossAuxT set them) as RBF's AddGradBlockT sums RBF's from its values,
// ψ in place of κ for the lengthscales: O(n·m·d), no exponential.
func (k *Matern) AddGradAuxT(grad, w, kv, aux []float64, x, y Inputs, cols []int) {
	scaledGradT(grad, w, kv, aux[:len(kv)], nil, 0, x.(*Vectors), y.(*Vectors), cols, k.invLS)
}

// InputGradT sets gz to the gradient with respect to the inducing inputs z
// of Σ wx∘K_mn + Σ wz∘K_mm (see InputGradient), as RBF's with ψ in place
// of κ; for ν = 1/2, ψ = 0 where an input coincides
// with an inducing input (see Matern).
func (k *Matern) InputGradT(gz, wx, kx, wz, kz []float64, x, z *Vectors) {
	cols := seqCols(z.n)
	px := psiT(x, z, cols, k.invLS, k.psiProfile)
	pz := psiT(z, z, cols, k.invLS, k.psiProfile)
	scaledInputGradT(gz, wx, px, wz, pz, x, z, k.invLS)
}

// InputGradAuxT is InputGradT with the ψ of K_mn read from aux, as
// CrossAuxT set it, instead of formed again (that of K_mm is).
func (k *Matern) InputGradAuxT(gz, wx, kx, aux, wz, kz []float64, x, z *Vectors) {
	pz := psiT(z, z, seqCols(z.n), k.invLS, k.psiProfile)
	scaledInputGradT(gz, wx, aux[:x.n*z.n], wz, pz, x, z, k.invLS)
}

// RQ is the rational quadratic kernel with automatic relevance
// determination, a scale mixture of RBF kernels (Rasmussen & Williams
// 2006, eq. 4.19; scikit-learn's RationalQuadratic, GPflow's
// RationalQuadratic, GPyTorch's RQKernel), here with one lengthscale per
// dimension:
//
//	κ(x, x′) = V · (1 + r²/(2α))^{−α},   r² = Σ_t (x_t − x′_t)²/ℓ_t²,
//
// which tends to RBF as α → ∞. Its hyperparameters, in θ order, are
// log V, log ℓ₁, …, log ℓ_d, log α. It accepts *Vectors of dimension d.
// Its block shares RBF's squared scaled distances, with
// κ = V·exp(−α·log(1 + r²/(2α))) by a vectorised logarithm and
// exponential in one pass; ψ = κ/(1 + r²/(2α)).
type RQ struct {
	theta    []float64 // (log V, log ℓ₁, …, log α)
	variance float64
	alpha    float64
	ls       []float64
	invLS    []float64
}

var (
	_ AuxInputGradient = (*RQ)(nil)
	_ Lengthscaled     = (*RQ)(nil)
)

// NewRQ returns a rational quadratic kernel with signal variance V,
// lengthscales ℓ and shape α. It panics if a value is not positive and
// finite.
func NewRQ(variance float64, lengthscales []float64, alpha float64) *RQ {
	if len(lengthscales) == 0 {
		panic("sgp: RQ kernel needs at least one lengthscale")
	}
	checkPositive("RQ", []float64{variance, alpha}, lengthscales)
	d := len(lengthscales)
	k := &RQ{theta: make([]float64, 2+d), ls: make([]float64, d), invLS: make([]float64, d)}
	theta := make([]float64, 2+d)
	theta[0] = math.Log(variance)
	for t, l := range lengthscales {
		theta[1+t] = math.Log(l)
	}
	theta[1+d] = math.Log(alpha)
	k.SetParams(theta)
	return k
}

// DefaultRQAlpha is the shape α NewRQFromData starts from (scikit-learn's
// and GPyTorch's default).
const DefaultRQAlpha = 1.0

// NewRQFromData returns an RQ kernel started as NewRBFFromData starts RBF,
// with α = DefaultRQAlpha.
func NewRQFromData(x *Vectors, y []float64) *RQ {
	return NewRQ(stats.TargetScale(y), lengthscalesFromData(x), DefaultRQAlpha)
}

// Dim returns the input dimension d.
func (k *RQ) Dim() int { return len(k.ls) }

// Variance returns the signal variance V.
func (k *RQ) Variance() float64 { return k.variance }

// Lengthscales returns a copy of ℓ.
func (k *RQ) Lengthscales() []float64 { return append([]float64(nil), k.ls...) }

// Alpha returns the shape α.
func (k *RQ) Alpha() float64 { return k.alpha }

// String describes the kernel in one line,
// rq(variance V, lengthscales [ℓ₁ … ℓ_d], alpha α).
func (k *RQ) String() string {
	return callText("rq", argText("variance", k.variance), vecText("lengthscales", k.ls), argText("alpha", k.alpha))
}

// HTML returns the hyperparameters as a table, by name in θ order.
func (k *RQ) HTML() string { return hyperHTML(k) }

// kind describes the kernel for Name.
func (k *RQ) kind() string {
	return "rational quadratic ARD, " + plural(len(k.ls), "lengthscale")
}

// NumParams returns 2 + d.
func (k *RQ) NumParams() int { return 2 + len(k.ls) }

// ParamNames returns "variance", "lengthscale[0]", …, "alpha".
func (k *RQ) ParamNames() []string { return append(lengthscaledNames(len(k.ls)), "alpha") }

// Params returns (log V, log ℓ₁, …, log ℓ_d, log α) in dst.
func (k *RQ) Params(dst []float64) []float64 { return getParams(dst, k.theta) }

// SetParams sets V = exp θ₀, ℓ_t = exp θ_{1+t} and α = exp θ_{1+d}.
func (k *RQ) SetParams(theta []float64) {
	if len(theta) != k.NumParams() {
		panic(errParamLen)
	}
	copy(k.theta, theta)
	k.variance = math.Exp(theta[0])
	for t := range k.ls {
		k.ls[t] = math.Exp(theta[1+t])
		k.invLS[t] = 1 / k.ls[t]
	}
	k.alpha = math.Exp(theta[1+len(k.ls)])
}

// Accepts reports whether x is a *Vectors of dimension d.
func (k *RQ) Accepts(x Inputs) error { return acceptsVectors("RQ", x, len(k.ls)) }

// profile sets dst[i] = V·(1 + r2[i]/(2α))^{−α} for the squared scaled
// distances r2, the logarithm and the exponential in one pass
// (asm.RQRow).
func (k *RQ) profile(dst, r2 []float64) {
	asm.RQRow(dst, r2, k.variance, 0.5/k.alpha, k.alpha)
}

// value returns κ at the squared scaled distance s.
func (k *RQ) value(s float64) float64 {
	return k.variance * math.Exp(-k.alpha*math.Log1p(s*(0.5/k.alpha)))
}

// Column sets dst[i−lo] = κ(x_i, y_j), in tiles of rows.
func (k *RQ) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	stationaryColumn(dst, x.(*Vectors), lo, hi, y.(*Vectors).Row(j), k.invLS, k.profile)
}

// Diag sets dst[i−lo] = V.
func (k *RQ) Diag(dst []float64, x Inputs, lo, hi int) { fill(dst[:hi-lo], k.variance) }

// psiProfile sets dst[i] = ψ = V·(1 + u)^{−α−1}, u = r2[i]/(2α), for
// the squared scaled distances r2, as the values are (asm.RQRow).
func (k *RQ) psiProfile(dst, r2 []float64) {
	asm.RQRow(dst, r2, k.variance, 0.5/k.alpha, k.alpha+1)
}

// grads returns ψ = κ/(1 + u) and ∂κ/∂log α = κ·α·(u/(1 + u) − log(1 + u))
// at the squared scaled distance s where κ = kv, u = s/(2α).
func (k *RQ) grads(s, kv float64) (psi, dAlpha float64) {
	u := s * (0.5 / k.alpha)
	return kv / (1 + u), kv * k.alpha * (u/(1+u) - math.Log1p(u))
}

// AddGrad adds the weighted kernel derivatives to grad:
//
//	∂κ/∂log V = κ,   ∂κ/∂log ℓ_t = ψ·(x_t − x′_t)²/ℓ_t²,
//	∂κ/∂log α = κ·α·(u/(1 + u) − log(1 + u)),   u = r²/(2α).
func (k *RQ) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	xv, yv := x.(*Vectors), y.(*Vectors)
	d := len(k.ls)
	for i := lo; i < hi; i++ {
		xi := xv.Row(i)
		wi := w[(i-lo)*len(cols) : (i-lo+1)*len(cols)]
		for c, j := range cols {
			if wi[c] == 0 {
				continue
			}
			z := yv.Row(j)
			s := scaledDist2(xi, z, k.invLS)
			kv := k.value(s)
			psi, da := k.grads(s, kv)
			grad[0] += wi[c] * kv
			grad[1+d] += wi[c] * da
			wp := wi[c] * psi
			for t, il := range k.invLS {
				diff := (xi[t] - z[t]) * il
				grad[1+t] += wp * diff * diff
			}
		}
	}
}

// AddDiagGrad adds Σ w_i · V to the derivative with respect to log V.
func (k *RQ) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	grad[0] += sum(w[:hi-lo]) * k.variance
}

// CrossT evaluates the block from the squared scaled distances, with the
// logarithm and the exponential fused, four values at a time where the
// CPU has AVX2 (asm.RQRow).
func (k *RQ) CrossT(dst []float64, x, y Inputs, cols []int) {
	scaledCrossT(dst, x.(*Vectors), y.(*Vectors), cols, k.invLS, k.profile)
}

// AddGradBlockT forms ψ and ∂κ/∂log α from the squared scaled distances
// tile by tile and sums the derivatives as RBF's: the logarithm once per
// value serves ψ and ∂κ/∂log α = κ·α·(u/(1 + u) − log(1 + u)) =
// α·(κ − ψ − κ·log(1 + u)), since κ·u/(1 + u) = κ − κ/(1 + u) = κ − ψ,
// without a division.
func (k *RQ) AddGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	a := k.alpha
	toU, fromE := 0.5/a, 1/(2*(a+1)) // u = s·toU; log(1 + u) = e·fromE
	scaledGradDistT(grad, w, kv, x.(*Vectors), y.(*Vectors), cols, k.invLS, true,
		func(psi, s, kv, w []float64) float64 {
			var buf [rbfTile]float64
			e := buf[:len(s)]
			asm.Log1pRow(e, s, toU, 2*(a+1)) // 2(α + 1)·log(1 + u)
			asm.ExpRow(psi, e, k.variance)
			var da float64
			kv, w, psi = kv[:len(s)], w[:len(s)], psi[:len(s)]
			for i, ei := range e {
				da += w[i] * (kv[i] - psi[i] - kv[i]*(ei*fromE))
			}
			return a * da
		})
}

// NumAux returns 2: ψ and ∂κ/∂log α divided by α (see
// AuxBlockEvaluator).
func (k *RQ) NumAux() int { return 2 }

// CrossAuxT sets dst as CrossT does and, from the same logarithm
// L = log(1 + u), u = r²/(2α), in the same pass, aux[:n·m] to
// ψ = κ/(1 + u) and aux[n·m:2·n·m] to (κ − ψ) − κ·L = κ·(u/(1 + u) − L),
// which is ∂κ/∂log α divided by α.
func (k *RQ) CrossAuxT(dst, aux []float64, x, y Inputs, cols []int) {
	xv := x.(*Vectors)
	n, nm := xv.n, xv.n*len(cols)
	psi, dk := aux[:nm], aux[nm:2*nm]
	scaledDistTiles(xv, y.(*Vectors), cols, k.invLS, func(c, i0, i1 int, r2 []float64) {
		asm.RQGradRow(dst[c*n+i0:c*n+i1], psi[c*n+i0:c*n+i1], dk[c*n+i0:c*n+i1], r2, k.variance, 0.5/k.alpha, k.alpha)
	})
}

// AddGradAuxT sums the derivatives from the values kv and the ψ and
// ∂κ/∂log α factors in aux (as CrossAuxT set them) as RBF's
// AddGradBlockT sums RBF's from its values: O(n·m·d), no logarithm or
// exponential.
func (k *RQ) AddGradAuxT(grad, w, kv, aux []float64, x, y Inputs, cols []int) {
	nm := len(kv)
	scaledGradT(grad, w, kv, aux[:nm], aux[nm:2*nm], k.alpha, x.(*Vectors), y.(*Vectors), cols, k.invLS)
}

// InputGradT sets gz to the gradient with respect to the inducing inputs z
// of Σ wx∘K_mn + Σ wz∘K_mm (see InputGradient), as RBF's with ψ in place
// of κ.
func (k *RQ) InputGradT(gz, wx, kx, wz, kz []float64, x, z *Vectors) {
	cols := seqCols(z.n)
	px := psiT(x, z, cols, k.invLS, k.psiProfile)
	pz := psiT(z, z, cols, k.invLS, k.psiProfile)
	scaledInputGradT(gz, wx, px, wz, pz, x, z, k.invLS)
}

// InputGradAuxT is InputGradT with the ψ of K_mn read from aux, as
// CrossAuxT set it, instead of formed again (that of K_mm is).
func (k *RQ) InputGradAuxT(gz, wx, kx, aux, wz, kz []float64, x, z *Vectors) {
	pz := psiT(z, z, seqCols(z.n), k.invLS, k.psiProfile)
	scaledInputGradT(gz, wx, aux[:x.n*z.n], wz, pz, x, z, k.invLS)
}

// lengthscalesFromData returns NewRBFFromData's lengthscales for x.
func lengthscalesFromData(x *Vectors) []float64 { return rbfLengthscales(inputSpread(x)) }

// rbfLengthscales returns the lengthscales of s as the RBF kernel holds
// them (exp of their log), which the Matérn and RQ kernels start from.
func rbfLengthscales(s *Spread) []float64 { return NewRBF(1, spreadLengthscales(s)).ls }
