package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"
)

// contOptions are the fit settings used by fitContinuousCLI.
type contOptions struct {
	train, test string
	spec        string          // the kernel's specification (kernel.Parse)
	params      paramList       // starting hyperparameters by name (--param)
	cons        constraintFlags // --fix and --bound
	m           int
	mSet        bool
	obj         sgp.Objective
	seed        uint64
	budget      time.Duration
	maxEvals    int
	save, pred  string
	json, quiet bool
	noiseFloor  float64
	blas        string
	mean        sgp.Mean
	restarts    int  // --restarts; −1: sgp.RestartsFor the kernel
	dropMissing bool // --drop-missing
	post        *posteriorFlags
	noiseCol    string // --noise-column, read with the data in column mode
	// note says why sgpr-continuous was fitted when the user did not
	// name it ("" for --selector sgpr-continuous).
	note string
}

// fitContinuousCLI is `fit --selector sgpr-continuous`: SGPR with the
// inducing inputs optimised continuously (sgp.NewContinuous, with a
// jitter of 1e-6 relative to the targets' variance, GPflow's default on
// standardised targets) from m random training inputs.
func fitContinuousCLI(ctx context.Context, e *env, o contOptions) error {
	switch {
	case o.maxEvals < 1:
		return usageErrorf("--max-epochs must be ≥ 1 (sgpr-continuous makes 20·max-epochs evaluations)")
	case o.budget < 0:
		return usageErrorf("--time-budget %v must be ≥ 0 (0: no limit)", o.budget)
	case o.mSet && o.m < 1:
		return usageErrorf("--m %d: the number of inducing points must be ≥ 1", o.m)
	}
	if err := checkOutputs([]string{o.train, o.test}, o.save, o.pred, o.post.covPath); err != nil {
		return err
	}
	train, test, err := o.readData()
	if err != nil {
		return dataHint(err, true)
	}
	if test != nil {
		if err := o.post.checkSize("fit", test.Len()); err != nil {
			return err
		}
	}
	n := train.Len()
	if o.mSet {
		if err := checkMBelowN(o.m, n, true); err != nil {
			return err
		}
	}
	k, err := kernel.Parse(o.spec, train.x, train.y)
	if err != nil {
		return err
	}
	if err := o.cons.check(append(k.ParamNames(), noiseName), o.params, o.spec); err != nil {
		return err
	}
	noise, err := startFrom(k, o.params, o.spec)
	if err != nil {
		return err
	}
	if _, ok := k.(kernel.InputGradient); !ok {
		return usageErrorf("fit: --selector sgpr-continuous needs a kernel with input gradients (%s), not --kernel %s", continuousKernels(), echo(o.spec))
	}
	fit := sgp.NewContinuous(train.x, train.y, k).WithMean(o.mean).WithObjective(o.obj).WithSeed(o.seed).
		WithMaxEvals(o.maxEvals).WithTimeBudget(o.budget).WithJitter(1e-6).WithNoiseFloor(o.noiseFloor).
		WithRestarts(restartsFor(o.restarts, k))
	if noise > 0 {
		fit.WithNoise(noise)
	}
	if o.noiseCol != "" {
		fit.WithNoiseVariances(train.noise)
	}
	applyConstraints(o.cons, fit)
	if o.mSet {
		fit.WithM(o.m)
	}
	if !o.quiet {
		fit.WithProgress(flagWordsWriter{e.stderr})
	}
	res, err := fit.FitContext(ctx)
	if res == nil {
		return noResult(ctx, ctx, err)
	}
	rep := summaryReport(&res.FitSummary, k, o.mean, o.obj.String(), selectorContinuous, n, o.blas)
	rep.Evaluations, rep.Restarts, rep.Jitter = ptr(res.Evals), ptr(res.Restarts), ptr(res.Jitter)
	rep.InducingInputs, rep.M, rep.MRequested = rowsOf(res.Z), res.Z.Len(), ptr(res.Z.Len())
	rep.setDropped(o.dropMissing, train, test)
	if o.noiseCol != "" {
		rep.NoiseColumn = &o.noiseCol
	}
	if o.note != "" {
		rep.Notes = append(rep.Notes, o.note)
	}
	var pred *predictions
	if test != nil {
		if pred, err = predictorPredictions(res.Predictor, test.x); err != nil {
			return err
		}
		addTestNoise(&rep, pred, test, o.noiseCol)
		rep.addMetrics(pred, test.y, train.y)
	}
	var covOut output
	if test != nil {
		if covOut, err = o.post.finish(&rep, pred, res.Predictor, test.x); err != nil {
			return err
		}
	}
	// Warnings go to stderr, where they are seen with --json too.
	rep.printWarnings(e)
	err = rep.write(e, o.json, output{o.save, namedPredictor(res.Predictor, train.names, train.target).Save}, output{o.pred, pred.writeCSV}, func(w io.Writer) {
		fmt.Fprintf(w, "fit: %s, n=%d, continuous SGPR, m=%d: %v %.6g after %d evaluations (%.3g s, %s)\n",
			o.train, n, res.Z.Len(), o.obj, res.Objective, res.Evals, res.Elapsed.Seconds(), res.Stopped())
		rep.printDropped(w)
		if o.noiseCol != "" {
			fmt.Fprintf(w, "noise column: %s: known variances s_i², the noise of row i is s_i² + σ² (predictions add σ² alone)\n", o.noiseCol)
		}
		fmt.Fprintf(w, "kernel: %s\n", rep.Kernel)
		fmt.Fprintf(w, "prior mean: %.6g (%s)\n", res.Mean, o.mean)
		rep.printConstraints(w)
		if test != nil {
			fmt.Fprintf(w, "test: SMSE %s  SNLP %s\n", formatMetric(rep.SMSE), formatMetric(rep.SNLP))
		}
		if line := rep.startsLine(); line != "" {
			fmt.Fprintf(w, "starts: %s\n", line)
		}
		for _, msg := range rep.Notes {
			fmt.Fprintf(w, "note: %s\n", msg)
		}
	}, covOut)
	if err != nil {
		return err
	}
	return interrupted(ctx)
}

// readData reads the training and test sets: numeric CSVs, or by column
// name with --noise-column, whose column is then not an input.
func (o *contOptions) readData() (train, test *fitData, err error) {
	if o.noiseCol == "" {
		return readNumericData(o.train, o.test, nil, o.dropMissing)
	}
	if train, err = readColumnsNoise(o.train, nil, "", o.spec, "", true, o.dropMissing, o.noiseCol, true); err != nil {
		return nil, nil, err
	}
	if o.test != "" {
		if test, err = readColumnsNoise(o.test, nil, "", o.spec, "", true, o.dropMissing, o.noiseCol, false); err != nil {
			return nil, nil, err
		}
	}
	return train, test, nil
}
