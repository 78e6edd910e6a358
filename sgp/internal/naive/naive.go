// Package naive is a deliberately simple, dense reference implementation
// ("oracle") of the Gaussian-process quantities computed by package sgp. It
// is used only by tests and must never be imported by production code.
//
// Everything here forms full n×n matrices and factorizes them with a dense
// Cholesky decomposition, so every function costs O(n³) time and O(n²)
// memory; it is meant for n ≤ ~200. The code favours a direct transcription
// of the textbook formulas over speed or numerical refinement, and it shares
// no code with package sgp, so agreement between the two is meaningful.
//
// The sparse approximations are the deterministic training conditional (DTC,
// also called projected process) of
//
//	J. Quiñonero-Candela and C. E. Rasmussen, "A unifying view of sparse
//	approximate Gaussian process regression", JMLR 6:1939–1959, 2005,
//
// and the variational free energy (VFE) bound of
//
//	M. K. Titsias, "Variational learning of inducing variables in sparse
//	Gaussian processes", AISTATS 2009,
//
// both with inducing points chosen as a subset I of the training inputs, as
// in CholQR (Cao, Brubaker, Fleet and Hertzmann, NIPS 2013).
//
// Programming errors (mismatched dimensions, bad index sets, invalid noise)
// cause a panic; numerical failures (a matrix that is not positive definite)
// are reported through an ok result or a NaN.
package naive

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// RBF builds the full n×n ARD squared-exponential kernel matrix of the rows
// of x:
//
//	K[i][j] = variance · exp(−½ Σₜ (x[i][t] − x[j][t])² / lengthscales[t]²)
//
// Every row of x must have len(lengthscales) entries. The diagonal is exactly
// variance.
func RBF(x [][]float64, variance float64, lengthscales []float64) *mat.SymDense {
	checkInputs("RBF", x, lengthscales)
	n := len(x)
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			K.SetSym(i, j, rbf(x[i], x[j], variance, lengthscales))
		}
	}
	return K
}

// RBFCross returns the a×b matrix of the same kernel as RBF between the rows
// of xa (a rows) and the rows of xb (b rows):
//
//	K[i][j] = variance · exp(−½ Σₜ (xa[i][t] − xb[j][t])² / lengthscales[t]²)
func RBFCross(xa, xb [][]float64, variance float64, lengthscales []float64) *mat.Dense {
	checkInputs("RBFCross", xa, lengthscales)
	checkInputs("RBFCross", xb, lengthscales)
	K := mat.NewDense(len(xa), len(xb), nil)
	for i := range xa {
		for j := range xb {
			K.Set(i, j, rbf(xa[i], xb[j], variance, lengthscales))
		}
	}
	return K
}

// rbf evaluates the ARD squared-exponential kernel for one pair of inputs.
func rbf(a, b []float64, variance float64, lengthscales []float64) float64 {
	var s float64
	for t := range a {
		d := (a[t] - b[t]) / lengthscales[t]
		s += d * d
	}
	return variance * math.Exp(-0.5*s)
}

// ExactNMLL returns the exact GP negative log marginal likelihood of targets
// y under a zero-mean GP with train kernel matrix K and noise variance σ²:
//
//	½ yᵀ(K + σ²I)⁻¹y + ½ log|K + σ²I| + n/2 log 2π
//
// It returns NaN if K + σ²I is not (numerically) positive definite. noise
// must be non-negative.
func ExactNMLL(K mat.Symmetric, y []float64, noise float64) float64 {
	checkTargets("ExactNMLL", K, y)
	checkNoise("ExactNMLL", noise, false)
	nmll, ok := gaussianNMLL(withNoise(K, noise), y)
	if !ok {
		return math.NaN()
	}
	return nmll
}

// DTC returns the DTC negative log marginal likelihood (mle) and the VFE
// negative evidence lower bound (vfe) for inducing index set I, a set of
// distinct indices into 0..n−1 in any order:
//
//	Q   = K[:,I] K[I,I]⁻¹ K[I,:]
//	mle = ½ yᵀ(Q + σ²I)⁻¹y + ½ log|Q + σ²I| + n/2 log 2π
//	vfe = mle + ½ σ⁻² tr(K − Q)
//
// vfe is the negative of the Titsias (2009) lower bound, so vfe ≥ mle and
// vfe ≥ ExactNMLL. Q is formed densely as VᵀV with V = L⁻¹K[I,:], where
// L Lᵀ = K[I,I]; this is the formula above with K[I,I]⁻¹ = L⁻ᵀL⁻¹.
//
// ok is false (and mle, vfe are NaN) if K[I,I] or Q + σ²I is not numerically
// positive definite. noise must be positive and I non-empty.
func DTC(K mat.Symmetric, y []float64, noise float64, I []int) (mle, vfe float64, ok bool) {
	n := checkTargets("DTC", K, y)
	checkNoise("DTC", noise, true)
	checkIndexSet("DTC", I, n)

	// L Lᵀ = K[I,I].
	var chol mat.Cholesky
	if !chol.Factorize(principalSubmatrix(K, I)) {
		return math.NaN(), math.NaN(), false
	}
	var L mat.TriDense
	chol.LTo(&L)

	// V = L⁻¹ K[I,:]   (m×n),   Q = VᵀV   (n×n).
	var V mat.Dense
	if err := V.Solve(&L, rowsOf(K, I)); err != nil {
		return math.NaN(), math.NaN(), false
	}
	Q := mat.NewSymDense(n, nil)
	Q.SymOuterK(1, V.T())

	mle, ok = gaussianNMLL(withNoise(Q, noise), y)
	if !ok {
		return math.NaN(), math.NaN(), false
	}

	// tr(K − Q) = Σᵢ (K[i][i] − Q[i][i]).
	var trace float64
	for i := 0; i < n; i++ {
		trace += K.At(i, i) - Q.At(i, i)
	}
	vfe = mle + 0.5*trace/noise
	return mle, vfe, true
}

// DTCMean returns the generalised least-squares estimate of a constant
// prior mean under the DTC/VFE model of DTC, the μ that minimises both of
// its objectives for y − μ:
//
//	μ̂ = 1ᵀ(Q + σ²I)⁻¹y / 1ᵀ(Q + σ²I)⁻¹1
//
// with Q formed densely as in DTC and both solves by Cholesky. ok is false
// (and μ̂ NaN) if a factorisation fails.
func DTCMean(K mat.Symmetric, y []float64, noise float64, I []int) (mu float64, ok bool) {
	return DTCMeanPrior(K, y, noise, I, 0, math.Inf(1))
}

// DTCMeanPrior is DTCMean under a Gaussian prior μ ~ N(m0, tau2) on the
// mean: the maximum a posteriori estimate, the μ that minimises both
// objectives of DTC for y − μ plus ½(μ − m0)²/tau2,
//
//	μ̂ = (1ᵀ(Q + σ²I)⁻¹y + m0/tau2) / (1ᵀ(Q + σ²I)⁻¹1 + 1/tau2).
//
// tau2 = +Inf is DTCMean.
func DTCMeanPrior(K mat.Symmetric, y []float64, noise float64, I []int, m0, tau2 float64) (mu float64, ok bool) {
	n := checkTargets("DTCMean", K, y)
	checkNoise("DTCMean", noise, true)
	checkIndexSet("DTCMean", I, n)
	var chol mat.Cholesky
	if !chol.Factorize(principalSubmatrix(K, I)) {
		return math.NaN(), false
	}
	var L mat.TriDense
	chol.LTo(&L)
	var V mat.Dense
	if err := V.Solve(&L, rowsOf(K, I)); err != nil {
		return math.NaN(), false
	}
	Q := mat.NewSymDense(n, nil)
	Q.SymOuterK(1, V.T())
	var sigma mat.Cholesky
	if !sigma.Factorize(withNoise(Q, noise)) {
		return math.NaN(), false
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	var a, b mat.VecDense
	if err := sigma.SolveVecTo(&a, mat.NewVecDense(n, append([]float64(nil), y...))); err != nil {
		return math.NaN(), false
	}
	if err := sigma.SolveVecTo(&b, mat.NewVecDense(n, ones)); err != nil {
		return math.NaN(), false
	}
	return (mat.Sum(&a) + m0/tau2) / (mat.Sum(&b) + 1/tau2), true
}

// PredictDTC returns the predictive mean and latent (noise-free) variance of
// the DTC/VFE sparse GP (the two share the same predictive distribution) at
// s test points. K is the n×n train kernel, Ks the s×n cross kernel between
// test and train points, kss the s test prior variances, y the targets,
// noise σ² and I the inducing index set (m = |I|):
//
//	Σ    = (K_mm + σ⁻² K_mn K_nm)⁻¹
//	mean = σ⁻² K_sm Σ K_mn y
//	var  = kss − diag(K_sm K_mm⁻¹ K_ms) + diag(K_sm Σ K_ms)
//
// with K_mm = K[I,I], K_mn = K[I,:] and K_sm = Ks[:,I]. Σ⁻¹ is formed
// explicitly and every inverse is applied through a Cholesky solve.
//
// ok is false (and mean, variance are nil) if K_mm or Σ⁻¹ is not numerically
// positive definite. noise must be positive and I non-empty.
func PredictDTC(K mat.Symmetric, Ks mat.Matrix, kss []float64, y []float64, noise float64, I []int) (mean, variance []float64, ok bool) {
	n := checkTargets("PredictDTC", K, y)
	s := checkTest("PredictDTC", n, Ks, kss)
	checkNoise("PredictDTC", noise, true)
	checkIndexSet("PredictDTC", I, n)

	Kmm := principalSubmatrix(K, I)
	Kmn := rowsOf(K, I)
	Ksm := columnsOf(Ks, I)

	var cholKmm mat.Cholesky
	if !cholKmm.Factorize(Kmm) {
		return nil, nil, false
	}

	// Σ⁻¹ = K_mm + σ⁻² K_mn K_nm.
	SigmaInv := mat.NewSymDense(len(I), nil)
	SigmaInv.SymOuterK(1/noise, Kmn)
	SigmaInv.AddSym(SigmaInv, Kmm)
	var cholSigmaInv mat.Cholesky
	if !cholSigmaInv.Factorize(SigmaInv) {
		return nil, nil, false
	}

	// mean = σ⁻² K_sm Σ (K_mn y).
	var Kmny, SigmaKmny, meanVec mat.VecDense
	Kmny.MulVec(Kmn, mat.NewVecDense(n, y))
	if err := cholSigmaInv.SolveVecTo(&SigmaKmny, &Kmny); err != nil {
		return nil, nil, false
	}
	meanVec.MulVec(Ksm, &SigmaKmny)
	meanVec.ScaleVec(1/noise, &meanVec)

	// A = K_mm⁻¹ K_ms,   B = Σ K_ms   (both m×s).
	var A, B mat.Dense
	if err := cholKmm.SolveTo(&A, Ksm.T()); err != nil {
		return nil, nil, false
	}
	if err := cholSigmaInv.SolveTo(&B, Ksm.T()); err != nil {
		return nil, nil, false
	}

	mean = make([]float64, s)
	variance = make([]float64, s)
	for i := 0; i < s; i++ {
		mean[i] = meanVec.AtVec(i)
		// diag(K_sm A)ᵢ = Σⱼ K_sm[i][j] A[j][i], and likewise for B.
		var nystrom, correction float64
		for j := range I {
			nystrom += Ksm.At(i, j) * A.At(j, i)
			correction += Ksm.At(i, j) * B.At(j, i)
		}
		variance[i] = kss[i] - nystrom + correction
	}
	return mean, variance, true
}

// ExactPredict returns the full-GP predictive mean and latent (noise-free)
// variance at s test points, given the n×n train kernel K, the s×n cross
// kernel Ks, the s test prior variances kss, targets y and noise σ²:
//
//	mean = Ks (K + σ²I)⁻¹ y
//	var  = kss − diag(Ks (K + σ²I)⁻¹ Ksᵀ)
//
// ok is false (and mean, variance are nil) if K + σ²I is not numerically
// positive definite. noise must be non-negative.
func ExactPredict(K mat.Symmetric, Ks mat.Matrix, kss []float64, y []float64, noise float64) (mean, variance []float64, ok bool) {
	n := checkTargets("ExactPredict", K, y)
	s := checkTest("ExactPredict", n, Ks, kss)
	checkNoise("ExactPredict", noise, false)

	var chol mat.Cholesky
	if !chol.Factorize(withNoise(K, noise)) {
		return nil, nil, false
	}

	// α = (K + σ²I)⁻¹ y,   W = (K + σ²I)⁻¹ Ksᵀ   (n×s).
	var alpha, meanVec mat.VecDense
	if err := chol.SolveVecTo(&alpha, mat.NewVecDense(n, y)); err != nil {
		return nil, nil, false
	}
	meanVec.MulVec(Ks, &alpha)
	var W mat.Dense
	if err := chol.SolveTo(&W, Ks.T()); err != nil {
		return nil, nil, false
	}

	mean = make([]float64, s)
	variance = make([]float64, s)
	for i := 0; i < s; i++ {
		mean[i] = meanVec.AtVec(i)
		// diag(Ks W)ᵢ = Σⱼ Ks[i][j] W[j][i].
		var explained float64
		for j := 0; j < n; j++ {
			explained += Ks.At(i, j) * W.At(j, i)
		}
		variance[i] = kss[i] - explained
	}
	return mean, variance, true
}

// gaussianNMLL returns the negative log density of y under N(0, A):
//
//	½ yᵀA⁻¹y + ½ log|A| + n/2 log 2π
//
// ok is false if A is not numerically positive definite.
func gaussianNMLL(A mat.Symmetric, y []float64) (nmll float64, ok bool) {
	n := len(y)
	var chol mat.Cholesky
	if !chol.Factorize(A) {
		return 0, false
	}
	yVec := mat.NewVecDense(n, y)
	var alpha mat.VecDense
	if err := chol.SolveVecTo(&alpha, yVec); err != nil {
		return 0, false
	}
	quad := mat.Dot(yVec, &alpha)
	return 0.5*quad + 0.5*chol.LogDet() + 0.5*float64(n)*math.Log(2*math.Pi), true
}

// withNoise returns a fresh copy of K + σ²I.
func withNoise(K mat.Symmetric, noise float64) *mat.SymDense {
	n := K.SymmetricDim()
	A := mat.NewSymDense(n, nil)
	A.CopySym(K)
	for i := 0; i < n; i++ {
		A.SetSym(i, i, A.At(i, i)+noise)
	}
	return A
}

// principalSubmatrix returns K[I,I] as an m×m matrix (m = len(I)).
func principalSubmatrix(K mat.Symmetric, I []int) *mat.SymDense {
	m := len(I)
	S := mat.NewSymDense(m, nil)
	for a := 0; a < m; a++ {
		for b := a; b < m; b++ {
			S.SetSym(a, b, K.At(I[a], I[b]))
		}
	}
	return S
}

// rowsOf returns K[I,:] as an m×n matrix.
func rowsOf(K mat.Matrix, I []int) *mat.Dense {
	_, n := K.Dims()
	R := mat.NewDense(len(I), n, nil)
	for a, i := range I {
		for j := 0; j < n; j++ {
			R.Set(a, j, K.At(i, j))
		}
	}
	return R
}

// columnsOf returns Ks[:,I] as an s×m matrix.
func columnsOf(Ks mat.Matrix, I []int) *mat.Dense {
	s, _ := Ks.Dims()
	C := mat.NewDense(s, len(I), nil)
	for i := 0; i < s; i++ {
		for b, j := range I {
			C.Set(i, b, Ks.At(i, j))
		}
	}
	return C
}

// checkInputs panics unless x is non-empty and every row has one entry per
// lengthscale.
func checkInputs(fn string, x [][]float64, lengthscales []float64) {
	if len(x) == 0 {
		panic(fmt.Sprintf("naive: %s: no inputs", fn))
	}
	if len(lengthscales) == 0 {
		panic(fmt.Sprintf("naive: %s: no lengthscales", fn))
	}
	for i, row := range x {
		if len(row) != len(lengthscales) {
			panic(fmt.Sprintf("naive: %s: input %d has dimension %d, want %d", fn, i, len(row), len(lengthscales)))
		}
	}
}

// checkTargets panics unless K is n×n with n = len(y) > 0, and returns n.
func checkTargets(fn string, K mat.Symmetric, y []float64) int {
	n := K.SymmetricDim()
	if n == 0 || n != len(y) {
		panic(fmt.Sprintf("naive: %s: kernel is %d×%d but there are %d targets", fn, n, n, len(y)))
	}
	return n
}

// checkTest panics unless Ks is s×n with s = len(kss), and returns s.
func checkTest(fn string, n int, Ks mat.Matrix, kss []float64) int {
	s, c := Ks.Dims()
	if c != n || s != len(kss) {
		panic(fmt.Sprintf("naive: %s: cross kernel is %d×%d, want %d×%d", fn, s, c, len(kss), n))
	}
	return s
}

// checkNoise panics unless noise is finite and non-negative (positive if
// strict).
func checkNoise(fn string, noise float64, strict bool) {
	if math.IsNaN(noise) || math.IsInf(noise, 0) || noise < 0 || (strict && noise == 0) {
		panic(fmt.Sprintf("naive: %s: invalid noise variance %v", fn, noise))
	}
}

// checkIndexSet panics unless I is a non-empty set of distinct indices in
// 0..n−1.
func checkIndexSet(fn string, I []int, n int) {
	if len(I) == 0 {
		panic(fmt.Sprintf("naive: %s: empty inducing set", fn))
	}
	seen := make([]bool, n)
	for _, i := range I {
		if i < 0 || i >= n {
			panic(fmt.Sprintf("naive: %s: inducing index %d out of range [0, %d)", fn, i, n))
		}
		if seen[i] {
			panic(fmt.Sprintf("naive: %s: repeated inducing index %d", fn, i))
		}
		seen[i] = true
	}
}
