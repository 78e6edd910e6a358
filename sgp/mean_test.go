package sgp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/naive"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// shifted returns y + c.
func shifted(y []float64, c float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = v + c
	}
	return out
}

// TestFactorMeanOracle checks the factor's closed-form mean and the
// objective at that mean against the dense oracle (naive.DTCMean, naive.DTC
// on y − μ̂), from a fresh factorisation and after swaps, which update b =
// Q[:n,:]ᵀ1 by the same rotations as a.
func TestFactorMeanOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{5, 31, 64} {
		for _, m := range []int{1, 3, min(8, n-1)} {
			t.Run(fmt.Sprintf("n=%d,m=%d", n, m), func(t *testing.T) {
				p := newProblem(rng, n, 2, 1.3, 1.1, 0.05)
				p.y = shifted(p.y, 3.5) // a mean far from zero
				f := p.factor(t, m, 4)
				active := rng.Perm(n)[:m]
				if err := f.Factorize(active); err != nil {
					t.Fatal(err)
				}
				check := func(stage string) {
					t.Helper()
					act := f.Active(nil)
					want, ok := naive.DTCMean(p.K, p.y, p.noise, act)
					if !ok {
						t.Fatalf("%s: oracle failed", stage)
					}
					got := f.GLSMean()
					if !scalar.EqualWithinAbsOrRel(got, want, 1e-9, 1e-9) {
						t.Fatalf("%s: GLSMean %.15g, oracle %.15g", stage, got, want)
					}
					// Under MeanConstant's prior N(ȳ, var y): the MAP mean and
					// the objective with the prior's term.
					ybar, tau2 := meanVar(p.y)
					wantMAP, _ := naive.DTCMeanPrior(p.K, p.y, p.noise, act, ybar, tau2)
					f.SetPrior(MeanConstant.prior(p.y))
					gotMAP := f.MAPMean()
					if !scalar.EqualWithinAbsOrRel(gotMAP, wantMAP, 1e-9, 1e-9) {
						t.Fatalf("%s: MAPMean %.15g, oracle %.15g", stage, gotMAP, wantMAP)
					}
					saved := f.Mean()
					f.SetMean(gotMAP)
					mleP, vfeP, _ := naive.DTC(p.K, shifted(p.y, -gotMAP), p.noise, act)
					pen := 0.5 * (gotMAP - ybar) * (gotMAP - ybar) / tau2
					if pp := f.Parts(); !scalar.EqualWithinAbsOrRel(pp.MLE, mleP+pen, 1e-9, 1e-9) || !scalar.EqualWithinAbsOrRel(pp.VAR, vfeP+pen, 1e-9, 1e-9) {
						t.Fatalf("%s: with the prior MLE %.12g VAR %.12g, oracle %.12g %.12g", stage, pp.MLE, pp.VAR, mleP+pen, vfeP+pen)
					}
					f.SetPrior(base.MeanPrior{})
					f.SetMean(saved)
					f.SetMean(got)
					mle, vfe, _ := naive.DTC(p.K, shifted(p.y, -got), p.noise, act)
					parts := f.Parts()
					if !scalar.EqualWithinAbsOrRel(parts.MLE, mle, 1e-9, 1e-9) || !scalar.EqualWithinAbsOrRel(parts.VAR, vfe, 1e-9, 1e-9) {
						t.Fatalf("%s: MLE %.12g VAR %.12g, oracle %.12g %.12g", stage, parts.MLE, parts.VAR, mle, vfe)
					}
					// μ̂ minimises: moving it raises both objectives.
					for _, eps := range []float64{-0.1, 0.1} {
						mle2, _, _ := naive.DTC(p.K, shifted(p.y, -got-eps), p.noise, act)
						if !(mle2 > mle) {
							t.Fatalf("%s: MLE at μ̂%+g is %.12g, not above %.12g", stage, eps, mle2, mle)
						}
					}
				}
				check("factorize")
				for s := 0; s < 2*m; s++ {
					f.Swap(rng.IntN(f.NumActive()), VAR, rng.IntN)
				}
				check("after swaps")
				// The objective at a new mean follows from b alone.
				f.SetMean(f.Mean() + 0.7)
				mle, _, _ := naive.DTC(p.K, shifted(p.y, -f.Mean()), p.noise, f.Active(nil))
				if got := f.Parts().MLE; !scalar.EqualWithinAbsOrRel(got, mle, 1e-9, 1e-9) {
					t.Fatalf("SetMean: MLE %.12g, oracle %.12g", got, mle)
				}
			})
		}
	}
}

// TestEvaluatorMeanProfile checks that the gradient phase with an
// estimated mean evaluates the profile objective min_μ F(θ, μ), equal to
// the oracle at the MAP mean (MeanConstant, with the prior's term) and at
// the GLS mean (MeanGLS), and that its gradient matches central finite
// differences of that profile.
func TestEvaluatorMeanProfile(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 8))
	p := newProblem(rng, 40, 2, 1.1, 0.9, 0.04)
	p.y = shifted(p.y, -12)
	active := rng.Perm(40)[:7]
	ybar, tau2 := meanVar(p.y)
	for _, c := range []struct {
		mn        Mean
		m0, tau2  float64
		withPrior bool
	}{{MeanConstant, ybar, tau2, true}, {MeanGLS, 0, math.Inf(1), false}} {
		for _, o := range []Objective{VAR, MLE} {
			ev := NewEvaluator(p.x, p.y, p.kern, o, active)
			ev.SetMean(c.mn)
			theta := append(p.kern.Params(nil), math.Log(p.noise))
			grad := make([]float64, len(theta))
			got, err := ev.FuncGrad(grad, theta)
			if err != nil {
				t.Fatal(err)
			}
			mu, _ := naive.DTCMeanPrior(p.K, p.y, p.noise, active, c.m0, c.tau2)
			if !scalar.EqualWithinAbsOrRel(ev.Mean(), mu, 1e-9, 1e-9) {
				t.Fatalf("%v, %v: mean %.12g, oracle %.12g", c.mn, o, ev.Mean(), mu)
			}
			mle, vfe, _ := naive.DTC(p.K, shifted(p.y, -mu), p.noise, active)
			want := vfe
			if o == MLE {
				want = mle
			}
			if c.withPrior {
				want += 0.5 * (mu - c.m0) * (mu - c.m0) / c.tau2
			}
			if !scalar.EqualWithinAbsOrRel(got, want, 1e-9, 1e-9) {
				t.Fatalf("%v: F %.12g, oracle %.12g", o, got, want)
			}
			fdg := fdEvaluatorGrad(t, ev, theta)
			var worst float64
			for i := range grad {
				worst = math.Max(worst, math.Abs(grad[i]-fdg[i])/math.Max(1, math.Abs(fdg[i])))
			}
			if worst > 1e-5 {
				t.Fatalf("%v: gradient %v, finite differences %v (|Δ|∞ rel %.3g)", o, grad, fdg, worst)
			}
		}
	}
}

// TestModelMeanInvariance fits shifted and rescaled targets: with the
// estimated mean and data-scaled starting hyperparameters the test SMSE
// stays within 5% of that of the original targets.
func TestModelMeanInvariance(t *testing.T) {
	t.Parallel()
	train, test := data.SnelsonLike(300, 3)
	test = test.Subset(interior(test))
	fit := func(a, b float64) float64 {
		y := make([]float64, len(train.Y))
		for i, v := range train.Y {
			y[i] = a*v + b
		}
		ty := make([]float64, len(test.Y))
		for i, v := range test.Y {
			ty[i] = a*v + b
		}
		md := NewModel(train.X, y, kernel.NewRBFFromData(train.X, y)).WithM(12).WithSeed(2).WithMaxEpochs(30)
		res, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged {
			t.Errorf("a=%g b=%g: not converged: %s", a, b, stopText(res.Status, res.Reason))
		}
		ev, err := md.Evaluate(&data.Dataset{X: test.X, Y: ty})
		if err != nil {
			t.Fatal(err)
		}
		return ev.SMSE
	}
	base := fit(1, 0)
	if !(base < 0.1) {
		t.Fatalf("SMSE of the original targets %.4g; the fit failed", base)
	}
	for _, c := range [][2]float64{{1, 1e2}, {1, 1e4}, {1e-8, 0}, {1e8, 0}, {1e8, -3e9}} {
		got := fit(c[0], c[1])
		if math.Abs(got-base) > 0.05*base {
			t.Errorf("y·%g%+g: SMSE %.4g, original %.4g", c[0], c[1], got, base)
		}
	}
}

// TestModelSmallStartNoise starts from a noise variance 10⁶ times too
// small: the first steps of the gradient phase overflow and must be
// backtracked, and the fit must still converge to a good model.
func TestModelSmallStartNoise(t *testing.T) {
	t.Parallel()
	train, test := data.SnelsonLike(500, 1)
	test = test.Subset(interior(test))
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithNoise(1e-6).WithM(20).WithSeed(1)
	res, err := md.Fit()
	if err != nil {
		t.Fatal(err)
	}
	ev, err := md.Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	smse := ev.SMSE
	noise, _ := md.Noise()
	if !res.Converged || !(smse < 0.05) || !(noise > 1e-3) {
		t.Fatalf("stopped %q (converged %v), SMSE %.4g, noise %.3g", stopText(res.Status, res.Reason), res.Converged, smse, noise)
	}
	// A gradient phase that finds its lowest values where the inducing set
	// cannot be held goes back to its start (CGUndone; with OpenBLAS the
	// first epoch does so here, the Go BLAS's rounding takes another
	// path): such an epoch must not count as convergence.
	tr := md.Trace()
	if last := tr[len(tr)-1]; last.CGStatus == CGUndone && res.Converged {
		t.Errorf("the fit counted its last epoch, undone (%q), as convergence", last.CGStatus)
	}
}

// TestRestoreKeepsValidFactor checks that Model.restore leaves a valid
// factor where the set cannot be factorised whole at θ: two inputs 10⁻⁵
// apart at lengthscale 1 have a residual far below the rebuild tolerance.
func TestRestoreKeepsValidFactor(t *testing.T) {
	t.Parallel()
	xs := []float64{0, 1e-5, 0.7, 1.3, 2.1, 2.9, 3.4, 4.2, 5.0, 5.5}
	y := make([]float64, len(xs))
	for i, v := range xs {
		y[i] = math.Sin(v)
	}
	x, _ := kernel.NewVectors(len(xs), 1, xs)
	md := NewModel(x, y, kernel.NewRBF(1, []float64{1})).WithInducing([]int{2, 5, 8}).WithNoise(0.01)
	if err := md.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	theta := md.Params()
	if md.refactor(theta, []int{0, 1, 5}) == nil {
		t.Fatal("the set {0, 1, 5} factorised: the test has lost its case")
	}
	md.restore(theta, []int{0, 1, 5}, md.obj)
	if !md.f.Ready() {
		t.Fatal("restore left the factor invalid")
	}
	if v := md.f.Value(VAR); math.IsNaN(v) || math.IsInf(v, 0) {
		t.Errorf("objective after restore %v", v)
	}
	if got := md.f.NumActive(); got != 3 {
		t.Errorf("%d inducing points after restore, want 3 (one of the pair left out, the set refilled)", got)
	}
}

// TestMeanZeroMatchesPaperModel checks that MeanZero leaves the targets
// alone (the objective equals the zero-mean oracle) and that a fixed mean
// is used as given and saved with the model.
func TestMeanZeroAndFixed(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	p := newProblem(rng, 30, 1, 1, 0.8, 0.05)
	p.y = shifted(p.y, 2)
	act := []int{3, 9, 17, 25}
	for _, tc := range []struct {
		mean Mean
		mu   float64
	}{{MeanZero, 0}, {MeanFixed(1.25), 1.25}} {
		md := NewModel(p.x, p.y, p.kern).WithInducing(act).WithNoise(p.noise).WithMean(tc.mean)
		mu, err := md.Mean()
		if err != nil {
			t.Fatal(err)
		}
		if mu != tc.mu {
			t.Fatalf("%v: mean %g", tc.mean, mu)
		}
		_, vfe, _ := naive.DTC(p.K, shifted(p.y, -tc.mu), p.noise, act)
		if got, _ := md.Value(); !scalar.EqualWithinAbsOrRel(got, vfe, 1e-9, 1e-9) {
			t.Fatalf("%v: F %.12g, oracle %.12g", tc.mean, got, vfe)
		}
		pr, _ := md.Predictor()
		if pr.PriorMean != tc.mu {
			t.Fatalf("%v: predictor mean %g", tc.mean, pr.PriorMean)
		}
	}
}

// TestParseMean covers the spellings of ParseMean.
func TestParseMean(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{"constant": "constant", "Zero": "zero", "2.5": "2.5", " -1e3 ": "-1000"} {
		got, err := ParseMean(s)
		if err != nil || got.String() != want {
			t.Errorf("ParseMean(%q) = %v, %v; want %s", s, got, err, want)
		}
	}
	for _, s := range []string{"", "mean", "NaN", "inf"} {
		if _, err := ParseMean(s); err == nil {
			t.Errorf("ParseMean(%q) accepted", s)
		}
	}
}
