package sgp

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/linalg"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/cholqr/sgp/sgp/internal/par"

	"github.com/cholqr/sgp/sgp/kernel"
)

// ErrNotPD is returned when K[I,I] or GᵀG + σ²I is not numerically
// positive definite at the requested hyperparameters.
var ErrNotPD = errors.New("sgp: kernel matrix of the inducing points is not positive definite at these hyperparameters (duplicate inducing inputs, or a lengthscale far larger than the data's spread)")

// Evaluator computes an objective and its gradient with respect to the log
// hyperparameters for a FIXED inducing set, with dense level-3 BLAS on the
// n×m cross-covariance: O(n·m² + #θ·n·m) time, O(n·m) memory, never an n×n
// matrix. The parameter vector θ is the kernel's θ followed by log σ².
//
// With L = chol(K_mm), G = K_nm L⁻ᵀ, RᵀR = GᵀG + σ²I, S = (RᵀR)⁻¹ and
// Σ = GGᵀ + σ²I (so Σ⁻¹G = GS), the projected-process objective is
//
//	F_MLE = ½(σ⁻²(yᵀy − ‖R⁻ᵀGᵀy‖²) + (n−m)log σ² + 2Σ log R_ii) + n/2 log 2π
//	F_VAR = F_MLE + ½σ⁻²(tr K − ‖G‖²_F)
//
// for the targets y less the prior mean μ (see Mean; an estimated μ is
// the closed-form minimiser μ̂ at each θ, whose gradient contribution
// vanishes), and, with α = Σ⁻¹y, W = Σ⁻¹ − ααᵀ, Pᵀ = K_nm K_mm⁻¹ = G L⁻¹, h = Gᵀα,
// its differential is (Titsias 2009; Quiñonero-Candela & Rasmussen 2005)
//
//	dF = Σ (WPᵀ − c·Pᵀ)∘dK_nm − ½Σ (PWPᵀ − c·PPᵀ)∘dK_mm + ½c·Σ dK_ii
//	   + ½(σ² tr W − c·σ²(tr K − tr K̂))·d log σ²
//
// with c = σ⁻² for VAR and 0 for MLE, where
//
//	WPᵀ = G S L⁻¹ − α (L⁻ᵀh)ᵀ,  PWPᵀ = L⁻ᵀ(I − σ²S − hhᵀ)L⁻¹,
//	PPᵀ = L⁻ᵀGᵀGL⁻¹,  tr W = σ⁻²(n−m) + tr S − αᵀα.
type Evaluator struct {
	x      kernel.Inputs
	y      []float64 // y − ȳ: the targets less a reference value (below)
	ybar   float64   // ȳ: the sample mean for an estimated mean, else the fixed mean
	sy     float64   // Σ(y − ȳ)
	mean   Mean
	prior  base.MeanPrior // the prior on an estimated μ (Mean)
	mu     float64        // μ of the last evaluation
	ones   []float64      // n ones, for an estimated mean
	kern   kernel.Kernel
	obj    Objective
	active []int
	xI     kernel.Inputs
	n, m   int
	np     int // kernel parameters

	// comm holds the ranks that share the rows, each its own n of them
	// (comm.Span's layout), nAll in all: comm.Single() and n for one
	// process. Every sum over rows goes through rows (rowSums), in blocks
	// of comm.BlockRows rows added in global block order, so that F and
	// its gradient are the same bit for bit for every number of ranks.
	comm     *comm.Comm
	nAll     int
	rows     rowSums
	sums     []float64 // the reduced sums of the factorisation (factorise)
	kmmCross bool      // K_mm from the kernel's CrossT on xI, not from the rows of K_mn
	kmmOwn   [][2]int  // if not nil: K_mm gathered from the ranks' rows of K_mn, (a, local row of active[a]) of this rank's
	gram     sync.Pool // *[]float64 of m×m: a block's GᵀG (factorise)

	yorig        []float64 // the targets, not modified
	kmn          []float64 // K_mn, then Gᵀ = L⁻¹K_mn (m×n row-major)
	kraw         []float64 // K_mn kept for block kernels, whose derivatives follow from their values
	kval         []float64 // if not nil, all of K_mn (m×n) kept for the row blocks (see newEvaluator)
	kaux         []float64 // if not nil, the auxiliary values of K_mn (see auxOn)
	auxOn        bool      // the gradient reads the kernel's auxiliary values (see auxValues)
	auxFresh     bool      // kaux holds them at the current θ
	kauxBlock    []float64 // scratch: a row block's rows of kaux
	kdiag        []float64
	lmm          []float64 // K_mm, then L (m×m)
	kmm          []float64 // K_mm as evaluated (full)
	rkeep        []float64 // R = chol(GᵀG + σ²I), upper, kept for Predictor
	lastLogNoise float64
	exactNoise   float64   // a fixed noise as given (WithFixedAt), σ² where θ holds its log (fixedNoise); 0: none
	jitter       float64   // added to diag K_mm (continuous baseline only)
	gtg          []float64 // GᵀG
	rr           []float64 // RᵀR, then R, then S
	tmat         []float64 // (S − cI)L⁻¹, then the K_mm weights
	wmn          []float64 // K_mn weights (m×n row-major)
	wnm          []float64 // their transpose, for kernels without the value path
	wdiag        []float64
	vecM         [4][]float64
	vecM1        []float64 // R⁻ᵀGᵀ1
	vecN         []float64
	yy           float64 // ‖y − ȳ‖²
	gsum         []float64
	seq          []int // 0, 1, …, m−1

	// block, if positive, is the number of data rows the gradient phase
	// forms its K_mn weights for at a time (with the kernel values of those
	// rows read from kval, or recomputed where it is nil), so that it holds
	// no m×n weight matrix: at n = 10⁶, m = 256 each is 2 GB. A Model's
	// fit keeps Gᵀ and K_mn in its factor's storage (newEvaluator). Zero
	// keeps the whole weight matrix, which the continuous baseline's
	// inducing-input gradient needs.
	block  int
	rowIdx []int           // scratch: the row indices of a block
	blockX []kernel.Inputs // the inputs of each row block, made once (blockInputs)

	// basis, for a fixed inducing set and a kernel that is a sum of fixed
	// kernels with one variance each (kernel.ScaledSum), holds their blocks
	// B_p(x_i, z_c) at [(p·m + c)·n + i], evaluated at the first FuncGrad
	// (basisOn says to); every evaluation then forms K_mn = Σ_p V_p·B_p
	// and the derivatives ∂F/∂log V_p = V_p·⟨W, B_p⟩ from them instead of
	// evaluating the kernel. scales holds the V_p, parts the per-column
	// partial sums of the derivatives.
	basis   []float64
	basisMM []float64 // with kmmOwn: B_p(z_i, z_c) at [(p·m + c)·m + i], from the rows' owners
	basisOn bool
	scales  []float64
	parts   []float64
}

// basisMaxValues bounds the number of values an Evaluator keeps for the
// blocks of a kernel.ScaledSum kernel (512 MiB); beyond it the gradient phase
// evaluates the kernel at every θ.
const basisMaxValues = 1 << 26

// auxMaxValues bounds the auxiliary values an Evaluator keeps for all of
// K_mn (kernel.AuxBlockEvaluator; 512 MiB); beyond it the gradient blocks
// form what they need from the inputs (AddGradBlockT).
const auxMaxValues = 1 << 26

// gradBlock is the row block of the gradient phase of a Model's fit:
// the blocks of the sums over rows (rowSums), so that each block's
// contribution to the gradient is formed on its own.
const gradBlock = comm.BlockRows

// NewEvaluator prepares the gradient computation of objective o for the
// inducing set active (data indices) under kernel k, with a zero prior
// mean (see SetMean). The kernel's hyperparameters are changed by
// FuncGrad.
func NewEvaluator(x kernel.Inputs, y []float64, k kernel.Kernel, o Objective, active []int) *Evaluator {
	return newActiveEvaluator(x, y, k, o, active, nil, nil)
}

// newActiveEvaluator is NewEvaluator with row blocks of gradBlock and
// storage for Gᵀ and the kept kernel values as in newEvaluator.
func newActiveEvaluator(x kernel.Inputs, y []float64, k kernel.Kernel, o Objective, active []int, gt, kval []float64) *Evaluator {
	e := newEvaluator(x, y, k, o, x.Subset(active), gradBlock, gt, kval)
	e.active = append([]int(nil), active...)
	e.keepBasis()
	return e
}

// keepBasis makes the gradient phase of a kernel.ScaledSum kernel keep
// its blocks (basis) where they fit in basisMaxValues for all nAll rows.
func (e *Evaluator) keepBasis() {
	if _, ok := e.kern.(kernel.ScaledSum); ok && e.np*e.m*e.nAll <= basisMaxValues {
		// The blocks replace the kept kernel values.
		e.basisOn, e.kraw, e.kval, e.kaux, e.auxOn = true, nil, nil, nil, false
		e.scales = make([]float64, e.np)
		e.parts = make([]float64, e.np*e.m)
	}
}

// SetMean sets the prior mean (default MeanZero). MeanConstant estimates
// it in closed form at every evaluation.
//
// With several ranks it is a collective operation: the targets' mean and
// variance, and the sums of y − ȳ, are sums over every rank's rows.
func (e *Evaluator) SetMean(mn Mean) {
	e.mean = mn
	var mean, vr float64
	if mn.Estimated() {
		mean, vr = e.targetMoments()
	}
	e.ybar = mn.startFrom(mean)
	e.prior = mn.priorFrom(mean, vr)
	e.ones = nil
	if mn.Estimated() {
		e.ones = make([]float64, e.n)
		for i := range e.ones {
			e.ones[i] = 1
		}
	}
	e.centre()
}

// centre sets y − ȳ and its sums over every rank's rows.
func (e *Evaluator) centre() {
	for i, v := range e.yorig {
		e.y[i] = v - e.ybar
	}
	var s [2]float64
	e.rows.sum(2, true, s[:], func(lo, hi int, acc []float64) {
		for _, c := range e.y[lo:hi] {
			acc[0] += c * c
			acc[1] += c
		}
	})
	e.yy, e.sy = s[0], s[1]
}

// targetMoments returns the mean and the variance (over nAll) of the
// targets of every rank, each a sum over rows in blocks (rowSums).
func (e *Evaluator) targetMoments() (mean, vr float64) {
	var s [1]float64
	e.rows.sum(1, true, s[:], func(lo, hi int, acc []float64) {
		for _, v := range e.yorig[lo:hi] {
			acc[0] += v
		}
	})
	mean = s[0] / float64(e.nAll)
	e.rows.sum(1, true, s[:], func(lo, hi int, acc []float64) {
		for _, v := range e.yorig[lo:hi] {
			acc[0] += (v - mean) * (v - mean)
		}
	})
	return mean, s[0] / float64(e.nAll)
}

// Mean returns the prior mean μ of the last evaluation: the closed-form
// estimate for MeanConstant, the fixed value otherwise.
func (e *Evaluator) Mean() float64 { return e.mu }

// NewEvaluatorInputs is NewEvaluator for inducing inputs z that need not be
// training points (z is not copied; the continuous SGPR baseline moves
// them between calls).
func NewEvaluatorInputs(x kernel.Inputs, y []float64, k kernel.Kernel, o Objective, z kernel.Inputs) *Evaluator {
	return newEvaluator(x, y, k, o, z, 0, nil, nil)
}

// newEvaluator is NewEvaluatorInputs with the gradient phase's row block
// (0: all rows at once) and, where not nil, storage of at least m·n
// values that the Evaluator uses instead of allocating its own: gt for
// K_mn and then Gᵀ, and kval (used only with row blocks and a block
// kernel) to keep K_mn, so that the row blocks read their kernel values
// instead of evaluating them again. A Model's gradient phase passes the
// storage of its factor's G and Q, which it rebuilds afterwards (see
// cholqr.Factor.Lend).
func newEvaluator(x kernel.Inputs, y []float64, k kernel.Kernel, o Objective, z kernel.Inputs, block int, gt, kval []float64) *Evaluator {
	e := newEvaluatorOn(comm.Single(), x.Len(), x, y, k, o, z, block, gt, kval, false)
	e.SetMean(MeanZero)
	return e
}

// newEvaluatorOn is newEvaluator for one rank of c holding the rows x, y
// of nAll rows in all (comm.Span's layout), with kmmCross as in Evaluator;
// it leaves the mean to be set (SetMean, a collective operation).
func newEvaluatorOn(c *comm.Comm, nAll int, x kernel.Inputs, y []float64, k kernel.Kernel, o Objective, z kernel.Inputs, block int, gt, kval []float64, kmmCross bool) *Evaluator {
	n, m := x.Len(), z.Len()
	e := &Evaluator{x: x, yorig: y, y: make([]float64, n), kern: k, obj: o, xI: z, n: n, m: m, np: k.NumParams(), block: block,
		comm: c, nAll: nAll, rows: rowSums{c: c, n: n}, kmmCross: kmmCross}
	e.gram.New = func() any { g := make([]float64, m*m); return &g }
	if gt != nil && len(gt) < m*n || kval != nil && len(kval) < m*n {
		panic(errShortBuffer)
	}
	nb := n // rows of the weight buffers
	if block > 0 {
		nb = block
		e.rowIdx = make([]int, block)
	}
	e.kmm = make([]float64, m*m)
	e.rkeep = make([]float64, m*m)
	if gt != nil {
		e.kmn = gt[: m*n : m*n]
	} else {
		e.kmn = make([]float64, m*n)
	}
	e.kdiag = make([]float64, n)
	e.lmm = make([]float64, m*m)
	e.gtg = make([]float64, m*m)
	e.rr = make([]float64, m*m)
	e.tmat = make([]float64, m*m)
	e.wmn = make([]float64, m*nb)
	if _, ok := k.(kernel.BlockEvaluator); ok {
		e.kraw = make([]float64, m*nb)
		if block > 0 && kval != nil {
			e.kval = kval[: m*n : m*n]
		}
		e.auxValues(k)
	} else {
		e.wnm = make([]float64, nb*m)
	}
	e.wdiag = make([]float64, n)
	for i := range e.vecM {
		e.vecM[i] = make([]float64, m)
	}
	e.vecN = make([]float64, n)
	e.gsum = make([]float64, e.np)
	e.seq = make([]int, m)
	for i := range e.seq {
		e.seq[i] = i
	}
	e.vecM1 = make([]float64, m)
	return e
}

// auxValues prepares the storage of the auxiliary values of a kernel
// whose gradient blocks read them (kernel.AuxBlockEvaluator): their value
// pass forms them with the values, so that the gradient forms no distances
// and no transcendental functions again. Where the values of all of K_mn
// are kept (no row blocks, or kval), so are their auxiliary values, within
// auxMaxValues; with row blocks that evaluate their values again, each
// block's are formed with them.
func (e *Evaluator) auxValues(k kernel.Kernel) {
	ak, ok := k.(kernel.AuxBlockEvaluator)
	if !ok {
		return
	}
	na := ak.NumAux()
	if e.block == 0 || e.kval != nil {
		if na*e.m*e.n > auxMaxValues {
			return
		}
		e.kaux = make([]float64, na*e.m*e.n)
	} else {
		e.kaux = make([]float64, na*e.m*e.block)
	}
	e.auxOn = true
}

// NumParams returns the length of θ: the kernel's parameters plus one.
func (e *Evaluator) NumParams() int { return e.np + 1 }

// FuncGrad sets the hyperparameters to θ and returns the objective; if grad
// is not nil it also stores ∂F/∂θ there. It returns ErrNotPD, with F = +Inf,
// if the factorisation breaks down.
//
// A log kernel parameter beyond ±kernel.MaxLogParameter is refused the same way
// (F = +Inf): an optimiser that follows a lengthscale towards +∞ (an input
// or, for constant targets, all of them switched off) would otherwise
// reach exp(θ) = +Inf, a kernel that cannot be built or saved. The noise
// needs only to be positive and finite (fits keep it above a floor; see
// Model.WithNoiseFloor).
func (e *Evaluator) FuncGrad(grad, theta []float64) (v float64, err error) {
	defer base.RecoverTo(&err)
	np := e.np
	if err := logParamsInRange(theta[:np]); err != nil {
		return math.Inf(1), err
	}
	e.kern.SetParams(theta[:np])
	s2 := fixedNoise(theta[np], e.exactNoise)
	e.lastLogNoise = theta[np]
	e.kernelBlocks(theta[:np], grad != nil)
	trK, err := e.factorise(s2)
	if err != nil {
		return math.Inf(1), err
	}
	f, pt := e.objective(s2, trK)
	if grad == nil {
		return f, nil
	}
	if len(grad) != np+1 {
		panic(errParamLen)
	}
	if err := e.gradient(grad, s2, pt); err != nil {
		return math.Inf(1), err
	}
	return f, nil
}

// evalPoint is what the gradient needs of an evaluation's objective.
type evalPoint struct {
	delta float64 // μ − ȳ, the mean's offset from the targets' mean
	trace float64 // tr(K − GGᵀ), VAR's trace term
	c     float64 // the trace term's weight: 1/σ² for VAR, 0 for MLE
}

// kernelBlocks forms K_mn (one kernel column per inducing point, or the
// kernel's block), diag K and K_mm at the kernel's hyperparameters theta.
// With withGrad, where the gradient reads the kernel's auxiliary values
// of all of K_mn (auxValues), it forms them too.
func (e *Evaluator) kernelBlocks(theta []float64, withGrad bool) {
	n, m := e.n, e.m
	kmn := e.kmn
	// K_mn, one kernel column per inducing point; diag K.
	bk, block := e.kern.(kernel.BlockEvaluator)
	// cross forms K_mn in dst, with its auxiliary values where they are
	// kept for the gradient.
	cross := func(dst []float64) {
		e.auxFresh = false
		if withGrad && e.auxOn && (e.block == 0 || e.kval != nil) {
			e.kern.(kernel.AuxBlockEvaluator).CrossAuxT(dst, e.kaux, e.x, e.xI, e.seq)
			e.auxFresh = true
			return
		}
		bk.CrossT(dst, e.x, e.xI, e.seq)
	}
	if e.basisOn {
		e.combineBasis(kmn, theta)
	} else if block && e.kval != nil {
		cross(e.kval)
		par.For(len(kmn), 1<<16, func(lo, hi int) { copy(kmn[lo:hi], e.kval[lo:hi]) })
	} else if block {
		cross(kmn)
	} else {
		for c := range e.seq {
			base.KernelColumn(e.kern, kmn[c*n:(c+1)*n], e.x, e.xI, c)
		}
	}
	base.KernelDiag(e.kern, e.kdiag, e.x)
	// K_mm: for inducing training points the rows of K_mn, so that both
	// blocks carry the same rounding; otherwise from the kernel, by the
	// block kernels' CrossT where the rows of K_mn are not all at hand
	// (kmmCross: a rank's), which forms each entry as it forms K_mn's.
	if e.kmmOwn != nil {
		e.gatherKmm()
	} else if e.kmmCross && block {
		bk.CrossT(e.kmm, e.xI, e.xI, e.seq)
	} else if e.active != nil {
		for b := 0; b < m; b++ {
			row := kmn[b*n : (b+1)*n]
			for a, ja := range e.active {
				e.kmm[a*m+b] = row[ja]
			}
		}
	} else {
		for c := 0; c < m; c++ {
			e.kern.Column(e.kmm[c*m:(c+1)*m], e.xI, 0, m, e.xI, c)
		}
	}
}

// gatherKmm sets K_mm, on every rank, to the rows of K_mn at the
// inducing points, each from the rank that holds it (kmmOwn): one sum of
// m² numbers, each added to zeros, so that the entries are exact.
func (e *Evaluator) gatherKmm() {
	n, m := e.n, e.m
	clear(e.kmm)
	for _, own := range e.kmmOwn {
		a, i := own[0], own[1]
		for b := 0; b < m; b++ {
			e.kmm[a*m+b] = e.kmn[b*n+i]
		}
	}
	e.comm.SumFloat64s(e.kmm)
}

// factorise forms L = chol(K_mm), Gᵀ = L⁻¹K_mn (over K_mn), and from the
// sums over rows GᵀG, Gᵀ(y − ȳ) (in e.vecM[0]), Gᵀ1 (in e.vecM1, for an
// estimated mean) and tr K, which it returns; then the upper factor R of
// GᵀG + σ²I. It returns ErrNotPD if a factorisation breaks down.
//
// The sums are one reduction over the ranks (rowSums), of the upper
// triangle of GᵀG, the m or 2m products and tr K, each row block's
// solved and summed on its own, so that a block's bits do not depend on
// the rows beside it.
func (e *Evaluator) factorise(s2 float64) (trK float64, err error) {
	n, m := e.n, e.m
	kmn := e.kmn
	// L = chol(K_mm).
	for a := 0; a < m; a++ {
		copy(e.lmm[a*m:a*m+a+1], e.kmm[a*m:a*m+a+1])
		e.lmm[a*m+a] += e.jitter
	}
	if !linalg.Potrf(blas.Lower, m, e.lmm, m) {
		return 0, ErrNotPD
	}
	if e.kraw != nil && e.block == 0 {
		copy(e.kraw, kmn)
	}
	// Per block: Gᵀ = L⁻¹K_mn, then its sums.
	tri := m * (m + 1) / 2
	nv := 1
	if e.ones != nil {
		nv = 2
	}
	width := tri + nv*m + 1
	if len(e.sums) < width {
		e.sums = make([]float64, width)
	}
	sums := e.sums[:width]
	e.rows.sum(width, true, sums, func(lo, hi int, acc []float64) {
		b := hi - lo
		linalg.TrsmLower(m, b, e.lmm, kmn[lo:], n)
		gp := e.gram.Get().(*[]float64)
		defer e.gram.Put(gp)
		gram := *gp
		linalg.SyrkUpper(m, b, kmn[lo:], n, gram, m)
		k := 0
		for i := 0; i < m; i++ {
			k += copy(acc[k:], gram[i*m+i:(i+1)*m])
		}
		yv := blas64.Vector{N: b, Data: e.y[lo:hi], Inc: 1}
		for c := 0; c < m; c++ {
			row := blas64.Vector{N: b, Data: kmn[c*n+lo : c*n+hi], Inc: 1}
			acc[tri+c] = blas64.Dot(row, yv)
			if nv == 2 {
				var s float64
				for _, v := range row.Data {
					s += v
				}
				acc[tri+m+c] = s
			}
		}
		var t float64
		for _, v := range e.kdiag[lo:hi] {
			t += v
		}
		acc[width-1] = t
	})
	k := 0
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			e.gtg[i*m+j], e.gtg[j*m+i] = sums[k], sums[k]
			k++
		}
	}
	copy(e.vecM[0], sums[tri:tri+m])
	if nv == 2 {
		copy(e.vecM1, sums[tri+m:tri+2*m])
	}
	copy(e.rr, e.gtg)
	for i := 0; i < m; i++ {
		e.rr[i*m+i] += s2
	}
	if !linalg.Potrf(blas.Upper, m, e.rr, m) {
		return 0, ErrNotPD
	}
	copy(e.rkeep, e.rr)
	return sums[width-1], nil
}

// objective returns F from the factors, with a = R⁻ᵀGᵀ(y − μ) left in
// e.vecM[0] and the mean's step taken.
func (e *Evaluator) objective(s2, trK float64) (float64, evalPoint) {
	n, m := e.nAll, e.m
	rt := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: m, Stride: m, Data: e.rr}
	// a = R⁻ᵀGᵀ(y − μ). With ỹ = y − ȳ and δ = μ − ȳ, a = R⁻ᵀGᵀỹ − δ·u
	// where u = R⁻ᵀGᵀ1, and ‖y − μ‖² = ‖ỹ‖² − 2δ·1ᵀỹ + nδ². For an
	// estimated mean δ minimises the data fit ‖y − μ‖² − ‖a‖² plus the
	// prior's σ²(μ − ȳ)²/τ² (Mean): with ȳ the prior's mean,
	// δ = (1ᵀỹ − uᵀR⁻ᵀGᵀỹ)/(n − ‖u‖² + σ²/τ²), the GLS step without a prior.
	av := blas64.Vector{N: m, Data: e.vecM[0], Inc: 1} // Gᵀỹ (factorise)
	blas64.Trsv(blas.Trans, rt, av)
	delta, yy := 0.0, e.yy
	if e.ones != nil {
		uv := blas64.Vector{N: m, Data: e.vecM1, Inc: 1}
		blas64.Trsv(blas.Trans, rt, uv)
		var ua, uu float64
		for i := 0; i < m; i++ {
			ua += uv.Data[i] * av.Data[i]
			uu += uv.Data[i] * uv.Data[i]
		}
		delta = e.prior.Step(e.sy-ua, float64(n)-uu, e.ybar-e.prior.Ybar, s2)
		for i := 0; i < m; i++ {
			av.Data[i] -= delta * uv.Data[i]
		}
		yy = e.yy - 2*delta*e.sy + float64(n)*delta*delta
	}
	e.mu = e.ybar + delta
	var aa, logR, gg float64
	for i := 0; i < m; i++ {
		aa += av.Data[i] * av.Data[i]
		logR += math.Log(e.rr[i*m+i])
		gg += e.gtg[i*m+i]
	}
	dataFit := math.Max(yy-aa, 0) / s2
	complexity := float64(n-m)*math.Log(s2) + 2*logR
	trace := math.Max(trK-gg, 0)
	f := 0.5*(dataFit+complexity+e.prior.Penalty(e.mu)) + 0.5*float64(n)*math.Log(2*math.Pi)
	c := 0.0
	if e.obj == VAR {
		f += 0.5 * trace / s2
		c = 1 / s2
	}
	return f, evalPoint{delta: delta, trace: trace, c: c}
}

// gradient stores ∂F/∂θ in grad, from the factors and the objective's
// point pt. It overwrites R's space with S = (RᵀR)⁻¹.
func (e *Evaluator) gradient(grad []float64, s2 float64, pt evalPoint) error {
	n, m, np := e.n, e.m, e.np
	kmn := e.kmn
	delta, trace, c := pt.delta, pt.trace, pt.c
	bk, block := e.kern.(kernel.BlockEvaluator)
	lt := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: m, Stride: m, Data: e.lmm}
	rt := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: m, Stride: m, Data: e.rr}
	av := blas64.Vector{N: m, Data: e.vecM[0], Inc: 1}
	// b = R⁻¹a, α = σ⁻²(y − μ − G b).
	bv := blas64.Vector{N: m, Data: e.vecM[1], Inc: 1}
	copy(bv.Data, av.Data)
	blas64.Trsv(blas.NoTrans, rt, bv)
	alpha := e.vecN
	for i, v := range e.y {
		alpha[i] = v - delta
	}
	linalg.SubColumns(m, n, kmn, n, bv.Data, alpha)
	for i := range alpha {
		alpha[i] /= s2
	}
	// h = Gᵀα and αᵀα, summed over rows (one reduction of m + 1); v = L⁻ᵀh.
	hv := blas64.Vector{N: m, Data: e.vecM[2], Inc: 1}
	alal := e.alphaSums(alpha, hv.Data)
	vv := blas64.Vector{N: m, Data: e.vecM[3], Inc: 1}
	copy(vv.Data, hv.Data)
	blas64.Trsv(blas.Trans, lt, vv)
	// S = (RᵀR)⁻¹ in e.rr (full).
	if !linalg.Potri(blas.Upper, m, e.rr, m) {
		return ErrNotPD
	}
	S := e.rr
	var trS float64
	for i := 0; i < m; i++ {
		trS += S[i*m+i]
		for j := 0; j < i; j++ {
			S[i*m+j] = S[j*m+i]
		}
	}
	// T = (S − cI) L⁻¹;  W_mn = Tᵀ Gᵀ − v αᵀ (the K_mn weights).
	T := e.tmat
	copy(T, S)
	for i := 0; i < m; i++ {
		T[i*m+i] -= c
	}
	linalg.Trsm(blas.Right, blas.Lower, blas.NoTrans, m, m, e.lmm, m, T, m)
	// Z = −½(I − σ²S − hhᵀ) + ½c·GᵀG;  W_mm = L⁻ᵀ Z L⁻¹, into a copy
	// of T's space after the K_mn weights are done (below).
	e.rowGrad(T, alpha, vv.Data, c, block)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			z := s2*S[i*m+j] + hv.Data[i]*hv.Data[j] + c*e.gtg[i*m+j]
			if i == j {
				z--
			}
			T[i*m+j] = 0.5 * z
		}
	}
	linalg.Trsm(blas.Left, blas.Lower, blas.Trans, m, m, e.lmm, m, T, m)
	linalg.Trsm(blas.Right, blas.Lower, blas.NoTrans, m, m, e.lmm, m, T, m)
	if e.basisOn {
		e.addBasisGradMM(T)
	} else if block {
		// From the kernel values already in hand, split over the cores.
		bk.AddGradBlockT(e.gsum, T, e.kmm, e.xI, e.xI, e.seq)
	} else {
		e.kern.AddGrad(e.gsum, T, e.xI, 0, m, e.xI, e.seq)
	}
	copy(grad, e.gsum)
	trW := float64(e.nAll-m)/s2 + trS - alal
	grad[np] = 0.5*s2*trW - 0.5*c*trace
	return nil
}

// alphaSums sets h = Gᵀα and returns αᵀα, sums over every rank's rows.
func (e *Evaluator) alphaSums(alpha, h []float64) float64 {
	n, m := e.n, e.m
	sums := e.sums[:m+1]
	e.rows.sum(m+1, true, sums, func(lo, hi int, acc []float64) {
		av := blas64.Vector{N: hi - lo, Data: alpha[lo:hi], Inc: 1}
		for c := 0; c < m; c++ {
			acc[c] = blas64.Dot(blas64.Vector{N: hi - lo, Data: e.kmn[c*n+lo : c*n+hi], Inc: 1}, av)
		}
		var s float64
		for _, a := range alpha[lo:hi] {
			s += a * a
		}
		acc[m] = s
	})
	copy(h, sums[:m])
	return sums[m]
}

// rowGrad sets e.gsum to the gradient's sums over rows: the contraction
// of the K_mn weights (addKmnGrad) with the kernel's derivatives and,
// for VAR (c ≠ 0), ½c·Σ_i ∂K_ii. With row blocks they are one reduction
// over the ranks of np numbers (rowSums), each block's from a zero of its
// own; with all rows at once (e.block = 0) or other blocks, in one
// process, one sum.
func (e *Evaluator) rowGrad(T, alpha, v []float64, c float64, block bool) {
	if c != 0 {
		for i := range e.wdiag {
			e.wdiag[i] = 0.5 * c
		}
	}
	total := e.gsum
	defer func() { e.gsum = total }()
	terms := func(lo, hi int, acc []float64) {
		e.gsum = acc
		e.addKmnGrad(lo, hi, T, e.kmn, alpha, v, block)
		if c != 0 {
			base.KernelAddDiagGrad(e.kern, acc, e.wdiag[lo:hi], e.blockInputs(lo, hi))
		}
	}
	if e.block == comm.BlockRows {
		e.rows.sum(len(total), false, total, terms)
		return
	}
	// Other blocks (tests of the row blocks), one process: one sum.
	if e.comm.Size() > 1 {
		panic("sgp: a distributed gradient's row blocks are not comm.BlockRows")
	}
	nb := e.n
	if e.block > 0 {
		nb = e.block
	}
	clear(total)
	for lo := 0; lo < e.n; lo += nb {
		terms(lo, min(e.n, lo+nb), total)
	}
}

// addKmnGrad forms the K_mn weights of rows [lo, hi),
// W = Tᵀ Gᵀ[:, lo:hi] − v α[lo:hi]ᵀ with T = (S − cI)L⁻¹, and adds their
// contraction with the kernel derivatives to e.gsum. With e.block = 0 it
// is called once for all rows and leaves the whole W in e.wmn (the
// continuous baseline reads it); otherwise the block kernels' derivatives
// take the kernel values of the block's rows from e.kval, or evaluate them
// again where it is nil; kernels whose gradients read auxiliary values
// (auxValues) take those from e.kaux, or form them with the values.
func (e *Evaluator) addKmnGrad(lo, hi int, T, gt, alpha, v []float64, block bool) {
	n, m, b := e.n, e.m, hi-lo
	w := e.wmn[:m*b]
	linalg.GemmTN(m, b, m, T, m, gt[lo:], n, w, b)
	for cc := 0; cc < m; cc++ {
		row := w[cc*b : (cc+1)*b]
		vc := v[cc]
		for i, a := range alpha[lo:hi] {
			row[i] -= vc * a
		}
	}
	if e.basisOn {
		e.addBasisGrad(w, lo, hi)
		return
	}
	x := e.blockInputs(lo, hi)
	if block {
		kv := e.kraw[:m*b]
		if e.kval != nil {
			for cc := 0; cc < m; cc++ {
				copy(kv[cc*b:(cc+1)*b], e.kval[cc*n+lo:cc*n+hi])
			}
		}
		if e.auxOn {
			e.addKmnGradAux(lo, hi, w, kv, x)
			return
		}
		if e.kval == nil && e.block > 0 {
			e.kern.(kernel.BlockEvaluator).CrossT(kv, x, e.xI, e.seq)
		}
		e.kern.(kernel.BlockEvaluator).AddGradBlockT(e.gsum, w, kv, x, e.xI, e.seq)
		return
	}
	wnm := e.wnm[:b*m]
	for cc := 0; cc < m; cc++ {
		for i := 0; i < b; i++ {
			wnm[i*m+cc] = w[cc*b+i]
		}
	}
	base.KernelAddGrad(e.kern, e.gsum, wnm, x, e.xI, e.seq)
}

// addKmnGradAux is addKmnGrad's contraction of the K_mn weights w of rows
// [lo, hi) (inputs x) for a kernel whose gradient reads auxiliary values
// (auxValues): with kv the block's kernel values where they are kept, it
// takes the auxiliary values of those rows from e.kaux, and otherwise forms
// both.
func (e *Evaluator) addKmnGradAux(lo, hi int, w, kv []float64, x kernel.Inputs) {
	ak := e.kern.(kernel.AuxBlockEvaluator)
	n, m, b := e.n, e.m, hi-lo
	na := ak.NumAux()
	if !e.auxFresh || e.block > 0 && e.kval == nil {
		// Row blocks that evaluate their values again, or values kept
		// without their auxiliary values: both, for these rows.
		aux := e.kaux[:na*m*b]
		ak.CrossAuxT(kv, aux, x, e.xI, e.seq)
		ak.AddGradAuxT(e.gsum, w, kv, aux, x, e.xI, e.seq)
		return
	}
	aux := e.kaux
	if b < n {
		// The rows of this block, out of all of K_mn's.
		if len(e.kauxBlock) < na*m*b {
			e.kauxBlock = make([]float64, na*m*e.block)
		}
		aux = e.kauxBlock[:na*m*b]
		for a := range na {
			for cc := range m {
				copy(aux[(a*m+cc)*b:(a*m+cc+1)*b], e.kaux[(a*m+cc)*n+lo:(a*m+cc)*n+hi])
			}
		}
	}
	ak.AddGradAuxT(e.gsum, w, kv, aux, x, e.xI, e.seq)
}

// blockInputs returns the inputs of rows [lo, hi): all of e.x for a block
// that covers every row, otherwise a subset made on first use and kept
// for the Evaluator's life, so that inputs whose kernel features are
// computed and cached per Inputs value (graphs, strings) compute them once
// per block, not once per evaluation.
func (e *Evaluator) blockInputs(lo, hi int) kernel.Inputs {
	if lo == 0 && hi == e.n {
		return e.x
	}
	nb := e.block
	bi := lo / nb
	if e.blockX == nil {
		e.blockX = make([]kernel.Inputs, (e.n+nb-1)/nb)
	}
	if e.blockX[bi] == nil {
		for i := range hi - lo {
			e.rowIdx[i] = lo + i
		}
		e.blockX[bi] = e.x.Subset(e.rowIdx[:hi-lo])
	}
	return e.blockX[bi]
}

// combineBasis sets dst = K_mn = Σ_p V_p·B_p (m×n row-major) with V_p =
// exp θ_p, evaluating the blocks B_p on first use.
func (e *Evaluator) combineBasis(dst, theta []float64) {
	mn := e.m * e.n
	if e.basis == nil {
		e.basis = make([]float64, len(theta)*mn)
		e.kern.(kernel.ScaledSum).BasisT(e.basis, e.x, e.xI, e.seq)
		if e.kmmOwn != nil {
			e.gatherBasisMM()
		}
	}
	for p, t := range theta {
		e.scales[p] = math.Exp(t)
	}
	par.For(mn, 1<<14, func(lo, hi int) {
		d := dst[lo:hi]
		v0 := e.scales[0]
		for i, b := range e.basis[lo:hi] {
			d[i] = v0 * b
		}
		for p := 1; p < len(e.scales); p++ {
			vp := e.scales[p]
			for i, b := range e.basis[p*mn+lo : p*mn+hi] {
				d[i] += vp * b
			}
		}
	})
}

// addBasisGrad adds V_p·Σ_c Σ_i w[c·b+i]·B_p(x_{lo+i}, z_c) to the
// derivative for each log V_p, given the K_mn weights w of rows [lo, hi)
// (m×b row-major). The sums go per column and are added in column order,
// so the result does not depend on the scheduling.
func (e *Evaluator) addBasisGrad(w []float64, lo, hi int) {
	n, m, np, b := e.n, e.m, e.np, hi-lo
	par.For(m, max(1, 4*par.MinRows/max(1, b)), func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			wc := w[c*b : (c+1)*b]
			for p := 0; p < np; p++ {
				bp := e.basis[(p*m+c)*n+lo : (p*m+c)*n+hi]
				var s float64
				for i, v := range wc {
					s += v * bp[i]
				}
				e.parts[c*np+p] = s
			}
		}
	})
	e.addParts()
}

// gatherBasisMM sets basisMM, on every rank, to the blocks' rows at the
// inducing points, each from the rank that holds it (kmmOwn): one exact
// sum of np·m² numbers, once.
func (e *Evaluator) gatherBasisMM() {
	n, m, np := e.n, e.m, e.np
	e.basisMM = make([]float64, np*m*m)
	for _, own := range e.kmmOwn {
		a, i := own[0], own[1]
		for pc := range np * m {
			e.basisMM[pc*m+a] = e.basis[pc*n+i]
		}
	}
	e.comm.SumFloat64s(e.basisMM)
}

// addBasisGradMM is addBasisGrad for the K_mm weights T (m×m): the block
// B_p(z_i, z_c) is row active[i] of B_p's column c (in basisMM on a rank).
func (e *Evaluator) addBasisGradMM(T []float64) {
	n, m, np := e.n, e.m, e.np
	par.For(m, max(1, 4*par.MinRows/max(1, m)), func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			tc := T[c*m : (c+1)*m]
			for p := 0; p < np; p++ {
				var s float64
				if e.basisMM != nil {
					for i, b := range e.basisMM[(p*m+c)*m : (p*m+c+1)*m] {
						s += tc[i] * b
					}
				} else {
					bp := e.basis[(p*m+c)*n : (p*m+c+1)*n]
					for i, a := range e.active {
						s += tc[i] * bp[a]
					}
				}
				e.parts[c*np+p] = s
			}
		}
	})
	e.addParts()
}

// addParts adds V_p times the column sums in e.parts to the derivatives.
func (e *Evaluator) addParts() {
	np := e.np
	for p := 0; p < np; p++ {
		var s float64
		for c := 0; c < e.m; c++ {
			s += e.parts[c*np+p]
		}
		e.gsum[p] += e.scales[p] * s
	}
}

// logParamsInRange returns an error for a log hyperparameter beyond
// ±kernel.MaxLogParameter (or NaN): exp of it overflows, or a kernel made
// from it cannot be saved.
func logParamsInRange(theta []float64) error {
	for _, t := range theta {
		if !(math.Abs(t) <= kernel.MaxLogParameter) {
			return fmt.Errorf("sgp: log hyperparameter %v out of range (|log θ| ≤ %d)", t, kernel.MaxLogParameter)
		}
	}
	return nil
}
