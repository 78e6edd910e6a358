package sgp

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/cholqr/sgp/sgp/internal/stats"
	"github.com/cholqr/sgp/sgp/kernel"
)

// Every fit's start is checked against the range of log hyperparameters
// the fits evaluate and a model file holds, |log θ| ≤
// kernel.MaxLogParameter (e^±600, about 2.7e-261 to 3.8e260): the
// starting values from the data (a variance from the targets', a
// lengthscale or period from the inputs' spread) or set by the caller
// are refused there, with what to scale, rather than fitted into a
// non-finite objective or a model that cannot be loaded.

// maxLogVariance bounds the targets' variance, and their spread about a
// fixed prior mean, as it bounds the variances that start from it.
const maxLogVariance = kernel.MaxLogParameter

// checkStart returns an error naming what is out of range at the start
// of a fit of targets y at inputs x under the prior mean mn with kernel k
// and noise variance noise: the targets' variance (or, for a fixed mean,
// their mean square about it) not finite or beyond e^±MaxLogParameter, a
// kernel hyperparameter beyond it, a noise variance that is not positive
// and finite, or a prior variance κ(x_i, x_i) that is not finite or is 0
// at every input.
func checkStart(x kernel.Inputs, k kernel.Kernel, noise float64, y []float64, mn Mean) error {
	if err := checkTargetsRange(y, mn); err != nil {
		return err
	}
	if err := checkKernelStart(k, noise); err != nil {
		return err
	}
	return checkPriorVariance(x, k)
}

// checkKernelStart is checkStart's check of the kernel's hyperparameters
// and the noise variance.
func checkKernelStart(k kernel.Kernel, noise float64) error {
	names, theta := k.ParamNames(), k.Params(nil)
	for p, t := range theta {
		if !(math.Abs(t) <= kernel.MaxLogParameter) {
			return fmt.Errorf("sgp: the kernel's starting %s = %.4g is out of range (%s)%s", names[p], math.Exp(t), logRangeText(), scaleHint(names[p]))
		}
	}
	if !(noise > 0) || math.IsInf(noise, 0) {
		// The noise needs only to be positive and finite, as a model
		// file's (see Evaluator.FuncGrad).
		return fmt.Errorf("sgp: the starting noise variance %v is not positive and finite; it comes from the targets' variance or the value set: scale the targets", noise)
	}
	return nil
}

// checkPriorVariance returns an error if the prior variance κ(x_i, x_i)
// is not finite at some input or 0 at all of them: the kernel then has
// no finite objective (a linear kernel squares its inputs, so inputs
// whose squares overflow or underflow, or a column of zeros, give this).
func checkPriorVariance(x kernel.Inputs, k kernel.Kernel) error {
	row, v, zero := priorVarianceAt(x, k)
	return priorVarianceError(row, v, zero)
}

// priorVarianceAt returns the first row of x at which κ(x_i, x_i) is not
// finite and its value (−1 and 0 if there is none), and whether it is 0
// at every row.
func priorVarianceAt(x kernel.Inputs, k kernel.Kernel) (row int, v float64, zero bool) {
	const block = 1024
	d := make([]float64, block)
	zero = true
	for lo := 0; lo < x.Len(); lo += block {
		hi := min(lo+block, x.Len())
		k.Diag(d[:hi-lo], x, lo, hi)
		for i, v := range d[:hi-lo] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return lo + i, v, false
			}
			zero = zero && v == 0
		}
	}
	return -1, 0, zero
}

// priorVarianceError is checkPriorVariance's error for priorVarianceAt's
// outcome.
func priorVarianceError(row int, v float64, zero bool) error {
	if row >= 0 {
		return fmt.Errorf("sgp: the kernel's prior variance κ(x, x) is %v at training row %d: the inputs are out of the kernel's range (a linear kernel squares them); scale the inputs", v, row)
	}
	if zero {
		return errors.New("sgp: the kernel's prior variance κ(x, x) is 0 at every training input (a linear kernel of inputs that are 0, or whose squares underflow); scale the inputs or choose another kernel")
	}
	return nil
}

// checkTargetsRange returns an error if the targets' variance, or for a
// fixed prior mean their mean square about it, is not finite or out of
// range; constant targets (variance 0) are left to the fit's own check.
func checkTargetsRange(y []float64, mn Mean) error {
	span := func() (lo, hi float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, v := range y {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		return lo, hi
	}
	var s float64
	if !mn.Estimated() {
		mu := mn.fixedValue()
		for _, v := range y {
			s += (v - mu) * (v - mu) / float64(len(y))
		}
	}
	return targetsRangeError(stats.Variance(y), s, mn, span)
}

// targetsRangeError is checkTargetsRange's error for targets of variance
// v and, for a fixed mean, mean square s about it; span returns their
// least and greatest value, for the message.
func targetsRangeError(v, s float64, mn Mean, span func() (lo, hi float64)) error {
	if v != 0 && !(math.Abs(math.Log(v)) <= maxLogVariance) {
		lo, hi := span()
		return fmt.Errorf("sgp: the targets' variance %.4g (they span %.4g to %.4g) is out of range (%s): divide or multiply the targets by a constant",
			v, lo, hi, logRangeText())
	}
	if mn.Estimated() {
		return nil
	}
	if s != 0 && !(math.Abs(math.Log(s)) <= maxLogVariance) {
		lo, hi := span()
		return fmt.Errorf("sgp: the targets (%.4g to %.4g) are too far from the fixed prior mean %.4g: their mean square about it, %.4g, is out of range (%s); choose a mean within the targets' range or estimate it",
			lo, hi, mn.fixedValue(), s, logRangeText())
	}
	return nil
}

// logRangeText describes the range of the hyperparameters.
func logRangeText() string {
	return fmt.Sprintf("%.2g to %.2g, |log θ| ≤ %d", math.Exp(-kernel.MaxLogParameter), math.Exp(kernel.MaxLogParameter), kernel.MaxLogParameter)
}

// scaleHint says where a kernel hyperparameter of the given name starts
// from and what to scale, or nothing for a name it does not know.
func scaleHint(name string) string {
	switch {
	case strings.Contains(name, "lengthscale") || strings.Contains(name, "period"):
		return "; it comes from the inputs' spread or the value set: scale the inputs"
	case strings.Contains(name, "variance"):
		return "; it comes from the targets' variance (or, for a linear kernel, the inputs' size) or the value set: scale the targets or the inputs"
	}
	return ""
}
