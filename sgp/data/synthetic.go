package data

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cholqr/sgp/sgp/kernel"
)

func snelsonF(x float64) float64 {
	return 1.1*math.Sin(3*x) + 0.5*math.Cos(7*x)*math.Exp(-0.2*x) - 0.35
}

// SnelsonLike generates an embedded Snelson-like 1-D regression problem that
// needs no download: n inputs drawn uniformly in [0, 6] (seeded, math/rand/v2
// with rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), targets f(x)+noise with
// f(x) = 1.1·sin(3x) + 0.5·cos(7x)·exp(−0.2x) − 0.35 (range about
// [−1.77, 1.03] on [0, 6]) and Gaussian noise of standard deviation 0.25.
// The result is deterministic for a given (n, seed). It also returns a
// regular test grid of 301 points on [−1, 7] with the noise-free f values as
// targets. It panics if n < 1.
func SnelsonLike(n int, seed uint64) (train *Dataset, test *Dataset) {
	if n < 1 {
		panic(fmt.Sprintf("sgp: SnelsonLike needs n ≥ 1, got %d", n))
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	xs := make([]float64, n)
	ys := make([]float64, n)
	for i := range xs {
		xs[i] = 6 * rng.Float64()
		ys[i] = snelsonF(xs[i]) + 0.25*rng.NormFloat64()
	}
	const m = 301
	gx := make([]float64, m)
	gy := make([]float64, m)
	for i := range gx {
		gx[i] = -1 + 8*float64(i)/(m-1)
		gy[i] = snelsonF(gx[i])
	}
	x, err := kernel.NewVectors(n, 1, xs)
	if err != nil {
		panic("sgp: SnelsonLike: " + err.Error()) // unreachable: all values are finite
	}
	g, err := kernel.NewVectors(m, 1, gx)
	if err != nil {
		panic("sgp: SnelsonLike: " + err.Error()) // unreachable: all values are finite
	}
	return &Dataset{Name: "snelson-like", X: x, Y: ys},
		&Dataset{Name: "snelson-like-grid", X: g, Y: gy}
}

// SyntheticARD generates a regression problem in d ≥ 3 input dimensions of
// which only three matter, the setting where automatic relevance
// determination must switch most inputs off: inputs uniform in [−1, 1]^d,
// targets
//
//	f(x) = sin(2x₀) + ½cos(3x₁) + x₀x₂
//
// plus Gaussian noise whose variance is 5% of f's variance over the
// inputs (about 0.9, so the noise standard deviation is 0.21). The test
// set of nTest points is drawn the same way, with noise. It is
// deterministic for a given (n, nTest, d, seed) and panics if n < 1,
// nTest < 1 or d < 3.
func SyntheticARD(n, nTest, d int, seed uint64) (train, test *Dataset) {
	if n < 1 || nTest < 1 || d < 3 {
		panic(fmt.Sprintf("sgp: SyntheticARD needs n, nTest ≥ 1 and d ≥ 3, got %d, %d, %d", n, nTest, d))
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d))
	f := func(x []float64) float64 {
		return math.Sin(2*x[0]) + 0.5*math.Cos(3*x[1]) + x[0]*x[2]
	}
	const noiseSD = 0.21
	gen := func(name string, n int) *Dataset {
		data := make([]float64, n*d)
		y := make([]float64, n)
		for i := range y {
			row := data[i*d : (i+1)*d]
			for t := range row {
				row[t] = 2*rng.Float64() - 1
			}
			y[i] = f(row) + noiseSD*rng.NormFloat64()
		}
		x, err := kernel.NewVectors(n, d, data)
		if err != nil {
			panic("sgp: SyntheticARD: " + err.Error()) // unreachable: all values are finite
		}
		return &Dataset{Name: name, X: x, Y: y}
	}
	return gen("synthetic-ard", n), gen("synthetic-ard-test", nTest)
}

// SyntheticDiscrete generates a regression problem with 26 inputs, the
// first 10 uniform in [−1, 1] and the other 16 taking the five values
// −1, −½, 0, ½, 1, where continuous inducing inputs are a poor model:
//
//	f(x) = sin(3x₀) + x₁x₂ + ½cos(2x₁₀) + 0.3·x₁₂x₃ + 0.7·[x₁₁ > 0]
//
// (an interaction with no main effect, a step in a discrete input) plus
// Gaussian noise of standard deviation 0.1. The test set of nTest points
// is drawn after the training set from the same stream. It is
// deterministic for a given (n, nTest, seed) and panics if n < 1 or
// nTest < 1.
func SyntheticDiscrete(n, nTest int, seed uint64) (train, test *Dataset) {
	if n < 1 || nTest < 1 {
		panic(fmt.Sprintf("sgp: SyntheticDiscrete needs n, nTest ≥ 1, got %d, %d", n, nTest))
	}
	const d = 26
	rng := rand.New(rand.NewPCG(seed, 77))
	gen := func(name string, n int) *Dataset {
		data := make([]float64, n*d)
		y := make([]float64, n)
		for i := range y {
			x := data[i*d : (i+1)*d]
			for t := range x {
				if t < 10 {
					x[t] = 2*rng.Float64() - 1
				} else {
					x[t] = float64(rng.IntN(5)-2) / 2
				}
			}
			y[i] = math.Sin(3*x[0]) + x[1]*x[2] + 0.5*math.Cos(2*x[10]) + 0.3*x[12]*x[3] + 0.1*rng.NormFloat64()
			if x[11] > 0 {
				y[i] += 0.7
			}
		}
		xv, err := kernel.NewVectors(n, d, data)
		if err != nil {
			panic("sgp: SyntheticDiscrete: " + err.Error()) // unreachable: all values are finite
		}
		return &Dataset{Name: name, X: xv, Y: y}
	}
	return gen("synthetic-discrete", n), gen("synthetic-discrete-test", nTest)
}

// CO2Like generates a series with the structure of the weekly Mauna Loa
// CO₂ record (statsmodels' co2: decimal year → ppm), which needs no
// download: perYear evenly spaced inputs a year for the given number of
// years from 1960, targets
//
//	f(t) = 320 + 1.3·u + 0.012·u² + 2.8·sin 2πt + 0.8·cos 4πt,  u = t − 1960,
//
// a quadratic trend with a yearly cycle of period exactly 1 and its
// second harmonic, plus Gaussian noise of standard deviation 0.3
// (seeded, math/rand/v2 with rand.NewPCG(seed, seed^0x3c6ef372fe94f82b)).
// Every fifth point (the 5th, 10th, …) goes to the test set, with its
// noise; the rest is the training set. It is deterministic for a given
// (years, perYear, seed) and panics if years < 1 or perYear < 4.
func CO2Like(years, perYear int, seed uint64) (train, test *Dataset) {
	if years < 1 || perYear < 4 {
		panic(fmt.Sprintf("sgp: CO2Like needs years ≥ 1 and perYear ≥ 4, got %d, %d", years, perYear))
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x3c6ef372fe94f82b))
	var xs, ys, txs, tys []float64
	for i := range years * perYear {
		t := 1960 + float64(i)/float64(perYear)
		u := t - 1960
		f := 320 + 1.3*u + 0.012*u*u + 2.8*math.Sin(2*math.Pi*t) + 0.8*math.Cos(4*math.Pi*t)
		y := f + 0.3*rng.NormFloat64()
		if (i+1)%5 == 0 {
			txs, tys = append(txs, t), append(tys, y)
		} else {
			xs, ys = append(xs, t), append(ys, y)
		}
	}
	x, err := kernel.NewVectors(len(xs), 1, xs)
	if err != nil {
		panic("sgp: CO2Like: " + err.Error()) // unreachable: all values are finite
	}
	tx, err := kernel.NewVectors(len(txs), 1, txs)
	if err != nil {
		panic("sgp: CO2Like: " + err.Error()) // unreachable: all values are finite
	}
	return &Dataset{Name: "co2-like", X: x, Y: ys}, &Dataset{Name: "co2-like-test", X: tx, Y: tys}
}
