package sgp

import (
	"fmt"
	"math"
	"sort"
)

// SMSE returns the standardised mean squared error of predictions mean
// for targets y: mean((μ − y)²) / var(y), with the population variance of
// the test targets (Rasmussen & Williams 2006, §2.5). Predicting the test
// mean scores 1.
func SMSE(mean, y []float64) (float64, error) {
	if err := checkMetric(mean, nil, y); err != nil {
		return math.NaN(), err
	}
	var s float64
	for i, v := range y {
		d := mean[i] - v
		s += d * d
	}
	vy := variance(y)
	if vy == 0 {
		return math.NaN(), fmt.Errorf("sgp: SMSE undefined for constant test targets")
	}
	return s / float64(len(y)) / vy, nil
}

// SNLP returns the standardised negative log probability of targets y
// under independent Gaussians N(mean_i, variance_i), minus the same under
// the trivial model N(trainMean, trainVar) fitted to the training targets
// (Rasmussen & Williams 2006, §2.5). Pass variances of noisy observations
// (latent variance + σ²). Negative is better than the trivial model.
func SNLP(mean, variance, y []float64, trainMean, trainVar float64) (float64, error) {
	if err := checkMetric(mean, variance, y); err != nil {
		return math.NaN(), err
	}
	if !(trainVar > 0) {
		return math.NaN(), fmt.Errorf("sgp: SNLP needs a positive training variance, got %v", trainVar)
	}
	var s float64
	for i, v := range y {
		if !(variance[i] > 0) {
			return math.NaN(), fmt.Errorf("sgp: predictive variance %d is %v; pass noisy variances", i, variance[i])
		}
		s += nlp(v, mean[i], variance[i]) - nlp(v, trainMean, trainVar)
	}
	return s / float64(len(y)), nil
}

// nlp is −log N(y; μ, v).
func nlp(y, mu, v float64) float64 {
	d := y - mu
	return 0.5*math.Log(2*math.Pi*v) + 0.5*d*d/v
}

func checkMetric(mean, variance, y []float64) error {
	if len(y) == 0 {
		return fmt.Errorf("sgp: no test targets")
	}
	if len(mean) != len(y) || (variance != nil && len(variance) != len(y)) {
		return fmt.Errorf("sgp: %d predictions for %d targets", len(mean), len(y))
	}
	return nil
}

// MeanVar returns the mean and population variance of v.
func MeanVar(v []float64) (mean, vr float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	return mean, variance(v)
}

// Evaluate predicts at test.X with noisy variances and returns SMSE and
// SNLP against test.Y, with the model's training targets as the trivial
// reference.
func (md *Model) Evaluate(test *Dataset) (smse, snlp float64, err error) {
	defer md.recoverPanic(&err)
	if test == nil || test.Len() == 0 {
		return math.NaN(), math.NaN(), fmt.Errorf("sgp: no test data")
	}
	mean, vr, err := md.PredictNoisy(test.X)
	if err != nil {
		return math.NaN(), math.NaN(), err
	}
	smse, err = SMSE(mean, test.Y)
	if err != nil {
		return math.NaN(), math.NaN(), err
	}
	tm, tv := MeanVar(md.y)
	snlp, err = SNLP(mean, vr, test.Y, tm, tv)
	return smse, snlp, err
}

// Ranks returns the 1-based rank of each value, largest first; ties get
// the mean of their ranks.
func Ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] > v[idx[b]] })
	r := make([]float64, len(v))
	for a := 0; a < len(idx); {
		b := a + 1
		for b < len(idx) && v[idx[b]] == v[idx[a]] {
			b++
		}
		mid := float64(a+b+1) / 2 // mean of ranks a+1 … b
		for c := a; c < b; c++ {
			r[idx[c]] = mid
		}
		a = b
	}
	return r
}
