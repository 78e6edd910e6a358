package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/data"
)

// ranksOutputs are the outputs of a fit across ranks in its JSON object:
// the test scores and the files written, all by rank 0.
type ranksOutputs struct {
	TestRows    int      `json:"test_rows,omitempty"`
	SMSE        *float64 `json:"smse,omitempty"`
	SNLP        *float64 `json:"snlp,omitempty"`
	Model       string   `json:"model,omitempty"`
	Predictions string   `json:"predictions,omitempty"`
	Notes       []string `json:"notes,omitempty"`
}

// checkRanksOutputs refuses the outputs a fit across ranks does not
// write: the posterior's columns and covariance (--interval, --draws,
// --cov), which run with one rank.
func (c *fitConfig) checkRanksOutputs(p int) error {
	if c.post.columns() || c.post.covPath != "" {
		return usageErrorf("fit: under %d ranks fit writes the predictive mean and variances (--predictions) but not the posterior's intervals, draws or covariance; run them with one rank", p)
	}
	return nil
}

// ranksColumns are the training file's columns: the input names (nil
// without a header), the target's name and the number of inputs.
type ranksColumns struct {
	names  []string
	target string
	dim    int
}

// columnsOf returns the training file's columns on every rank, sent by
// the first rank that holds rows (rank 0 may hold none): one all-gather
// and one broadcast.
func columnsOf(world *comm.Comm, rows *rankRows) ranksColumns {
	has := 0
	if rows.data != nil && rows.data.X != nil {
		has = 1
	}
	from := slices.Index(world.AllGatherInts([]int{has}), 1)
	var msg []byte
	if world.Rank() == from {
		x := rows.data.X
		parts := append([]string{fmt.Sprint(x.Dim()), rows.data.TargetName}, x.Names()...)
		if x.Names() == nil {
			parts[0] = "-" + parts[0]
		}
		msg = []byte(strings.Join(parts, "\x00"))
	}
	parts := strings.Split(string(world.BcastBytes(msg, from)), "\x00")
	cols := ranksColumns{target: parts[1]}
	if !strings.HasPrefix(parts[0], "-") {
		cols.names = parts[2:]
	}
	fmt.Sscan(strings.TrimPrefix(parts[0], "-"), &cols.dim)
	return cols
}

// readRanksTest reads the test file (--test) on rank 0 only, the test
// set being small next to the training set, which is spread over the
// ranks: the other ranks return nil. A failure is every rank's (agree).
// The test file's header must hold the training file's input columns.
func (c *fitConfig) readRanksTest(world *comm.Comm, cols ranksColumns) (*data.Dataset, error) {
	if c.testPath == "" {
		return nil, nil
	}
	var test *data.Dataset
	var err error
	if world.Rank() == 0 {
		test, err = readCSVProgress(c.testPath, nil, readProgressEvery, c.dropMissing)
		if err == nil {
			err = matchTestColumns(test, cols, c.testPath, c.trainPath)
		}
	}
	if err := agree(world, err); err != nil {
		return nil, err
	}
	return test, nil
}

// matchTestColumns puts the test inputs in the training file's column
// order, as readDataProgress does, or says how the files differ.
func matchTestColumns(test *data.Dataset, train ranksColumns, testPath, trainPath string) error {
	if names, testNames := train.names, test.X.Names(); names != nil && testNames != nil {
		if err := sameColumns(names, testNames, testPath+"'s header"); err != nil {
			return fmt.Errorf("%w; the test file needs the training file's input columns %s", err, trainPath)
		}
		var err error
		if test.X, err = test.X.Columns(names); err != nil {
			return err
		}
	}
	if test.X.Dim() != train.dim {
		return fmt.Errorf("test file %s has %d columns but training file %s has %d; both need the same inputs, then the target",
			testPath, test.X.Dim()+1, trainPath, train.dim+1)
	}
	return nil
}

// writeRanksOutputs scores the fitted model on the test set and writes
// the model file (--save) and the predictions in test row order
// (--predictions) from rank 0, through writeOutputs (staged and renamed);
// the other ranks write nothing. A failure is every rank's (agree).
func (c *fitConfig) writeRanksOutputs(e *env, world *comm.Comm, res *sgp.RanksResult, test *data.Dataset, cols ranksColumns) (*ranksOutputs, error) {
	out := &ranksOutputs{Model: c.savePath, Predictions: c.predPath}
	var err error
	if world.Rank() == 0 {
		err = c.writeRank0Outputs(e, res, test, cols, out)
	}
	return out, agree(world, err)
}

// writeRank0Outputs is writeRanksOutputs on rank 0.
func (c *fitConfig) writeRank0Outputs(e *env, res *sgp.RanksResult, test *data.Dataset, cols ranksColumns, out *ranksOutputs) error {
	p := namedPredictor(res.Predictor(), cols.names, cols.target)
	var pred *predictions
	if test != nil {
		var err error
		if pred, err = predictorPredictions(p, test.X); err != nil {
			return err
		}
		out.TestRows = test.Len()
		ev, err := p.Evaluate(test)
		if err != nil {
			out.Notes = append(out.Notes, fmt.Sprintf("SMSE and SNLP are undefined for these %d test rows: %v", test.Len(), trimSGP(err)))
		} else {
			out.SMSE, out.SNLP = ptr(ev.SMSE), ptr(ev.SNLP)
		}
	}
	return writeOutputs(e.outputs(), output{c.savePath, p.Save}, output{c.predPath, pred.writeCSV})
}

// printRanksOutputs writes the test scores and the files written of the
// text summary.
func printRanksOutputs(w io.Writer, out *ranksOutputs, testPath string) {
	if out.TestRows > 0 {
		fmt.Fprintf(w, "%-16sSMSE %s  SNLP %s  (%s, %d rows)\n", "test", formatMetric(out.SMSE), formatMetric(out.SNLP), testPath, out.TestRows)
	}
	for _, note := range out.Notes {
		fmt.Fprintf(w, "note: %s\n", note)
	}
	if out.Model != "" {
		fmt.Fprintf(w, "%-16s%s\n", "model", out.Model)
	}
	if out.Predictions != "" {
		fmt.Fprintf(w, "%-16s%s\n", "predictions", out.Predictions)
	}
}

// ranksInterrupted returns errInterrupted on every rank when the fit
// stopped and some rank's ctx (the signals' context, not the time budget) is
// done, errInterruptedAfter when the fit ended on its own but a signal
// came before its outputs were written, and nil otherwise: the partial
// model has been written by rank 0 and every rank exits with the same
// status (one reduction).
func ranksInterrupted(ctx context.Context, world *comm.Comm, res *sgp.RanksResult) error {
	if !world.Any(ctx.Err() != nil) {
		return nil
	}
	if res.Stopped {
		return errInterrupted
	}
	return errInterruptedAfter
}
