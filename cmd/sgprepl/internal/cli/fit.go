package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"
)

func fitFlags(fs *flag.FlagSet) func(context.Context, *env) error {
	trainPath := fs.String("train", "", "training CSV `file` (required)")
	testPath := fs.String("test", "", "test CSV `file` with the same columns; adds SMSE and SNLP")
	m := fs.Int("m", 0, "number of inducing points (default min(100, n/2))")
	z := fs.Int("z", 16, "number of information pivots")
	objective := fs.String("objective", "var", "objective to minimise: var (Titsias' VFE) or mle (DTC)")
	seed := fs.Uint64("seed", 1, "seed of the random start and of the swaps")
	maxEpochs := fs.Int("max-epochs", 50, "maximum number of epochs")
	budget := fs.Duration("time-budget", 0, "stop after the epoch that exceeds this `duration`; the hybrid selector stops within it (0: no limit; the hybrid's continuous refinement then takes at most as long as its CholQR phase, at least 5 s)")
	savePath := fs.String("save", "", "write the fitted model as JSON to `file`, for predict (sgp.LoadRegressorFile reads it; with --selector exact, the exact GP: its training inputs and weights); - is standard output, and the summary then goes to stderr")
	predPath := fs.String("predictions", "", "write CSV `file` with header mean,variance,latent_variance (the variance of a noisy observation, then of the latent function), one row per test row; needs --test; - is standard output, and the summary then goes to stderr")
	jsonOut := fs.Bool("json", false, "print exactly one JSON object on stdout")
	quiet := fs.Bool("quiet", false, "no progress lines")
	noiseFloor := fs.Float64("noise-floor", 0, "least noise `variance` σ² the fit may reach, in the target's units squared (0: 1e-6 of the target's variance around a quadratic trend in the inputs, at least 1e-9 of its variance); a fit that ends at it says so")
	var inputCols stringList
	fs.Var(&inputCols, "input-column", "input column `NAME` (repeatable; column mode, needs a header row)")
	targetCol := fs.String("target-column", "", "target column `NAME` (column mode; default the last column)")
	kernelSpec := fs.String("kernel", "", "kernel: rbf|matern12|matern32|matern52|rq|linear|periodic|const, or sums and products of these (rbf+linear, periodic*rbf, matern52+const), on numeric columns; wl[:h]|wl-depth[:h]|spectrum[:k]|tanimoto[:r]|histogram[:C] in column mode")
	selectorName := fs.String("selector", "", "inducing-point selection (default: hybrid for numeric inputs with the rbf, matern12, matern32, matern52 or rq kernel, cholqr for other kernels): cholqr|random|greedy-variance|titsias:S|hybrid (numeric inputs: CholQR, then inducing inputs and hyperparameters refined continuously, kept if the objective is lower)|sgpr-continuous (numeric inputs; inducing inputs optimised continuously from a random subset, 20·max-epochs evaluations)|exact (the full GP, m = n ≤ 20000, any kernel; 20·max-epochs evaluations)")
	where := fs.String("where", "", "column mode: read only the training rows with COLUMN=VALUE (e.g. split=train)")
	testWhere := fs.String("test-where", "", "column mode: read only the test rows with COLUMN=VALUE (e.g. split=test)")
	return func(ctx context.Context, e *env) error {
		switch {
		case *trainPath == "":
			return usageErrorf("fit: --train FILE is required (run 'sgprepl help fit')")
		case *predPath != "" && *testPath == "":
			return usageErrorf("fit: --predictions needs --test FILE, the inputs to predict at")
		case !(*noiseFloor >= 0) || math.IsInf(*noiseFloor, 0):
			return usageErrorf("fit: --noise-floor %v must be a finite variance ≥ 0 (0: the default)", *noiseFloor)
		case (*savePath == stdoutPath || *predPath == stdoutPath) && *jsonOut:
			return usageErrorf("fit: --json prints its object on standard output, which --save - or --predictions - would share; write that output to a file")
		}
		blas, err := blasName()
		if err != nil {
			return err
		}
		obj, err := sgp.ParseObjective(*objective)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if err := checkOutputs([]string{*trainPath, *testPath}, *savePath, *predPath); err != nil {
			return err
		}
		if *savePath == stdoutPath || *predPath == stdoutPath {
			// The output takes standard output; the summary goes to stderr.
			e = &env{stdin: e.stdin, stdout: e.stderr, stderr: e.stderr, dash: e.stdout}
		}
		*selectorName = strings.ToLower(strings.TrimSpace(*selectorName))
		spec := *kernelSpec
		if spec == "" {
			spec = "rbf"
		}
		specName, _, err := kernel.SplitSpec(spec)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		numeric := kernel.NumericSpec(specName)
		if *selectorName == selectorContinuous {
			if len(inputCols) > 0 || *targetCol != "" || *where != "" || *testWhere != "" || !continuousSpec(specName) {
				return usageErrorf("fit: --selector sgpr-continuous moves inducing inputs continuously and needs numeric inputs and a kernel with input gradients (%s); use cholqr for --kernel %s", continuousKernels, spec)
			}
			return fitContinuousCLI(ctx, e, contOptions{train: *trainPath, test: *testPath, m: *m, mSet: isSet(fs, "m"), obj: obj, spec: spec,
				seed: *seed, budget: *budget, maxEvals: *maxEpochs * 20, save: *savePath, pred: *predPath, json: *jsonOut, noiseFloor: *noiseFloor})
		}
		if *selectorName == "" {
			// The hybrid's objective is never above CholQR's, and on KIN40K
			// it reaches continuous SGPR's where CholQR alone does not
			// (docs/results.md); inducing inputs move continuously only for
			// numeric inputs and kernels with lengthscales and input
			// gradients.
			*selectorName = "cholqr"
			if hybridSpec(specName) {
				*selectorName = "hybrid"
			}
		}
		sel, err := parseSelector(*selectorName)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		columnMode := len(inputCols) > 0 || *targetCol != "" || *where != "" || *testWhere != "" || !numeric
		if sel == sgp.SelectHybrid && !hybridSpec(specName) {
			return usageErrorf("fit: --selector hybrid moves inducing inputs continuously and needs numeric inputs and a kernel with lengthscales and input gradients (%s); use cholqr for --kernel %s", hybridKernels, spec)
		}
		var train, test *fitData
		if columnMode {
			if train, err = readColumnData(*trainPath, inputCols, *targetCol, spec, *where); err != nil {
				return err
			}
			if *testPath != "" {
				if test, err = readColumnData(*testPath, inputCols, *targetCol, spec, *testWhere); err != nil {
					return err
				}
			}
		} else if train, test, err = readNumericData(*trainPath, *testPath, progressTo(e, *quiet)); err != nil {
			return err
		}
		n := train.Len()
		if *selectorName == selectorExact {
			kern, err := kernel.Parse(spec, train.x, train.y)
			if err != nil {
				return err
			}
			return fitExactCLI(ctx, e, exactCLIOptions{train: train, test: test, trainPath: *trainPath, testPath: *testPath, spec: spec, kern: kern,
				mSet: isSet(fs, "m"), maxEvals: *maxEpochs * 20, budget: *budget, save: *savePath, pred: *predPath, json: *jsonOut, quiet: *quiet,
				noiseFloor: *noiseFloor})
		}
		if !isSet(fs, "m") {
			*m = defaultM(n)
		}
		if err := checkSettings(n, *m, *z, *maxEpochs, *budget); err != nil {
			return err
		}
		kern, err := kernel.Parse(spec, train.x, train.y)
		if err != nil {
			return err
		}
		md := sgp.NewModel(train.x, train.y, kern).
			WithM(*m).WithInfoPivots(*z).WithObjective(obj).WithSeed(*seed).
			WithMaxEpochs(*maxEpochs).WithTimeBudget(*budget).WithSelector(sel).WithNoiseFloor(*noiseFloor)
		if !*quiet {
			md.WithProgress(e.stderr)
		}
		if err := md.Err(); err != nil {
			return err
		}
		res, fitErr := md.FitContext(ctx)
		if err := fitError(res, fitErr); err != nil {
			return err
		}

		rep := fitReport{
			Objective: res.Objective, ObjectiveKind: obj.String(),
			Epochs: ptr(res.Epochs), Seconds: res.Elapsed.Seconds(), Stopped: stopText(res.Status, res.Reason), Converged: res.Converged,
			NoiseOnly: ptr(res.NoiseOnly), Restarted: ptr(res.Restarted), NoiseFloor: res.NoiseFloor, AtNoiseFloor: res.AtNoiseFloor, Resumed: ptr(res.Resumed), SwitchedOn: append([]int{}, res.SwitchedOn...),
			Inducing:        slices.Sorted(slices.Values(res.Inducing)),
			Hyperparameters: namedParams(md.ParamNames(), res.Params), Kernel: kernelText(kern, res.Params), Mean: res.Mean, MeanFunction: md.MeanFunction().String(),
			N: n, M: len(res.Inducing), MRequested: ptr(*m), Z: ptr(*z),
			Warnings: append([]string{}, res.Warnings...),
			BLAS:     blas, Selector: sel.String(),
		}
		if cr := res.Refined; cr != nil {
			rep.Refined = &refinedReport{From: res.RefinedFrom, Evaluations: cr.Evals, Stopped: stopText(cr.Status, cr.Reason), Seconds: cr.Elapsed.Seconds(), Jitter: cr.Jitter, InducingInputs: rowsOf(cr.Z)}
		}
		var pred *predictions
		if test != nil {
			if pred, err = modelPredictions(md, test.x); err != nil {
				return err
			}
			var note string
			rep.SMSE, rep.SNLP, note = testMetrics(pred, test.y, md.Targets())
			if note != "" {
				rep.Notes = append(rep.Notes, note)
			}
		}
		var out []byte
		if *jsonOut {
			if out, err = rep.encode(); err != nil {
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
		if err := writeOutputs(e.outputs(), output{*savePath, save}, output{*predPath, pred.writeCSV}); err != nil {
			return err
		}

		if *jsonOut {
			if _, err := e.stdout.Write(out); err != nil {
				return err
			}
		} else {
			w := e.stdout
			fmt.Fprintf(w, "fit: %s, n=%d, %d input columns, kernel %s, selector %v, m=%d z=%d, seed %d\n", *trainPath, n, train.dim, spec, sel, *m, *z, *seed)
			printFitSummary(w, md, res)
			fmt.Fprintf(w, "%-16s%s%s\n", "inducing rows", formatInts(rep.Inducing), shortfall(len(rep.Inducing), *m))
			if test != nil {
				fmt.Fprintf(w, "%-16sSMSE %s  SNLP %s  (%s, %d rows)\n", "test", formatMetric(rep.SMSE), formatMetric(rep.SNLP), *testPath, test.Len())
			}
			if *savePath != "" {
				fmt.Fprintf(w, "%-16s%s\n", "model", *savePath)
			}
			if *predPath != "" {
				fmt.Fprintf(w, "%-16s%s\n", "predictions", *predPath)
			}
			for _, msg := range rep.Notes {
				fmt.Fprintf(w, "%-16s%s\n", "note", msg)
			}
		}
		// Warnings go to stderr, where they are seen with --json too (with
		// progress lines, the model has written them there already).
		if *quiet {
			for _, msg := range rep.Warnings {
				fmt.Fprintf(e.stderr, "sgprepl: warning: %s\n", msg)
			}
		}
		if res.Status == sgp.Cancelled {
			return errInterrupted
		}
		return nil
	}
}

// fitReport is the --json output of fit, of one shape for every
// selector: a key the selector cannot fill is present and null (epochs for
// sgpr-continuous and exact, which count evaluations instead; inducing
// rows for those, whose inducing inputs are not rows or are all of them;
// z, noise_only, restarted, switched_on, refined and resumed, which only
// CholQR's epochs fill). Metrics that are undefined (no test set, or one
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
	InducingInputs  [][]float64        `json:"inducing_inputs"` // sgpr-continuous's (a hybrid fit's are under refined)
	Hyperparameters map[string]float64 `json:"hyperparameters"`
	Kernel          string             `json:"kernel"` // the kernel at the fitted hyperparameters, as kernel.Text writes it
	Mean            float64            `json:"mean"`
	MeanFunction    string             `json:"mean_function"`
	N               int                `json:"n"`
	M               int                `json:"m"`
	MRequested      *int               `json:"m_requested"`
	Z               *int               `json:"z"`
	Jitter          *float64           `json:"jitter"` // added to the diagonal of K[Z,Z] (sgpr-continuous) or K (exact)
	Warnings        []string           `json:"warnings"`
	Notes           []string           `json:"notes"`
	BLAS            string             `json:"blas"`
	Refined         *refinedReport     `json:"refined"` // null unless a hybrid fit kept its refinement
	Resumed         *bool              `json:"resumed"` // a hybrid fit's CholQR had the rest of the budget after the refinements (Result.Resumed)
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
	out, err := json.Marshal(r)
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

// defaultM is the number of inducing points without --m, the one
// sgp.NewModel chooses without WithM: min(100, max(1, ⌊n/2⌋)).
func defaultM(n int) int { return min(100, max(1, n/2)) }

// checkSettings validates the fit settings against n points. A flag value
// outside its range is a usage error (exit status 2); m ≥ n, a value that
// does not fit the data, is not.
func checkSettings(n, m, z, maxEpochs int, budget time.Duration) error {
	switch {
	case m < 1:
		return usageErrorf("--m %d: the number of inducing points must be ≥ 1", m)
	case z < 0:
		return usageErrorf("--z %d: the number of information pivots must be ≥ 0", z)
	case maxEpochs < 1:
		return usageErrorf("--max-epochs %d must be ≥ 1", maxEpochs)
	case budget < 0:
		return usageErrorf("--time-budget %v must be ≥ 0 (0: no limit)", budget)
	case n < 2:
		return fmt.Errorf("the training data has %d row; need at least 2 (1 ≤ m < n)", n)
	}
	return checkM(m, n)
}

// checkM checks 1 ≤ m < n for a sparse fit of n points; m ≥ n names the
// exact GP, which uses every point.
func checkM(m, n int) error {
	if m < 1 {
		return usageErrorf("--m %d: the number of inducing points must be ≥ 1", m)
	}
	if m >= n {
		return fmt.Errorf("m=%d inducing points must satisfy 1 ≤ m < n=%d; to use all %d points, fit the exact GP with --selector exact (without --m; n ≤ %d)", m, n, n, sgp.MaxExactN)
	}
	return nil
}

// printFitSummary writes the objective, the stopping reason and the
// hyperparameters of a fit.
func printFitSummary(w io.Writer, md *sgp.Model, res *sgp.Result) {
	kind := md.ObjectiveKind()
	fmt.Fprintf(w, "%-16s%s  (%v, includes n/2·log 2π)\n", "objective", strconv.FormatFloat(res.Objective, 'g', -1, 64), kind)
	fmt.Fprintf(w, "%-16s%s\n", "epochs", epochsLine(res, md.Trace()))
	names, theta := md.ParamNames(), res.Params // a hybrid fit's are its refinement's
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s=%.6g", name, math.Exp(theta[i]))
	}
	fmt.Fprintf(w, "%-16s%s\n", "kernel", kernelText(md.Kernel(), theta))
	fmt.Fprintf(w, "%-16s%s\n", "hyperparameters", strings.Join(parts, " "))
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
	if res.Resumed {
		fmt.Fprintf(w, "%-16s%s\n", "hybrid", "CholQR resumed after the continuous refinements (behind it, or ended with time left)")
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

// The kernels of each selector that moves inducing inputs continuously,
// by their specifications: sgpr-continuous needs input gradients
// (kernel.InputGradient), the hybrid lengthscales too
// (kernel.Lengthscaled).
const (
	continuousKernels = "rbf, matern12, matern32, matern52, rq, linear, periodic or const"
	hybridKernels     = "rbf, matern12, matern32, matern52 or rq"
)

// continuousSpec reports whether the kernel named by name (from
// kernel.SplitSpec) has input gradients, for sgpr-continuous.
func continuousSpec(name string) bool {
	switch name {
	case "rbf", "matern12", "matern32", "matern52", "rq", "linear", "periodic", "const":
		return true
	}
	return false
}

// hybridSpec reports whether the kernel named by name has lengthscales and
// input gradients, for the hybrid selector.
func hybridSpec(name string) bool {
	switch name {
	case "rbf", "matern12", "matern32", "matern52", "rq":
		return true
	}
	return false
}

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
