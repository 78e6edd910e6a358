package sgp

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/linalg"

	"github.com/cholqr/sgp/sgp/kernel"
)

// PredictGrad returns the gradients in the test input of the predictive
// mean and of the latent variance at each of the s inputs xs, as the rows
// of two s×d matrices (d the inputs' dimension; the noisy variance has
// the same gradient, σ² being constant). With k* = K[I, x*], g* = W⁻¹k*
// and h* = R⁻ᵀg*,
//
//	∂mean*/∂x* = Σ_c γ_c ∂κ(z_c, x*)/∂x*,   γ = W⁻ᵀR⁻¹a,
//	∂v*/∂x*    = ∂κ(x*, x*)/∂x* − 2 Σ_c q_c ∂κ(z_c, x*)/∂x*,
//	             q = W⁻ᵀ(g* − σ²R⁻¹h*) = (K_mm⁻¹ − Σ)k*,
//
// the kernel's input gradient (kernel.InputGradient) giving the ∂κ. It
// costs O(k²) and k kernel gradients per test point. It is the gradient
// of the variance formula, also where Predict clamps a variance that
// rounding made negative to 0. It returns an error for a kernel without
// input gradients, or inputs that are not vectors, and the errors of
// PredictTo.
func (p *Predictor) PredictGrad(xs kernel.Inputs) (dmean, dvar *mat.Dense, err error) {
	defer base.RecoverTo(&err)
	ig, base, zs, err := gradInputs(p.Kern, p.X, p.InputNames, xs)
	if err != nil {
		return nil, nil, err
	}
	k := len(p.a)
	gamma := append([]float64(nil), p.beta...)
	if k > 0 {
		linalg.Trsm(blas.Right, blas.Lower, blas.NoTrans, 1, k, p.w, k, gamma, k)
	}
	return inputGrads(ig, base, zs, func(b int, kx, wm, wv []float64) {
		for c := 0; c < b; c++ {
			copy(wm[c*k:(c+1)*k], gamma)
		}
		if k == 0 {
			return
		}
		// Row c of kx is k*ᵀ at test point c: the solves act on rows.
		g := wv[:b*k]
		copy(g, kx[:b*k])
		linalg.Trsm(blas.Right, blas.Lower, blas.Trans, b, k, p.w, k, g, k)
		t := append([]float64(nil), g...)
		linalg.Trsm(blas.Right, blas.Upper, blas.NoTrans, b, k, p.r, k, t, k)
		linalg.Trsm(blas.Right, blas.Upper, blas.Trans, b, k, p.r, k, t, k)
		for i := range g {
			g[i] = -2 * (g[i] - p.NoiseV*t[i])
		}
		linalg.Trsm(blas.Right, blas.Lower, blas.NoTrans, b, k, p.w, k, g, k)
	})
}

// gradInputs checks that kern has input gradients and that the model's
// inputs x and the test inputs xs are vectors it accepts, named as the
// model's (names).
func gradInputs(kern kernel.Kernel, x kernel.Inputs, names []string, xs kernel.Inputs) (kernel.InputGradient, *kernel.Vectors, *kernel.Vectors, error) {
	if err := checkPredictInputs(kern, names, xs); err != nil {
		return nil, nil, nil, err
	}
	ig, ok := kern.(kernel.InputGradient)
	if !ok {
		return nil, nil, nil, fmt.Errorf("sgp: the kernel %T has no input gradients (kernel.InputGradient), so the predictions' gradients in x are not available; these kernels have them: %s", kern, kernel.ListNames(kernel.NamesWith(func(c kernel.Caps) bool { return c.InputGradient })))
	}
	base, ok := x.(*kernel.Vectors)
	zs, ok2 := xs.(*kernel.Vectors)
	if !ok || !ok2 {
		return nil, nil, nil, fmt.Errorf("sgp: the predictions' gradients in x need vector inputs (*kernel.Vectors); got %T", xs)
	}
	return ig, base, zs, nil
}

// inputGradBlock is the number of test points whose gradients inputGrads takes
// at a time: its weights on κ(z_a, z_b) are inputGradBlock² values.
const inputGradBlock = 64

// inputGrads returns the s×d gradients Σ_i wm_ci ∂κ(x_i, z_c)/∂z_c and
// ∂κ(z_c, z_c)/∂z_c + Σ_i wv_ci ∂κ(x_i, z_c)/∂z_c at the test inputs
// z_c of zs, for the model's inputs x (n of them), with the weights set
// by weights for each block of b test points given kx[c·n+i] = κ(x_i,
// z_c) (wm and wv b×n, row c that of test point c).
func inputGrads(ig kernel.InputGradient, x, zs *kernel.Vectors, weights func(b int, kx, wm, wv []float64)) (dmean, dvar *mat.Dense, err error) {
	s, n, d := zs.Len(), x.Len(), zs.Dim()
	if s == 0 || d == 0 {
		return &mat.Dense{}, &mat.Dense{}, nil
	}
	dm, dv := make([]float64, s*d), make([]float64, s*d)
	b0 := min(inputGradBlock, s)
	kx, wm, wv := make([]float64, b0*n), make([]float64, b0*n), make([]float64, b0*n)
	kz, zero, eye := make([]float64, b0*b0), make([]float64, b0*b0), make([]float64, b0*b0)
	idx := make([]int, b0)
	for lo := 0; lo < s; lo += b0 {
		b := min(b0, s-lo)
		for c := range idx[:b] {
			idx[c] = lo + c
		}
		z := zs.Rows(idx[:b])
		for c := 0; c < b; c++ {
			ig.Column(kx[c*n:(c+1)*n], x, 0, n, z, c)
			ig.Column(kz[c*b:(c+1)*b], z, 0, b, z, c)
		}
		clear(eye[:b*b])
		for c := 0; c < b; c++ {
			eye[c*b+c] = 1
		}
		weights(b, kx[:b*n], wm[:b*n], wv[:b*n])
		ig.InputGradT(dm[lo*d:(lo+b)*d], wm[:b*n], kx[:b*n], zero[:b*b], kz[:b*b], x, z)
		ig.InputGradT(dv[lo*d:(lo+b)*d], wv[:b*n], kx[:b*n], eye[:b*b], kz[:b*b], x, z)
	}
	return mat.NewDense(s, d, dm), mat.NewDense(s, d, dv), nil
}
