package main

import (
	"math"
	"math/rand/v2"
)

// A synthetic set is drawn from a known function f and Gaussian noise of
// variance noise: rows are inputs then f(x) + ε. Each generator draws its
// training and test inputs itself, so that the test set can hold inputs
// the training set never has.

// synthRows evaluates f at the inputs and adds noise; it returns the rows
// and the noise-free values.
func synthRows(rng *rand.Rand, xs [][]float64, f func([]float64) float64, noise float64) (rows [][]float64, truth []float64) {
	rows = make([][]float64, len(xs))
	truth = make([]float64, len(xs))
	for i, x := range xs {
		truth[i] = f(x)
		rows[i] = append(append([]float64{}, x...), truth[i]+math.Sqrt(noise)*rng.NormFloat64())
	}
	return rows, truth
}

// writeSynthetic writes a synthetic set and records its noise and the
// test SMSE of the true function. With standardise, the targets (and the
// truth) are shifted and scaled by the training targets' mean and
// standard deviation, as for a set whose user standardised the targets.
func writeSynthetic(dir string, header []string, train, test [][]float64, testTruth []float64, noise float64, standardise bool) (*meta, error) {
	if standardise {
		y := make([]float64, len(train))
		for i, r := range train {
			y[i] = r[len(r)-1]
		}
		mu, sd := meanSD(y)
		for _, rows := range [][][]float64{train, test} {
			for _, r := range rows {
				r[len(r)-1] = (r[len(r)-1] - mu) / sd
			}
		}
		for i := range testTruth {
			testTruth[i] = (testTruth[i] - mu) / sd
		}
		noise /= sd * sd
	}
	m, err := writeNumeric(dir, header, train, test)
	if err != nil {
		return nil, err
	}
	var se, mu float64
	for i, r := range test {
		d := r[len(r)-1] - testTruth[i]
		se += d * d
		mu += r[len(r)-1]
	}
	mu /= float64(len(test))
	var v float64
	for _, r := range test {
		v += (r[len(r)-1] - mu) * (r[len(r)-1] - mu)
	}
	smse := se / v // both sums over the same rows: MSE / population variance
	m.NoiseVar, m.OracleSMSE = noise, &smse
	return m, nil
}

// makeTwoValued is built for CholQR and for issue 32's runaway mean: five
// inputs take only the values 0 and 10⁻⁴ (an indicator stored at a tiny
// scale), two are uniform on [0, 1]. Training rows never have the first
// three indicators all on; one test row in eight does. Targets are
// standardised. 2,000 training and 1,000 test rows, noise variance 0.01
// before standardising.
func makeTwoValued(_ *prepEnv, dir string) (*meta, error) {
	rng := rngFor("synth-twovalued")
	const tiny = 1e-4
	w := []float64{1.0, -0.7, 0.5, 0.9, -1.2}
	f := func(x []float64) float64 {
		s := func(j int) float64 { return math.Round(x[j] / tiny) }
		v := 1.5*math.Sin(4*x[5]) + 4*(x[6]-0.5)*(x[6]-0.5)
		for j, wj := range w {
			v += wj * s(j)
		}
		return v + 0.8*s(0)*s(1) - 0.6*s(2)*s(3) + 1.5*s(0)*s(1)*s(2)
	}
	draw := func(n int, unseen bool) [][]float64 {
		xs := make([][]float64, 0, n)
		for len(xs) < n {
			x := make([]float64, 7)
			for j := range 5 {
				x[j] = tiny * float64(rng.IntN(2))
			}
			x[5], x[6] = rng.Float64(), rng.Float64()
			if !unseen && x[0] > 0 && x[1] > 0 && x[2] > 0 {
				continue
			}
			xs = append(xs, x)
		}
		return xs
	}
	const noise = 0.01
	train, _ := synthRows(rng, draw(2000, false), f, noise)
	test, truth := synthRows(rng, draw(1000, true), f, noise)
	return writeSynthetic(dir, []string{"b1", "b2", "b3", "b4", "b5", "u1", "u2", "y"}, train, test, truth, noise, true)
}

// makeLattice is built for CholQR: four inputs on the integer lattice
// {0, …, 5}⁴. Training rows sit on 900 of its 1,296 sites (3,000 rows, so
// most sites repeat); a third of the test rows sit on sites no training
// row has. Noise variance 0.04.
func makeLattice(_ *prepEnv, dir string) (*meta, error) {
	rng := rngFor("synth-lattice")
	sites := rng.Perm(1296)
	seen, unseen := sites[:900], sites[900:]
	at := func(k int) []float64 {
		x := make([]float64, 4)
		for j := range x {
			x[j] = float64(k % 6)
			k /= 6
		}
		return x
	}
	f := func(x []float64) float64 {
		return math.Sin(x[0]) + math.Cos(0.7*x[1])*x[2]/3 + 0.3*x[3] - 0.15*x[0]*x[3]
	}
	var xtr, xte [][]float64
	for range 3000 {
		xtr = append(xtr, at(seen[rng.IntN(len(seen))]))
	}
	for i := range 1000 {
		if i%3 == 0 {
			xte = append(xte, at(unseen[rng.IntN(len(unseen))]))
		} else {
			xte = append(xte, at(seen[rng.IntN(len(seen))]))
		}
	}
	const noise = 0.04
	train, _ := synthRows(rng, xtr, f, noise)
	test, truth := synthRows(rng, xte, f, noise)
	return writeSynthetic(dir, []string{"x1", "x2", "x3", "x4", "y"}, train, test, truth, noise, false)
}

// makeSmooth is built for continuous SGPR: a smooth function of two
// inputs with more detail than m = 100 well-placed points can follow
// exactly, inputs clustered around eight centres, 10,000 training and
// 5,000 test rows, noise variance 0.01.
func makeSmooth(_ *prepEnv, dir string) (*meta, error) {
	rng := rngFor("synth-smooth")
	centres := make([][2]float64, 8)
	for i := range centres {
		centres[i] = [2]float64{4*rng.Float64() - 2, 4*rng.Float64() - 2}
	}
	f := func(x []float64) float64 {
		return math.Sin(3*x[0])*math.Cos(2*x[1]) + 0.5*math.Exp(-((x[0]-1)*(x[0]-1)+(x[1]+0.5)*(x[1]+0.5))/0.1) + 0.3*x[0]*x[1]
	}
	draw := func(n int) [][]float64 {
		xs := make([][]float64, n)
		for i := range xs {
			c := centres[rng.IntN(len(centres))]
			xs[i] = []float64{c[0] + 0.5*rng.NormFloat64(), c[1] + 0.5*rng.NormFloat64()}
		}
		return xs
	}
	const noise = 0.01
	train, _ := synthRows(rng, draw(10000), f, noise)
	test, truth := synthRows(rng, draw(5000), f, noise)
	return writeSynthetic(dir, []string{"x1", "x2", "y"}, train, test, truth, noise, false)
}

// makeTrend is issue 32's trend-dominated set: y = 50 + 3 sin x₀ +
// x₁²/100 + ε with x₀ uniform on [0, 10], x₁ on [0, 1000], var ε = 0.25;
// 2,000 training and 1,000 test rows.
func makeTrend(_ *prepEnv, dir string) (*meta, error) {
	rng := rngFor("synth-trend")
	f := func(x []float64) float64 { return 50 + 3*math.Sin(x[0]) + x[1]*x[1]/100 }
	draw := func(n int) [][]float64 {
		xs := make([][]float64, n)
		for i := range xs {
			xs[i] = []float64{10 * rng.Float64(), 1000 * rng.Float64()}
		}
		return xs
	}
	const noise = 0.25
	train, _ := synthRows(rng, draw(2000), f, noise)
	test, truth := synthRows(rng, draw(1000), f, noise)
	return writeSynthetic(dir, []string{"x0", "x1", "y"}, train, test, truth, noise, false)
}

// makeRaw has raw targets far from 0: y = 10⁴ + 20 sin x₀ cos x₁ + 5 x₂ + ε
// with inputs uniform on [0, 5]³ and var ε = 1; 2,000 training and 1,000
// test rows.
func makeRaw(_ *prepEnv, dir string) (*meta, error) {
	rng := rngFor("synth-raw")
	f := func(x []float64) float64 { return 1e4 + 20*math.Sin(x[0])*math.Cos(x[1]) + 5*x[2] }
	draw := func(n int) [][]float64 {
		xs := make([][]float64, n)
		for i := range xs {
			xs[i] = []float64{5 * rng.Float64(), 5 * rng.Float64(), 5 * rng.Float64()}
		}
		return xs
	}
	const noise = 1
	train, _ := synthRows(rng, draw(2000), f, noise)
	test, truth := synthRows(rng, draw(1000), f, noise)
	return writeSynthetic(dir, []string{"x1", "x2", "x3", "y"}, train, test, truth, noise, false)
}
