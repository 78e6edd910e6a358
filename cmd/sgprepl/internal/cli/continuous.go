package cli

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"

	"gonum.org/v1/gonum/stat"
)

// contOptions are the fit settings used by fitContinuousCLI.
type contOptions struct {
	train, test string
	spec        string // the kernel's specification (kernel.Parse)
	m           int
	mSet        bool
	obj         sgp.Objective
	seed        uint64
	budget      time.Duration
	maxEvals    int
	save, pred  string
	json        bool
	noiseFloor  float64
}

// fitContinuousCLI is `fit --selector sgpr-continuous`: SGPR with the
// inducing inputs optimised continuously (sgp.FitContinuous, GPflow's
// default jitter 1e-6) from m random training inputs.
func fitContinuousCLI(ctx context.Context, e *env, o contOptions) error {
	switch {
	case o.maxEvals < 1:
		return usageErrorf("--max-epochs must be ≥ 1 (sgpr-continuous makes 20·max-epochs evaluations)")
	case o.budget < 0:
		return usageErrorf("--time-budget %v must be ≥ 0 (0: no limit)", o.budget)
	case o.mSet && o.m < 1:
		return usageErrorf("--m %d: the number of inducing points must be ≥ 1", o.m)
	}
	if err := checkOutputs([]string{o.train, o.test}, o.save, o.pred); err != nil {
		return err
	}
	train, test, err := readData(o.train, o.test)
	if err != nil {
		return err
	}
	blas, err := blasName()
	if err != nil {
		return err
	}
	n := train.Len()
	if !o.mSet {
		o.m = defaultM(n)
	}
	if err := checkM(o.m, n); err != nil {
		return err
	}
	parent := ctx
	if o.budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.budget)
		defer cancel()
	}
	rng := rand.New(rand.NewPCG(o.seed, o.seed^0x9e3779b97f4a7c15))
	k, err := kernel.Parse(o.spec, train.X, train.Y)
	if err != nil {
		return err
	}
	kern, ok := k.(kernel.InputGradient)
	if !ok {
		return usageErrorf("fit: --selector sgpr-continuous needs a kernel with input gradients (%s), not --kernel %s", continuousKernels, o.spec)
	}
	_, vy := stat.PopMeanVariance(train.Y, nil)
	if !(vy > 0) {
		vy = 1
	}
	res, err := sgp.FitContinuous(ctx, train.X, train.Y, kern, train.X.Rows(rng.Perm(n)[:o.m]), vy/4, o.obj,
		sgp.ContinuousOptions{MaxEvals: o.maxEvals, Jitter: 1e-6, NoiseFloor: o.noiseFloor})
	if res == nil {
		return noResult(parent, ctx, err)
	}
	names := append(kern.ParamNames(), "noise")
	rep := fitReport{Objective: res.Objective, ObjectiveKind: o.obj.String(), Selector: selectorContinuous, Evaluations: ptr(res.Evals),
		Seconds: res.Elapsed.Seconds(), Stopped: stopText(res.Status, res.Reason), Converged: res.Status == sgp.Converged, Restarts: ptr(res.Restarts),
		InducingInputs: rowsOf(res.Z), Hyperparameters: namedParams(names, res.Params), Kernel: kernelText(kern, res.Params),
		Mean: res.Mean, MeanFunction: sgp.MeanConstant.String(), N: n, M: o.m, MRequested: ptr(o.m), Jitter: ptr(res.Jitter), NoiseFloor: res.NoiseFloor, AtNoiseFloor: res.AtNoiseFloor,
		Warnings: continuousWarnings(res, parent), BLAS: blas}
	if res.AtNoiseFloor {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the noise variance ended at its floor: σ² = %.4g, floor %.4g; the floor, not the data, decided σ² (see --noise-floor)",
			math.Exp(res.Params[len(res.Params)-1]), res.NoiseFloor))
	}
	var pred *predictions
	if test != nil {
		if pred, err = predictorPredictions(res.Predictor, test.X); err != nil {
			return err
		}
		var note string
		rep.SMSE, rep.SNLP, note = testMetrics(pred, test.Y, train.Y)
		if note != "" {
			rep.Notes = append(rep.Notes, note)
		}
	}
	var out []byte
	if o.json {
		if out, err = rep.encode(); err != nil {
			return err
		}
	}
	if err := writeOutputs(e.outputs(), output{o.save, namedPredictor(res.Predictor, train.X.Names(), train.TargetName).Save}, output{o.pred, pred.writeCSV}); err != nil {
		return err
	}
	// Warnings go to stderr, where they are seen with --json too.
	for _, msg := range rep.Warnings {
		fmt.Fprintf(e.stderr, "sgprepl: warning: %s\n", msg)
	}
	if o.json {
		if _, err = e.stdout.Write(out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "fit: %s, n=%d, continuous SGPR, m=%d: %v %.6g after %d evaluations (%.3g s, %s)\n",
			o.train, n, o.m, o.obj, res.Objective, res.Evals, res.Elapsed.Seconds(), stopText(res.Status, res.Reason))
		fmt.Fprintf(e.stdout, "kernel: %s\n", rep.Kernel)
		fmt.Fprintf(e.stdout, "prior mean: %.6g (%s)\n", res.Mean, sgp.MeanConstant)
		if test != nil {
			fmt.Fprintf(e.stdout, "test: SMSE %s  SNLP %s\n", formatMetric(rep.SMSE), formatMetric(rep.SNLP))
		}
		for _, msg := range rep.Notes {
			fmt.Fprintf(e.stdout, "note: %s\n", msg)
		}
	}
	return interrupted(parent)
}

// continuousWarnings says when a continuous fit is not a converged one:
// the best point reached when it was interrupted (parent cancelled), ran
// out of time or evaluations, or stalled.
func continuousWarnings(res *sgp.ContinuousResult, parent context.Context) []string {
	switch {
	case res.Status == sgp.Converged:
		return []string{}
	case parent.Err() != nil:
		return []string{fmt.Sprintf("interrupted after %d evaluations; the model is the best state reached", res.Evals)}
	case res.Status == sgp.Cancelled:
		return []string{fmt.Sprintf("the time budget ended the fit after %d evaluations; the model is the best state reached (give a longer --time-budget)", res.Evals)}
	case res.Status == sgp.MaxEvaluations:
		return []string{fmt.Sprintf("the fit did not converge in %d evaluations (20·max-epochs); the model is the best state reached (give a larger --max-epochs)", res.Evals)}
	}
	return []string{fmt.Sprintf("the fit did not converge (%s); the model is the best state reached", stopText(res.Status, res.Reason))}
}
