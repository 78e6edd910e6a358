package naive

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// problem is a random GP regression problem with an RBF kernel.
type problem struct {
	x            [][]float64
	variance     float64
	lengthscales []float64
	noise        float64
	y            []float64
	K            *mat.SymDense
}

// randomInputs returns n points uniform in [0, 3·n^(1/d))ᵈ, so that the
// density of points (and hence the conditioning of K) does not blow up with n.
func randomInputs(rnd *rand.Rand, n, d int) [][]float64 {
	width := 3 * math.Pow(float64(n), 1/float64(d))
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for t := range x[i] {
			x[i][t] = width * rnd.Float64()
		}
	}
	return x
}

// randomProblem draws a problem with n points in d dimensions, lengthscales
// in [0.5, 1.5), signal variance in [0.5, 2) and noise in [0.05, 0.5).
func randomProblem(rnd *rand.Rand, n, d int) problem {
	p := problem{
		x:            randomInputs(rnd, n, d),
		variance:     0.5 + 1.5*rnd.Float64(),
		lengthscales: make([]float64, d),
		noise:        0.05 + 0.45*rnd.Float64(),
		y:            make([]float64, n),
	}
	for t := range p.lengthscales {
		p.lengthscales[t] = 0.5 + rnd.Float64()
	}
	for i := range p.y {
		p.y[i] = rnd.NormFloat64()
	}
	p.K = RBF(p.x, p.variance, p.lengthscales)
	return p
}

// allIndices returns 0, 1, …, n−1 in a random order.
func allIndices(rnd *rand.Rand, n int) []int {
	return rnd.Perm(n)
}

func TestDTCAllPointsIsExact(t *testing.T) {
	const tol = 1e-9
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 5, 20} {
		for d := 1; d <= 3; d++ {
			for trial := 0; trial < 5; trial++ {
				p := randomProblem(rnd, n, d)
				exact := ExactNMLL(p.K, p.y, p.noise)
				mle, vfe, ok := DTC(p.K, p.y, p.noise, allIndices(rnd, n))
				if !ok {
					t.Fatalf("n=%d d=%d trial=%d: DTC not ok", n, d, trial)
				}
				if !scalar.EqualWithinAbsOrRel(mle, exact, tol, tol) {
					t.Errorf("n=%d d=%d trial=%d: DTC mle = %.15g, ExactNMLL = %.15g", n, d, trial, mle, exact)
				}
				if !scalar.EqualWithinAbsOrRel(vfe, mle, tol, tol) {
					t.Errorf("n=%d d=%d trial=%d: vfe = %.15g, mle = %.15g, want equal", n, d, trial, vfe, mle)
				}
			}
		}
	}
}

func TestExactNMLLOnePoint(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 20; trial++ {
		k := 0.1 + 3*rnd.Float64()
		noise := 0.01 + rnd.Float64()
		y := 3 * rnd.NormFloat64()
		K := mat.NewSymDense(1, []float64{k})
		got := ExactNMLL(K, []float64{y}, noise)
		want := 0.5*y*y/(k+noise) + 0.5*math.Log(k+noise) + 0.5*math.Log(2*math.Pi)
		if !scalar.EqualWithinAbsOrRel(got, want, 1e-14, 1e-14) {
			t.Errorf("k=%v σ²=%v y=%v: ExactNMLL = %.17g, want %.17g", k, noise, y, got, want)
		}
	}
}

// rankOneDTC computes DTC for I = {i} by hand. With q = K[:,i]/√K[i][i],
// Q = qqᵀ and A = Q + σ²I, Sherman–Morrison and the matrix determinant lemma
// give
//
//	yᵀA⁻¹y = σ⁻² (yᵀy − (qᵀy)² / (σ² + qᵀq))
//	log|A| = n log σ² + log(1 + qᵀq / σ²)
//	tr(K − Q) = Σⱼ (K[j][j] − qⱼ²)
func rankOneDTC(K mat.Symmetric, y []float64, noise float64, i int) (mle, vfe float64) {
	n := len(y)
	root := math.Sqrt(K.At(i, i))
	var qq, qy, yy, trace float64
	for j := 0; j < n; j++ {
		q := K.At(j, i) / root
		qq += q * q
		qy += q * y[j]
		yy += y[j] * y[j]
		trace += K.At(j, j) - q*q
	}
	quad := (yy - qy*qy/(noise+qq)) / noise
	logDet := float64(n)*math.Log(noise) + math.Log1p(qq/noise)
	mle = 0.5*quad + 0.5*logDet + 0.5*float64(n)*math.Log(2*math.Pi)
	vfe = mle + 0.5*trace/noise
	return mle, vfe
}

func TestDTCRankOne(t *testing.T) {
	const tol = 1e-10
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 5, 20, 50} {
		for d := 1; d <= 3; d++ {
			p := randomProblem(rnd, n, d)
			for i := 0; i < n; i++ {
				mle, vfe, ok := DTC(p.K, p.y, p.noise, []int{i})
				if !ok {
					t.Fatalf("n=%d d=%d i=%d: DTC not ok", n, d, i)
				}
				wantMLE, wantVFE := rankOneDTC(p.K, p.y, p.noise, i)
				if !scalar.EqualWithinAbsOrRel(mle, wantMLE, tol, tol) {
					t.Errorf("n=%d d=%d i=%d: mle = %.15g, want %.15g", n, d, i, mle, wantMLE)
				}
				if !scalar.EqualWithinAbsOrRel(vfe, wantVFE, tol, tol) {
					t.Errorf("n=%d d=%d i=%d: vfe = %.15g, want %.15g", n, d, i, vfe, wantVFE)
				}
			}
		}
	}
}

func TestVFEIsUpperBound(t *testing.T) {
	// Slack for round-off when the bound is tight (I = all points).
	const slack = 1e-9
	rnd := rand.New(rand.NewPCG(1, 1))
	var strict int
	for trial := 0; trial < 200; trial++ {
		n := 1 + rnd.IntN(40)
		d := 1 + rnd.IntN(3)
		p := randomProblem(rnd, n, d)
		m := 1 + rnd.IntN(n)
		I := rnd.Perm(n)[:m]
		mle, vfe, ok := DTC(p.K, p.y, p.noise, I)
		if !ok {
			t.Fatalf("trial %d (n=%d m=%d): DTC not ok", trial, n, m)
		}
		exact := ExactNMLL(p.K, p.y, p.noise)
		if vfe < mle-slack*math.Abs(mle) {
			t.Errorf("trial %d (n=%d m=%d): vfe = %.15g < mle = %.15g", trial, n, m, vfe, mle)
		}
		if vfe < exact-slack*math.Abs(exact) {
			t.Errorf("trial %d (n=%d m=%d): vfe = %.15g < ExactNMLL = %.15g", trial, n, m, vfe, exact)
		}
		if vfe > exact+1e-6 {
			strict++
		}
	}
	// Guard against a vacuous test: most random subsets leave a real gap.
	if strict < 100 {
		t.Errorf("only %d of 200 trials had vfe clearly above ExactNMLL", strict)
	}
}

func TestPredictDTCAllPointsIsExact(t *testing.T) {
	const tol = 1e-8
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 5, 20} {
		for d := 1; d <= 3; d++ {
			p := randomProblem(rnd, n, d)
			s := 1 + rnd.IntN(10)
			xs := randomInputs(rnd, s, d)
			// Include a training point as a test point too.
			xs = append(xs, p.x[rnd.IntN(n)])
			s++
			Ks := RBFCross(xs, p.x, p.variance, p.lengthscales)
			kss := make([]float64, s)
			for i := range kss {
				kss[i] = p.variance
			}

			wantMean, wantVar, ok := ExactPredict(p.K, Ks, kss, p.y, p.noise)
			if !ok {
				t.Fatalf("n=%d d=%d: ExactPredict not ok", n, d)
			}
			mean, variance, ok := PredictDTC(p.K, Ks, kss, p.y, p.noise, allIndices(rnd, n))
			if !ok {
				t.Fatalf("n=%d d=%d: PredictDTC not ok", n, d)
			}
			for i := 0; i < s; i++ {
				if !scalar.EqualWithinAbsOrRel(mean[i], wantMean[i], tol, tol) {
					t.Errorf("n=%d d=%d test %d: mean = %.15g, want %.15g", n, d, i, mean[i], wantMean[i])
				}
				if !scalar.EqualWithinAbsOrRel(variance[i], wantVar[i], tol, tol) {
					t.Errorf("n=%d d=%d test %d: var = %.15g, want %.15g", n, d, i, variance[i], wantVar[i])
				}
				if wantVar[i] < 0 || wantVar[i] > kss[i] {
					t.Errorf("n=%d d=%d test %d: exact var = %v outside [0, %v]", n, d, i, wantVar[i], kss[i])
				}
			}
		}
	}
}

func TestExactPredictOnePoint(t *testing.T) {
	// n = 1, s = 1: mean = k_s y / (k + σ²), var = kss − k_s² / (k + σ²).
	const k, ks, kss, noise, y = 2.0, 0.7, 1.5, 0.3, -1.2
	K := mat.NewSymDense(1, []float64{k})
	Ks := mat.NewDense(1, 1, []float64{ks})
	mean, variance, ok := ExactPredict(K, Ks, []float64{kss}, []float64{y}, noise)
	if !ok {
		t.Fatal("ExactPredict not ok")
	}
	if want := ks * y / (k + noise); !scalar.EqualWithinAbsOrRel(mean[0], want, 1e-14, 1e-14) {
		t.Errorf("mean = %v, want %v", mean[0], want)
	}
	if want := kss - ks*ks/(k+noise); !scalar.EqualWithinAbsOrRel(variance[0], want, 1e-14, 1e-14) {
		t.Errorf("var = %v, want %v", variance[0], want)
	}
}

func TestRBF(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 7} {
		for d := 1; d <= 3; d++ {
			p := randomProblem(rnd, n, d)
			cross := RBFCross(p.x, p.x, p.variance, p.lengthscales)
			if r, c := cross.Dims(); r != n || c != n {
				t.Fatalf("RBFCross(x, x) is %d×%d, want %d×%d", r, c, n, n)
			}
			for i := 0; i < n; i++ {
				if !scalar.EqualWithinAbsOrRel(p.K.At(i, i), p.variance, 1e-15, 1e-15) {
					t.Errorf("n=%d d=%d: K[%d][%d] = %v, want variance %v", n, d, i, i, p.K.At(i, i), p.variance)
				}
				for j := 0; j < n; j++ {
					if !scalar.EqualWithinAbsOrRel(p.K.At(i, j), p.K.At(j, i), 1e-15, 1e-15) {
						t.Errorf("n=%d d=%d: K[%d][%d] = %v ≠ K[%d][%d] = %v", n, d, i, j, p.K.At(i, j), j, i, p.K.At(j, i))
					}
					if !scalar.EqualWithinAbsOrRel(cross.At(i, j), p.K.At(i, j), 1e-15, 1e-15) {
						t.Errorf("n=%d d=%d: RBFCross[%d][%d] = %v, RBF = %v", n, d, i, j, cross.At(i, j), p.K.At(i, j))
					}
					if !scalar.EqualWithinAbsOrRel(cross.At(i, j), cross.At(j, i), 1e-15, 1e-15) {
						t.Errorf("n=%d d=%d: RBFCross(x, x) not symmetric at (%d, %d)", n, d, i, j)
					}
				}
			}
		}
	}

	// A hand-computed value: two 2-D points with different lengthscales.
	x := [][]float64{{0, 0}, {1, 3}}
	K := RBF(x, 2.5, []float64{0.5, 2})
	// Σₜ Δₜ²/ℓₜ² = 1/0.25 + 9/4 = 6.25.
	want := 2.5 * math.Exp(-0.5*6.25)
	if !scalar.EqualWithinAbsOrRel(K.At(0, 1), want, 1e-15, 1e-15) {
		t.Errorf("K[0][1] = %v, want %v", K.At(0, 1), want)
	}
	cross := RBFCross(x[:1], x, 2.5, []float64{0.5, 2})
	if r, c := cross.Dims(); r != 1 || c != 2 {
		t.Fatalf("RBFCross dims = %d×%d, want 1×2", r, c)
	}
	if !scalar.EqualWithinAbsOrRel(cross.At(0, 1), want, 1e-15, 1e-15) {
		t.Errorf("RBFCross[0][1] = %v, want %v", cross.At(0, 1), want)
	}
}

func TestNotPositiveDefinite(t *testing.T) {
	// Two identical inputs make K[I,I] exactly singular when both are inducing.
	x := [][]float64{{0.3}, {0.3}, {1.1}}
	K := RBF(x, 1, []float64{1})
	y := []float64{0.5, -0.2, 1}
	if _, _, ok := DTC(K, y, 0.1, []int{0, 1}); ok {
		t.Error("DTC with duplicate inducing inputs: ok = true, want false")
	}
	Ks := RBFCross([][]float64{{0.7}}, x, 1, []float64{1})
	if _, _, ok := PredictDTC(K, Ks, []float64{1}, y, 0.1, []int{1, 0}); ok {
		t.Error("PredictDTC with duplicate inducing inputs: ok = true, want false")
	}
	// Without noise the full K is singular too.
	if got := ExactNMLL(K, y, 0); !math.IsNaN(got) {
		t.Errorf("ExactNMLL of singular K = %v, want NaN", got)
	}
	if _, _, ok := ExactPredict(K, Ks, []float64{1}, y, 0); ok {
		t.Error("ExactPredict of singular K: ok = true, want false")
	}
	// Distinct inducing inputs are fine even with duplicated training inputs.
	if _, _, ok := DTC(K, y, 0.1, []int{1, 2}); !ok {
		t.Error("DTC with distinct inducing inputs: ok = false, want true")
	}
}

func TestBadArgumentsPanic(t *testing.T) {
	K := RBF([][]float64{{0}, {1}, {2}}, 1, []float64{1})
	y := []float64{1, 2, 3}
	for name, f := range map[string]func(){
		"repeated index": func() { DTC(K, y, 0.1, []int{0, 0}) },
		"index range":    func() { DTC(K, y, 0.1, []int{3}) },
		"empty I":        func() { DTC(K, y, 0.1, nil) },
		"zero noise":     func() { DTC(K, y, 0, []int{0}) },
		"short y":        func() { ExactNMLL(K, y[:2], 0.1) },
		"dimension":      func() { RBF([][]float64{{0, 1}}, 1, []float64{1}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
