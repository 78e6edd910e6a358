package cli

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"
)

// selectorExact is the --selector value that fits the full GP instead of
// a sparse one (sgp.FitExact), selectorContinuous the one that moves the
// inducing inputs continuously (sgp.FitContinuous).
const (
	selectorExact      = "exact"
	selectorContinuous = "sgpr-continuous"
)

// selectorNames lists every --selector value of fit, for error messages.
const selectorNames = "hybrid, cholqr, random, greedy-variance, titsias:S, sgpr-continuous or exact"

// parseSelector is sgp.ParseSelector, accepting "exact" too (fit handles
// it on its own path, fitExactCLI, once the data are read); an unknown
// name is answered with every selector fit takes.
func parseSelector(name string) (sgp.Selector, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == selectorExact {
		return sgp.Selector{}, nil
	}
	sel, err := sgp.ParseSelector(n)
	if err != nil && !strings.HasPrefix(n, "titsias:") {
		return sel, fmt.Errorf("unknown selector %q: use %s", name, selectorNames)
	}
	return sel, err
}

// exactCLIOptions are the settings of `fit --selector exact`.
type exactCLIOptions struct {
	train, test         *fitData
	trainPath, testPath string
	spec                string
	kern                kernel.Kernel
	mSet                bool
	maxEvals            int
	budget              time.Duration
	save, pred          string
	json, quiet         bool
	noiseFloor          float64
}

// fitExactCLI is `fit --selector exact`: the full GP with the same kernel
// (and starting hyperparameters) and the same estimated constant mean as
// the sparse fit, every training point "inducing" (sgp.FitExact), as the
// reference for what sparsity costs. At most 20·max-epochs evaluations.
func fitExactCLI(ctx context.Context, e *env, o exactCLIOptions) error {
	switch {
	case o.mSet:
		return usageErrorf("fit: --selector exact uses all n training points; drop --m")
	case o.maxEvals < 1:
		return usageErrorf("fit: --max-epochs must be ≥ 1")
	case o.budget < 0:
		return usageErrorf("fit: --time-budget %v must be ≥ 0 (0: no limit)", o.budget)
	}
	blas, err := blasName()
	if err != nil {
		return err
	}
	n := o.train.Len()
	parent := ctx
	if o.budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.budget)
		defer cancel()
	}
	opts := sgp.ExactOptions{MaxEvals: o.maxEvals, NoiseFloor: o.noiseFloor}
	if !o.quiet {
		opts.Progress = e.stderr
	}
	res, fitErr := sgp.FitExact(ctx, o.train.x, o.train.y, o.kern, opts)
	if res == nil {
		return noResult(parent, ctx, fitErr)
	}
	if fitErr != nil && ctx.Err() == nil {
		return fitErr
	}
	if res.Status == sgp.Cancelled && parent.Err() == nil {
		res.Status = sgp.TimeBudget
		for i, w := range res.Warnings {
			if strings.HasPrefix(w, "interrupted") {
				res.Warnings[i] = fmt.Sprintf("the time budget ended the fit after %d evaluations; the result is the best state reached", res.Evals)
			}
		}
	}
	rep := fitReport{Objective: res.Objective, ObjectiveKind: "exact", Selector: selectorExact,
		Evaluations: ptr(res.Evals), Seconds: res.Elapsed.Seconds(), Stopped: stopText(res.Status, res.Reason), Converged: res.Converged, Restarts: ptr(res.Restarts),
		Hyperparameters: res.Hyperparameters().Map(), Kernel: kernelText(o.kern, res.Params), Mean: res.Mean, MeanFunction: sgp.MeanConstant.String(),
		N: n, M: n, Jitter: ptr(res.Jitter), NoiseFloor: res.NoiseFloor, AtNoiseFloor: res.AtNoiseFloor, Warnings: append([]string{}, res.Warnings...), BLAS: blas}
	var pred *predictions
	if o.test != nil {
		p := res.Predictor
		mean, latent, err := p.Predict(o.test.x)
		if err != nil {
			return err
		}
		noisy := make([]float64, len(latent))
		for i, v := range latent {
			noisy[i] = v + p.Noise()
		}
		pred = &predictions{mean: mean, latent: latent, noisy: noisy}
		var note string
		rep.SMSE, rep.SNLP, note = testMetrics(pred, o.test.y, o.train.y)
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
	if err := writeOutputs(e.outputs(), output{o.save, namedExact(res.Predictor, o.train.names, o.train.target).Save}, output{o.pred, pred.writeCSV}); err != nil {
		return err
	}
	if o.json {
		if _, err := e.stdout.Write(out); err != nil {
			return err
		}
	} else {
		w := e.stdout
		fmt.Fprintf(w, "fit: %s, n=%d, %d input columns, kernel %s, exact GP (m = n)\n", o.trainPath, n, o.train.dim, o.spec)
		fmt.Fprintf(w, "%-16s%s  (exact, includes n/2·log 2π)\n", "objective", strconv.FormatFloat(res.Objective, 'g', -1, 64))
		fmt.Fprintf(w, "%-16s%d (%s) in %.3g s\n", "evaluations", res.Evals, stopText(res.Status, res.Reason), res.Elapsed.Seconds())
		parts := make([]string, len(res.Params))
		for i, name := range res.Names {
			parts[i] = fmt.Sprintf("%s=%.6g", name, math.Exp(res.Params[i]))
		}
		fmt.Fprintf(w, "%-16s%s\n", "kernel", rep.Kernel)
		fmt.Fprintf(w, "%-16s%s\n", "hyperparameters", strings.Join(parts, " "))
		fmt.Fprintf(w, "%-16s%.6g (%s)\n", "prior mean", res.Mean, sgp.MeanConstant)
		if o.test != nil {
			fmt.Fprintf(w, "%-16sSMSE %s  SNLP %s  (%s, %d rows)\n", "test", formatMetric(rep.SMSE), formatMetric(rep.SNLP), o.testPath, o.test.Len())
		}
		if o.save != "" {
			fmt.Fprintf(w, "%-16s%s (exact; predict loads it again, factorising its n×n matrix)\n", "model", o.save)
		}
		if o.pred != "" {
			fmt.Fprintf(w, "%-16s%s\n", "predictions", o.pred)
		}
		for _, msg := range rep.Notes {
			fmt.Fprintf(w, "%-16s%s\n", "note", msg)
		}
	}
	// Warnings go to stderr, seen with --json too.
	for _, msg := range rep.Warnings {
		fmt.Fprintf(e.stderr, "sgprepl: warning: %s\n", msg)
	}
	if parent.Err() != nil {
		return errInterrupted
	}
	return nil
}
