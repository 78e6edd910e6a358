package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// predictions are a model's predictive distribution at some inputs: the
// mean, the variance of the latent function and that of a noisy
// observation (latent + σ²).
type predictions struct {
	mean, latent, noisy []float64
	// What the posterior flags add (posteriorFlags): the interval of
	// probability level, the draws (a row per input row) and the
	// covariance of noisy observations; nil when not asked for.
	level        float64
	lower, upper []float64
	samples      *mat.Dense
	cov          *mat.SymDense
}

// modelPredictions predicts with a fitted model.
func modelPredictions(md *sgp.Model, x kernel.Inputs) (*predictions, error) {
	p, err := md.Predictor()
	if err != nil {
		return nil, err
	}
	return predictorPredictions(p, x)
}

// predictorPredictions predicts with a Predictor or an ExactPredictor:
// for a Predictor, the same numbers as modelPredictions for the model it
// was taken from, bit for bit.
func predictorPredictions(p sgp.Regressor, x kernel.Inputs) (*predictions, error) {
	mean, latent, err := p.Predict(x)
	if err != nil {
		return nil, err
	}
	_, noisy, err := p.PredictNoisy(x)
	if err != nil {
		return nil, err
	}
	return &predictions{mean: mean, latent: latent, noisy: noisy}, nil
}

// writeCSV writes the predictions as CSV with the header
// mean,variance,latent_variance: variance is that of a noisy observation.
func (p *predictions) writeCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("mean,variance,latent_variance")
	p.writeExtra(bw, -1)
	bw.WriteByte('\n')
	for i := range p.mean {
		bw.WriteString(strconv.FormatFloat(p.mean[i], 'g', -1, 64))
		bw.WriteByte(',')
		bw.WriteString(strconv.FormatFloat(p.noisy[i], 'g', -1, 64))
		bw.WriteByte(',')
		bw.WriteString(strconv.FormatFloat(p.latent[i], 'g', -1, 64))
		p.writeExtra(bw, i)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// testMetrics returns SMSE and SNLP of the predictions against the test
// targets y (noisy predictive variances; the training targets as the
// trivial model), or nil for a metric that is undefined — one test row or
// constant test targets — with a note saying so.
func testMetrics(p *predictions, y, trainY []float64) (smse, snlp *float64, note string) {
	s, err := sgp.SMSE(p.mean, y)
	if err != nil {
		return nil, nil, fmt.Sprintf("SMSE and SNLP are undefined for these %d test rows: %v", len(y), trimSGP(err))
	}
	tm, tv := stat.PopMeanVariance(trainY, nil)
	l, err := sgp.SNLP(p.mean, p.noisy, y, tm, tv)
	if err != nil {
		return &s, nil, fmt.Sprintf("SNLP is undefined: %v", trimSGP(err))
	}
	return &s, &l, ""
}

// trimSGP drops the "sgp: " prefix of a library error.
func trimSGP(err error) string {
	msg := err.Error()
	if len(msg) > 5 && msg[:5] == "sgp: " {
		return msg[5:]
	}
	return msg
}

// formatMetric formats a metric that may be undefined.
func formatMetric(v *float64) string {
	if v == nil {
		return "undefined"
	}
	return strconv.FormatFloat(*v, 'g', 4, 64)
}

// --- predict ---

func predictFlags(fs *flag.FlagSet) func(context.Context, *env) error {
	modelPath := fs.String("model", "", "model `file` written by fit --save (required): sparse, or exact from --selector exact")
	inputPath := fs.String("input", "", "CSV `file` of the rows to predict at (required): for a model fit on a file with a header row, a header naming the model's input columns, in any order (a column named as the target is not read); otherwise the model's d input columns, or d+1 whose last, a target, is not read")
	noHeader := fs.Bool("no-header", false, "the input file has no header row: read its columns as the model's inputs, in the model's order, also for a model fit on named columns")
	outPath := fs.String("output", "", "write the predictions as CSV to `file` (mean,variance,latent_variance, then the columns of --interval and --samples) instead of stdout; - is standard output")
	jsonOut := fs.Bool("json", false, "print one JSON object with the predictions")
	var inputCols stringList
	fs.Var(&inputCols, "input-column", "input column `NAME` (repeatable; column mode, for models of discrete inputs; needs a header row)")
	var post posteriorFlags
	post.register(fs, "seed")
	maxExactN := fs.Int("max-exact-n", defaultMaxExactN, "largest exact model (fit --selector exact) to load, in training points `N`: loading factorises its N×N kernel matrix, 8N² bytes (200 MB at 5000, 3.2 GB at 20000), so a small file can ask for gigabytes; raise it for a file you trust")
	return func(ctx context.Context, e *env) error {
		return completeOrInterrupted(ctx, func() error {
			switch {
			case *modelPath == "":
				return usageErrorf("predict: --model FILE is required (run 'sgprepl help predict')")
			case *inputPath == "":
				return usageErrorf("predict: --input FILE is required (run 'sgprepl help predict')")
			case *maxExactN < 1:
				return usageErrorf("predict: --max-exact-n %d must be ≥ 1", *maxExactN)
			}
			if err := post.check("predict", fs); err != nil {
				return err
			}
			if *outPath == stdoutPath && *jsonOut {
				return usageErrorf("predict: --json prints its object on standard output, which --output - would share; give --output a file, or drop it")
			}
			if post.covPath == stdoutPath && (*outPath == "" || *outPath == stdoutPath || *jsonOut) {
				return usageErrorf("predict: --cov - would share standard output with the predictions or the JSON object; give --cov a file, or --output one")
			}
			if err := checkOutputs([]string{*modelPath, *inputPath}, *outPath, post.covPath); err != nil {
				return err
			}
			if err := checkExactSize(*modelPath, *maxExactN); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return &exitError{code: exitInterrupted, err: errors.New("interrupted before the model was loaded; nothing was written")}
			}
			p, err := sgp.LoadRegressorFile(*modelPath)
			if err != nil {
				return err
			}
			x, err := readPredictInputs(*inputPath, p, inputCols, *noHeader)
			if err != nil {
				return err
			}
			if err := post.checkSize("predict", x.Len()); err != nil {
				return err
			}
			if _, ok := p.(*sgp.ExactPredictor); ok {
				if err := post.checkExact("predict", x.Len()); err != nil {
					return err
				}
			}
			pred, err := predictorPredictions(p, x)
			if err != nil {
				return err
			}
			if err := post.add(pred, p, x); err != nil {
				return err
			}
			covOut := pred.covOutput(post.covPath)
			if *jsonOut {
				obj := map[string]any{
					"model": *modelPath, "model_kind": modelKind(p), "input": *inputPath, "rows": len(pred.mean),
					"mean": pred.mean, "variance": pred.noisy, "latent_variance": pred.latent,
				}
				pred.jsonFields(obj)
				if post.covPath != "" {
					obj["cov"] = post.covPath
				}
				out, err := json.Marshal(obj)
				if err != nil {
					return err
				}
				if err := writeOutputs(e.outputs(), output{*outPath, pred.writeCSV}, covOut); err != nil {
					return err
				}
				_, err = e.stdout.Write(append(out, '\n'))
				return err
			}
			if *outPath == "" {
				if err := writeOutputs(e.outputs(), covOut); err != nil {
					return err
				}
				return pred.writeCSV(e.stdout)
			}
			return writeOutputs(e.outputs(), output{*outPath, pred.writeCSV}, covOut)
		})
	}
}

// completeOrInterrupted runs a command that cannot stop midway (predict)
// and returns its error or, when ctx was cancelled (a signal) while it
// ran, the interruption with its exit status: the output is complete,
// and the status still says that the process was asked to stop.
func completeOrInterrupted(ctx context.Context, run func() error) error {
	if err := run(); err != nil || ctx.Err() == nil {
		return err
	}
	return &exitError{code: exitInterrupted, err: errors.New("interrupted; the command had its output complete and written")}
}

// modelKind is "sparse" or "exact".
func modelKind(p sgp.Regressor) string {
	if _, ok := p.(*sgp.ExactPredictor); ok {
		return "exact"
	}
	return "sparse"
}

// modelParts returns a loaded model's kernel, the inputs it keeps
// (inducing inputs, or the training inputs of an exact model) and the
// columns it was fit on.
func modelParts(p sgp.Regressor) (kernel.Kernel, kernel.Inputs, data.InputColumns) {
	switch m := p.(type) {
	case *sgp.Predictor:
		return m.Kern, m.X, m.InputColumns()
	case *sgp.ExactPredictor:
		return m.Kern, m.X, m.InputColumns()
	}
	panic(fmt.Sprintf("predict: unknown model type %T", p))
}

// readPredictInputs reads the rows to predict at: numbers for a model of
// vectors, matched to the model's input columns by name where both have
// names (data.ReadPredictCSV), by position otherwise (byPosition allows
// that for a named model); named columns for other models (SMILES,
// strings, …, featurised as in fit), by default the model's own.
func readPredictInputs(path string, p sgp.Regressor, inputCols []string, byPosition bool) (kernel.Inputs, error) {
	kern, kept, cols := modelParts(p)
	if _, ok := kept.(*kernel.Vectors); !ok || len(inputCols) > 0 {
		switch {
		case len(inputCols) == 0 && cols.Names == nil:
			return nil, usageErrorf("predict: this model's inputs are not numbers: name the input column with --input-column (the file needs a header row)")
		case len(inputCols) == 0:
			inputCols = cols.Names
		case cols.Names != nil:
			// The columns named must be the model's, read in its order.
			if err := sameColumns(cols.Names, inputCols, "--input-column"); err != nil {
				return nil, fmt.Errorf("predict: %w", err)
			}
			inputCols = cols.Names
		}
		spec, err := kernelSpecOf(kern)
		if err != nil {
			return nil, err
		}
		d, err := readColumns(path, inputCols, "", spec, "", false)
		if err != nil {
			return nil, dataHint(err, false)
		}
		return d.x, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, errors.Unwrap(err))
	}
	defer fh.Close()
	cols.ByPosition = byPosition
	x, err := data.ReadPredictCSV(fh, path, cols)
	switch {
	case errors.Is(err, data.ErrNoHeader):
		return nil, fmt.Errorf("%s has no header row, but the model was fit on named columns (%s): add a header row naming them, or pass --no-header to read the columns in the model's order", path, columnNames(cols.Names))
	case errors.Is(err, data.ErrUnknownColumn):
		return nil, fmt.Errorf("%w; or read only the model's inputs by naming each with --input-column", err)
	}
	return x, dataHint(err, false)
}

// kernelSpecOf returns the --kernel spec that featurises inputs for k.
func kernelSpecOf(k kernel.Kernel) (string, error) {
	switch kk := k.(type) {
	case *kernel.RBF, *kernel.Matern, *kernel.RQ, *kernel.Linear, *kernel.Periodic, *kernel.Sum, *kernel.Product, *kernel.Const:
		if d, err := kernel.Describe(k); err == nil && (d.InputDim() > 0 || d.Type == "const") {
			return "rbf", nil // every kernel of numeric columns reads them alike
		}
	case *kernel.HistogramIntersection:
		return fmt.Sprintf("histogram:%d", kk.NumChannels()), nil
	case *kernel.Spectrum:
		return fmt.Sprintf("spectrum:%d", kk.K()), nil
	case *kernel.WL:
		if kk.PerDepth() {
			return fmt.Sprintf("wl-depth:%d", kk.Depth()), nil
		}
		return fmt.Sprintf("wl:%d", kk.Depth()), nil
	}
	return "", fmt.Errorf("predict: models with kernel %T take their inputs from Go (sgp.LoadRegressorFile); the command line cannot featurise them", k)
}

// shorten shortens a cell or line quoted in an error message.
func shorten(s string) string {
	const max = 40
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max]) + "…"
}
