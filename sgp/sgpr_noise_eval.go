package sgp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/linalg"
	"github.com/cholqr/sgp/sgp/kernel"
)

// contEval is what a continuous fit evaluates: the Evaluator for a
// homoscedastic noise, noiseEval with known per-point noise.
type contEval interface {
	FuncGrad(grad, theta []float64) (float64, error)
	zGrad(gz []float64)
	predictor() *Predictor
}

// noiseEval evaluates continuous SGPR with noise λ_i = s_i² + σ² at
// inducing inputs z (shared with the fit, which moves them), and a
// Model's gradient phase with known noise at z = x_I, which does not
// move (inputs of any kind; zGrad needs Vectors and an
// kernel.InputGradient kernel). With
// L_m L_mᵀ = K_mm (+ jitter), V = L_m⁻¹K_mn, A = VΛ^{-1/2} and
// L_B L_Bᵀ = B = I + AAᵀ (matrix determinant lemma and Woodbury):
//
//	log|Q + Λ| = Σ log λ_i + 2 Σ log (L_B)_jj,
//	rᵀ(Q + Λ)⁻¹r = rᵀΛ⁻¹r − ‖L_B⁻¹VΛ⁻¹r‖²,
//
// and the VFE trace term ½ Σ (K_ii − Q_ii)/λ_i, Q_ii = ‖V_:i‖².
type noiseEval struct {
	x, z       kernel.Inputs
	kern       kernel.Kernel
	s2         []float64
	c          float64 // the trace term's weight: 1 for VAR, 0 for MLE
	yorig, yc  []float64
	ybar       float64
	mean       Mean
	prior      base.MeanPrior
	exactNoise float64 // a fixed σ² as given (fixedNoise), 0 for none
	jitter     float64 // added to K_mm's diagonal
	n, m, np   int
	cols       []int

	kmn, v, a  []float64 // m×n: K_mn, L_m⁻¹K_mn, scratch
	wcopy      []float64 // m×n: the weights handed to the kernel's gradient
	qd, d2     []float64 // n: Q_ii, ‖(L_B⁻¹V)_:i‖²
	kmm, lm, b []float64 // m×m: K_mm, its factor L_m, then L_B
	wmm        []float64 // m×m: the weights of dK_mm
	diag, lam  []float64 // K_ii, λ_i
	alpha, t   []float64 // (Q + Λ)⁻¹r; L_B⁻¹VΛ⁻¹r
	noise, mu  float64
}

func newNoiseEval(x kernel.Inputs, y []float64, k kernel.Kernel, obj Objective, z kernel.Inputs, s2 []float64, mn Mean, jitter float64) *noiseEval {
	n, m := x.Len(), z.Len()
	e := &noiseEval{x: x, z: z, kern: k, s2: s2, yorig: y, mean: mn, jitter: jitter, n: n, m: m, np: k.NumParams(),
		cols: make([]int, m), kmn: make([]float64, m*n), v: make([]float64, m*n), a: make([]float64, m*n), wcopy: make([]float64, m*n),
		qd: make([]float64, n), d2: make([]float64, n),
		kmm: make([]float64, m*m), lm: make([]float64, m*m), b: make([]float64, m*m), wmm: make([]float64, m*m),
		diag: make([]float64, n), lam: make([]float64, n), alpha: make([]float64, n), t: make([]float64, m), yc: make([]float64, n)}
	if obj == VAR {
		e.c = 1
	}
	for i := range e.cols {
		e.cols[i] = i
	}
	e.ybar, e.prior = mn.startValue(y), mn.prior(y)
	for i, v := range y {
		e.yc[i] = v - e.ybar
	}
	return e
}

func (e *noiseEval) general(d []float64, rows, cols int) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: d}
}

func (e *noiseEval) lower(d []float64) blas64.Triangular {
	return blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: e.m, Stride: e.m, Data: d}
}

// factor builds the kernel blocks at θ, factorises K_mm and B, and sets
// λ and V.
func (e *noiseEval) factor(theta []float64) error {
	if err := logParamsInRange(theta[:e.np]); err != nil {
		return err
	}
	e.kern.SetParams(theta[:e.np])
	e.noise = fixedNoise(theta[e.np], e.exactNoise)
	if !(e.noise > 0) || math.IsInf(e.noise, 0) {
		return fmt.Errorf("%w, got %v", ErrNoise, e.noise)
	}
	n, m := e.n, e.m
	if bk, ok := e.kern.(kernel.BlockEvaluator); ok {
		bk.CrossT(e.kmn, e.x, e.z, e.cols)
		bk.CrossT(e.kmm, e.z, e.z, e.cols)
	} else {
		for c := 0; c < m; c++ {
			base.KernelColumn(e.kern, e.kmn[c*n:(c+1)*n], e.x, e.z, c)
			e.kern.Column(e.kmm[c*m:(c+1)*m], e.z, 0, m, e.z, c)
		}
	}
	e.kern.Diag(e.diag, e.x, 0, n)
	copy(e.lm, e.kmm)
	for j := 0; j < m; j++ {
		e.lm[j*m+j] += e.jitter
	}
	if !linalg.Potrf(blas.Lower, m, e.lm, m) {
		return ErrNotPD
	}
	copy(e.v, e.kmn)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, e.lower(e.lm), e.general(e.v, m, n))
	for i := range e.lam {
		e.lam[i] = knownNoise(e.s2, i) + e.noise
	}
	for c := 0; c < m; c++ {
		for i := 0; i < n; i++ {
			e.a[c*n+i] = e.v[c*n+i] / math.Sqrt(e.lam[i])
		}
	}
	clear(e.b)
	blas64.Syrk(blas.NoTrans, 1, e.general(e.a, m, n), 0, blas64.Symmetric{Uplo: blas.Lower, N: m, Stride: m, Data: e.b})
	for j := 0; j < m; j++ {
		e.b[j*m+j]++
	}
	if !linalg.Potrf(blas.Lower, m, e.b, m) {
		return ErrNotPD
	}
	return nil
}

// project returns L_B⁻¹VΛ⁻¹u in dst.
func (e *noiseEval) project(dst, u []float64) []float64 {
	n := e.n
	for c := range dst {
		var s float64
		row := e.v[c*n : (c+1)*n]
		for i, v := range row {
			s += v * u[i] / e.lam[i]
		}
		dst[c] = s
	}
	blas64.Trsv(blas.NoTrans, e.lower(e.b), blas64.Vector{N: e.m, Data: dst, Inc: 1})
	return dst
}

// colSquares sets dst[i] to Σ_c u[c·n+i]² over the m rows of u (m×n,
// row-major, n = len(dst)), summed over c in order, and returns it.
func colSquares(dst, u []float64, m int) []float64 {
	n := len(dst)
	clear(dst)
	for c := 0; c < m; c++ {
		for i, v := range u[c*n : (c+1)*n] {
			dst[i] += v * v
		}
	}
	return dst
}

// value returns F at the last factor, setting μ, α and t.
func (e *noiseEval) value() float64 {
	n, m := e.n, e.m
	delta := 0.0
	if e.mean.Estimated() {
		ones := make([]float64, n)
		var uu, uv float64
		for i := range ones {
			ones[i] = 1
			uu += 1 / e.lam[i]
			uv += e.yc[i] / e.lam[i]
		}
		t1 := e.project(make([]float64, m), ones)
		ty := e.project(make([]float64, m), e.yc)
		for c := range t1 {
			uu -= t1[c] * t1[c]
			uv -= t1[c] * ty[c]
		}
		delta = e.prior.Step(uv, uu, e.ybar-e.prior.Ybar, 1)
	}
	e.mu = e.ybar + delta
	r := e.alpha
	for i := range r {
		r[i] = e.yc[i] - delta
	}
	e.project(e.t, r)
	var quad, logdet, trace float64
	qd := colSquares(e.qd, e.v, m)
	for i, v := range r {
		quad += v * v / e.lam[i]
		logdet += math.Log(e.lam[i])
		trace += (e.diag[i] - qd[i]) / e.lam[i]
	}
	for c := 0; c < m; c++ {
		quad -= e.t[c] * e.t[c]
		logdet += 2 * math.Log(e.b[c*m+c])
	}
	// α = Λ⁻¹(r − Vᵀ L_B⁻ᵀ t).
	s := append([]float64(nil), e.t...)
	blas64.Trsv(blas.Trans, e.lower(e.b), blas64.Vector{N: m, Data: s, Inc: 1})
	q := e.d2 // scratch: Vᵀs, summed over c in order
	clear(q)
	for c := 0; c < m; c++ {
		sc := s[c]
		for i, v := range e.v[c*n : (c+1)*n] {
			q[i] += v * sc
		}
	}
	for i := range r {
		r[i] = (r[i] - q[i]) / e.lam[i]
	}
	return 0.5*(quad+e.prior.Penalty(e.mu)) + 0.5*logdet + 0.5*float64(n)*math.Log(2*math.Pi) + 0.5*e.c*trace
}

// FuncGrad returns F at theta (the kernel's log hyperparameters, then
// log σ²) and, if grad is not nil, stores ∂F/∂θ in it, leaving the
// weights of dK_mn (in a) and dK_mm (in wmm) for zGrad.
func (e *noiseEval) FuncGrad(grad, theta []float64) (f float64, err error) {
	defer base.RecoverTo(&err)
	if err := e.factor(theta); err != nil {
		return math.Inf(1), err
	}
	f = e.value()
	if grad == nil {
		return f, nil
	}
	clear(grad)
	gn := e.weights()
	if bk, ok := e.kern.(kernel.BlockEvaluator); ok {
		// The block gradients may overwrite their weights, which zGrad
		// reads: they get copies.
		bk.AddGradBlockT(grad[:e.np], append(e.wcopy[:0], e.a...), e.kmn, e.x, e.z, e.cols)
		bk.AddGradBlockT(grad[:e.np], append(e.wcopy[:0], e.wmm...), e.kmm, e.z, e.z, e.cols)
	} else {
		wnm := e.wcopy[:e.n*e.m]
		for c := 0; c < e.m; c++ {
			for i := 0; i < e.n; i++ {
				wnm[i*e.m+c] = e.a[c*e.n+i]
			}
		}
		base.KernelAddGrad(e.kern, grad[:e.np], wnm, e.x, e.z, e.cols)
		base.KernelAddGrad(e.kern, grad[:e.np], e.wmm, e.z, e.z, e.cols)
	}
	wd := make([]float64, e.n)
	for i := range wd {
		wd[i] = 0.5 * e.c / e.lam[i]
	}
	base.KernelAddDiagGrad(e.kern, grad[:e.np], wd, e.x)
	grad[e.np] = gn
	return f, nil
}

// weights sets the weights of dK_mn (m×n, in a) and dK_mm (wmm) in dF
// and returns ∂F/∂log σ² (docs/algorithm.md, "Known per-point noise"):
// with E = B⁻¹V, β = L_m⁻ᵀVα and P = K_mm⁻¹K_mn,
//
//	W_mn = L_m⁻ᵀ(E − cV)Λ⁻¹ − βαᵀ,
//	W_mm = −½ L_m⁻ᵀ((1 + c)I − B⁻¹ − cB) L_m⁻¹ + ½ββᵀ,
//	∂F/∂log σ² = ½σ² Σ_i ((Q + Λ)⁻¹_ii − α_i² − c(K_ii − Q_ii)/λ_i²).
func (e *noiseEval) weights() float64 {
	n, m := e.n, e.m
	lb := e.lower(e.b)
	// a ← L_B⁻¹V (D), for the diagonal of (Q + Λ)⁻¹, then E = L_B⁻ᵀD.
	copy(e.a, e.v)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, lb, e.general(e.a, m, n))
	var gn float64
	d2, q := colSquares(e.d2, e.a, m), colSquares(e.qd, e.v, m)
	for i := 0; i < n; i++ {
		li := e.lam[i]
		gn += 1/li - d2[i]/(li*li) - e.alpha[i]*e.alpha[i] - e.c*(e.diag[i]-q[i])/(li*li)
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, lb, e.general(e.a, m, n))
	beta := make([]float64, m)
	for c := 0; c < m; c++ {
		var s float64
		for i := 0; i < n; i++ {
			s += e.v[c*n+i] * e.alpha[i]
			e.a[c*n+i] = (e.a[c*n+i] - e.c*e.v[c*n+i]) / e.lam[i]
		}
		beta[c] = s
	}
	lm := e.lower(e.lm)
	blas64.Trsv(blas.Trans, lm, blas64.Vector{N: m, Data: beta, Inc: 1})
	blas64.Trsm(blas.Left, blas.Trans, 1, lm, e.general(e.a, m, n))
	for c := 0; c < m; c++ {
		for i := 0; i < n; i++ {
			e.a[c*n+i] -= beta[c] * e.alpha[i]
		}
	}
	// Y = (1 + c)I − B⁻¹ − cB, then L_m⁻ᵀ Y L_m⁻¹.
	binv := make([]float64, m*m)
	copy(binv, e.b)
	if !linalg.Potri(blas.Lower, m, binv, m) {
		panic(ErrNotPD)
	}
	bfull := make([]float64, m*m)
	for i := 0; i < m; i++ {
		for j := 0; j <= i; j++ {
			var s float64 // (L_B L_Bᵀ)_ij
			for k := 0; k <= j; k++ {
				s += e.b[i*m+k] * e.b[j*m+k]
			}
			bfull[i*m+j], bfull[j*m+i] = s, s
		}
	}
	y := e.wmm
	for i := 0; i < m; i++ {
		for j := 0; j <= i; j++ {
			v := -binv[i*m+j] - e.c*bfull[i*m+j]
			if i == j {
				v += 1 + e.c
			}
			y[i*m+j], y[j*m+i] = v, v
		}
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, lm, e.general(y, m, m))
	blas64.Trsm(blas.Right, blas.NoTrans, 1, lm, e.general(y, m, m))
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			y[i*m+j] = -0.5*y[i*m+j] + 0.5*beta[i]*beta[j]
		}
	}
	return 0.5 * e.noise * gn
}

// zGrad stores ∂F/∂Z (m×d, row-major) after a FuncGrad call with a
// gradient.
func (e *noiseEval) zGrad(gz []float64) {
	e.kern.(kernel.InputGradient).InputGradT(gz, e.a, e.kmn, e.wmm, e.kmm, e.x.(*kernel.Vectors), e.z.(*kernel.Vectors))
}

// predictor returns the Predictor of the last FuncGrad call. Its factors
// are those of the weighted problem (see Predictor): W = L_m, so that
// Gᵀ = V, and RᵀR = σ²(I + GᵀΛ⁻¹G) = σ²B, R = σL_Bᵀ, and
// a = σ²R⁻ᵀGᵀΛ⁻¹r = σ·L_B⁻¹VΛ⁻¹r, which give the DTC predictive of
// Λ = diag(s² + σ²) exactly.
func (e *noiseEval) predictor() *Predictor {
	m := e.m
	sd := math.Sqrt(e.noise)
	p := &Predictor{Kern: kernel.Clone(e.kern), NoiseV: e.noise, PriorMean: e.mu, X: e.z.Subset(e.cols), InputNames: inputNames(e.x),
		w: make([]float64, m*m), r: make([]float64, m*m), a: make([]float64, m), knownNoise: true}
	p.trainMean, p.trainVar = meanVar(e.yorig)
	for i := 0; i < m; i++ {
		for j := 0; j <= i; j++ {
			p.w[i*m+j] = e.lm[i*m+j]
			p.r[j*m+i] = sd * e.b[i*m+j]
		}
		p.a[i] = sd * e.t[i]
	}
	p.prepare()
	return p
}
