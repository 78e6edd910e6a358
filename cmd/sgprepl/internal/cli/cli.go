// Package cli is the command line of sgprepl: the subcommands demo, fit,
// predict, eval, version, run and -e (scripts), kernel and
// install-kernel, their flags, and what they share — reading data
// (data.go), checking and writing output files by sgp/outfile's rules
// (output.go), reporting errors and exit statuses (this file). The work is
// done by package sgp and by the front ends repl/terminal and
// repl/jupyter; cmd/sgprepl only wires the process (arguments, signals,
// exit status) to Main.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/cholqr/sgp/repl/terminal"
)

// Exit statuses of Main.
const (
	exitOK          = 0
	exitFailure     = 1   // bad data or values: unreadable file, m out of range, …
	exitUsage       = 2   // the command line cannot be parsed
	exitCrash       = 3   // the REPL's or a script's process died of a fatal error (Supervise)
	exitHangup      = 129 // the context was cancelled by SIGHUP (the terminal or ssh connection closed); 128 + SIGHUP
	exitInterrupted = 130 // the context was cancelled (Ctrl-C); 128 + SIGINT
	exitTerminated  = 143 // the context was cancelled by SIGTERM; 128 + SIGTERM
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
  sgprepl kernel CONNECTION_FILE    a Jupyter kernel (started by Jupyter)
  sgprepl install-kernel [--user | --prefix DIR]
                                    install the Jupyter kernel spec "sgp"
  sgprepl version (or --version)    the version, Go version and BLAS in use
  sgprepl help [COMMAND]            this help, or the flags of COMMAND (or COMMAND --help)

CSV files hold numbers, one row per point, the target in the last column; a
header row is optional. Objectives include n/2·log 2π.
Exit status: 0 success, 1 bad data or values (a file that cannot be read,
m ≥ n), 2 usage error (an unknown flag, a flag value outside its range), 3
the REPL or script crashed (a fatal error of the Go runtime), 129 hung up
(SIGHUP: the terminal or ssh connection closed), 130 interrupted (Ctrl-C,
SIGINT), 143 terminated (SIGTERM); whichever signal, a running fit stops,
and its partial result is reported and written. A closed stderr (a pipe
whose reader has gone) stops only the progress lines; output that cannot
be written to a closed stdout is an error (exit status 1).
`

// env holds the streams of one Main call.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// dash, if not nil, takes the outputs named "-" (stdoutPath) in
	// place of stdout: the standard output, when a command's report
	// has moved to stderr to leave it to them.
	dash io.Writer
}

// outputs returns the writer of the outputs named "-".
func (e *env) outputs() io.Writer {
	if e.dash != nil {
		return e.dash
	}
	return e.stdout
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
		doc: "Fits a sparse GP (or the exact GP, see below) to a CSV file: numbers with\n" +
			"the target in the last column (header optional) and an RBF-ARD kernel or\n" +
			"another kernel of numeric columns (--kernel matern12, matern32, matern52,\n" +
			"rq, linear, periodic, const, and sums and products of these: rbf+linear,\n" +
			"periodic*rbf, matern52+const), or named columns (--input-column,\n" +
			"--target-column) with any --kernel, also wl, wl-depth, spectrum, tanimoto,\n" +
			"histogram. The prior mean is a constant\n" +
			"estimated in closed form with the hyperparameters under a prior N(ȳ, var y)\n" +
			"(--mean), so targets need no centring; it is saved with the model.\n" +
			"With neither --m nor --selector, fit fits the exact GP wherever it is\n" +
			"affordable (estimated within a minute and half the machine's memory:\n" +
			"n up to about 4000–5000), and says so. Inducing points: --selector\n" +
			"hybrid by default for numeric inputs with the kernels that have\n" +
			"lengthscales and input gradients, " + hybridKernels() + "\n" +
			"(CholQR and continuous SGPR, the lower objective kept), cholqr for the\n" +
			"others.\n" +
			"Progress goes to stderr, the summary to stdout, warnings (fewer inducing\n" +
			"points than asked, no convergence) to both. Interrupting (Ctrl-C, SIGINT) or\n" +
			"terminating (SIGTERM, as timeout, Slurm, docker stop and systemd send it;\n" +
			"SIGHUP, a closed terminal or ssh connection, likewise) stops the fit at the\n" +
			"next swap or evaluation, in any phase; the partial result is still reported,\n" +
			"saved and used for predictions, and the exit status is 130 (SIGINT), 143\n" +
			"(SIGTERM) or 129 (SIGHUP). A closed stderr stops only the progress lines.\n" +
			"Output files are checked before the fit and never overwrite an\n" +
			"input; a device, named pipe or /dev/stdout is written in place.",
		flags: fitFlags,
	},
	{
		name:     "predict",
		synopsis: "predict --model FILE --input FILE [--output FILE] [--json]",
		doc: "Predicts with a model saved by fit --save at new rows: the predictive mean,\n" +
			"the variance of a noisy observation and the latent variance, one CSV row per\n" +
			"input row (header mean,variance,latent_variance), the same numbers fit\n" +
			"--predictions writes for the same rows. A model fit on a file with a header\n" +
			"row knows its columns by name: the input's header must name its input\n" +
			"columns, in any order (a column named as the target is not read; a missing or\n" +
			"unknown column is an error); a headerless input is read in the model's order\n" +
			"only with --no-header. A model fit without a header row reads the d input\n" +
			"columns by position (a last, target, column is not read). Models of molecules\n" +
			"or strings read their input column (or --input-column) of a CSV file with a\n" +
			"header row. An exact model (fit --selector exact --save) holds its training\n" +
			"inputs and weights; loading it factorises its n×n kernel matrix again (about\n" +
			"n³/3 flops and 8n² bytes), for at most --max-exact-n training points.\n" +
			"--interval P adds the columns lower,upper, --samples N the columns\n" +
			"sample_1 … sample_N of joint posterior draws (seeded by --seed), and --cov\n" +
			"FILE writes the covariance of the rows (docs/posterior.md).",
		flags: predictFlags,
	},
	{
		name:     "eval",
		synopsis: "eval --train FILE --inducing I,J,… --variance V --lengthscales L[,…] --noise S2 [flags]",
		doc: "Prints the objective of a given inducing set (0-based data rows, factorised in\n" +
			"the given order) and kernel hyperparameters, by default RBF-ARD,\n" +
			"    κ(x, x′) = V·exp(−½ Σ_t (x_t − x′_t)²/L_t²),\n" +
			"including n/2·log 2π, for reproducing numbers from papers and other tools.\n" +
			"The prior mean is 0 (the paper's model) unless --mean C is given.\n" +
			"One lengthscale applies to every dimension; otherwise give exactly d.\n" +
			"--kernel takes any kernel of numeric columns (matern52, rq --alpha A,\n" +
			"periodic --periods P[,…], linear --variance V[,…], const, and sums and\n" +
			"products such as matern52+linear, whose hyperparameters are given by name:\n" +
			"--param k0.variance=1.2,k0.lengthscale[0]=0.8,k1.variance[0]=0.1). Every\n" +
			"hyperparameter must be given.",
		flags: evalFlags,
	},
	{
		name:     "version",
		synopsis: "version",
		doc:      "Prints the version of sgprepl, the Go version and the BLAS in use (SGP_BLAS).",
		flags:    versionFlags,
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
// Main returns 130, or 143 if the cause of the cancellation
// (context.Cause) is Interrupt{SIGTERM}.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	code := dispatch(ctx, args, stdin, stdout, stderr)
	if code == exitInterrupted {
		code = interruptStatus(ctx)
	}
	return code
}

// dispatch runs the command args name; Main gives SIGTERM its exit status.
func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		return report(e, terminal.Interactive(ctx, e.streams()))
	}
	switch name := args[0]; name {
	case "help", "-h", "-help", "--help":
		return help(e, args[1:])
	case "--version", "-version":
		return report(e, lookup("version").run(ctx, e, args[1:]))
	case "run":
		return runFile(ctx, e, args[1:])
	case "-e":
		return runCode(ctx, e, args[1:])
	default:
		c := lookup(name)
		if c == nil {
			return report(e, usageErrorf("unknown command %q%s; run 'sgprepl help' for the list", name, commandHint(name)))
		}
		out := &recordingWriter{w: stdout}
		e.stdout, e.stderr = out, &lossyWriter{w: stderr}
		code := report(e, c.run(ctx, e, args[1:]))
		out.mu.Lock()
		lost := out.err
		out.mu.Unlock()
		if code == exitOK && lost != nil {
			// The command's own outputs say when they fail; this is the
			// summary that a closed stdout lost.
			code = report(e, fmt.Errorf("cannot write to standard output: %w; the output is incomplete", lost))
		}
		return code
	}
}

// recordingWriter passes writes to w and keeps the first error, so that a
// command whose summary could not be written (stdout closed) does not exit
// 0 as if it had been.
type recordingWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (r *recordingWriter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, err := r.w.Write(p)
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}

// lossyWriter is stderr for the commands: the progress lines, warnings and
// errors. After a write fails (a closed pipe, as 2>&1 | head -1 leaves
// it) it drops everything, so that the fit goes on, quietly, and writes
// its outputs: cmd/sgprepl handles SIGPIPE, which makes such a write an
// EPIPE error rather than the end of the process.
type lossyWriter struct {
	mu     sync.Mutex // writes may come from a fit's goroutines
	w      io.Writer
	failed bool
}

func (l *lossyWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.failed {
		if _, err := l.w.Write(p); err != nil {
			l.failed = true
		}
	}
	return len(p), nil
}

// streams returns the streams for a front end.
func (e *env) streams() terminal.Streams {
	return terminal.Streams{Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr}
}

// help prints the usage, or the usage of the command named in args, to
// stdout.
func help(e *env, args []string) int {
	switch len(args) {
	case 0:
		fmt.Fprint(e.stdout, usage)
		return exitOK
	case 1:
		if args[0] == "run" || args[0] == "-e" {
			fmt.Fprintln(e.stdout, scriptHelp)
			return exitOK
		}
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

// run parses args and runs the command. -h (or --help) prints the
// command's usage to stdout, as help COMMAND does, and succeeds.
func (c *command) run(ctx context.Context, e *env, args []string) error {
	fs, run := c.newFlagSet()
	if c.args && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		// "kernel FILE --flag …": the flag package stops at the first
		// positional argument, so parse the flags first.
		args = append(append([]string(nil), args[1:]...), args[0])
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.printUsage(e.stdout)
			return nil
		}
		return usageErrorf("%s: %v%s (run 'sgprepl help %s')", c.name, err, flagHint(fs, err), c.name)
	}
	if fs.NArg() > 0 && !c.args {
		return usageErrorf("%s: unexpected argument %q; all inputs are given by flags (run 'sgprepl help %s')", c.name, fs.Arg(0), c.name)
	}
	return run(ctx, e)
}

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
