// Package cli is the command line of sgprepl: the subcommands demo, fit,
// predict, eval, experiment, version, run and -e (scripts), kernel and
// install-kernel, their flags, and what they share — reading data
// (data.go), staging output files (output.go), reporting errors and exit
// statuses (this file). The work is done by package sgp and by the front
// ends repl/terminal and repl/jupyter; cmd/sgprepl only wires the process
// (arguments, signals, exit status) to Main.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cholqr/sgp/repl/terminal"

	"github.com/cholqr/sgp/sgp"
)

// Exit statuses of Main.
const (
	exitOK          = 0
	exitFailure     = 1   // bad data or values: unreadable file, m out of range, …
	exitUsage       = 2   // the command line cannot be parsed
	exitInterrupted = 130 // the context was cancelled (Ctrl-C); 128 + SIGINT
)

// usage is the top-level help text.
const usage = `sgprepl: sparse Gaussian-process regression by CholQR (Cao et al., NIPS 2013);
the inducing points are a subset of the training data.

usage:
  sgprepl                           the interactive Go REPL with sgp, gonum and plot (:help inside)
  sgprepl run FILE.go               run a Go file (statements and declarations) in a new session
  sgprepl -e 'CODE'                 evaluate Go code and print the value of its final expression
  sgprepl demo [flags]              fit the embedded Snelson-like 1-D problem (no download)
  sgprepl fit --train FILE [flags]  fit a model to a CSV file; report, save, predict
  sgprepl predict --model FILE --input FILE [--output FILE]
                                    predict with a saved model at new rows
  sgprepl eval --train FILE --inducing I,J,… --variance V --lengthscales L[,…] --noise S2 [flags]
                                    the objective of a given inducing set and hyperparameters
  sgprepl experiment NAME [flags]   run one of the paper's experiments on $SGP_DATA
  sgprepl kernel CONNECTION_FILE    a Jupyter kernel (started by Jupyter)
  sgprepl install-kernel [--user | --prefix DIR]
                                    install the Jupyter kernel spec "sgp"
  sgprepl help [COMMAND]            this help, or the flags of COMMAND

CSV files hold numbers, one row per point, the target in the last column; a
header row is optional. Objectives include n/2·log 2π.
Exit status: 0 success, 1 bad data or values, 2 usage error, 130 interrupted.
`

// env holds the streams of one Main call.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is a subcommand: its flags are defined by flags, and run
// executes it once they are parsed.
type command struct {
	name     string
	synopsis string // the usage line after "sgprepl "
	doc      string
	flags    func(fs *flag.FlagSet) func(ctx context.Context, e *env) error
	args     bool // takes positional arguments (before or after the flags)
}

// commands lists the subcommands in the order of the help text.
var commands = []command{
	{
		name:     "demo",
		synopsis: "demo [flags]",
		doc: "Fits the embedded Snelson-like 1-D problem (200 noisy training points drawn\n" +
			"from a seeded generator, a noise-free test grid of 301 points) from a random\n" +
			"start, printing one line per epoch and a summary.",
		flags: demoFlags,
	},
	{
		name:     "fit",
		synopsis: "fit --train FILE [flags]",
		doc: "Fits a sparse GP to a CSV file: numbers with the target in the last column\n" +
			"(header optional) and an RBF-ARD kernel, or named columns (--input-column,\n" +
			"--target-column) with any --kernel: rbf, wl, wl-depth, spectrum, tanimoto,\n" +
			"histogram. The prior mean is a constant estimated in closed form with the\n" +
			"hyperparameters (the generalised least-squares mean of the targets under\n" +
			"the model), so targets need no centring; it is saved with the model.\n" +
			"Progress goes to stderr, the summary to stdout, warnings (fewer inducing\n" +
			"points than asked, no convergence) to both. Interrupting (Ctrl-C) stops the\n" +
			"fit; the partial result is still reported, saved and used for predictions,\n" +
			"and the exit status is 130. Output files are checked before the fit and\n" +
			"never overwrite an input.",
		flags: fitFlags,
	},
	{
		name:     "predict",
		synopsis: "predict --model FILE --input FILE [--output FILE] [--json]",
		doc: "Predicts with a model saved by fit --save at new rows: the predictive mean,\n" +
			"the variance of a noisy observation and the latent variance, one CSV row per\n" +
			"input row (header mean,variance,latent_variance), the same numbers fit\n" +
			"--predictions writes for the same rows. Numeric models read the d input\n" +
			"columns (a last, target, column is ignored); models of molecules or strings\n" +
			"read the --input-column of a CSV file with a header row.",
		flags: predictFlags,
	},
	{
		name:     "eval",
		synopsis: "eval --train FILE --inducing I,J,… --variance V --lengthscales L[,…] --noise S2 [flags]",
		doc: "Prints the objective of a given inducing set (0-based data rows, factorised in\n" +
			"the given order) and RBF-ARD hyperparameters,\n" +
			"    κ(x, x′) = V·exp(−½ Σ_t (x_t − x′_t)²/L_t²),\n" +
			"including n/2·log 2π, for reproducing numbers from papers and other tools.\n" +
			"The prior mean is 0 (the paper's model) unless --mean C is given.\n" +
			"One lengthscale applies to every dimension; otherwise give exactly d.",
		flags: evalFlags,
	},
	{
		name:     "experiment",
		synopsis: "experiment NAME [--out DIR] [--budget D] [--m M1,M2,…]",
		doc: "Runs one of the paper's experiments on the real data ($SGP_DATA) and writes\n" +
			"NAME.csv, NAME.md and PNG plots to --out: snelson (CholQR against continuous\n" +
			"SGPR from the clumped start), kin40k (SMSE/SNLP against m for CholQR and the\n" +
			"baselines).",
		flags: experimentFlags,
		args:  true,
	},
	{
		name:     "kernel",
		synopsis: "kernel CONNECTION_FILE [--formats png,html]",
		doc: "Runs a Jupyter kernel (messaging protocol 5.3) on an interactive session;\n" +
			"Jupyter starts it with the connection file. See install-kernel.",
		flags: kernelFlags,
		args:  true,
	},
	{
		name:     "install-kernel",
		synopsis: "install-kernel [--user | --prefix DIR] [--name sgp]",
		doc: "Writes the Jupyter kernel spec (kernel.json) that starts this binary's kernel:\n" +
			"system-wide by default, for the user with --user, under DIR/share/jupyter with --prefix.",
		flags: installKernelFlags,
	},
}

// Main runs the sgprepl command line with args (without the program name) and returns the exit status.
//
// Errors are reported as one line on stderr starting with "sgprepl: ".
// Cancelling ctx stops a running fit; its partial result is reported and
// Main returns 130.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		return report(e, terminal.Interactive(ctx, e.streams()))
	}
	switch name := args[0]; name {
	case "help", "-h", "-help", "--help":
		return help(e, args[1:])
	case "run":
		return runFile(ctx, e, args[1:])
	case "-e":
		return runCode(ctx, e, args[1:])
	default:
		c := lookup(name)
		if c == nil {
			return report(e, usageErrorf("unknown command %q; run 'sgprepl help' for the list", name))
		}
		return report(e, c.run(ctx, e, args[1:]))
	}
}

// streams returns the streams for a front end.
func (e *env) streams() terminal.Streams {
	return terminal.Streams{Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr}
}

// scriptUsage is the usage error of run and -e.
const scriptUsage = "usage: sgprepl run FILE.go, or sgprepl -e 'CODE'"

// runFile runs `sgprepl run FILE.go`.
func runFile(ctx context.Context, e *env, args []string) int {
	if len(args) != 1 {
		return report(e, usageErrorf("run takes one Go file, got %d arguments; %s", len(args), scriptUsage))
	}
	src, err := os.ReadFile(args[0])
	if err != nil {
		return report(e, fmt.Errorf("cannot read %s: %w", args[0], errors.Unwrap(err)))
	}
	return report(e, scriptError(terminal.RunScript(ctx, e.streams(), args[0], terminal.ScriptSource(string(src)))))
}

// runCode runs `sgprepl -e 'CODE'`.
func runCode(ctx context.Context, e *env, args []string) int {
	if len(args) != 1 {
		return report(e, usageErrorf("-e takes one argument, the code, got %d; %s", len(args), scriptUsage))
	}
	return report(e, scriptError(terminal.RunScript(ctx, e.streams(), "", args[0])))
}

// scriptError gives an interrupted script its exit status, 130.
func scriptError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &exitError{code: exitInterrupted, err: err}
	}
	return err
}

// help prints the usage, or the usage of the command named in args, to
// stdout.
func help(e *env, args []string) int {
	switch len(args) {
	case 0:
		fmt.Fprint(e.stdout, usage)
		return exitOK
	case 1:
		c := lookup(args[0])
		if c == nil {
			return report(e, usageErrorf("help: unknown command %q; run 'sgprepl help' for the list", args[0]))
		}
		c.printUsage(e.stdout)
		return exitOK
	}
	return report(e, usageErrorf("help takes at most one command name, got %d arguments", len(args)))
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// newFlagSet returns the command's flag set and the function that runs it.
// Parsing errors are reported by run, so the flag package itself prints
// nothing.
func (c *command) newFlagSet() (*flag.FlagSet, func(context.Context, *env) error) {
	fs := flag.NewFlagSet("sgprepl "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs, c.flags(fs)
}

// printUsage writes the command's synopsis, description and flags to w.
func (c *command) printUsage(w io.Writer) {
	fs, _ := c.newFlagSet()
	fmt.Fprintf(w, "usage: sgprepl %s\n\n%s\n\nflags:\n", c.synopsis, c.doc)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// run parses args and runs the command. -h prints the command's usage to
// stderr and succeeds.
func (c *command) run(ctx context.Context, e *env, args []string) error {
	fs, run := c.newFlagSet()
	if c.args && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		// "experiment NAME --flag …": the flag package stops at the first
		// positional argument, so parse the flags first.
		args = append(append([]string(nil), args[1:]...), args[0])
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.printUsage(e.stderr)
			return nil
		}
		return usageErrorf("%s: %v (run 'sgprepl help %s')", c.name, err, c.name)
	}
	if fs.NArg() > 0 && !c.args {
		return usageErrorf("%s: unexpected argument %q; all inputs are given by flags (run 'sgprepl help %s')", c.name, fs.Arg(0), c.name)
	}
	return run(ctx, e)
}

// exitError carries an exit status other than 1 for an error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErrorf returns an error with the usage exit status.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// errInterrupted reports a fit stopped by cancellation whose partial result
// has been reported.
var errInterrupted = &exitError{code: exitInterrupted, err: errors.New("interrupted; the partial result is reported above")}

// report prints err, if any, as one line on stderr and returns its exit
// status. The "sgp: " prefix of library errors is dropped in favour of
// "sgprepl: ".
func report(e *env, err error) int {
	if err == nil {
		return exitOK
	}
	msg := strings.TrimPrefix(err.Error(), "sgp: ")
	msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " ")
	fmt.Fprintf(e.stderr, "sgprepl: %s\n", msg)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailure
}

// --- demo ---

func demoFlags(fs *flag.FlagSet) func(context.Context, *env) error {
	seed := fs.Uint64("seed", 1, "seed of the generated data and of the random start")
	m := fs.Int("m", 10, "number of inducing points")
	objective := fs.String("objective", "var", "objective to minimise: var (Titsias' VFE) or mle (DTC)")
	maxEpochs := fs.Int("max-epochs", 50, "maximum number of epochs")
	return func(ctx context.Context, e *env) error {
		obj, err := sgp.ParseObjective(*objective)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		const n = 200
		train, test := sgp.SnelsonLike(n, *seed)
		if err := checkSettings(n, *m, 0, *maxEpochs, 0); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "demo: Snelson-like 1-D problem, n=%d training points (seed %d), %d-point noise-free test grid; m=%d, %v\n",
			n, *seed, test.Len(), *m, obj)
		md := sgp.NewModel(train.X, train.Y, sgp.NewRBFFromData(train.X, train.Y)).
			WithM(*m).WithObjective(obj).WithSeed(*seed).WithMaxEpochs(*maxEpochs).
			WithProgress(e.stdout)
		if err := md.Err(); err != nil {
			return err
		}
		res, fitErr := md.FitContext(ctx)
		if err := fitError(res, fitErr); err != nil {
			return err
		}
		smse, snlp, err := md.Evaluate(test)
		if err != nil {
			return err
		}
		xs := make([]float64, len(res.Inducing))
		for i, j := range res.Inducing {
			xs[i] = train.X.At(j, 0)
		}
		slices.Sort(xs)
		w := e.stdout
		printFitSummary(w, md, res)
		fmt.Fprintf(w, "%-16s%s%s\n", "inducing x", formatFloats(xs, "%.4g"), shortfall(len(xs), *m))
		fmt.Fprintf(w, "%-16sSMSE %.4g  SNLP %.4g  (%d points; SNLP with the noisy variance)\n", "test grid", smse, snlp, test.Len())
		if res.Stopped == "cancelled" {
			return errInterrupted
		}
		return nil
	}
}

// --- fit ---

func fitFlags(fs *flag.FlagSet) func(context.Context, *env) error {
	trainPath := fs.String("train", "", "training CSV `file` (required)")
	testPath := fs.String("test", "", "test CSV `file` with the same columns; adds SMSE and SNLP")
	m := fs.Int("m", 0, "number of inducing points (default min(100, n/2))")
	z := fs.Int("z", 16, "number of information pivots")
	objective := fs.String("objective", "var", "objective to minimise: var (Titsias' VFE) or mle (DTC)")
	seed := fs.Uint64("seed", 1, "seed of the random start and of the swaps")
	maxEpochs := fs.Int("max-epochs", 50, "maximum number of epochs")
	budget := fs.Duration("time-budget", 0, "stop after the epoch that exceeds this `duration` (0: no limit)")
	savePath := fs.String("save", "", "write the fitted model as JSON to `file` (see sgp.LoadPredictorFile)")
	predPath := fs.String("predictions", "", "write CSV `file` with header mean,variance (noisy variance), one row per test row; needs --test")
	jsonOut := fs.Bool("json", false, "print exactly one JSON object on stdout")
	quiet := fs.Bool("quiet", false, "no progress lines")
	var inputCols stringList
	fs.Var(&inputCols, "input-column", "input column `NAME` (repeatable; column mode, needs a header row)")
	targetCol := fs.String("target-column", "", "target column `NAME` (column mode; default the last column)")
	kernelSpec := fs.String("kernel", "", "kernel: rbf|wl[:h]|wl-depth[:h]|spectrum[:k]|tanimoto[:r]|histogram[:C] (column mode unless rbf)")
	selectorName := fs.String("selector", "cholqr", "inducing-point selection: cholqr|random|greedy-variance|titsias:S|sgpr-continuous (numeric inputs; inducing inputs optimised continuously, 20·max-epochs evaluations)")
	where := fs.String("where", "", "column mode: read only the training rows with COLUMN=VALUE (e.g. split=train)")
	testWhere := fs.String("test-where", "", "column mode: read only the test rows with COLUMN=VALUE (e.g. split=test)")
	return func(ctx context.Context, e *env) error {
		switch {
		case *trainPath == "":
			return usageErrorf("fit: --train FILE is required (run 'sgprepl help fit')")
		case *predPath != "" && *testPath == "":
			return usageErrorf("fit: --predictions needs --test FILE, the inputs to predict at")
		case *predPath != "" && *savePath != "" && filepath.Clean(*predPath) == filepath.Clean(*savePath):
			return usageErrorf("fit: --save and --predictions name the same file %s", *savePath)
		}
		obj, err := sgp.ParseObjective(*objective)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if err := checkOutputs([]string{*trainPath, *testPath}, *savePath, *predPath); err != nil {
			return err
		}
		if *selectorName == "sgpr-continuous" {
			if len(inputCols) > 0 || *targetCol != "" || *where != "" || *testWhere != "" || (*kernelSpec != "" && *kernelSpec != "rbf") {
				return usageErrorf("fit: --selector sgpr-continuous moves inducing inputs continuously and needs numeric inputs and the rbf kernel")
			}
			return fitContinuousCLI(ctx, e, contOptions{train: *trainPath, test: *testPath, m: *m, mSet: isSet(fs, "m"), obj: obj,
				seed: *seed, budget: *budget, maxEvals: *maxEpochs * 20, save: *savePath, pred: *predPath, json: *jsonOut})
		}
		sel, err := sgp.ParseSelector(*selectorName)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		columnMode := len(inputCols) > 0 || *targetCol != "" || *where != "" || *testWhere != "" || (*kernelSpec != "" && *kernelSpec != "rbf")
		spec := *kernelSpec
		if spec == "" {
			spec = "rbf"
		}
		if _, _, err := sgp.ParseKernelSpec(spec); err != nil {
			return &exitError{code: exitUsage, err: err}
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
		} else if train, test, err = readNumericData(*trainPath, *testPath); err != nil {
			return err
		}
		n := train.Len()
		if !isSet(fs, "m") {
			*m = sgp.DefaultM(n)
		}
		if err := checkSettings(n, *m, *z, *maxEpochs, *budget); err != nil {
			return err
		}
		kern, err := sgp.NewKernel(spec, train.x, train.y)
		if err != nil {
			return err
		}
		md := sgp.NewModel(train.x, train.y, kern).
			WithM(*m).WithInfoPivots(*z).WithObjective(obj).WithSeed(*seed).
			WithMaxEpochs(*maxEpochs).WithTimeBudget(*budget).WithSelector(sel)
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
			Epochs: res.Epochs, Seconds: res.Elapsed.Seconds(), Stopped: res.Stopped, Converged: res.Converged,
			Inducing:        slices.Sorted(slices.Values(res.Inducing)),
			Hyperparameters: md.Hyperparameters(), Mean: res.Mean, MeanFunction: md.MeanFunction().String(),
			N: n, M: len(res.Inducing), MRequested: *m, Z: *z,
			Warnings: append([]string{}, res.Warnings...),
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
			if out, err = json.Marshal(rep); err != nil {
				return fmt.Errorf("cannot encode the result as JSON: %w", err)
			}
			out = append(out, '\n')
		}
		if err := writeOutputs(output{*savePath, md.Save}, output{*predPath, pred.writeCSV}); err != nil {
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
		if res.Stopped == "cancelled" {
			return errInterrupted
		}
		return nil
	}
}

// fitReport is the --json output of fit. Metrics that are undefined (no
// test set, or one of a single row or with constant targets) are null;
// Notes says why. M is the number of inducing points used, MRequested the
// number asked for.
type fitReport struct {
	Objective       float64            `json:"objective"`
	ObjectiveKind   string             `json:"objective_kind"`
	SMSE            *float64           `json:"smse"`
	SNLP            *float64           `json:"snlp"`
	Epochs          int                `json:"epochs"`
	Seconds         float64            `json:"seconds"`
	Stopped         string             `json:"stopped"`
	Converged       bool               `json:"converged"`
	Inducing        []int              `json:"inducing"`
	Hyperparameters map[string]float64 `json:"hyperparameters"`
	Mean            float64            `json:"mean"`
	MeanFunction    string             `json:"mean_function"`
	N               int                `json:"n"`
	M               int                `json:"m"`
	MRequested      int                `json:"m_requested"`
	Z               int                `json:"z"`
	Warnings        []string           `json:"warnings"`
	Notes           []string           `json:"notes,omitempty"`
}

// readData reads the training file and, if testPath is not empty, the test
// file, which must have the same number of columns.
func readData(trainPath, testPath string) (train, test *sgp.Dataset, err error) {
	if train, err = sgp.ReadCSVFile(trainPath); err != nil {
		return nil, nil, err
	}
	if testPath == "" {
		return train, nil, nil
	}
	if test, err = sgp.ReadCSVFile(testPath); err != nil {
		return nil, nil, err
	}
	if test.X.Dim() != train.X.Dim() {
		return nil, nil, fmt.Errorf("test file %s has %d columns but training file %s has %d; both need the same inputs, then the target",
			testPath, test.X.Dim()+1, trainPath, train.X.Dim()+1)
	}
	return train, test, nil
}

// checkSettings validates the fit settings against n points.
func checkSettings(n, m, z, maxEpochs int, budget time.Duration) error {
	switch {
	case n < 2:
		return fmt.Errorf("the training data has %d row; need at least 2 (1 ≤ m < n)", n)
	case m < 1 || m >= n:
		return fmt.Errorf("m=%d inducing points must satisfy 1 ≤ m < n=%d", m, n)
	case z < 0:
		return fmt.Errorf("z=%d information pivots must be ≥ 0", z)
	case maxEpochs < 1:
		return fmt.Errorf("--max-epochs %d must be ≥ 1", maxEpochs)
	case budget < 0:
		return fmt.Errorf("--time-budget %v must be ≥ 0 (0: no limit)", budget)
	}
	return nil
}

// fitError returns the error of a fit that did not produce a result worth
// reporting; a cancelled fit is reported, so it returns nil for it.
func fitError(res *sgp.Result, err error) error {
	if res == nil {
		if err == nil {
			err = errors.New("the fit returned no result")
		}
		return err
	}
	if err != nil && res.Stopped != "cancelled" {
		return err
	}
	return nil
}

// printFitSummary writes the objective, the stopping reason and the
// hyperparameters of a fit.
func printFitSummary(w io.Writer, md *sgp.Model, res *sgp.Result) {
	kind := md.ObjectiveKind()
	fmt.Fprintf(w, "%-16s%s  (%v, includes n/2·log 2π)\n", "objective", strconv.FormatFloat(res.Objective, 'g', -1, 64), kind)
	fmt.Fprintf(w, "%-16s%d (%s) in %.3g s; %d of %d swaps accepted\n", "epochs", res.Epochs, res.Stopped, res.Elapsed.Seconds(), res.Accepted, res.Swaps)
	names, theta := md.ParamNames(), md.Params()
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s=%.6g", name, math.Exp(theta[i]))
	}
	fmt.Fprintf(w, "%-16s%s\n", "hyperparameters", strings.Join(parts, " "))
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

func evalFlags(fs *flag.FlagSet) func(context.Context, *env) error {
	trainPath := fs.String("train", "", "training CSV `file` (required)")
	var inducing intList
	fs.Var(&inducing, "inducing", "comma-separated 0-based data rows of the inducing set, in factorisation `order` (required)")
	variance := fs.Float64("variance", 0, "signal variance `V` of the RBF kernel (required)")
	var ls floatList
	fs.Var(&ls, "lengthscales", "lengthscales `L1[,L2,…]`: one for all dimensions, or exactly d (required)")
	noise := fs.Float64("noise", 0, "noise variance `S2` (required)")
	objective := fs.String("objective", "var", "objective to report: var (Titsias' VFE) or mle (DTC)")
	meanC := fs.Float64("mean", 0, "constant prior mean `C`: the objective of the zero-mean GP for y − C (default 0, the model of the paper)")
	jsonOut := fs.Bool("json", false, "print one JSON object with the objective and its terms")
	return func(_ context.Context, e *env) error {
		if math.IsNaN(*meanC) || math.IsInf(*meanC, 0) {
			return usageErrorf("eval: --mean %v must be finite", *meanC)
		}
		for _, name := range []string{"train", "inducing", "variance", "lengthscales", "noise"} {
			if !isSet(fs, name) {
				return usageErrorf("eval: --%s is required (run 'sgprepl help eval')", name)
			}
		}
		obj, err := sgp.ParseObjective(*objective)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if !positive(*variance) {
			return fmt.Errorf("--variance %v must be positive and finite", *variance)
		}
		if !positive(*noise) {
			return fmt.Errorf("--noise %v must be positive and finite", *noise)
		}
		for _, l := range ls {
			if !positive(l) {
				return fmt.Errorf("--lengthscales: %v must be positive and finite", l)
			}
		}
		if len(ls) == 0 {
			return errors.New("--lengthscales is empty; give one lengthscale, or one per input dimension")
		}
		if len(inducing) == 0 {
			return errors.New("--inducing is empty; give at least one 0-based data row")
		}
		train, _, err := readData(*trainPath, "")
		if err != nil {
			return err
		}
		n, d := train.Len(), train.X.Dim()
		seen := make(map[int]bool, len(inducing))
		for _, j := range inducing {
			if j < 0 || j >= n {
				return fmt.Errorf("--inducing: row %d is out of range; %s has %d data rows, numbered 0 to %d", j, *trainPath, n, n-1)
			}
			if seen[j] {
				return fmt.Errorf("--inducing: row %d is repeated", j)
			}
			seen[j] = true
		}
		switch {
		case len(ls) == 1 && d > 1:
			ls = slices.Repeat(ls, d)
		case len(ls) != d && d == 1:
			return fmt.Errorf("--lengthscales: %d given but the inputs have 1 dimension; give 1", len(ls))
		case len(ls) != d:
			return fmt.Errorf("--lengthscales: %d given but the inputs have %d dimensions; give 1 or %d", len(ls), d, d)
		}
		m := len(inducing)
		y := train.Y
		if *meanC != 0 {
			y = make([]float64, n)
			for i, v := range train.Y {
				y[i] = v - *meanC
			}
		}
		f, err := sgp.NewFactor(train.X, y, sgp.NewRBF(*variance, ls), *noise, m, 0)
		if err != nil {
			return err
		}
		if err := f.Factorize(inducing); err != nil {
			return err
		}
		p := f.Parts()
		value := p.Value(obj)
		for _, v := range []float64{p.MLE, p.VAR, p.DataFit, p.Complexity, p.Trace} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("the objective is not finite at these hyperparameters (MLE %v, VAR %v): the noise variance %v is too small for the floating-point range", p.MLE, p.VAR, *noise)
			}
		}
		if *jsonOut {
			out, err := json.Marshal(evalReport{
				Objective: value, ObjectiveKind: obj.String(),
				DataFit: p.DataFit, Complexity: p.Complexity, Trace: p.Trace,
				MLE: p.MLE, VAR: p.VAR, N: n, M: m, Mean: *meanC,
			})
			if err != nil {
				return fmt.Errorf("cannot encode the result as JSON: %w", err)
			}
			_, err = e.stdout.Write(append(out, '\n'))
			return err
		}
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
		w := e.stdout
		fmt.Fprintf(w, "%v %s\n", obj, g(value))
		fmt.Fprintf(w, "  n=%d m=%d; MLE = ½(data_fit + complexity) + n/2·log 2π, VAR = MLE + ½trace\n", n, m)
		fmt.Fprintf(w, "  MLE        %s\n  VAR        %s\n", g(p.MLE), g(p.VAR))
		fmt.Fprintf(w, "  data_fit   %s\n  complexity %s\n  trace      %s\n", g(p.DataFit), g(p.Complexity), g(p.Trace))
		return nil
	}
}

// evalReport is the --json output of eval. DataFit, Complexity and Trace
// are E_D = yᵀ(K̂+σ²I)⁻¹y, E_C = log|K̂+σ²I| and E_V = σ⁻²tr(K − K̂).
type evalReport struct {
	Objective     float64 `json:"objective"`
	ObjectiveKind string  `json:"objective_kind"`
	DataFit       float64 `json:"data_fit"`
	Complexity    float64 `json:"complexity"`
	Trace         float64 `json:"trace"`
	MLE           float64 `json:"mle"`
	VAR           float64 `json:"var"`
	N             int     `json:"n"`
	M             int     `json:"m"`
	Mean          float64 `json:"mean"`
}

func positive(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// --- flag helpers ---

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// intList is a flag.Value holding comma-separated integers.
type intList []int

func (l *intList) String() string {
	if l == nil {
		return ""
	}
	return strings.ReplaceAll(formatInts(*l), " ", ",")
}

func (l *intList) Set(s string) error {
	*l = intList{}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	for _, c := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil {
			return fmt.Errorf("%q is not an integer", strings.TrimSpace(c))
		}
		*l = append(*l, v)
	}
	return nil
}

// floatList is a flag.Value holding comma-separated numbers.
type floatList []float64

func (l *floatList) String() string {
	if l == nil {
		return ""
	}
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func (l *floatList) Set(s string) error {
	*l = floatList{}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	for _, c := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(c), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", strings.TrimSpace(c))
		}
		*l = append(*l, v)
	}
	return nil
}
