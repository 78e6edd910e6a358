package sgp

import (
	"fmt"
	"html"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cholqr/sgp/sgp/internal/table"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/internal/rank"
)

// Text and HTML renderings of sgp values, for a REPL and for notebooks.
// String gives one line for small values and an aligned table of a few
// lines for a Model, Result, Trace, Predictor and Comparison (compare.go);
// HTML gives the same as an HTML table, the HTMLer method set that
// notebook front ends render. Neither changes the value or builds a model.

// String describes the epoch in one line.
func (e EpochRecord) String() string {
	return fmt.Sprintf("epoch %d: F %s (after CG %s), swaps %d/%d accepted, CG %d evals, %.3gs (swaps %.3gs)",
		e.Epoch, table.G(e.Objective), table.G(e.CGObjective), e.Accepted, e.Swaps, e.CGEvals, e.Elapsed.Seconds(), e.SwapTime.Seconds())
}

// HTML returns the epoch as a table.
func (e EpochRecord) HTML() string {
	return table.HTML(fmt.Sprintf("epoch %d", e.Epoch), [][2]string{
		{"objective", table.G(e.Objective)}, {"after CG", table.G(e.CGObjective)},
		{"data fit", table.G(e.Parts.DataFit)}, {"complexity", table.G(e.Parts.Complexity)}, {"trace", table.G(e.Parts.Trace)},
		{"swaps accepted", fmt.Sprintf("%d/%d", e.Accepted, e.Swaps)}, {"CG evaluations", strconv.Itoa(e.CGEvals)},
		{"seconds", fmt.Sprintf("%.3g", e.Elapsed.Seconds())}, {"of which swaps", fmt.Sprintf("%.3g", e.SwapTime.Seconds())},
	})
}

// The displays of the three results share their FitSummary's part:
// the title says how the fit ended, after how much work and time; the
// rows give the prior mean, the hyperparameters and the noise floor; the
// warnings follow the table.

// fixedText lists the fixed hyperparameters in θ order, "noise=0.01
// lengthscale[0]=2", or "" for none.
func (s *FitSummary) fixedText() string {
	var parts []string
	for _, n := range s.Names {
		if v, ok := s.Fixed[n]; ok {
			parts = append(parts, n+"="+table.G(v))
		}
	}
	return strings.Join(parts, " ")
}

// boundsText lists bounds, "lengthscale[0] in [0.1, 10] (at upper)".
func boundsText(bs []Bound) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmt.Sprintf("%s in [%s, %s]", b.Name, table.G(b.Lo), table.G(b.Hi))
		if b.At != "" {
			parts[i] += " (at " + b.At + ")"
		}
	}
	return strings.Join(parts, "; ")
}

// title returns the first line of a fit's text display: how it ended
// after work (e.g. "12 epochs").
func (s *FitSummary) title(what, work string) string {
	return fmt.Sprintf("%s %s after %s (%.3gs)", what, s.Stopped(), work, s.Elapsed.Seconds())
}

// rows returns the rows every fit shows below its objective: the prior
// mean, the hyperparameters, when σ² ended there the noise floor, the
// fixed and bounded hyperparameters (those at a bound marked), and the
// starts.
func (s *FitSummary) rows() [][2]string {
	rows := [][2]string{{"prior mean μ", table.G(s.Mean)}}
	if len(s.Names) == len(s.Params) && len(s.Params) > 0 {
		rows = append(rows, [2]string{"hyperparameters", s.Hyperparameters().String()})
	}
	if s.AtNoiseFloor {
		rows = append(rows, [2]string{"noise floor", fmt.Sprintf("σ² = %s is at its floor %s: the floor, not the data, decided it (WithNoiseFloor)",
			table.G(math.Exp(s.Params[len(s.Params)-1])), table.G(s.NoiseFloor))})
	}
	if f := s.fixedText(); f != "" {
		rows = append(rows, [2]string{"fixed", f})
	}
	if len(s.Bounds) > 0 {
		rows = append(rows, [2]string{"bounds", boundsText(s.Bounds)})
	}
	if len(s.Starts) > 0 {
		rows = append(rows, [2]string{"starts", s.startsText()})
	}
	return rows
}

// startsText describes the starts of a fit with restarts: the objective
// each ended at, the kept one marked, and where that one began.
func (s *FitSummary) startsText() string {
	fs := make([]string, len(s.Starts))
	for i, st := range s.Starts {
		fs[i] = "failed"
		if isFinite(st.Objective) {
			fs[i] = table.G(st.Objective)
		}
		if i == s.BestStart {
			fs[i] += " (kept)"
		}
	}
	return fmt.Sprintf("%d (1 + %d restarts), F %s; kept restart %d, from %s", len(s.Starts), len(s.Starts)-1,
		strings.Join(fs, ", "), s.BestStart, s.Starts[s.BestStart].From)
}

// htmlHead returns the rows that open a fit's HTML table: how it ended,
// whether it converged, the work done and the time.
func (s *FitSummary) htmlHead(work string, n int) [][2]string {
	return [][2]string{{"stopped", s.Stopped()}, {"converged", strconv.FormatBool(s.Converged)}, {work, strconv.Itoa(n)},
		{"seconds", fmt.Sprintf("%.3g", s.Elapsed.Seconds())}}
}

// text returns a fit's text display: its title, the table of rows and
// the warnings.
func (s *FitSummary) text(title string, rows [][2]string) string {
	out := table.KV(title, rows)
	for _, w := range s.Warnings {
		out += "\nwarning: " + w
	}
	return out
}

// String summarises the fit: why and when it stopped, then an aligned
// table of the objective and its terms, the prior mean, the
// hyperparameters, the inducing points and the swaps, and any warnings.
func (r Result) String() string {
	if r.CholQR != nil {
		return r.hybridString()
	}
	rows := [][2]string{
		{"objective", fmt.Sprintf("%s (data fit %s, complexity %s, trace %s)",
			table.G(r.Objective), table.G(r.Parts.DataFit), table.G(r.Parts.Complexity), table.G(r.Parts.Trace))},
	}
	rows = append(rows, r.FitSummary.rows()...)
	rows = append(rows, [2]string{"inducing points", fmt.Sprintf("%d of m=%d", len(r.Inducing), r.M)},
		[2]string{"swaps accepted", fmt.Sprintf("%d/%d", r.Accepted, r.Swaps)})
	return r.FitSummary.text(r.title("fit", fmt.Sprintf("%d epochs", r.Epochs)), append(rows, r.extraRows()...))
}

// hybridString is String of a hybrid fit that predicts with its
// continuous fit: the table and warnings describe that model, and its
// CholQR parent has a row of its own, with its warnings after the
// model's.
func (r Result) hybridString() string {
	cr := r.Refined
	rows := [][2]string{{"objective", fmt.Sprintf("%s (%v, the continuous fit)", table.G(r.Objective), cr.Kind)}}
	rows = append(rows, r.FitSummary.rows()...)
	rows = append(rows, [2]string{"inducing inputs", fmt.Sprintf("%d of m=%d, moved continuously", cr.Z.Len(), r.M)},
		[2]string{"refined", refinedText(cr, r.RefinedFrom)}, [2]string{"CholQR parent", r.cholqrText()})
	rows = append(rows, r.knownNoiseRows()...)
	out := r.FitSummary.text(r.title("hybrid fit", fmt.Sprintf("%d evaluations of its continuous fit", cr.Evals)), rows)
	for _, w := range r.CholQR.Warnings {
		out += "\nCholQR parent: " + w
	}
	return out
}

// cholqrText describes a hybrid fit's CholQR parent in one line.
func (r Result) cholqrText() string {
	return fmt.Sprintf("F %s, %d of m=%d inducing rows, %d epochs, %s", table.G(r.CholQR.Objective), len(r.Inducing), r.M, r.Epochs, r.CholQR.Stopped())
}

// extraRows returns the rows of what only some sparse fits do.
func (r Result) extraRows() [][2]string {
	rows := r.knownNoiseRows()
	if r.Restarted {
		rows = append(rows, [2]string{"restarted", "from MLE (the VAR fit had explained everything as noise)"})
	} else if r.NoiseOnly {
		rows = append(rows, [2]string{"noise-only optimum", "everything is explained as noise"})
	}
	if len(r.SwitchedOn) > 0 {
		rows = append(rows, [2]string{"switched back on", switchedOnText(r.SwitchedOn)})
	}
	if r.Refined != nil {
		rows = append(rows, [2]string{"refined", refinedText(r.Refined, r.RefinedFrom)})
	}
	return rows
}

// knownNoiseRows returns the row naming the known per-point noise of a
// fit that used it (Model.WithNoiseVariances), none otherwise.
func (r Result) knownNoiseRows() [][2]string {
	if r.md == nil || r.md.s2 == nil {
		return nil
	}
	return [][2]string{{"known noise", knownNoiseText(r.md.s2)}}
}

// refinedText describes a hybrid fit's continuous refinement, started
// from (Result.RefinedFrom).
func refinedText(cr *ContinuousResult, from string) string {
	return fmt.Sprintf("continuously (hybrid, from %s): F %s → %s, %d evaluations, %s, jitter %.3g on K[Z,Z]; predictions use it",
		from, table.G(cr.Start), table.G(cr.Objective), cr.Evals, cr.Stopped(), cr.Jitter)
}

// switchedOnText describes Result.SwitchedOn.
func switchedOnText(on []int) string {
	return inputList(on) + " (the fit had switched them off; the objective was lower with them back)"
}

// HTML returns the fit summary as a table.
func (r Result) HTML() string {
	if r.CholQR != nil {
		cr := r.Refined
		rows := append(r.htmlHead("evaluations", cr.Evals), [2]string{"objective", fmt.Sprintf("%s (%v, the continuous fit)", table.G(r.Objective), cr.Kind)})
		rows = append(rows, r.FitSummary.rows()...)
		rows = append(rows, [2]string{"inducing inputs", fmt.Sprintf("%d of m=%d, moved continuously", cr.Z.Len(), r.M)},
			[2]string{"refined", refinedText(cr, r.RefinedFrom)}, [2]string{"CholQR parent", r.cholqrText()})
		rows = append(rows, r.knownNoiseRows()...)
		return table.HTML("hybrid fit", rows) + htmlWarnings(r.Warnings) + htmlWarnings(prefixed("CholQR parent: ", r.CholQR.Warnings))
	}
	rows := append(r.htmlHead("epochs", r.Epochs),
		[2]string{"objective", table.G(r.Objective)},
		[2]string{"data fit", table.G(r.Parts.DataFit)}, [2]string{"complexity", table.G(r.Parts.Complexity)}, [2]string{"trace", table.G(r.Parts.Trace)})
	rows = append(rows, r.FitSummary.rows()...)
	rows = append(rows,
		[2]string{"inducing points", fmt.Sprintf("%d of m=%d", len(r.Inducing), r.M)},
		[2]string{"noise-only optimum", strconv.FormatBool(r.NoiseOnly)}, [2]string{"restarted from MLE", strconv.FormatBool(r.Restarted)},
		[2]string{"swaps accepted", fmt.Sprintf("%d/%d", r.Accepted, r.Swaps)})
	for _, row := range r.extraRows() {
		if row[0] != "restarted" && row[0] != "noise-only optimum" {
			rows = append(rows, row)
		}
	}
	return table.HTML("fit", rows) + htmlWarnings(r.Warnings)
}

// exactRows returns the rows of an exact GP fit's displays after its
// objective.
func (r *ExactResult) exactRows() [][2]string {
	rows := r.FitSummary.rows()
	rows = append(rows, [2]string{"training points", fmt.Sprintf("%d, all of them \"inducing\" (m = n)", r.N)})
	if r.Jitter > 0 {
		rows = append(rows, [2]string{"jitter", fmt.Sprintf("%.3g on the diagonal of K + σ²I", r.Jitter)})
	}
	return rows
}

// String summarises the exact GP fit: why and when it stopped, the
// objective from its start, the prior mean, the hyperparameters and any
// warnings.
func (r *ExactResult) String() string {
	rows := append([][2]string{{"objective", fmt.Sprintf("%s (exact GP; from %s)", table.G(r.Objective), table.G(r.Start))}}, r.exactRows()...)
	return r.FitSummary.text(r.title("exact GP fit", fmt.Sprintf("%d evaluations", r.Evals)), rows)
}

// HTML returns the exact GP fit's summary as a table.
func (r *ExactResult) HTML() string {
	rows := append(r.htmlHead("evaluations", r.Evals), [2]string{"objective", table.G(r.Objective)}, [2]string{"start", table.G(r.Start)})
	return table.HTML("exact GP fit", append(rows, r.exactRows()...)) + htmlWarnings(r.Warnings)
}

// continuousRows returns the rows of a continuous SGPR fit's displays
// after its objective.
func (r *ContinuousResult) continuousRows() [][2]string {
	rows := r.FitSummary.rows()
	if r.Z != nil {
		rows = append(rows, [2]string{"inducing inputs", fmt.Sprintf("%d, moved continuously in ℝ^%d", r.Z.Len(), r.Z.Dim())})
	}
	if r.Jitter > 0 {
		rows = append(rows, [2]string{"jitter", fmt.Sprintf("%.3g on the diagonal of K[Z,Z]", r.Jitter)})
	}
	return rows
}

// String summarises the continuous SGPR fit: why and when it stopped,
// the objective from its start, the prior mean, the hyperparameters, the
// inducing inputs and any warnings.
func (r *ContinuousResult) String() string {
	rows := append([][2]string{{"objective", fmt.Sprintf("%s (%v; from %s)", table.G(r.Objective), r.Kind, table.G(r.Start))}}, r.continuousRows()...)
	return r.FitSummary.text(r.title("continuous SGPR fit", fmt.Sprintf("%d evaluations", r.Evals)), rows)
}

// HTML returns the continuous SGPR fit's summary as a table.
func (r *ContinuousResult) HTML() string {
	rows := append(r.htmlHead("evaluations", r.Evals), [2]string{"objective", fmt.Sprintf("%s (%v)", table.G(r.Objective), r.Kind)}, [2]string{"start", table.G(r.Start)})
	return table.HTML("continuous SGPR fit", append(rows, r.continuousRows()...)) + htmlWarnings(r.Warnings)
}

// prefixed returns each of ws after prefix.
func prefixed(prefix string, ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = prefix + w
	}
	return out
}

// htmlWarnings returns the warnings as a list, or nothing.
func htmlWarnings(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<ul>")
	for _, w := range ws {
		b.WriteString("<li><b>warning:</b> " + html.EscapeString(w) + "</li>")
	}
	b.WriteString("</ul>")
	return b.String()
}

// rankSummary returns the number of finite candidates, the index of the
// best by exact ΔF, its rank by approximate ΔF and Spearman's rank
// correlation between exact and approximate ΔF (NaN below 2 candidates).
func (cr CostRanking) rankSummary() (n, best int, bestApproxRank, rho float64) {
	var ex, ap []float64
	var idx []int
	for i := 0; i < min(len(cr.Exact), len(cr.Approx)); i++ {
		if isFinite(cr.Exact[i]) && isFinite(cr.Approx[i]) {
			ex, ap, idx = append(ex, cr.Exact[i]), append(ap, cr.Approx[i]), append(idx, i)
		}
	}
	n, best, rho = len(ex), -1, math.NaN()
	if n == 0 {
		return n, best, math.NaN(), rho
	}
	re, ra := rank.Of(ex), rank.Of(ap)
	b := 0
	for i := range ex {
		if ex[i] > ex[b] {
			b = i
		}
	}
	best, bestApproxRank = idx[b], ra[b]
	if n > 1 {
		// Pearson correlation of the ranks.
		mean := float64(n+1) / 2
		var sxy, sxx, syy float64
		for i := range re {
			dx, dy := re[i]-mean, ra[i]-mean
			sxy, sxx, syy = sxy+dx*dy, sxx+dx*dx, syy+dy*dy
		}
		rho = sxy / math.Sqrt(sxx*syy)
	}
	return n, best, bestApproxRank, rho
}

// String summarises the ranking: the best candidate by exact ΔF, its rank
// by approximate ΔF, and Spearman's rank correlation ρ between the exact
// and the approximate ΔF.
func (cr CostRanking) String() string {
	n, best, rank, rho := cr.rankSummary()
	if best < 0 {
		return fmt.Sprintf("cost ranking after removing point %d: no candidates", cr.Removed)
	}
	return fmt.Sprintf("cost ranking after removing point %d: %d candidates, %d information pivots; "+
		"best by exact ΔF is point %d (ΔF %s, approximate rank %g); Spearman ρ(exact, approx) = %.3f",
		cr.Removed, n, len(cr.InfoPivots), cr.Candidates[best], table.G(cr.Exact[best]), rank, rho)
}

// HTML returns the summary and the ten best candidates by exact ΔF as
// tables.
func (cr CostRanking) HTML() string {
	n, best, rank, rho := cr.rankSummary()
	rows := [][2]string{
		{"removed point", strconv.Itoa(cr.Removed)}, {"candidates", strconv.Itoa(n)},
		{"information pivots", strconv.Itoa(len(cr.InfoPivots))},
		{"Spearman ρ(exact, approx)", fmt.Sprintf("%.3f", rho)},
	}
	if best >= 0 {
		rows = append(rows, [2]string{"best by exact ΔF", fmt.Sprintf("point %d (approximate rank %g)", cr.Candidates[best], rank)})
	}
	var b strings.Builder
	b.WriteString(table.HTML("cost ranking", rows))
	order := make([]int, 0, len(cr.Exact))
	for i := range cr.Exact {
		if i < len(cr.Approx) && i < len(cr.Candidates) {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, c int) bool { return cr.Exact[order[a]] > cr.Exact[order[c]] })
	b.WriteString("<table><caption>best candidates</caption><tr><th>point</th><th>exact ΔF</th><th>approximate ΔF</th></tr>")
	for _, i := range order[:min(10, len(order))] {
		fmt.Fprintf(&b, "<tr><td>%d</td><td>%s</td><td>%s</td></tr>", cr.Candidates[i], table.G(cr.Exact[i]), table.G(cr.Approx[i]))
	}
	b.WriteString("</table>")
	return b.String()
}

// String describes the model without building it: before it is built,
// its size and objective in one line; once built, an aligned table of the
// same rows as HTML (the kernel in one line, the objective's value, the
// inducing points, the prior mean and the hyperparameters).
func (md *Model) String() string {
	if md == nil {
		return "sgp.Model(nil)"
	}
	if md.err != nil {
		return "sgp.Model with a configuration error: " + md.err.Error()
	}
	if md.f == nil {
		return fmt.Sprintf("sgp.Model: n=%d, m=%d inducing points, z=%d information pivots, %v; not built yet", md.x.Len(), md.m, md.z, md.obj)
	}
	return table.KV("sgp.Model", md.rows())
}

// rows returns the built model's summary as label–value rows.
//
// A hybrid model that predicts with its continuous fit (Refined) shows
// that fit: its kernel, objective, inducing inputs and hyperparameters,
// and its CholQR parent in a row of its own.
func (md *Model) rows() [][2]string {
	inducing := fmt.Sprintf("%d (asked for %d)", md.f.NumActive(), md.m)
	if md.f.NumActive() < md.m {
		inducing = fmt.Sprintf("%d (asked for %d; the kernel cannot tell more apart)", md.f.NumActive(), md.m)
	}
	kern, names, params := md.kern, md.ParamNames(), md.Params()
	rows := [][2]string{{"n", strconv.Itoa(md.x.Len())}, {}, {"inducing points", inducing}, {"information pivots z", strconv.Itoa(md.z)},
		{"objective", fmt.Sprintf("%v %s", md.obj, table.G(md.f.Value(md.obj)))}, {"epochs", strconv.Itoa(len(md.trace))}}
	if cr := md.refined; cr != nil {
		kern, params = kernel.Clone(md.kern), cr.Params
		kern.SetParams(params[:kern.NumParams()])
		rows = [][2]string{{"n", strconv.Itoa(md.x.Len())}, {}, {"inducing inputs", fmt.Sprintf("%d (asked for %d), moved continuously", cr.Z.Len(), md.m)},
			{"objective", fmt.Sprintf("%v %s (the continuous fit)", cr.Kind, table.G(cr.Objective))},
			{"CholQR parent", fmt.Sprintf("%v %s, %s inducing rows, z = %d, %d epochs", md.obj, table.G(md.f.Value(md.obj)), inducing, md.z, len(md.trace))}}
	}
	rows[1] = [2]string{"kernel", kernel.Text(kern)}
	rows = append(rows, [2]string{"prior mean μ", table.G(md.predictMean()) + map[bool]string{true: " (estimated)", false: " (fixed)"}[md.mean.Estimated()]})
	if md.selector != SelectCholQR {
		rows = append(rows, [2]string{"selector", md.selector.String()})
	}
	if md.s2 != nil {
		rows = append(rows, [2]string{"known noise", knownNoiseText(md.s2)})
	}
	if md.refined != nil {
		rows = append(rows, [2]string{"refined", refinedText(md.refined, md.from)})
	}
	if c := chooseExact(md.x.Len(), md.kern.NumParams(), md.m, md.selector == SelectHybrid, md.budget, MachineMemory(), goLAPACK()); c.Exact {
		rows = append(rows, [2]string{"exact GP", fmt.Sprintf("affordable at this n (estimated %s and %s): sgp.NewExact fits it",
			seconds(c.ExactSeconds), mib(c.ExactBytes))})
	}
	return append(rows, table.Hyper(names, params)...)
}

// knownNoiseText describes known per-point noise variances s2 in a
// display: how many, their range, and the noise they make with σ².
func knownNoiseText(s2 []float64) string {
	lo, hi := slices.Min(s2), slices.Max(s2)
	return fmt.Sprintf("variances s² of the %d training points, %s to %s; each point's noise is s_i² + σ²", len(s2), table.G(lo), table.G(hi))
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// HTML returns the model as a table: its size, objective, the prior mean
// and the hyperparameters, and any shortfall of inducing points.
func (md *Model) HTML() string {
	if md == nil || md.err != nil || md.f == nil {
		return html.EscapeString(md.String())
	}
	return table.HTML("sgp.Model", md.rows())
}

// traceHeader names the columns of a Trace's table.
var traceHeader = []string{"epoch", "kind", "objective", "data fit", "complexity", "trace", "swaps", "CG evals", "CG status", "seconds", "swap s"}

// traceRight marks the right-aligned (numeric) columns of traceHeader.
var traceRight = []bool{true, false, true, true, true, true, true, true, false, true, true}

// traceShown is the number of epochs a Trace displays at each end when it
// has more than 2·traceShown+4.
const traceShown = 10

// rows returns the table rows of the trace, eliding the middle of a long
// one with a row that says how many epochs it leaves out.
func (tr Trace) rows() [][]string {
	row := func(e EpochRecord) []string {
		return []string{strconv.Itoa(e.Epoch), e.Kind.String(), table.G(e.Objective),
			table.G(e.Parts.DataFit), table.G(e.Parts.Complexity), table.G(e.Parts.Trace),
			fmt.Sprintf("%d/%d", e.Accepted, e.Swaps), strconv.Itoa(e.CGEvals), e.CGStatus.String(),
			fmt.Sprintf("%.3g", e.Elapsed.Seconds()), fmt.Sprintf("%.3g", e.SwapTime.Seconds())}
	}
	var rows [][]string
	for i := 0; i < len(tr); i++ {
		if len(tr) > 2*traceShown+4 && i == traceShown {
			gap := make([]string, len(traceHeader))
			gap[0], gap[1] = "…", fmt.Sprintf("(%d epochs)", len(tr)-2*traceShown)
			rows = append(rows, gap)
			i = len(tr) - traceShown
		}
		rows = append(rows, row(tr[i]))
	}
	return rows
}

// title returns the first line of the trace's displays.
func (tr Trace) title() string {
	if len(tr) == 0 {
		return "sgp.Trace: no epochs yet"
	}
	return fmt.Sprintf("sgp.Trace: %d epochs, %.3gs", len(tr), tr[len(tr)-1].Total.Seconds())
}

// String returns the trace as an aligned table, one row per epoch (the
// first and last ten of a long trace): the objective F after the epoch
// (VAR or MLE: the MLE epochs of a restart, see WithMLERestart) and its
// terms, the swaps accepted of those tried, the CG evaluations and how
// the CG phase ended (EpochRecord.CGStatus), the epoch's seconds and those of its swaps.
func (tr Trace) String() string {
	if len(tr) == 0 {
		return tr.title()
	}
	return tr.title() + "\n" + table.Text(traceHeader, tr.rows(), traceRight)
}

// HTML returns the trace as a table, with the columns of String.
func (tr Trace) HTML() string {
	if len(tr) == 0 {
		return html.EscapeString(tr.title())
	}
	return table.Grid(tr.title(), traceHeader, tr.rows())
}

// String returns the hyperparameters as "name value" pairs in θ order,
// e.g. "variance 1.29874, lengthscale[0] 0.712956, noise 0.107299".
func (h Hyperparameters) String() string {
	parts := make([]string, len(h.Names))
	for i, n := range h.Names {
		parts[i] = n + " " + table.G(h.Values[i])
	}
	return strings.Join(parts, ", ")
}

// HTML returns the hyperparameters as a table, a row each in θ order.
func (h Hyperparameters) HTML() string {
	rows := make([][2]string, len(h.Names))
	for i, n := range h.Names {
		rows[i] = [2]string{n, table.G(h.Values[i])}
	}
	return table.HTML("hyperparameters", rows)
}

// inputsRow describes inputs for a display: the dimension of vectors,
// otherwise their kind.
func inputsRow(x kernel.Inputs) [2]string {
	if v, ok := x.(*kernel.Vectors); ok {
		return [2]string{"input dimension", strconv.Itoa(v.Dim())}
	}
	return [2]string{"inputs", strings.ToLower(strings.TrimPrefix(fmt.Sprintf("%T", x), "*sgp."))}
}

// rows returns the predictor's summary as label–value rows.
func (p *Predictor) rows() [][2]string {
	rows := [][2]string{
		{"kernel", kernel.Name(p.Kern)},
		{"inducing points", strconv.Itoa(len(p.a))},
		inputsRow(p.X),
		{"prior mean μ", table.G(p.PriorMean)},
	}
	th := p.Kern.Params(nil)
	rows = append(append(rows, table.Hyper(p.Kern.ParamNames(), th)...), [2]string{"noise", table.G(p.NoiseV)})
	if p.knownNoise {
		rows = append(rows, [2]string{"known noise", "the training rows' own variances: each row's noise was s_i² + σ²"})
	}
	return rows
}

// String describes the predictor as an aligned table: the kernel and its
// hyperparameters, the number of inducing points, the inputs, the prior
// mean and the noise variance σ², never the factor arrays.
func (p *Predictor) String() string {
	if p == nil {
		return "sgp.Predictor(nil)"
	}
	return table.KV("sgp.Predictor", p.rows())
}

// HTML returns the predictor as a table, with the rows of String.
func (p *Predictor) HTML() string {
	if p == nil {
		return html.EscapeString(p.String())
	}
	return table.HTML("sgp.Predictor", p.rows())
}

// rows returns the exact predictor's summary as label–value rows.
func (p *ExactPredictor) rows() [][2]string {
	rows := [][2]string{
		{"kernel", kernel.Name(p.Kern)},
		{"training points", strconv.Itoa(p.N())},
		inputsRow(p.X),
		{"prior mean μ", table.G(p.PriorMean)},
	}
	rows = append(append(rows, table.Hyper(p.Kern.ParamNames(), p.Kern.Params(nil))...), [2]string{"noise", table.G(p.NoiseV)})
	if p.Jitter != 0 {
		rows = append(rows, [2]string{"jitter ε", table.G(p.Jitter)})
	}
	if p.s2 != nil {
		rows = append(rows, [2]string{"known noise", knownNoiseText(p.s2)})
	}
	return rows
}

// String describes the exact predictor as an aligned table, as Predictor's.
func (p *ExactPredictor) String() string {
	if p == nil {
		return "sgp.ExactPredictor(nil)"
	}
	return table.KV("sgp.ExactPredictor", p.rows())
}

// HTML returns the exact predictor as a table, with the rows of String.
func (p *ExactPredictor) HTML() string {
	if p == nil {
		return html.EscapeString(p.String())
	}
	return table.HTML("sgp.ExactPredictor", p.rows())
}
