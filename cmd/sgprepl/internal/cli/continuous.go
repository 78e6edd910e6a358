package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/cholqr/sgp/sgp"
)

// contOptions are the fit settings used by fitContinuousCLI.
type contOptions struct {
	train, test string
	m           int
	mSet        bool
	obj         sgp.Objective
	seed        uint64
	budget      time.Duration
	maxEvals    int
	save, pred  string
	json        bool
}

// contReport is the JSON result of a continuous fit: as fitReport, with
// the inducing inputs themselves instead of data rows.
type contReport struct {
	Objective       float64            `json:"objective"`
	ObjectiveKind   string             `json:"objective_kind"`
	SMSE            *float64           `json:"smse"`
	SNLP            *float64           `json:"snlp"`
	Evaluations     int                `json:"evaluations"`
	Seconds         float64            `json:"seconds"`
	Stopped         string             `json:"stopped"`
	InducingInputs  [][]float64        `json:"inducing_inputs"`
	Hyperparameters map[string]float64 `json:"hyperparameters"`
	N               int                `json:"n"`
	M               int                `json:"m"`
	Notes           []string           `json:"notes,omitempty"`
	BLAS            string             `json:"blas"`
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
		o.m = sgp.DefaultM(n)
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
	kern := sgp.NewRBFFromData(train.X, train.Y)
	_, vy := sgp.MeanVar(train.Y)
	if !(vy > 0) {
		vy = 1
	}
	res, err := sgp.FitContinuous(ctx, train.X, train.Y, kern, train.X.Rows(rng.Perm(n)[:o.m]), vy/4, o.obj,
		sgp.ContinuousOptions{MaxEvals: o.maxEvals, Jitter: 1e-6})
	if res == nil {
		return noResult(parent, ctx, err)
	}
	names := append(kern.ParamNames(), "noise")
	rep := contReport{Objective: res.Objective, ObjectiveKind: o.obj.String(), Evaluations: res.Evals,
		Seconds: res.Elapsed.Seconds(), Stopped: res.Stopped, Hyperparameters: namedParams(names, res.Params), N: n, M: o.m, BLAS: blas,
		InducingInputs: rowsOf(res.Z)}
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
	if err := writeOutputs(output{o.save, res.Predictor.Save}, output{o.pred, pred.writeCSV}); err != nil {
		return err
	}
	if o.json {
		out, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		if _, err = e.stdout.Write(append(out, '\n')); err != nil {
			return err
		}
		return interrupted(parent)
	}
	fmt.Fprintf(e.stdout, "fit: %s, n=%d, continuous SGPR, m=%d: %v %.6g after %d evaluations (%.3g s, %s)\n",
		o.train, n, o.m, o.obj, res.Objective, res.Evals, res.Elapsed.Seconds(), res.Stopped)
	if test != nil {
		fmt.Fprintf(e.stdout, "test: SMSE %s  SNLP %s\n", formatMetric(rep.SMSE), formatMetric(rep.SNLP))
	}
	for _, msg := range rep.Notes {
		fmt.Fprintf(e.stdout, "note: %s\n", msg)
	}
	return interrupted(parent)
}
