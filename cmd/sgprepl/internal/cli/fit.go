package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/data"

	"github.com/cholqr/sgp/sgp/kernel"
)

// fitConfig holds the flags of fit.
type fitConfig struct {
	trainPath, testPath   string
	m, z                  int
	mSet                  bool
	objective             string
	seed                  uint64
	maxEpochs             int
	budget                time.Duration
	savePath, predPath    string
	json, quiet           bool
	dropMissing           bool // leave out rows with a missing value
	noiseFloor            float64
	inputCols             stringList
	targetCol, kernelSpec string
	selector              string
	where, testWhere      string
	params                paramList       // starting hyperparameters by name
	cons                  constraintFlags // --fix and --bound
	meanName              string          // the prior mean (sgp.ParseMean)
	mean                  sgp.Mean
	restarts              int // --restarts; −1: sgp.RestartsFor the kernel
	post                  posteriorFlags
	noiseCol              string // --noise-column: the known noise variances
}

func fitFlags(fs *flag.FlagSet) func(context.Context, *env) error {
	c := &fitConfig{}
	fs.StringVar(&c.trainPath, "train", "", "training CSV `file` (required)")
	fs.StringVar(&c.testPath, "test", "", "test CSV `file` with the same columns; adds SMSE and SNLP")
	fs.IntVar(&c.m, "m", 0, "number of inducing points (default min(100, n/2)); with neither --m nor --selector, fit fits the exact GP wherever it is affordable (estimated within a minute and half the machine's memory, sgp.ChooseDefault), and says so")
	fs.IntVar(&c.z, "z", 16, "number of information pivots")
	fs.StringVar(&c.objective, "objective", "var", "objective to minimise: var (Titsias' VFE) or mle (DTC)")
	fs.StringVar(&c.meanName, "mean", "constant", "prior mean: constant (estimated under a prior N(ȳ, var y)), gls (estimated by generalised least squares, no prior), zero, or a `number`")
	fs.Var(&c.params, "param", "starting value of a hyperparameter `NAME=VALUE`, by its name as the JSON's \"hyperparameters\" reports it (variance=2, lengthscale[0]=0.5, period[0]=12, k1.alpha=3, noise=0.1): repeatable, each name once, comma-separated; the others start from the data")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the random start, of the swaps and of the restarts' draws")
	fs.Var(&c.cons.fix, "fix", "hold a hyperparameter fixed, `NAME[=VALUE]`, by its --param name (noise=0.01, k0.period[0]): at VALUE, or at its starting value (--param's, or the data's) without one; the optimiser moves only the others; repeatable, comma-separated")
	fs.Var(&c.cons.bound, "bound", "keep a hyperparameter within bounds, `NAME=LO:HI` (lengthscale[0]=0.1:10), inclusive, 0 < LO < HI, by its --param name; a start outside them starts just inside; the summary and the JSON's at_bound name those that end at a bound; repeatable, comma-separated")
	fs.IntVar(&c.restarts, "restarts", -1, restartsUsage)
	fs.IntVar(&c.maxEpochs, "max-epochs", 50, "maximum number of epochs")
	fs.DurationVar(&c.budget, "time-budget", 0, "stop after the epoch that exceeds this `duration`, the model's start included; the hybrid selector stops within it, its two parents sharing it in turns until one ends or cannot catch up with the other (docs/algorithm.md), sgpr-continuous and exact at the next evaluation (0: no limit; the hybrid then takes as long as cholqr and sgpr-continuous together)")
	fs.StringVar(&c.savePath, "save", "", "write the fitted model as JSON to `file`, for predict (sgp.LoadRegressorFile reads it; with --selector exact, the exact GP: its training inputs and weights); - is standard output, and the summary then goes to stderr")
	fs.StringVar(&c.predPath, "predictions", "", "write CSV `file` with header mean,variance,latent_variance (the variance of a noisy observation, then of the latent function), one row per test row; needs --test; - is standard output, and the summary then goes to stderr")
	fs.BoolVar(&c.json, "json", false, "print exactly one JSON object on stdout")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress lines")
	fs.Float64Var(&c.noiseFloor, "noise-floor", 0, "least noise `variance` σ² the fit may reach, in the target's units squared (0: 1e-6 of the target's variance around a quadratic trend in the inputs, at least 1e-9 of its variance); a fit that ends at it says so")
	fs.Var(&c.inputCols, "input-column", "input column `NAME` (repeatable; column mode, needs a header row)")
	fs.StringVar(&c.targetCol, "target-column", "", "target column `NAME` (column mode; default the last column)")
	fs.StringVar(&c.kernelSpec, "kernel", "", "kernel: rbf|matern12|matern32|matern52|rq|linear|periodic|const, or sums and products of these (rbf+linear, periodic*rbf, matern52+const), on numeric columns; wl[:h]|wl-depth[:h]|spectrum[:k]|tanimoto[:r]|histogram[:C] in column mode")
	fs.StringVar(&c.selector, "selector", "", "inducing-point selection (default: hybrid for numeric inputs with the "+hybridKernels()+" kernel, cholqr for other kernels): cholqr|random|greedy-variance|titsias:S|hybrid (numeric inputs: CholQR and sgpr-continuous with the same seed, then continuous fits from CholQR's fit; the lowest objective kept)|sgpr-continuous (numeric inputs; inducing inputs optimised continuously from a random subset, 20·max-epochs evaluations)|exact (the full GP, m = n ≤ 20000, any kernel; 20·max-epochs evaluations)")
	fs.StringVar(&c.where, "where", "", "column mode: read only the training rows with COLUMN=VALUE (e.g. split=train)")
	fs.StringVar(&c.testWhere, "test-where", "", "column mode: read only the test rows with COLUMN=VALUE (e.g. split=test)")
	fs.BoolVar(&c.dropMissing, "drop-missing", false, "drop the training and test rows with a missing value (an empty cell, NaN or NA) instead of refusing them; the summary and the JSON (dropped_rows) count them")
	fs.StringVar(&c.noiseCol, "noise-column", "", "column `NAME` of the training rows' known noise variances s² (variances, in the target's units squared, ≥ 0; not an input): the fit's noise is s_i² + σ², σ² learned (or --fix noise=V); headed CSVs only; selectors "+noiseSelectors+" (without --selector: exact where affordable, else or with --m sgpr-continuous); a missing cell follows --drop-missing")
	c.post.register(fs, "sample-seed")
	return func(ctx context.Context, e *env) error {
		c.mSet = isSet(fs, "m")
		if err := c.post.check("fit", fs); err != nil {
			return err
		}
		return c.runWorld(ctx, e)
	}
}

// run is fit: it checks the flags, reads the data and fits the model the
// selector names, sparse, continuous or exact.
func (c *fitConfig) run(ctx context.Context, e *env) error {
	if err := c.checkFlags(); err != nil {
		return err
	}
	blas, err := blasName()
	if err != nil {
		return err
	}
	obj, err := sgp.ParseObjective(c.objective)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if c.mean, err = sgp.ParseMean(c.meanName); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if err := checkOutputs([]string{c.trainPath, c.testPath}, c.savePath, c.predPath, c.post.covPath); err != nil {
		return err
	}
	if c.savePath == stdoutPath || c.predPath == stdoutPath || c.post.covPath == stdoutPath {
		// The output takes standard output; the summary goes to stderr.
		e = &env{stdin: e.stdin, stdout: e.stderr, stderr: e.stderr, dash: e.stdout}
	}
	c.selector = strings.ToLower(strings.TrimSpace(c.selector))
	spec := c.kernelSpec
	if spec == "" {
		spec = "rbf"
	}
	specName, _, err := kernel.SplitSpec(spec)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if err := c.checkNoiseSelector(); err != nil {
		return err
	}
	if c.selector == selectorContinuous {
		if c.columnModeOnly(specName) || !continuousSpec(specName) {
			return usageErrorf("fit: --selector sgpr-continuous moves inducing inputs continuously and needs numeric inputs and a kernel with input gradients (%s); use cholqr for --kernel %s", continuousKernels(), echo(spec))
		}
		return fitContinuousCLI(ctx, e, contOptions{train: c.trainPath, test: c.testPath, m: c.m, mSet: c.mSet, obj: obj, spec: spec, params: c.params, cons: c.cons,
			seed: c.seed, budget: c.budget, maxEvals: c.maxEpochs * 20, save: c.savePath, pred: c.predPath, json: c.json, quiet: c.quiet, noiseFloor: c.noiseFloor, blas: blas, mean: c.mean,
			restarts: c.restarts, dropMissing: c.dropMissing, post: &c.post, noiseCol: c.noiseCol})
	}
	auto := c.selector == "" && !c.mSet
	if c.noiseCol != "" && auto {
		// The default for known noise: the exact GP (checked affordable below).
		c.selector = selectorExact
	}
	sel, err := c.resolveSelector(spec, specName)
	if err != nil {
		return err
	}
	train, test, err := c.readData(e, spec, specName)
	if err != nil {
		return err
	}
	if test != nil {
		if err := c.post.checkSize("fit", test.Len()); err != nil {
			return err
		}
	}
	if c.selector != selectorExact {
		if !c.mSet {
			c.m = sgp.DefaultM(train.Len())
		}
		if err := checkSettings(c.m, c.z, c.maxEpochs, c.budget); err != nil {
			return err
		}
		if err := checkMBelowN(c.m, train.Len(), true); err != nil {
			return err
		}
	}
	kern, err := kernel.Parse(spec, train.x, train.y)
	if err != nil {
		return err
	}
	defaultNote := ""
	if c.noiseCol != "" && auto {
		ch := sgp.ChooseDefault(train.Len(), kern.NumParams(), false, c.budget)
		if !ch.Exact {
			return c.noiseContinuous(ctx, e, obj, spec, specName, blas, ch.Reason)
		}
		defaultNote = "default with --noise-column: " + ch.Reason
	} else if auto {
		// Neither --m nor --selector: the exact GP wherever it is
		// affordable (sgp.ChooseDefault).
		if ch := sgp.ChooseDefault(train.Len(), kern.NumParams(), sel == sgp.SelectHybrid, c.budget); ch.Exact {
			c.selector = selectorExact
			defaultNote = "default without --m or --selector: " + ch.Reason + "; --selector or --m fits a sparse model"
		}
	}
	if err := c.cons.check(append(kern.ParamNames(), noiseName), c.params, spec); err != nil {
		return err
	}
	noise, err := startFrom(kern, c.params, spec)
	if err != nil {
		return err
	}
	c.restarts = restartsFor(c.restarts, kern)
	if c.selector == selectorExact {
		return fitExactCLI(ctx, e, exactCLIOptions{train: train, test: test, trainPath: c.trainPath, testPath: c.testPath, spec: spec, kern: kern,
			mSet: c.mSet, maxEvals: c.maxEpochs * 20, budget: c.budget, save: c.savePath, pred: c.predPath, json: c.json, quiet: c.quiet,
			noiseFloor: c.noiseFloor, noise: noise, blas: blas, note: defaultNote, mean: c.mean, restarts: c.restarts, seed: c.seed, dropMissing: c.dropMissing, post: &c.post, cons: c.cons,
			noiseCol: c.noiseCol})
	}
	return c.fitSparse(ctx, e, obj, sel, spec, kern, noise, train, test, blas)
}

// checkFlags checks the flags that do not depend on the data.
func (c *fitConfig) checkFlags() error {
	switch {
	case c.trainPath == "":
		return usageErrorf("fit: --train FILE is required (run 'sgprepl help fit')")
	case c.predPath != "" && c.testPath == "":
		return usageErrorf("fit: --predictions needs --test FILE, the inputs to predict at")
	case c.post.columns() && c.predPath == "":
		return usageErrorf("fit: --interval and --samples add columns to --predictions FILE; give it (and --test)")
	case c.post.covPath != "" && c.testPath == "":
		return usageErrorf("fit: --cov needs --test FILE, the rows whose covariance it writes")
	case !(c.noiseFloor >= 0) || math.IsInf(c.noiseFloor, 0):
		return usageErrorf("fit: --noise-floor %v must be a finite variance ≥ 0 (0: the default)", c.noiseFloor)
	case c.restarts < -1:
		return usageErrorf("fit: --restarts %d must be ≥ 0 (without it: %d for a kernel with a periodic component, 0 otherwise)", c.restarts, sgp.DefaultRestarts)
	case (c.savePath == stdoutPath || c.predPath == stdoutPath || c.post.covPath == stdoutPath) && c.json:
		return usageErrorf("fit: --json prints its object on standard output, which --save -, --predictions - or --cov - would share; write that output to a file")
	}
	return nil
}

// columnMode reports whether the data are read by column name, as the
// kernels on discrete inputs (kernel.NumericSpec false) need.
func (c *fitConfig) columnMode(specName string) bool {
	return c.noiseCol != "" || c.columnModeOnly(specName)
}

// columnModeOnly reports whether anything but --noise-column (which
// sgpr-continuous reads by name too) asks for column mode.
func (c *fitConfig) columnModeOnly(specName string) bool {
	return len(c.inputCols) > 0 || c.targetCol != "" || c.where != "" || c.testWhere != "" || !kernel.NumericSpec(specName)
}

// resolveSelector returns the selector of a sparse fit of the kernel spec
// (named specName). Without --selector, numeric inputs with a kernel the
// hybrid can refine (lengthscales and input gradients) get the hybrid,
// whose objective is never above CholQR's; other kernels get CholQR.
func (c *fitConfig) resolveSelector(spec, specName string) (sgp.Selector, error) {
	if c.selector == "" {
		c.selector = "cholqr"
		if hybridSpec(specName) {
			c.selector = "hybrid"
		}
	}
	sel, err := parseSelector(c.selector)
	if err != nil {
		return sel, &exitError{code: exitUsage, err: err}
	}
	if sel == sgp.SelectHybrid && !hybridSpec(specName) {
		return sel, usageErrorf("fit: --selector hybrid moves inducing inputs continuously and needs numeric inputs and a kernel with lengthscales and input gradients (%s); use cholqr for --kernel %s", hybridKernels(), echo(spec))
	}
	return sel, nil
}

// readData reads the training and test sets, by column name in column
// mode.
func (c *fitConfig) readData(e *env, spec, specName string) (train, test *fitData, err error) {
	if !c.columnMode(specName) {
		train, test, err = readNumericData(c.trainPath, c.testPath, progressTo(e, c.quiet), c.dropMissing)
		return train, test, dataHint(err, true)
	}
	if train, err = readColumnsNoise(c.trainPath, c.inputCols, c.targetCol, spec, c.where, true, c.dropMissing, c.noiseCol, true); err != nil {
		return nil, nil, dataHint(err, true)
	}
	if c.testPath != "" {
		if test, err = readColumnsNoise(c.testPath, c.inputCols, c.targetCol, spec, c.testWhere, true, c.dropMissing, c.noiseCol, false); err != nil {
			return nil, nil, dataHint(err, true)
		}
	}
	return train, test, nil
}

// fitSparse fits the sparse model: it reports the fit, writes the model
// and the predictions, and prints the summary or the JSON object.
// noise is the starting noise variance (0: the model's default).
func (c *fitConfig) fitSparse(ctx context.Context, e *env, obj sgp.Objective, sel sgp.Selector, spec string, kern kernel.Kernel, noise float64, train, test *fitData, blas string) error {
	md := sgp.NewModel(train.x, train.y, kern).
		WithM(c.m).WithInfoPivots(c.z).WithObjective(obj).WithSeed(c.seed).
		WithMaxEpochs(c.maxEpochs).WithTimeBudget(c.budget).WithSelector(sel).WithNoiseFloor(c.noiseFloor).WithMean(c.mean).WithRestarts(c.restarts)
	if noise > 0 {
		md.WithNoise(noise)
	}
	if c.noiseCol != "" {
		md.WithNoiseVariances(train.noise)
	}
	applyConstraints(c.cons, md)
	if !c.quiet {
		md.WithProgress(flagWordsWriter{e.stderr})
	}
	// The model is built inside FitContext, so that choosing its start
	// counts in the time budget.
	res, fitErr := md.FitContext(ctx)
	if err := fitError(res, fitErr); err != nil {
		return err
	}
	rep := summaryReport(&res.FitSummary, kern, c.mean, obj.String(), sel.String(), train.Len(), blas)
	rep.Epochs, rep.NoiseOnly, rep.Restarted = ptr(res.Epochs), ptr(res.NoiseOnly), ptr(res.Restarted)
	rep.SwitchedOn = append([]int{}, res.SwitchedOn...)
	rep.Inducing = slices.Sorted(slices.Values(res.Inducing))
	rep.MeanFunction = md.MeanFunction().String()
	rep.setDropped(c.dropMissing, train, test)
	rep.M, rep.MRequested, rep.Z = len(res.Inducing), ptr(c.m), ptr(c.z)
	if c.noiseCol != "" {
		rep.NoiseColumn = &c.noiseCol
	}
	if cr := res.Refined; cr != nil {
		rep.Refined = &refinedReport{From: res.RefinedFrom, Evaluations: cr.Evals, Stopped: cr.Stopped(), Seconds: cr.Elapsed.Seconds(), Jitter: cr.Jitter, InducingInputs: rowsOf(cr.Z)}
	}
	if sel == sgp.SelectHybrid {
		rep.describeHybrid(res, c.z)
	}
	var pred *predictions
	if test != nil {
		var err error
		if pred, err = modelPredictions(md, test.x); err != nil {
			return err
		}
		addTestNoise(&rep, pred, test, c.noiseCol)
		rep.addMetrics(pred, test.y, md.Targets())
	}
	var covOut output
	if pred != nil {
		p, err := md.Predictor()
		if err != nil {
			return err
		}
		if covOut, err = c.post.finish(&rep, pred, p, test.x); err != nil {
			return err
		}
	}
	save := func(w io.Writer) error {
		p, err := md.Predictor()
		if err != nil {
			return err
		}
		return namedPredictor(p, train.names, train.target).Save(w)
	}
	err := rep.write(e, c.json, output{c.savePath, save}, output{c.predPath, pred.writeCSV}, func(w io.Writer) {
		fmt.Fprintf(w, "fit: %s, n=%d, %s, kernel %s, selector %v, m=%d z=%d, seed %d\n", c.trainPath, train.Len(), count(train.dim, "input column"), spec, sel, c.m, c.z, c.seed)
		rep.printDropped(w)
		if c.noiseCol != "" {
			fmt.Fprintf(w, "%-16s%s: known variances s_i², the noise of row i is s_i² + σ² (predictions add σ² alone)\n", "noise column", c.noiseCol)
		}
		printFitSummary(w, md, res)
		if cr := res.Refined; cr != nil {
			fmt.Fprintf(w, "%-16s%d of m=%d, moved continuously (the continuous fit's; --json and --save give them)\n", "inducing inputs", cr.Z.Len(), c.m)
			rep.printCholQRParent(w, c.m)
		} else {
			fmt.Fprintf(w, "%-16s%s%s\n", "inducing rows", formatInts(rep.Inducing), shortfall(len(rep.Inducing), c.m))
		}
		rep.printTail(w, test, c.testPath, c.savePath, c.predPath, "")
	}, covOut)
	if err != nil {
		return err
	}
	// Warnings go to stderr, where they are seen with --json too (with
	// progress lines, the model has written them there already).
	if c.quiet {
		rep.printWarnings(e)
	}
	status := res.Status
	if res.CholQR != nil && res.CholQR.Status == sgp.Cancelled {
		status = sgp.Cancelled
	}
	return interruptedFit(ctx, status)
}

// summaryReport returns the report of a fit with the part every fit
// shares (sgp.FitSummary) filled in, for n training points.
func summaryReport(s *sgp.FitSummary, k kernel.Kernel, mean sgp.Mean, kind, selector string, n int, blas string) fitReport {
	r := fitReport{
		Kernel:    kernelText(k, s.Params),
		Objective: s.Objective, ObjectiveKind: kind, Selector: selector,
		Seconds: s.Elapsed.Seconds(), Stopped: s.Stopped(), Converged: s.Converged,
		NoiseFloor: s.NoiseFloor, AtNoiseFloor: s.AtNoiseFloor,
		Hyperparameters: s.Hyperparameters().Map(), Mean: s.Mean, MeanFunction: mean.String(),
		N: n, Warnings: flagWordsAll(s.Warnings), BLAS: blas,
		Starts: startsReport(s), BestStart: bestStart(s), names: s.Names,
	}
	r.setConstraints(s)
	return r
}

// addMetrics sets the report's test scores of pred against the test
// targets y (training targets yTrain), with a note when they are
// undefined.
func (r *fitReport) addMetrics(pred *predictions, y, yTrain []float64) {
	var note string
	r.SMSE, r.SNLP, note = testMetrics(pred, y, yTrain)
	if note != "" {
		r.Notes = append(r.Notes, note)
	}
}

// write encodes the report (--json) before any output file is written,
// so that a report that cannot be encoded leaves none, writes the
// outputs, then prints the JSON object or, with text, the summary.
func (r *fitReport) write(e *env, asJSON bool, save, pred output, text func(io.Writer), more ...output) error {
	var out []byte
	if asJSON {
		var err error
		if out, err = r.encode(); err != nil {
			return err
		}
	}
	if err := writeOutputs(e.outputs(), append([]output{save, pred}, more...)...); err != nil {
		return err
	}
	if asJSON {
		_, err := e.stdout.Write(out)
		return err
	}
	text(e.stdout)
	return nil
}

// printTail writes the test scores, the files written and the notes of
// the text summary; saved describes the saved model after its path.
func (r *fitReport) printTail(w io.Writer, test *fitData, testPath, savePath, predPath, saved string) {
	r.printConstraints(w)
	if line := r.startsLine(); line != "" {
		fmt.Fprintf(w, "%-16s%s\n", "starts", line)
	}
	if test != nil {
		fmt.Fprintf(w, "%-16sSMSE %s  SNLP %s  (%s, %d rows)\n", "test", formatMetric(r.SMSE), formatMetric(r.SNLP), testPath, test.Len())
	}
	if savePath != "" {
		fmt.Fprintf(w, "%-16s%s%s\n", "model", savePath, saved)
	}
	if predPath != "" {
		fmt.Fprintf(w, "%-16s%s\n", "predictions", predPath)
	}
	if r.covPath != "" {
		fmt.Fprintf(w, "%-16s%s\n", "covariance", r.covPath)
	}
	for _, msg := range r.Notes {
		fmt.Fprintf(w, "%-16s%s\n", "note", msg)
	}
}

// printWarnings writes the report's warnings to stderr.
func (r *fitReport) printWarnings(e *env) {
	for _, msg := range r.Warnings {
		fmt.Fprintf(e.stderr, "sgprepl: warning: %s\n", msg)
	}
}

// fitReport is the --json output of fit, of one shape for every
// selector: a key the selector cannot fill is present and null (epochs for
// sgpr-continuous and exact, which count evaluations instead; inducing
// rows for those, whose inducing inputs are not rows or are all of them;
// z, noise_only, restarted, switched_on and refined, which only
// CholQR's epochs fill; parents, which only the hybrid has). The top
// level describes the model that predicts and is saved: for a hybrid fit
// that keeps its continuous fit, that fit (its m, inducing inputs,
// evaluations, stop, hyperparameters and warnings), with CholQR's under
// parents. Metrics that are undefined (no test set, or one
// of a single row or with constant targets) are null; Notes says why. M
// is the number of inducing points used (n for exact), MRequested the
// number asked for. Mean is the prior mean μ the saved model and the
// predictions use.
type fitReport struct {
	Objective       float64            `json:"objective"`
	ObjectiveKind   string             `json:"objective_kind"`
	Selector        string             `json:"selector"`
	SMSE            *float64           `json:"smse"`
	SNLP            *float64           `json:"snlp"`
	Epochs          *int               `json:"epochs"`
	Evaluations     *int               `json:"evaluations"` // objective evaluations (sgpr-continuous, exact)
	Seconds         float64            `json:"seconds"`
	Stopped         string             `json:"stopped"`
	Converged       bool               `json:"converged"`
	NoiseOnly       *bool              `json:"noise_only"`
	Restarted       *bool              `json:"restarted"`
	Restarts        *int               `json:"restarts"`       // the optimiser's restarts (sgpr-continuous, exact)
	NoiseFloor      float64            `json:"noise_floor"`    // the least σ² the fit could reach (--noise-floor or the default)
	AtNoiseFloor    bool               `json:"at_noise_floor"` // σ² ended at the floor: the floor, not the data, decided it
	SwitchedOn      []int              `json:"switched_on"`
	Inducing        []int              `json:"inducing"`
	InducingInputs  [][]float64        `json:"inducing_inputs"` // sgpr-continuous's, and a hybrid fit's that keeps its continuous fit
	Hyperparameters map[string]float64 `json:"hyperparameters"`
	// Fixed holds the hyperparameters --fix held, with their values (a
	// value given exactly); Bounds those --bound kept, with where each
	// ended; AtBound names those that ended at a bound. All three are
	// null without --fix and --bound (AtBound [] with bounds none ended
	// at).
	Fixed           map[string]float64     `json:"fixed"`
	Bounds          map[string]boundReport `json:"bounds"`
	AtBound         []string               `json:"at_bound"`
	Kernel          string                 `json:"kernel"` // the kernel at the fitted hyperparameters, as kernel.Text writes it
	Mean            float64                `json:"mean"`
	MeanFunction    string                 `json:"mean_function"`
	N               int                    `json:"n"`
	M               int                    `json:"m"`
	MRequested      *int                   `json:"m_requested"`
	Z               *int                   `json:"z"`
	Jitter          *float64               `json:"jitter"`            // added to the diagonal of K[Z,Z] (sgpr-continuous) or K (exact)
	DroppedRows     *int                   `json:"dropped_rows"`      // training rows left out for a missing value (--drop-missing), null without it
	DroppedTestRows *int                   `json:"dropped_test_rows"` // the same of the test rows, null without --drop-missing or --test
	NoiseColumn     *string                `json:"noise_column"`      // the column of known noise variances (--noise-column), null without it
	Warnings        []string               `json:"warnings"`
	Notes           []string               `json:"notes"`
	BLAS            string                 `json:"blas"`
	Ranks           int                    `json:"ranks"`   // the MPI ranks the fit ran on (docs/scaling.md); 1 without MPI
	Refined         *refinedReport         `json:"refined"` // null unless a hybrid fit kept its refinement
	// Starts lists every start of a fit with restarts (--restarts, or its
	// default for a periodic kernel), the data-driven one first, and
	// BestStart indexes the one kept; both are null for a fit from one
	// start. (Restarts counts the optimiser's own restarts, another thing.)
	Starts    []startReport `json:"starts"`
	BestStart *int          `json:"best_start"`
	// Parents are a hybrid fit's CholQR and continuous parents; null for the other selectors.
	Parents *parentsReport `json:"parents"`
	// covPath is the file of --cov, for the text summary.
	covPath string

	names []string // the hyperparameters' names, in θ order (the summary's lines)
}

// setDropped records the rows --drop-missing left out of the training
// and test data (test may be nil); without it the keys are null.
func (r *fitReport) setDropped(drop bool, train, test *fitData) {
	if !drop {
		return
	}
	r.DroppedRows = ptr(train.dropped)
	if test != nil {
		r.DroppedTestRows = ptr(test.dropped)
	}
}

// printDropped writes the summary's line of the rows --drop-missing left
// out, if it left out any.
func (r *fitReport) printDropped(w io.Writer) {
	train, test := 0, 0
	if r.DroppedRows != nil {
		train = *r.DroppedRows
	}
	if r.DroppedTestRows != nil {
		test = *r.DroppedTestRows
	}
	if train+test == 0 {
		return
	}
	fmt.Fprintf(w, "%-16s%s and %s with a missing value (--drop-missing)\n", "dropped", count(train, "training row"), count(test, "test row"))
}

// ptr returns a pointer to a copy of v, for a fitReport key that is null
// for some selectors.
func ptr[T any](v T) *T { return &v }

// encode returns the report as one line of JSON, encoded before any
// output file is written so that a report that cannot be encoded leaves
// none.
func (r *fitReport) encode() ([]byte, error) {
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	if r.Notes == nil {
		r.Notes = []string{}
	}
	r.Ranks = max(r.Ranks, 1)
	out, err := json.Marshal(r)
	var uv *json.UnsupportedValueError
	if errors.As(err, &uv) {
		return nil, fmt.Errorf("cannot write the result as JSON: it holds the value %s, which is not finite (a fit or a test score that did not reach finite values)", uv.Str)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot encode the result as JSON: %w", err)
	}
	return append(out, '\n'), nil
}

// refinedReport describes the continuous refinement of a hybrid fit
// (--selector hybrid) that the model predicts with.
type refinedReport struct {
	From           string      `json:"from"` // where it started: the k-means centres or ++ seeds, CholQR's set, a random subset or CholQR's fit
	Evaluations    int         `json:"evaluations"`
	Stopped        string      `json:"stopped"`
	Seconds        float64     `json:"seconds"`
	Jitter         float64     `json:"jitter"` // added to K[Z,Z]'s diagonal; the objective is that model's
	InducingInputs [][]float64 `json:"inducing_inputs"`
}

// namedParams maps parameter names to exp(θ): the hyperparameters of a
// fit's final θ (for a hybrid fit, its refinement's).
func namedParams(names []string, theta []float64) map[string]float64 {
	hp := make(map[string]float64, len(names))
	for i, name := range names {
		if i < len(theta) {
			hp[name] = math.Exp(theta[i])
		}
	}
	return hp
}

// rowsOf returns the rows of v.
func rowsOf(v *kernel.Vectors) [][]float64 {
	rows := make([][]float64, v.Len())
	for i := range rows {
		rows[i] = append([]float64(nil), v.Row(i)...)
	}
	return rows
}

// progressTo returns where fit writes progress: stderr, or nil with
// --quiet.
func progressTo(e *env, quiet bool) io.Writer {
	if quiet {
		return nil
	}
	return e.stderr
}

// checkSettings validates the flag values of a sparse fit: a value
// outside its range is a usage error (exit status 2). Whether m suits
// the data (1 ≤ m < n) is the model's rule, checked when it is built.
func checkSettings(m, z, maxEpochs int, budget time.Duration) error {
	switch {
	case m < 1:
		return usageErrorf("--m %d: the number of inducing points must be ≥ 1", m)
	case z < 0:
		return usageErrorf("--z %d: the number of information pivots must be ≥ 0", z)
	case maxEpochs < 1:
		return usageErrorf("--max-epochs %d must be ≥ 1", maxEpochs)
	case budget < 0:
		return usageErrorf("--time-budget %v must be ≥ 0 (0: no limit)", budget)
	}
	return nil
}

// printFitSummary writes the objective, the stopping reason and the
// hyperparameters of a fit.
func printFitSummary(w io.Writer, md *sgp.Model, res *sgp.Result) {
	kind := md.ObjectiveKind()
	fmt.Fprintf(w, "%-16s%s  (%v, includes n/2·log 2π)\n", "objective", strconv.FormatFloat(res.Objective, 'g', -1, 64), kind)
	if cr := res.Refined; cr != nil && res.CholQR != nil {
		fmt.Fprintf(w, "%-16s%d of the continuous fit (%s) in %.3g s; CholQR's epochs below\n", "evaluations", cr.Evals, res.Stopped(), res.Elapsed.Seconds())
	} else {
		fmt.Fprintf(w, "%-16s%s\n", "epochs", epochsLine(res, md.Trace()))
	}
	names, theta := res.Names, res.Params // a hybrid fit's are its refinement's
	fmt.Fprintf(w, "%-16s%s\n", "kernel", kernelText(md.Kernel(), theta))
	fmt.Fprintf(w, "%-16s%s\n", "hyperparameters", paramsText(names, theta))
	fmt.Fprintf(w, "%-16s%.6g (%s)\n", "prior mean", res.Mean, md.MeanFunction())
	if res.AtNoiseFloor {
		fmt.Fprintf(w, "%-16sσ² = %.4g is at its floor %.4g: the floor, not the data, decided it (see --noise-floor)\n", "noise floor", math.Exp(theta[len(theta)-1]), res.NoiseFloor)
	}
	if len(res.SwitchedOn) > 0 {
		on := make([]string, len(res.SwitchedOn))
		for i, j := range res.SwitchedOn {
			on[i] = names[1+j] // a kernel.Lengthscaled's: variance, then the lengthscales
		}
		fmt.Fprintf(w, "%-16s%s (the fit had switched them off; the objective was lower with them back)\n", "switched on", strings.Join(on, " "))
	}
	if cr := res.Refined; cr != nil {
		fmt.Fprintf(w, "%-16sfrom %s: %v %.6g → %.6g in %d evaluations (%s); predictions use it\n", "refined", res.RefinedFrom, kind, cr.Start, cr.Objective, cr.Evals, stopText(cr.Status, cr.Reason))
	}
}

// epochsLine says how many epochs a fit completed, why it stopped, how
// long it took and how many swaps it accepted. Swaps made by an epoch
// that the time budget or an interrupt cut short are not in any complete
// epoch: the line counts them apart, so that "0 epochs" and "10 of 25
// swaps" do not contradict each other.
func epochsLine(res *sgp.Result, trace sgp.Trace) string {
	inEpochs := 0
	for _, r := range trace {
		inEpochs += r.Swaps
	}
	s := fmt.Sprintf("%d complete (%s) in %.3g s; %d of %d swaps accepted", res.Epochs, stopText(res.Status, res.Reason), res.Elapsed.Seconds(), res.Accepted, res.Swaps)
	if cut := res.Swaps - inEpochs; cut > 0 && (res.Status == sgp.TimeBudget || res.Status == sgp.Cancelled) {
		s += fmt.Sprintf(", %d of them in an epoch cut short by the %s", cut, map[sgp.Status]string{sgp.TimeBudget: "time budget", sgp.Cancelled: "interrupt"}[res.Status])
	}
	return s
}

// shortfall explains an inducing set smaller than m: the model keeps only
// points the kernel can tell apart from the others.
func shortfall(k, m int) string {
	if k >= m {
		return ""
	}
	return fmt.Sprintf("  (%d of m=%d: the kernel cannot tell more points apart at these hyperparameters)", k, m)
}

func formatFloats(v []float64, format string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf(format, x)
	}
	return strings.Join(s, " ")
}

func formatInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, " ")
}

// --- eval ---

// specCaps returns what the kernel named by name (from kernel.SplitSpec)
// offers the selectors that move inducing inputs continuously
// (kernel.SpecCapabilities, the library's one definition).
func specCaps(name string) kernel.Caps {
	c, _ := kernel.SpecCapabilities(name)
	return c
}

// continuousSpec reports whether sgpr-continuous can fit the kernel named
// by name: it has input gradients.
func continuousSpec(name string) bool { return specCaps(name).Continuous }

// hybridSpec reports whether the hybrid selector can refine with the
// kernel named by name: it has lengthscales and input gradients.
func hybridSpec(name string) bool { return specCaps(name).Hybrid }

// kernelsFor lists, for a message, the --kernel names of which has holds.
func kernelsFor(has func(kernel.Caps) bool) string {
	return kernel.ListNames(kernel.NamesWith(has))
}

// continuousKernels and hybridKernels list the kernels of sgpr-continuous
// and of the hybrid, for messages.
func continuousKernels() string { return kernelsFor(func(c kernel.Caps) bool { return c.Continuous }) }
func hybridKernels() string     { return kernelsFor(func(c kernel.Caps) bool { return c.Hybrid }) }

// kernelText describes k at the hyperparameters theta (its log
// parameters first, as a fit's Params hold them) in one line
// (kernel.Text), without changing k.
func kernelText(k kernel.Kernel, theta []float64) string {
	c := kernel.Clone(k)
	if c == k {
		return kernel.Text(k)
	}
	c.SetParams(theta[:c.NumParams()])
	return kernel.Text(c)
}

// startFrom sets the starting values that fit --param names, leaving the
// kernel's other hyperparameters at their values from the data, and
// returns the starting noise variance that --param noise=V gives (0: the
// fit's default). The names are those of the JSON's "hyperparameters":
// the kernel's, then noise. It changes nothing on an error.
func startFrom(kern kernel.Kernel, params paramList, spec string) (noise float64, err error) {
	params = slices.Clone(params)
	if noise, err = params.noise(); err != nil || len(params) == 0 {
		return noise, err
	}
	names, theta := kern.ParamNames(), kern.Params(nil)
	for _, p := range params {
		i, err := p.index(append(names[:len(names):len(names)], noiseName), spec)
		if err != nil {
			return 0, err
		}
		theta[i] = math.Log(p.value)
	}
	kern.SetParams(theta)
	return noise, nil
}

// dataHint adds to an error of reading a data file how to fix it: a file
// with missing values is read by --drop-missing where the command has it
// (canDrop: fit and eval), and there a column of text by naming the
// numeric columns or with a kernel of text; predict says why it drops
// no rows.
func dataHint(err error, canDrop bool) error {
	var me *data.MissingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &me) && canDrop:
		return &wrapped{fmt.Sprintf("%s; impute them, or leave them out with --drop-missing (the summary counts them)", me.Counted()), err}
	case errors.As(err, &me):
		return &wrapped{fmt.Sprintf("%s; predict writes one output row per input row, in order, so it drops none: impute them, or drop them from the input and from whatever holds its row order", me.Counted()), err}
	case errors.Is(err, data.ErrNotNumber) && canDrop: // fit and eval, which choose the columns
		return fmt.Errorf("%w; a file read as numbers needs a number in every column: --input-column NAME (repeatable, with a header row) reads only the columns named, and a column of text needs a kernel of strings (--kernel spectrum) or of molecules (--kernel wl or tanimoto)", err)
	}
	return err
}

// wrapped is an error with a message of its own around err.
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }
