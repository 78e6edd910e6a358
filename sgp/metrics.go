package sgp

import (
	"fmt"
	"math"
	"strconv"

	"github.com/cholqr/sgp/sgp/internal/stats"
	"github.com/cholqr/sgp/sgp/internal/table"
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
	vy := stats.Variance(y)
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

// meanVar returns the mean and population variance of v.
func meanVar(v []float64) (mean, vr float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	return mean, stats.Variance(v)
}

// Evaluation holds a model's scores on a test set, with noisy predictive
// variances and the model's training targets as the trivial reference
// (Rasmussen & Williams 2006, §2.5).
type Evaluation struct {
	N    int     // test points
	SMSE float64 // mean squared error over the test targets' variance
	SNLP float64 // mean negative log predictive density minus the trivial model's
	MAE  float64 // mean absolute error
	RMSE float64 // root mean squared error
	// Coverage95 is the fraction of test targets inside the central 95%
	// predictive interval, mean ± 1.96 sd: close to 0.95 for calibrated
	// variances.
	Coverage95 float64
}

// String prints the scores with their names.
func (e Evaluation) String() string {
	return fmt.Sprintf("SMSE %s  SNLP %s  MAE %s  RMSE %s  95%% coverage %.3f  (%d test points)",
		table.G(e.SMSE), table.G(e.SNLP), table.G(e.MAE), table.G(e.RMSE), e.Coverage95, e.N)
}

// HTML returns the scores as a table.
func (e Evaluation) HTML() string {
	return table.HTML("test scores", [][2]string{
		{"test points", strconv.Itoa(e.N)}, {"SMSE", table.G(e.SMSE)}, {"SNLP", table.G(e.SNLP)},
		{"MAE", table.G(e.MAE)}, {"RMSE", table.G(e.RMSE)}, {"95% coverage", fmt.Sprintf("%.3f", e.Coverage95)},
	})
}

// evaluation scores predictions (noisy variances vr) against the test
// targets ys, with N(tm, tv) fitted to the training targets as the
// trivial model.
func evaluation(mean, vr, ys []float64, tm, tv float64) (ev *Evaluation, err error) {
	ev = &Evaluation{N: len(ys)}
	if ev.SMSE, err = SMSE(mean, ys); err != nil {
		return nil, err
	}
	if ev.SNLP, err = SNLP(mean, vr, ys, tm, tv); err != nil {
		return nil, err
	}
	var abs, sq, in float64
	for i, y := range ys {
		d := math.Abs(mean[i] - y)
		abs += d
		sq += d * d
		if d <= 1.96*math.Sqrt(vr[i]) {
			in++
		}
	}
	n := float64(len(ys))
	ev.MAE, ev.RMSE, ev.Coverage95 = abs/n, math.Sqrt(sq/n), in/n
	return ev, nil
}
