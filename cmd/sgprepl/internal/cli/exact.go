package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"
)

// selectorExact is the --selector value that fits the full GP instead of
// a sparse one (sgp.NewExact), selectorContinuous the one that moves the
// inducing inputs continuously (sgp.NewContinuous).
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
	cons                constraintFlags // --fix and --bound
	noise               float64         // the starting noise variance (0: the default)
	blas                string
	mean                sgp.Mean
	restarts            int    // --restarts, resolved
	seed                uint64 // of the restarts' draws
	// note says why the exact GP was fitted when the user asked for
	// neither --m nor --selector ("" for --selector exact).
	note string
	// dropMissing is --drop-missing: the data have left out the rows
	// with a missing value, which the report counts.
	dropMissing bool
	post        *posteriorFlags
	noiseCol    string // --noise-column; the training data's noise holds its values
}

// fitExactCLI is `fit --selector exact`: the full GP with the same kernel
// (and starting hyperparameters) and the same estimated constant mean as
// the sparse fit, every training point "inducing" (sgp.NewExact), as the
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
	if o.test != nil {
		if err := o.post.checkExact("fit", o.test.Len()); err != nil {
			return err
		}
	}
	n := o.train.Len()
	fit := sgp.NewExact(o.train.x, o.train.y, o.kern).WithMaxEvals(o.maxEvals).WithTimeBudget(o.budget).WithNoiseFloor(o.noiseFloor).WithMean(o.mean).
		WithRestarts(o.restarts).WithSeed(o.seed)
	if o.noise > 0 {
		fit.WithNoise(o.noise)
	}
	if o.noiseCol != "" {
		fit.WithNoiseVariances(o.train.noise)
	}
	applyConstraints(o.cons, fit)
	if !o.quiet {
		fit.WithProgress(flagWordsWriter{e.stderr})
	}
	res, fitErr := fit.FitContext(ctx)
	if res == nil {
		return noResult(ctx, ctx, fitErr)
	}
	if fitErr != nil && ctx.Err() == nil {
		return fitErr
	}
	rep := summaryReport(&res.FitSummary, o.kern, o.mean, "exact", selectorExact, n, o.blas)
	rep.setDropped(o.dropMissing, o.train, o.test)
	if o.noiseCol != "" {
		rep.NoiseColumn = &o.noiseCol
	}
	rep.Evaluations, rep.Restarts, rep.Jitter, rep.M = ptr(res.Evals), ptr(res.Restarts), ptr(res.Jitter), n
	if o.note != "" {
		rep.Notes = append(rep.Notes, o.note)
	}
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
		addTestNoise(&rep, pred, o.test, o.noiseCol)
		rep.addMetrics(pred, o.test.y, o.train.y)
	}
	var covOut output
	if o.test != nil {
		var err error
		if covOut, err = o.post.finish(&rep, pred, res.Predictor, o.test.x); err != nil {
			return err
		}
	}
	err := rep.write(e, o.json, output{o.save, namedExact(res.Predictor, o.train.names, o.train.target).Save}, output{o.pred, pred.writeCSV}, func(w io.Writer) {
		how := ""
		if o.note != "" {
			how = ", the default at this n"
		}
		fmt.Fprintf(w, "fit: %s, n=%d, %s, kernel %s, exact GP (m = n%s)\n", o.trainPath, n, count(o.train.dim, "input column"), o.spec, how)
		rep.printDropped(w)
		if o.noiseCol != "" {
			fmt.Fprintf(w, "%-16s%s: known variances s_i², the noise of row i is s_i² + σ² (predictions add σ² alone)\n", "noise column", o.noiseCol)
		}
		fmt.Fprintf(w, "%-16s%s  (exact, includes n/2·log 2π)\n", "objective", strconv.FormatFloat(res.Objective, 'g', -1, 64))
		fmt.Fprintf(w, "%-16s%d (%s) in %.3g s\n", "evaluations", res.Evals, res.Stopped(), res.Elapsed.Seconds())
		fmt.Fprintf(w, "%-16s%s\n", "kernel", rep.Kernel)
		fmt.Fprintf(w, "%-16s%s\n", "hyperparameters", paramsText(res.Names, res.Params))
		fmt.Fprintf(w, "%-16s%.6g (%s)\n", "prior mean", res.Mean, o.mean)
		rep.printTail(w, o.test, o.testPath, o.save, o.pred, " (exact; predict loads it again, factorising its n×n matrix)")
	}, covOut)
	if err != nil {
		return err
	}
	// Warnings go to stderr, seen with --json too.
	rep.printWarnings(e)
	return interrupted(ctx)
}

// paramsText writes hyperparameters as name=value pairs, exp θ.
func paramsText(names []string, theta []float64) string {
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s=%.6g", name, math.Exp(theta[i]))
	}
	return strings.Join(parts, " ")
}
