package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/kernel"
)

// fitRanks fits the CholQR inducing set and the hyperparameters on the
// rows the ranks hold (sgp.FitRanks): from the start a fit in one process
// takes from the data (ranksKernel, and FitRanks' σ² and noise floor),
// with --param's starting values, learning those --fix does not hold.
// Rank 0 prints the progress and the summary or the JSON object, and
// writes the model file and the test predictions (writeRanksOutputs).
// The other selectors, --bound and --restarts run with one rank;
// fitRanks says so.
func (c *fitConfig) fitRanks(ctx context.Context, e *env, world *comm.Comm, rows *rankRows) error {
	p := world.Size()
	sel := strings.ToLower(strings.TrimSpace(c.selector))
	switch {
	case sel != "" && sel != "cholqr":
		return usageErrorf("fit: under %d ranks fit runs the cholqr selector only (--selector cholqr), not %s; run it with one rank", p, echo(c.selector))
	case len(c.cons.bound) > 0:
		return usageErrorf("fit: under %d ranks fit bounds no hyperparameter (--bound): hold it (--fix NAME=VALUE), or bound it with one rank", p)
	case c.restarts > 0:
		return usageErrorf("fit: under %d ranks fit runs from one start, not --restarts %d: run the restarts with one rank", p, c.restarts)
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
	var x *kernel.Vectors
	var y []float64
	if rows.data != nil {
		x, y = rows.data.X, rows.data.Y
	}
	kern, noise, err := c.ranksKernel(world, x, y, rows, spec)
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
	o := sgp.RanksOptions{M: m, Objective: obj, MaxEpochs: c.maxEpochs, Z: c.z, Seed: c.seed, Mean: mean, NoiseFloor: c.noiseFloor}
	for _, f := range c.cons.fix {
		o.Fixed = append(o.Fixed, f.name)
	}
	if o.Learn = len(o.Fixed) < kern.NumParams()+1; !o.Learn {
		o.Fixed = nil
	}
	if world.Rank() == 0 && !c.quiet && !c.json {
		o.Progress = e.stderr
	}
	res, err := sgp.FitRanks(ctx, world, x, y, rows.lo, rows.n, kern, noise, o)
	if err != nil {
		return err
	}
	out, err := c.writeRanksOutputs(e, world, res, test, cols)
	if err != nil {
		return err
	}
	if k := len(res.Inducing); k < m {
		out.Notes = append(out.Notes, fmt.Sprintf("only %d of the m=%d inducing points asked for: the kernel cannot tell more training points apart at these hyperparameters", k, m))
	}
	if c.restarts < 0 && restartsFor(-1, kern) > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("a fit with one rank restarts a kernel with a periodic component from %d other starts (--restarts); under %d ranks fit ran from the data's start alone", restartsFor(-1, kern), p))
	}
	if world.Rank() == 0 {
		var dropped []int // the training and test rows --drop-missing left out
		if c.dropMissing {
			dropped = []int{rows.dropped}
			if test != nil {
				dropped = append(dropped, test.Dropped)
			}
		}
		if err := c.reportRanks(e, res, obj, mean, spec, kern, m, dropped, out); err != nil {
			return err
		}
	}
	return ranksInterrupted(signals, world, res)
}

// ranksKernel returns the kernel of spec started as fit in one process
// starts it, the same on every rank: its hyperparameters from every
// rank's rows (sgp.SpreadRanks, kernel.ParseSpread: kernel.Parse's
// values to the rounding of the sums), then those --param and --fix
// NAME=VALUE give; and the starting noise variance they give (0: FitRanks
// takes it from the data).
func (c *fitConfig) ranksKernel(world *comm.Comm, x *kernel.Vectors, y []float64, rows *rankRows, spec string) (kernel.Kernel, float64, error) {
	spread, err := sgp.SpreadRanks(world, x, y, rows.lo, rows.n)
	if err != nil {
		return nil, 0, err
	}
	kern, err := kernel.ParseSpread(spec, spread)
	if err != nil {
		return nil, 0, &exitError{code: exitUsage, err: err}
	}
	if err := c.cons.check(append(kern.ParamNames(), noiseName), c.params, spec); err != nil {
		return nil, 0, err
	}
	params := slices.Clone(c.params)
	for _, f := range c.cons.fix {
		if f.value != 0 {
			params = append(params, f)
		}
	}
	noise, err := startFrom(kern, params, spec)
	return kern, noise, err
}

// ranksJSON is the JSON object of a fit across ranks: the keys of fit's
// in one process that a fit across ranks has (hyperparameters, fixed,
// noise_floor, at_noise_floor, mean), and its own.
type ranksJSON struct {
	Ranks           int                `json:"ranks"`
	N               int                `json:"n"`
	M               int                `json:"m"`
	Selector        string             `json:"selector"`
	Kernel          string             `json:"kernel"`
	KernelText      string             `json:"kernel_text"` // the kernel at the fitted hyperparameters, as kernel.Text writes it
	Objective       string             `json:"objective"`
	Value           float64            `json:"value"`
	Start           float64            `json:"start_value"` // the objective of the starting set at the starting hyperparameters
	Parts           sgp.Parts          `json:"parts"`
	Mean            float64            `json:"mean"`
	MeanKind        string             `json:"mean_kind"`
	StartMean       float64            `json:"start_mean"`
	Hyperparameters map[string]float64 `json:"hyperparameters"`
	StartHyper      map[string]float64 `json:"start_hyperparameters"`
	Fixed           map[string]float64 `json:"fixed"` // those --fix held, null without it
	NoiseFloor      float64            `json:"noise_floor"`
	AtNoiseFloor    bool               `json:"at_noise_floor"`
	CGEvaluations   int                `json:"cg_evaluations"` // of the gradient phases, 0 with every hyperparameter held
	CGStatus        string             `json:"cg_status"`      // how the last gradient phase ended
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
	DroppedRows     *int               `json:"dropped_rows"`      // training rows left out for a missing value (--drop-missing), null without it
	DroppedTestRows *int               `json:"dropped_test_rows"` // the same of the test rows, null without --drop-missing or --test
	*ranksOutputs
}

// reportRanks prints rank 0's summary or JSON object.
func (c *fitConfig) reportRanks(e *env, res *sgp.RanksResult, obj sgp.Objective, mean sgp.Mean, spec string, kern kernel.Kernel, m int, dropped []int, out *ranksOutputs) error {
	h, h0 := res.Hyperparameters, res.StartHyperparameters
	theta := logs(h.Values)
	j := ranksJSON{Ranks: res.Ranks, N: res.N, M: m, Selector: "cholqr", Kernel: spec, KernelText: kernelText(kern, theta), Objective: obj.String(),
		Value: res.Value, Start: res.Start, Parts: res.Parts, Mean: res.Mean, MeanKind: mean.String(), StartMean: res.StartMean,
		Hyperparameters: map[string]float64{}, StartHyper: map[string]float64{}, NoiseFloor: res.NoiseFloor, AtNoiseFloor: res.AtNoiseFloor,
		CGEvaluations: res.CGEvals, CGStatus: res.CGStatus.String(), Inducing: res.Inducing,
		Epochs: res.Epochs, Swaps: res.Swaps, Accepted: res.Accepted, Z: c.z, Converged: res.Converged,
		Stopped: res.Stopped, Seconds: res.Elapsed.Seconds(), ranksOutputs: out}
	for i, name := range h.Names {
		j.Hyperparameters[name], j.StartHyper[name] = h.Values[i], h0.Values[i]
	}
	var fixed []string
	for _, f := range c.cons.fix {
		if j.Fixed == nil {
			j.Fixed = map[string]float64{}
		}
		j.Fixed[f.name] = j.Hyperparameters[f.name]
		fixed = append(fixed, f.name+"="+strconv.FormatFloat(j.Fixed[f.name], 'g', -1, 64))
	}
	if len(dropped) > 0 {
		j.DroppedRows = ptr(dropped[0])
	}
	if len(dropped) > 1 {
		j.DroppedTestRows = ptr(dropped[1])
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
	hyper := "held hyperparameters"
	if res.CGStatus != sgp.CGSkipped {
		hyper = fmt.Sprintf("learned hyperparameters (%d CG evaluations, the last phase %s)", res.CGEvals, res.CGStatus)
	}
	w := e.stdout
	fmt.Fprintf(w, "fit across %d ranks: n=%d, m=%d, cholqr with %s, %v %.10g (mean %.6g)\n", res.Ranks, res.N, m, hyper, obj, res.Value, res.Mean)
	(&fitReport{DroppedRows: j.DroppedRows, DroppedTestRows: j.DroppedTestRows}).printDropped(w)
	fmt.Fprintf(w, "%d epochs, %d of %d swaps accepted, ended by %s; %.1f messages and %.0f bytes sent by rank 0 per swap; %.2fs\n",
		res.Epochs, res.Accepted, res.Swaps, end, j.MessagesPerSwap, j.BytesPerSwap, j.Seconds)
	fmt.Fprintf(w, "%-16s%s\n", "kernel", j.KernelText)
	fmt.Fprintf(w, "%-16s%s\n", "hyperparameters", paramsText(h.Names, theta))
	fmt.Fprintf(w, "%-16s%s  (%v %.10g)\n", "start", paramsText(h0.Names, logs(h0.Values)), obj, res.Start)
	if len(fixed) > 0 {
		fmt.Fprintf(w, "%-16s%s (--fix)\n", "fixed", strings.Join(fixed, " "))
	}
	fmt.Fprintf(w, "%-16s%.6g (%s)\n", "prior mean", res.Mean, mean)
	if res.AtNoiseFloor {
		fmt.Fprintf(w, "%-16sσ² = %.4g is at its floor %.4g: the floor, not the data, decided it (see --noise-floor)\n", "noise floor", h.Values[len(h.Values)-1], res.NoiseFloor)
	}
	printRanksOutputs(w, out, c.testPath)
	return nil
}

// logs returns the logarithms of v.
func logs(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Log(x)
	}
	return out
}
