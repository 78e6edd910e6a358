package naive

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// The kernels below are written from their textbook formulas, one pair of
// inputs at a time, independently of package sgp/kernel (Rasmussen &
// Williams 2006, ch. 4; MacKay 1998 for the periodic kernel), so that
// agreement with the kernel package's blocks and gradients is
// meaningful. Each returns κ as a function of two input rows.

// Func is a covariance function of two input rows.
type Func func(a, b []float64) float64

// Gram returns the n×n matrix K[i][j] = k(x_i, x_j).
func Gram(x [][]float64, k Func) *mat.SymDense {
	n := len(x)
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			K.SetSym(i, j, k(x[i], x[j]))
		}
	}
	return K
}

// Cross returns the a×b matrix K[i][j] = k(xa_i, xb_j).
func Cross(xa, xb [][]float64, k Func) *mat.Dense {
	K := mat.NewDense(len(xa), len(xb), nil)
	for i := range xa {
		for j := range xb {
			K.Set(i, j, k(xa[i], xb[j]))
		}
	}
	return K
}

// distance returns √(Σ_t ((a_t − b_t)/ℓ_t)²).
func distance(a, b, ls []float64) float64 {
	var s float64
	for t := range a {
		d := (a[t] - b[t]) / ls[t]
		s += d * d
	}
	return math.Sqrt(s)
}

// RBFFunc is the ARD squared-exponential kernel of RBF.
func RBFFunc(variance float64, ls []float64) Func {
	return func(a, b []float64) float64 { return rbf(a, b, variance, ls) }
}

// MaternFunc is the ARD Matérn kernel of smoothness nu = 0.5, 1.5 or 2.5
// (R&W eq. 4.17): with r the scaled distance,
//
//	ν = 1/2: V·exp(−r),  ν = 3/2: V·(1 + √3 r)·exp(−√3 r),
//	ν = 5/2: V·(1 + √5 r + 5r²/3)·exp(−√5 r).
func MaternFunc(nu, variance float64, ls []float64) Func {
	return func(a, b []float64) float64 {
		r := distance(a, b, ls)
		switch nu {
		case 0.5:
			return variance * math.Exp(-r)
		case 1.5:
			return variance * (1 + math.Sqrt(3)*r) * math.Exp(-math.Sqrt(3)*r)
		case 2.5:
			return variance * (1 + math.Sqrt(5)*r + 5*r*r/3) * math.Exp(-math.Sqrt(5)*r)
		}
		panic("naive: Matérn ν must be 0.5, 1.5 or 2.5")
	}
}

// RQFunc is the ARD rational quadratic kernel V·(1 + r²/(2α))^{−α} (R&W
// eq. 4.19).
func RQFunc(variance float64, ls []float64, alpha float64) Func {
	return func(a, b []float64) float64 {
		r := distance(a, b, ls)
		return variance * math.Pow(1+r*r/(2*alpha), -alpha)
	}
}

// LinearFunc is the ARD linear kernel Σ_t V_t a_t b_t.
func LinearFunc(variances []float64) Func {
	return func(a, b []float64) float64 {
		var s float64
		for t, v := range variances {
			s += v * a[t] * b[t]
		}
		return s
	}
}

// PeriodicFunc is the periodic kernel V·exp(−½ Σ_t sin²(π(a_t − b_t)/p_t)/ℓ_t²).
func PeriodicFunc(variance float64, ls, periods []float64) Func {
	return func(a, b []float64) float64 {
		var s float64
		for t := range a {
			v := math.Sin(math.Pi*(a[t]-b[t])/periods[t]) / ls[t]
			s += v * v
		}
		return variance * math.Exp(-0.5*s)
	}
}

// ConstFunc is the constant kernel V.
func ConstFunc(variance float64) Func {
	return func(a, b []float64) float64 { return variance }
}

// SumFunc is the sum of the kernels fs.
func SumFunc(fs ...Func) Func {
	return func(a, b []float64) float64 {
		var s float64
		for _, f := range fs {
			s += f(a, b)
		}
		return s
	}
}

// ProductFunc is the product of the kernels fs.
func ProductFunc(fs ...Func) Func {
	return func(a, b []float64) float64 {
		p := 1.0
		for _, f := range fs {
			p *= f(a, b)
		}
		return p
	}
}
