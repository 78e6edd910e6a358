package naive

import "gonum.org/v1/gonum/mat"

// PredictDTCCov returns the predictive mean and the full latent covariance
// of the DTC/VFE sparse GP at s test points, from the kernel blocks
// between the m inducing inputs, the n training inputs and the test
// inputs: Kmm (m×m), Kmn (m×n), Ksm (s×m) and Kss (s×s), the targets y
// (zero prior mean) and the noise σ²:
//
//	Σ    = (K_mm + σ⁻² K_mn K_nm)⁻¹
//	mean = σ⁻² K_sm Σ K_mn y
//	cov  = K_ss − K_sm K_mm⁻¹ K_ms + K_sm Σ K_ms
//
// Unlike PredictDTC the inducing inputs need not be training inputs.
// Every inverse is applied through a Cholesky solve. ok is false if K_mm
// or Σ⁻¹ is not numerically positive definite.
func PredictDTCCov(Kmm mat.Symmetric, Kmn, Ksm mat.Matrix, Kss mat.Symmetric, y []float64, noise float64) (mean []float64, cov *mat.SymDense, ok bool) {
	m, n := Kmn.Dims()
	s, _ := Ksm.Dims()
	if Kmm.SymmetricDim() != m || len(y) != n || Kss.SymmetricDim() != s {
		panic("naive: PredictDTCCov: dimension mismatch")
	}
	checkNoise("PredictDTCCov", noise, true)
	var cholKmm, cholSI mat.Cholesky
	if !cholKmm.Factorize(Kmm) {
		return nil, nil, false
	}
	SigmaInv := mat.NewSymDense(m, nil)
	SigmaInv.SymOuterK(1/noise, Kmn)
	SigmaInv.AddSym(SigmaInv, Kmm)
	if !cholSI.Factorize(SigmaInv) {
		return nil, nil, false
	}
	var Kmny, SKmny, mv mat.VecDense
	Kmny.MulVec(Kmn, mat.NewVecDense(n, y))
	if err := cholSI.SolveVecTo(&SKmny, &Kmny); err != nil {
		return nil, nil, false
	}
	mv.MulVec(Ksm, &SKmny)
	mean = make([]float64, s)
	for i := range mean {
		mean[i] = mv.AtVec(i) / noise
	}
	var A, B, Q, C mat.Dense
	if err := cholKmm.SolveTo(&A, Ksm.T()); err != nil {
		return nil, nil, false
	}
	if err := cholSI.SolveTo(&B, Ksm.T()); err != nil {
		return nil, nil, false
	}
	Q.Mul(Ksm, &A)
	C.Mul(Ksm, &B)
	cov = mat.NewSymDense(s, nil)
	for i := 0; i < s; i++ {
		for j := i; j < s; j++ {
			cov.SetSym(i, j, Kss.At(i, j)-0.5*(Q.At(i, j)+Q.At(j, i))+0.5*(C.At(i, j)+C.At(j, i)))
		}
	}
	return mean, cov, true
}

// ExactPredictCov returns the full-GP predictive mean and full latent
// covariance at s test points, given the n×n train kernel K, the s×n
// cross kernel Ks, the s×s test kernel Kss, the targets y (zero prior
// mean) and σ²:
//
//	mean = Ks (K + σ²I)⁻¹ y,   cov = Kss − Ks (K + σ²I)⁻¹ Ksᵀ.
//
// ok is false if K + σ²I is not numerically positive definite.
func ExactPredictCov(K mat.Symmetric, Ks mat.Matrix, Kss mat.Symmetric, y []float64, noise float64) (mean []float64, cov *mat.SymDense, ok bool) {
	n := checkTargets("ExactPredictCov", K, y)
	s, c := Ks.Dims()
	if c != n || Kss.SymmetricDim() != s {
		panic("naive: ExactPredictCov: dimension mismatch")
	}
	checkNoise("ExactPredictCov", noise, false)
	var chol mat.Cholesky
	if !chol.Factorize(withNoise(K, noise)) {
		return nil, nil, false
	}
	var alpha, mv mat.VecDense
	if err := chol.SolveVecTo(&alpha, mat.NewVecDense(n, y)); err != nil {
		return nil, nil, false
	}
	mv.MulVec(Ks, &alpha)
	var W, E mat.Dense
	if err := chol.SolveTo(&W, Ks.T()); err != nil {
		return nil, nil, false
	}
	E.Mul(Ks, &W)
	mean = make([]float64, s)
	cov = mat.NewSymDense(s, nil)
	for i := 0; i < s; i++ {
		mean[i] = mv.AtVec(i)
		for j := i; j < s; j++ {
			cov.SetSym(i, j, Kss.At(i, j)-0.5*(E.At(i, j)+E.At(j, i)))
		}
	}
	return mean, cov, true
}
