package sgp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/cholqr/sgp/sgp/kernel"
)

// Restarts (WithRestarts of Model, Exact and Continuous) fit again from
// starts drawn around the data-driven one, as scikit-learn's
// n_restarts_optimizer does, and keep the lowest objective. The draws are
// log-normal: each log hyperparameter of the kernel moves by
// restartSpread·N(0, 1), a factor e for one standard deviation, except
//
//   - the noise variance, drawn log-uniformly from restartNoiseRange
//     times its start up to its start (not below the noise floor): the
//     data-driven start σ² = var(y)/4 is the largest noise a model
//     plausibly has, and an optimum where the noise explains a
//     pattern the kernel could (a periodic one) is the failure the
//     restarts are for;
//   - a period (a hyperparameter named period[t]): restart k starts it at
//     the periodogram's (k+1)-th peak while there are such peaks
//     (kernel.PeriodPeaks), and otherwise draws it around its start with
//     a standard deviation of log p of p/span, the periodogram's
//     resolution over inputs that span span: the objective is a comb in
//     the period, whose teeth a wider draw would miss.
//
// The draws come from the model's seed, so that a fit with restarts is
// reproducible.
const (
	restartSpread     = 1.0
	restartNoiseRange = 1e-4
	// restartStream is the second word of the seed of the draws.
	restartStream = 0x7265737461727473
)

// DefaultRestarts is the number of restarts sgprepl fit makes without
// --restarts for a kernel whose objective is known to have many optima,
// one with a periodic component: one local optimum per tooth of the
// comb in the period, and one where the noise explains the periodic
// pattern. docs/defaults.md has the measurements behind it.
const DefaultRestarts = 4

// RestartsFor returns the default number of restarts for kernel k:
// DefaultRestarts if it has a period among its hyperparameters (a
// periodic kernel or a sum or product with one), 0 otherwise.
func RestartsFor(k kernel.Kernel) int {
	if k == nil {
		return 0
	}
	for _, name := range k.ParamNames() {
		if _, ok := periodDim(name); ok {
			return DefaultRestarts
		}
	}
	return 0
}

// periodDim reports whether the hyperparameter name is a period,
// period[t] after any component prefixes (k0.period[0]), and its t.
func periodDim(name string) (int, bool) {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	rest, ok := strings.CutPrefix(name, "period[")
	if !ok || !strings.HasSuffix(rest, "]") {
		return 0, false
	}
	t, err := strconv.Atoi(strings.TrimSuffix(rest, "]"))
	return t, err == nil && t >= 0
}

// startPoint is one start of a fit with restarts: θ (the kernel's log
// hyperparameters, then log σ²) and how it was chosen.
type startPoint struct {
	theta []float64
	from  string
}

// startPlan returns the 1 + restarts starts of a fit of kernel k to
// inputs x and targets y from theta0 (the kernel's log hyperparameters,
// then log σ²), with noise floor floor: theta0 first, then the draws
// around it described at restartSpread, seeded by seed. Under the
// constraints cons (nil: none) a fixed hyperparameter keeps theta0's value
// in every start and a bounded one is drawn within its bounds
// (resolved.drawInBounds); the other draws are those without cons.
func startPlan(x kernel.Inputs, y []float64, k kernel.Kernel, theta0 []float64, floor float64, restarts int, seed uint64, cons *resolved) []startPoint {
	names := k.ParamNames()
	np := len(names)
	plan := []startPoint{{theta: append([]float64(nil), theta0...), from: "the data"}}
	if restarts <= 0 {
		return plan
	}
	xv, _ := x.(*kernel.Vectors)
	var peaks []float64
	if xv != nil && xv.Dim() == 1 {
		peaks = kernel.PeriodPeaks(xv, y, restarts+1)
	}
	rng := rand.New(rand.NewPCG(seed, restartStream))
	logHi := theta0[np]
	logLo := logHi + math.Log(restartNoiseRange)
	if floor > 0 {
		logLo = max(logLo, math.Log(floor))
	}
	for r := 1; r <= restarts; r++ {
		th := make([]float64, np+1)
		from := "a draw around it"
		for i, name := range names {
			t, isPeriod := periodDim(name)
			switch {
			case !isPeriod:
				th[i] = theta0[i] + restartSpread*rng.NormFloat64()
			case r < len(peaks) && xv.Dim() == 1:
				th[i] = math.Log(peaks[r])
				from = fmt.Sprintf("periodogram peak %d, period %.4g", r+1, peaks[r])
			default:
				th[i] = theta0[i] + periodSpread(xv, t, math.Exp(theta0[i]))*rng.NormFloat64()
			}
		}
		th[np] = theta0[np]
		if logLo < logHi {
			th[np] = logLo + (logHi-logLo)*rng.Float64()
		}
		for i := range th {
			th[i] = cons.drawInBounds(i, th[i], theta0[i], floor)
		}
		plan = append(plan, startPoint{theta: th, from: from})
	}
	return plan
}

// periodSpread returns the standard deviation of the draws of log p for
// a period p of input dimension t: p over the inputs' span in that
// dimension, the periodogram's resolution, or restartSpread where the
// inputs give no span.
func periodSpread(x *kernel.Vectors, t int, p float64) float64 {
	if x == nil || t >= x.Dim() {
		return restartSpread
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range x.Len() {
		lo, hi = math.Min(lo, x.At(i, t)), math.Max(hi, x.At(i, t))
	}
	if span := hi - lo; span > 0 && !math.IsInf(span, 0) && p > 0 {
		return min(restartSpread, p/span)
	}
	return restartSpread
}

// startFit fits start k of a plan from st within budget (0: no limit),
// writing its progress to progress, and returns the summary of its
// result (nil if it has none) and its error.
type startFit func(ctx context.Context, k int, st startPoint, budget time.Duration, progress io.Writer) (*FitSummary, error)

// runStarts fits the starts of plan in order, with fit, and returns their
// summaries and the index of the one with the lowest objective (−1 if
// none has a result). A time budget (0: none) is the whole fit's: each
// start gets an equal share of what is left. The starts stop at the
// first one that ctx or an interrupt cancels (Status Cancelled); the
// summaries then hold only the starts that ran. errs holds each start's error, nil for none. Progress lines
// of start k are prefixed "restart k/N: ", N the restarts.
func runStarts(ctx context.Context, plan []startPoint, budget time.Duration, progress io.Writer, fit startFit) (sums []StartSummary, best int, errs []error) {
	t0 := time.Now()
	best = -1
	for k, st := range plan {
		share := time.Duration(0)
		if budget > 0 {
			if share = (budget - time.Since(t0)) / time.Duration(len(plan)-k); share <= 0 {
				break
			}
		}
		var w io.Writer
		if progress != nil {
			w = &prefixWriter{w: progress, prefix: fmt.Sprintf("restart %d/%d: ", k, len(plan)-1)}
		}
		t := time.Now()
		s, err := fit(ctx, k, st, share, w)
		sum := StartSummary{From: st.from, Start: st.theta, Objective: math.Inf(1), Status: Failed, Elapsed: time.Since(t)}
		if s != nil {
			sum.End, sum.Objective, sum.Status = s.Params, s.Objective, s.Status
		}
		if err != nil {
			sum.Err = err.Error()
		}
		sums, errs = append(sums, sum), append(errs, err)
		if s != nil && !math.IsNaN(s.Objective) && (best < 0 || s.Objective < sums[best].Objective) {
			best = k
		}
		if ctx.Err() != nil || sum.Status == Cancelled {
			break
		}
	}
	if progress != nil && best >= 0 {
		fmt.Fprintf(progress, "restarts: kept restart %d/%d, F = %.6g; %s\n", best, len(plan)-1, sums[best].Objective, startsText(sums))
	}
	return sums, best, errs
}

// startsNote is the warning of a fit with restarts that ran only the
// starts sums of its planned ones, or "".
func startsNote(sums []StartSummary, planned int) string {
	if len(sums) >= planned {
		return ""
	}
	why := "the time budget ended"
	if len(sums) > 0 && sums[len(sums)-1].Status == Cancelled {
		why = "the fit was interrupted"
	}
	return fmt.Sprintf("only %d of the %d starts ran (%s); the model is the best of those", len(sums), planned, why)
}

// startsText lists the objectives the starts ended at, "F of the
// starts: 134.6 836.3 …".
func startsText(sums []StartSummary) string {
	var b strings.Builder
	b.WriteString("F of the starts:")
	for _, s := range sums {
		fmt.Fprintf(&b, " %.6g", s.Objective)
	}
	return b.String()
}

// prefixWriter writes to w with prefix at the start of every line.
type prefixWriter struct {
	w      io.Writer
	prefix string
	mid    bool // the last write ended inside a line
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		if !p.mid {
			if _, err := io.WriteString(p.w, p.prefix); err != nil {
				return 0, err
			}
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.mid = true
			_, err := p.w.Write(b)
			return n, err
		}
		if _, err := p.w.Write(b[:i+1]); err != nil {
			return 0, err
		}
		p.mid, b = false, b[i+1:]
	}
	return n, nil
}

// keepBestStart runs fit from every start of plan, as runStarts does, and
// returns the result with the lowest objective, its FitSummary completed
// with every start (Starts, BestStart), a warning when not every start
// ran, and the time since t0: the restarts of Exact and Continuous. fit
// returns a result and its summary (both nil if it has none). kern is the
// builder's kernel: one that cannot be copied is shared by the starts and
// is left at the kept fit's hyperparameters, those its predictor reads.
func keepBestStart[R any](ctx context.Context, t0 time.Time, kern kernel.Kernel, plan []startPoint, budget time.Duration, progress io.Writer,
	fit func(ctx context.Context, st startPoint, budget time.Duration, w io.Writer) (R, *FitSummary, error)) (R, error) {
	results := make([]R, len(plan))
	summaries := make([]*FitSummary, len(plan))
	sums, best, errs := runStarts(ctx, plan, budget, progress, func(ctx context.Context, k int, st startPoint, budget time.Duration, w io.Writer) (*FitSummary, error) {
		var err error
		results[k], summaries[k], err = fit(ctx, st, budget, w)
		return summaries[k], err
	})
	if best < 0 {
		var none R
		return none, firstErr(errs)
	}
	s := summaries[best]
	if kernel.Clone(kern) == kern {
		kern.SetParams(s.Params[:kern.NumParams()])
	}
	s.Starts, s.BestStart = sums, best
	if note := startsNote(sums, len(plan)); note != "" {
		s.Warnings = append(s.Warnings, note)
	}
	s.Elapsed = time.Since(t0)
	if errs[best] != nil {
		return results[best], errs[best]
	}
	return results[best], ctx.Err()
}

// firstErr returns the first non-nil error of errs, or nil.
func firstErr(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
