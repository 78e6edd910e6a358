package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/kernel"
)

// fitRanks fits the CholQR inducing set on the rows the ranks hold
// (sgp.FitRanks) with every hyperparameter held at the value --param or
// --fix gives it, and rank 0 prints the progress and the summary or the
// JSON object; rank 0 writes the model file and the test predictions
// (writeRanksOutputs). The gradient phase in θ and the other selectors
// run with one rank; fitRanks says so.
func (c *fitConfig) fitRanks(ctx context.Context, e *env, world *comm.Comm, rows *rankRows) error {
	p := world.Size()
	sel := strings.ToLower(strings.TrimSpace(c.selector))
	switch {
	case sel != "" && sel != "cholqr":
		return usageErrorf("fit: under %d ranks fit runs the cholqr selector only (--selector cholqr), not %s; run it with one rank", p, echo(c.selector))
	case rows.kept != rows.n:
		return usageErrorf("fit: under %d ranks fit needs every row of %s: %d of %d have a missing value (--drop-missing); impute them or fit with one rank", p, c.trainPath, rows.n-rows.kept, rows.n)
	}
	obj, err := sgp.ParseObjective(c.objective)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	mean, err := sgp.ParseMean(c.meanName)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	spec := c.kernelSpec
	if spec == "" {
		spec = "rbf"
	}
	kern, noise, names, values, err := c.heldKernel(world, rows, spec)
	if err != nil {
		return err
	}
	m := c.m
	if !c.mSet {
		m = sgp.DefaultM(rows.n)
	}
	if err := checkSettings(m, c.z, c.maxEpochs, c.budget); err != nil {
		return err
	}
	if err := checkMBelowN(m, rows.n, true); err != nil {
		return err
	}
	if err := checkRanksMemory(world, rows.hi-rows.lo, m, c.z, ranksDim(world, rows), sgp.MachineMemory()); err != nil {
		return err
	}
	cols := columnsOf(world, rows)
	test, err := c.readRanksTest(world, cols)
	if err != nil {
		return err
	}
	signals := ctx
	if c.budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.budget)
		defer cancel()
	}
	o := sgp.RanksOptions{M: m, Z: c.z, Objective: obj, MaxEpochs: c.maxEpochs, Seed: c.seed, Mean: mean}
	if world.Rank() == 0 && !c.quiet && !c.json {
		o.Progress = e.stderr
	}
	var x *kernel.Vectors
	var y []float64
	if rows.data != nil {
		x, y = rows.data.X, rows.data.Y
	}
	res, err := sgp.FitRanks(ctx, world, x, y, rows.lo, rows.n, kern, noise, o)
	if err != nil {
		return err
	}
	out, err := c.writeRanksOutputs(e, world, res, test, cols)
	if err != nil {
		return err
	}
	if world.Rank() == 0 {
		if err := c.reportRanks(e, res, obj, mean, spec, m, names, values, out); err != nil {
			return err
		}
	}
	return ranksInterrupted(signals, world, res)
}

// heldKernel returns the kernel of spec with every hyperparameter, and
// the noise variance, at the value --param or --fix NAME=VALUE gives it,
// the same on every rank: starting values from the data would differ
// between the ranks' rows. It names the hyperparameters left without a
// value or not held by --fix.
func (c *fitConfig) heldKernel(world *comm.Comm, rows *rankRows, spec string) (kernel.Kernel, float64, []string, []float64, error) {
	dim := 0
	if rows.data != nil && rows.data.X != nil {
		dim = rows.data.X.Dim()
	}
	dim = slices.Max(world.AllGatherInts([]int{dim}))
	probe, err := kernel.NewVectors(1, dim, make([]float64, dim))
	if err != nil {
		return nil, 0, nil, nil, err
	}
	kern, err := kernel.Parse(spec, probe, []float64{0})
	if err != nil {
		return nil, 0, nil, nil, &exitError{code: exitUsage, err: err}
	}
	names := append(kern.ParamNames(), noiseName)
	if err := c.cons.check(names, c.params, spec); err != nil {
		return nil, 0, nil, nil, err
	}
	params := slices.Clone(c.params)
	var unheld, unset []string
	for _, name := range names {
		fi := slices.IndexFunc(c.cons.fix, func(f namedValue) bool { return f.name == name })
		pi := slices.IndexFunc(params, func(f namedValue) bool { return f.name == name })
		switch {
		case fi < 0:
			unheld = append(unheld, name)
		case c.cons.fix[fi].value != 0:
			params = append(params, c.cons.fix[fi])
		case pi < 0:
			unset = append(unset, name)
		}
	}
	if len(unheld) > 0 || len(unset) > 0 {
		return nil, 0, nil, nil, usageErrorf("fit: under %d ranks fit holds every hyperparameter at a value given (--fix NAME=VALUE, or --fix NAME with --param NAME=VALUE): the gradient phase and the data's starting values are not distributed; not held: %s; without a value: %s",
			world.Size(), orNone(unheld), orNone(unset))
	}
	noise, err := startFrom(kern, params, spec)
	if err != nil {
		return nil, 0, nil, nil, err
	}
	theta := kern.Params(nil)
	values := make([]float64, len(names))
	for i := range theta {
		values[i] = math.Exp(theta[i])
	}
	values[len(names)-1] = noise
	return kern, noise, names, values, nil
}

// orNone joins names, or says none.
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// ranksJSON is the JSON object of a fit across ranks.
type ranksJSON struct {
	Ranks           int                `json:"ranks"`
	N               int                `json:"n"`
	M               int                `json:"m"`
	Selector        string             `json:"selector"`
	Kernel          string             `json:"kernel"`
	Objective       string             `json:"objective"`
	Value           float64            `json:"value"`
	Parts           sgp.Parts          `json:"parts"`
	Mean            float64            `json:"mean"`
	MeanKind        string             `json:"mean_kind"`
	Hyperparameters map[string]float64 `json:"hyperparameters"`
	Inducing        []int              `json:"inducing_rows"`
	Epochs          int                `json:"epochs"`
	Swaps           int                `json:"swaps"`
	Accepted        int                `json:"accepted"`
	Z               int                `json:"z"`
	Converged       bool               `json:"converged"`
	Stopped         bool               `json:"stopped"`
	MessagesPerSwap float64            `json:"messages_per_swap"`
	BytesPerSwap    float64            `json:"bytes_per_swap"`
	Seconds         float64            `json:"seconds"`
	*ranksOutputs
}

// reportRanks prints rank 0's summary or JSON object.
func (c *fitConfig) reportRanks(e *env, res *sgp.RanksResult, obj sgp.Objective, mean sgp.Mean, spec string, m int, names []string, values []float64, out *ranksOutputs) error {
	j := ranksJSON{Ranks: res.Ranks, N: res.N, M: m, Selector: "cholqr", Kernel: spec, Objective: obj.String(), Value: res.Value,
		Parts: res.Parts, Mean: res.Mean, MeanKind: mean.String(), Hyperparameters: map[string]float64{}, Inducing: res.Inducing,
		Epochs: res.Epochs, Swaps: res.Swaps, Accepted: res.Accepted, Z: c.z, Converged: res.Converged,
		Stopped: res.Stopped, Seconds: res.Elapsed.Seconds(), ranksOutputs: out}
	for i, name := range names {
		j.Hyperparameters[name] = values[i]
	}
	if res.Swaps > 0 {
		j.MessagesPerSwap = float64(res.Messages) / float64(res.Swaps)
		j.BytesPerSwap = float64(res.Bytes) / float64(res.Swaps)
	}
	if c.json {
		return json.NewEncoder(e.stdout).Encode(j)
	}
	end := "the epoch limit"
	switch {
	case res.Converged:
		end = "convergence"
	case res.Stopped:
		end = "the time budget or a signal"
	}
	fmt.Fprintf(e.stdout, "fit across %d ranks: n=%d, m=%d, cholqr with held hyperparameters, %v %.10g (mean %.6g)\n", res.Ranks, res.N, m, obj, res.Value, res.Mean)
	fmt.Fprintf(e.stdout, "%d epochs, %d of %d swaps accepted, ended by %s; %.1f messages and %.0f bytes sent by rank 0 per swap; %.2fs\n",
		res.Epochs, res.Accepted, res.Swaps, end, j.MessagesPerSwap, j.BytesPerSwap, j.Seconds)
	printRanksOutputs(e.stdout, out, c.testPath)
	return nil
}
