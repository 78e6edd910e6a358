package sgp

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"
)

// posteriorBench returns a Predictor with k = 128 inducing points of
// n = 2000 in 4-D and ns test inputs.
func posteriorBench(b *testing.B, ns int) (*Predictor, *kernel.Vectors) {
	b.Helper()
	x, y := benchProblem(2000, 4, 3)
	p, err := NewModel(x, y, kernel.NewRBF(1, []float64{0.7, 0.8, 0.9, 1.0})).WithInducing(rand.New(rand.NewPCG(3, 3)).Perm(2000)[:128]).
		WithNoise(0.01).WithFixedHyperparameters(true).Predictor()
	if err != nil {
		b.Fatal(err)
	}
	xs, _ := benchProblem(ns, 4, 4)
	return p, xs
}

// BenchmarkPredictCov measures the s×s latent covariance at s = 10³ and
// 10⁴ test inputs, k = 128.
func BenchmarkPredictCov(b *testing.B) {
	for _, ns := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("nstar=%d,k=128", ns), func(b *testing.B) {
			p, xs := posteriorBench(b, ns)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_, c, err := p.PredictCov(xs)
				if err != nil {
					b.Fatal(err)
				}
				GlobalF += c.At(0, 0)
			}
		})
	}
}

// BenchmarkSample measures 100 posterior draws at s = 10³ (joint, the
// default up to MaxJointSample, and factored), 2000 (joint, at
// MaxJointSample) and 10⁴ (factored, the default above it) test inputs,
// k = 128.
func BenchmarkSample(b *testing.B) {
	for _, c := range []struct {
		ns int
		m  SampleMethod
	}{{1000, SampleJoint}, {2000, SampleJoint}, {1000, SampleFactored}, {10000, SampleFactored}} {
		b.Run(fmt.Sprintf("nstar=%d,k=128,%v", c.ns, c.m), func(b *testing.B) {
			p, xs := posteriorBench(b, c.ns)
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d, err := p.SampleWith(xs, 100, rng, SampleOptions{Method: c.m})
				if err != nil {
					b.Fatal(err)
				}
				GlobalF += d.At(0, 0)
			}
		})
	}
}
