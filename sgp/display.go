package sgp

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text and HTML renderings of sgp values, for a REPL and for notebooks.
// String gives one line for small values and an aligned table of a few
// lines for a Model, Result, Trace, Predictor and Comparison (compare.go);
// HTML gives the same as an HTML table, the HTMLer method set that
// notebook front ends render. Neither changes the value or builds a model.

// fmtG formats a number compactly for display.
func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// String summarises the objective terms.
func (p Parts) String() string {
	return fmt.Sprintf("MLE %s, VAR %s (data fit %s, complexity %s, trace %s)",
		fmtG(p.MLE), fmtG(p.VAR), fmtG(p.DataFit), fmtG(p.Complexity), fmtG(p.Trace))
}

// HTML returns the objective terms as a table.
func (p Parts) HTML() string {
	return htmlTable("objective terms", [][2]string{
		{"MLE", fmtG(p.MLE)}, {"VAR", fmtG(p.VAR)},
		{"data fit E_D", fmtG(p.DataFit)}, {"complexity E_C", fmtG(p.Complexity)}, {"trace E_V", fmtG(p.Trace)},
	})
}

// String describes the swap in one line. ΔF is the exact and the
// approximate decrease of F from adding the candidate once the removed
// point is out.
func (r SwapResult) String() string {
	switch {
	case r.Proposed < 0:
		return fmt.Sprintf("swap: %d kept, no candidate; F %s", r.Removed, fmtG(r.Before))
	case r.Accepted:
		return fmt.Sprintf("swap: %d → %d accepted; F %s → %s (adding %d: ΔF exact %s, approx %s)",
			r.Removed, r.Proposed, fmtG(r.Before), fmtG(r.After), r.Proposed, fmtG(r.ExactDelta), fmtG(r.ApproxDelta))
	}
	return fmt.Sprintf("swap: %d kept, candidate %d rejected: F %s would not decrease (adding %d: ΔF exact %s, approx %s)",
		r.Removed, r.Proposed, fmtG(r.Before), r.Proposed, fmtG(r.ExactDelta), fmtG(r.ApproxDelta))
}

// HTML returns the swap as a table.
func (r SwapResult) HTML() string {
	return htmlTable("swap", [][2]string{
		{"removed", strconv.Itoa(r.Removed)}, {"proposed", strconv.Itoa(r.Proposed)},
		{"accepted", strconv.FormatBool(r.Accepted)},
		{"ΔF approximate", fmtG(r.ApproxDelta)}, {"ΔF exact", fmtG(r.ExactDelta)},
		{"F before", fmtG(r.Before)}, {"F after", fmtG(r.After)},
	})
}

// String describes the epoch in one line.
func (e EpochRecord) String() string {
	return fmt.Sprintf("epoch %d: F %s (after CG %s), swaps %d/%d accepted, CG %d evals, %.3gs (swaps %.3gs)",
		e.Epoch, fmtG(e.Objective), fmtG(e.CGObjective), e.Accepted, e.Swaps, e.CGEvals, e.Elapsed.Seconds(), e.SwapTime.Seconds())
}

// HTML returns the epoch as a table.
func (e EpochRecord) HTML() string {
	return htmlTable(fmt.Sprintf("epoch %d", e.Epoch), [][2]string{
		{"objective", fmtG(e.Objective)}, {"after CG", fmtG(e.CGObjective)},
		{"data fit", fmtG(e.Parts.DataFit)}, {"complexity", fmtG(e.Parts.Complexity)}, {"trace", fmtG(e.Parts.Trace)},
		{"swaps accepted", fmt.Sprintf("%d/%d", e.Accepted, e.Swaps)}, {"CG evaluations", strconv.Itoa(e.CGEvals)},
		{"seconds", fmt.Sprintf("%.3g", e.Elapsed.Seconds())}, {"of which swaps", fmt.Sprintf("%.3g", e.SwapTime.Seconds())},
	})
}

// String summarises the fit: why and when it stopped, then an aligned
// table of the objective and its terms, the prior mean, the inducing
// points and the swaps, and any warnings.
func (r Result) String() string {
	rows := [][2]string{
		{"objective", fmt.Sprintf("%s (data fit %s, complexity %s, trace %s)",
			fmtG(r.Objective), fmtG(r.Parts.DataFit), fmtG(r.Parts.Complexity), fmtG(r.Parts.Trace))},
		{"prior mean μ", fmtG(r.Mean)},
		{"inducing points", fmt.Sprintf("%d of m=%d", len(r.Inducing), r.M)},
		{"swaps accepted", fmt.Sprintf("%d/%d", r.Accepted, r.Swaps)},
	}
	if r.Restarted {
		rows = append(rows, [2]string{"restarted", "from MLE (the VAR fit had explained everything as noise)"})
	} else if r.NoiseOnly {
		rows = append(rows, [2]string{"noise-only optimum", "everything is explained as noise"})
	}
	if len(r.SwitchedOn) > 0 {
		rows = append(rows, [2]string{"switched back on", switchedOnText(r.SwitchedOn)})
	}
	if r.AtNoiseFloor {
		rows = append(rows, [2]string{"noise floor", floorText(r)})
	}
	if r.Resumed {
		rows = append(rows, [2]string{"hybrid", resumedText})
	}
	if r.Refined != nil {
		rows = append(rows, [2]string{"refined", refinedText(r.Refined, r.RefinedFrom)})
	}
	s := kvText(fmt.Sprintf("fit %s after %d epochs (%.3gs)", r.Stopped, r.Epochs, r.Elapsed.Seconds()), rows)
	for _, w := range r.Warnings {
		s += "\nwarning: " + w
	}
	return s
}

// refinedText describes a hybrid fit's continuous refinement, started
// from (Result.RefinedFrom).
func refinedText(cr *ContinuousResult, from string) string {
	return fmt.Sprintf("continuously (hybrid, from %s): F %s → %s, %d evaluations, %s, jitter %.3g on K[Z,Z]; predictions use it",
		from, fmtG(cr.Start), fmtG(cr.Objective), cr.Evals, cr.Stopped, cr.Jitter)
}

// floorText describes a fit whose noise variance ended at its floor.
func floorText(r Result) string {
	return fmt.Sprintf("σ² = %s is at its floor %s: the floor, not the data, decided it (WithNoiseFloor)",
		fmtG(math.Exp(r.Params[len(r.Params)-1])), fmtG(r.NoiseFloor))
}

// switchedOnText describes Result.SwitchedOn.
func switchedOnText(on []int) string {
	return inputList(on) + " (the fit had switched them off; the objective was lower with them back)"
}

// resumedText describes Result.Resumed.
const resumedText = "CholQR resumed after the continuous refinements (behind it, or ended with time left) for the rest of the time budget"

// HTML returns the fit summary as a table.
func (r Result) HTML() string {
	rows := [][2]string{
		{"stopped", r.Stopped}, {"converged", strconv.FormatBool(r.Converged)}, {"epochs", strconv.Itoa(r.Epochs)},
		{"seconds", fmt.Sprintf("%.3g", r.Elapsed.Seconds())}, {"objective", fmtG(r.Objective)},
		{"data fit", fmtG(r.Parts.DataFit)}, {"complexity", fmtG(r.Parts.Complexity)}, {"trace", fmtG(r.Parts.Trace)},
		{"prior mean μ", fmtG(r.Mean)},
		{"inducing points", fmt.Sprintf("%d of m=%d", len(r.Inducing), r.M)},
		{"noise-only optimum", strconv.FormatBool(r.NoiseOnly)}, {"restarted from MLE", strconv.FormatBool(r.Restarted)},
		{"swaps accepted", fmt.Sprintf("%d/%d", r.Accepted, r.Swaps)},
	}
	if len(r.SwitchedOn) > 0 {
		rows = append(rows, [2]string{"switched back on", switchedOnText(r.SwitchedOn)})
	}
	if r.AtNoiseFloor {
		rows = append(rows, [2]string{"noise floor", floorText(r)})
	}
	if r.Resumed {
		rows = append(rows, [2]string{"hybrid", resumedText})
	}
	if r.Refined != nil {
		rows = append(rows, [2]string{"refined", refinedText(r.Refined, r.RefinedFrom)})
	}
	return htmlTable("fit", rows) + htmlWarnings(r.Warnings)
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
	re, ra := Ranks(ex), Ranks(ap)
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
		cr.Removed, n, len(cr.InfoPivots), cr.Candidates[best], fmtG(cr.Exact[best]), rank, rho)
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
	b.WriteString(htmlTable("cost ranking", rows))
	order := make([]int, 0, len(cr.Exact))
	for i := range cr.Exact {
		if i < len(cr.Approx) && i < len(cr.Candidates) {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, c int) bool { return cr.Exact[order[a]] > cr.Exact[order[c]] })
	b.WriteString("<table><caption>best candidates</caption><tr><th>point</th><th>exact ΔF</th><th>approximate ΔF</th></tr>")
	for _, i := range order[:min(10, len(order))] {
		fmt.Fprintf(&b, "<tr><td>%d</td><td>%s</td><td>%s</td></tr>", cr.Candidates[i], fmtG(cr.Exact[i]), fmtG(cr.Approx[i]))
	}
	b.WriteString("</table>")
	return b.String()
}

// String describes the data set in one line.
func (d *Dataset) String() string {
	if d == nil {
		return "sgp.Dataset(nil)"
	}
	dim := 0
	if d.X != nil {
		dim = d.X.Dim()
	}
	return fmt.Sprintf("sgp.Dataset %q: %d points, %d input dimension(s)", d.Name, d.Len(), dim)
}

// String describes the model without building it: before it is built,
// its size and objective in one line; once built, an aligned table of the
// same rows as HTML (the objective's value, the inducing points, the prior
// mean and the hyperparameters).
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
	return kvText("sgp.Model", md.rows())
}

// rows returns the built model's summary as label–value rows.
func (md *Model) rows() [][2]string {
	inducing := fmt.Sprintf("%d (asked for %d)", md.f.k, md.m)
	if md.f.k < md.m {
		inducing = fmt.Sprintf("%d (asked for %d; the kernel cannot tell more apart)", md.f.k, md.m)
	}
	rows := [][2]string{
		{"n", strconv.Itoa(md.x.Len())},
		{"inducing points", inducing},
		{"information pivots z", strconv.Itoa(md.z)},
		{"objective", fmt.Sprintf("%v %s", md.obj, fmtG(md.f.Value(md.obj)))},
		{"epochs", strconv.Itoa(len(md.trace))},
		{"prior mean μ", fmtG(md.predictMean()) + map[bool]string{true: " (estimated)", false: " (fixed)"}[md.mean.Estimated()]},
	}
	if md.selector != SelectCholQR {
		rows = append(rows, [2]string{"selector", md.selector.String()})
	}
	if md.refined != nil {
		rows = append(rows, [2]string{"refined", refinedText(md.refined, md.from)})
	}
	return append(rows, hyperRows(md.ParamNames(), md.Params())...)
}

// hyperRows returns a row for each hyperparameter, as exp θ.
func hyperRows(names []string, theta []float64) [][2]string {
	rows := make([][2]string, len(theta))
	for i, v := range theta {
		rows[i] = [2]string{names[i], fmtG(math.Exp(v))}
	}
	return rows
}

// kvText returns a title line and the rows as "  label  value" lines with
// the values aligned.
func kvText(title string, rows [][2]string) string {
	w := 0
	for _, r := range rows {
		w = max(w, utf8.RuneCountInString(r[0]))
	}
	var b strings.Builder
	b.WriteString(title)
	for _, r := range rows {
		b.WriteString("\n  " + r[0] + strings.Repeat(" ", w-utf8.RuneCountInString(r[0])+2) + r[1])
	}
	return b.String()
}

// textTable returns the header and rows as columns two spaces apart,
// indented by two spaces; the columns c with right[c] are right-aligned.
func textTable(header []string, rows [][]string, right []bool) string {
	w := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for c, cell := range r {
			w[c] = max(w[c], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for i, r := range append([][]string{header}, rows...) {
		if i > 0 {
			b.WriteByte('\n')
		}
		var line strings.Builder
		for c, cell := range r {
			pad := strings.Repeat(" ", w[c]-utf8.RuneCountInString(cell))
			line.WriteString("  ")
			if c < len(right) && right[c] {
				line.WriteString(pad + cell)
			} else {
				line.WriteString(cell + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
	}
	return b.String()
}

// htmlGrid returns a table with a caption, a header row and rows.
func htmlGrid(caption string, header []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString("<table><caption>" + html.EscapeString(caption) + "</caption><tr>")
	for _, h := range header {
		b.WriteString("<th>" + html.EscapeString(h) + "</th>")
	}
	b.WriteString("</tr>")
	for _, r := range rows {
		b.WriteString("<tr>")
		for _, cell := range r {
			b.WriteString("<td>" + html.EscapeString(cell) + "</td>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

// htmlTable returns a two-column table with a caption.
func htmlTable(caption string, rows [][2]string) string {
	var b strings.Builder
	b.WriteString("<table><caption>" + html.EscapeString(caption) + "</caption>")
	for _, r := range rows {
		b.WriteString("<tr><th style=\"text-align:left\">" + html.EscapeString(r[0]) + "</th><td>" + html.EscapeString(r[1]) + "</td></tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// String describes the inputs by their shape and first rows, not their
// whole data.
func (v *Vectors) String() string {
	if v == nil {
		return "sgp.Vectors(nil)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sgp.Vectors %d×%d [", v.n, v.d)
	for i := 0; i < min(v.n, 3); i++ {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString("[")
		for t, x := range v.Row(i)[:min(v.d, 6)] {
			if t > 0 {
				b.WriteString(" ")
			}
			b.WriteString(fmtG(x))
		}
		if v.d > 6 {
			b.WriteString(" …")
		}
		b.WriteString("]")
	}
	if v.n > 3 {
		b.WriteString(" …")
	}
	b.WriteString("]")
	return b.String()
}

// String summarises the factored state in one line.
func (f *Factor) String() string {
	if f == nil {
		return "sgp.Factor(nil)"
	}
	if !f.ok {
		return fmt.Sprintf("sgp.Factor: n=%d, m≤%d, z≤%d; not factorised", f.n, f.mcap, f.zcap)
	}
	p := f.Parts()
	return fmt.Sprintf("sgp.Factor: n=%d, k=%d of m=%d inducing, %d information pivots, σ²=%s, μ=%s; MLE %s, VAR %s",
		f.n, f.k, f.mcap, f.t-f.k, fmtG(f.noise), fmtG(f.mu), fmtG(p.MLE), fmtG(p.VAR))
}

// HTML returns the factored state as a table.
func (f *Factor) HTML() string {
	if f == nil || !f.ok {
		return html.EscapeString(f.String())
	}
	p := f.Parts()
	return htmlTable("CholQR factored state", [][2]string{
		{"n", strconv.Itoa(f.n)}, {"inducing points k (of m)", fmt.Sprintf("%d (of %d)", f.k, f.mcap)},
		{"information pivots", strconv.Itoa(f.t - f.k)}, {"noise σ²", fmtG(f.noise)}, {"prior mean μ", fmtG(f.mu)},
		{"MLE", fmtG(p.MLE)}, {"VAR", fmtG(p.VAR)}, {"data fit E_D", fmtG(p.DataFit)},
		{"complexity E_C", fmtG(p.Complexity)}, {"trace E_V", fmtG(p.Trace)},
		{"G, Q", fmt.Sprintf("%d×%d, %d×%d (GMatrix, QMatrix)", f.n, f.k+(f.t-f.k), f.n+f.k, f.k)},
	})
}

// HTML returns the data set as a table of its size and first rows.
func (d *Dataset) HTML() string {
	if d == nil || d.X == nil {
		return html.EscapeString(d.String())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<table><caption>%s</caption><tr>", html.EscapeString(d.String()))
	for t := 0; t < min(d.X.Dim(), 8); t++ {
		fmt.Fprintf(&b, "<th>x%d</th>", t)
	}
	b.WriteString("<th>y</th></tr>")
	for i := 0; i < min(d.Len(), 5); i++ {
		b.WriteString("<tr>")
		for _, x := range d.X.Row(i)[:min(d.X.Dim(), 8)] {
			b.WriteString("<td>" + fmtG(x) + "</td>")
		}
		b.WriteString("<td>" + fmtG(d.Y[i]) + "</td></tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

// HTML returns the model as a table: its size, objective, the prior mean
// and the hyperparameters, and any shortfall of inducing points.
func (md *Model) HTML() string {
	if md == nil || md.err != nil || md.f == nil {
		return html.EscapeString(md.String())
	}
	return htmlTable("sgp.Model", md.rows())
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
		return []string{strconv.Itoa(e.Epoch), e.Kind.String(), fmtG(e.Objective),
			fmtG(e.Parts.DataFit), fmtG(e.Parts.Complexity), fmtG(e.Parts.Trace),
			fmt.Sprintf("%d/%d", e.Accepted, e.Swaps), strconv.Itoa(e.CGEvals), e.CGStatus,
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
	return tr.title() + "\n" + textTable(traceHeader, tr.rows(), traceRight)
}

// HTML returns the trace as a table, with the columns of String.
func (tr Trace) HTML() string {
	if len(tr) == 0 {
		return html.EscapeString(tr.title())
	}
	return htmlGrid(tr.title(), traceHeader, tr.rows())
}

// kernelName describes a kernel for a display: its kind and order.
func kernelName(k Kernel) string {
	switch kk := k.(type) {
	case *RBF:
		if kk.Dim() == 1 {
			return "RBF-ARD, 1 lengthscale"
		}
		return fmt.Sprintf("RBF-ARD, %d lengthscales", kk.Dim())
	case *WL:
		if kk.PerDepth() {
			return fmt.Sprintf("WL subtree, depth %d, a variance per depth", kk.Depth())
		}
		return fmt.Sprintf("WL subtree, depth %d", kk.Depth())
	case *Spectrum:
		return fmt.Sprintf("spectrum, %d-mers", kk.K())
	case *Tanimoto:
		return "Tanimoto (MinMax)"
	case *HistogramIntersection:
		return fmt.Sprintf("histogram intersection, %d channels", kk.NumChannels())
	case *Sum:
		var names []string
		for _, c := range kk.comps {
			names = append(names, kernelName(c))
		}
		return "sum of " + strings.Join(names, " + ")
	case *FuncKernel:
		return "function (NewFuncKernel)"
	}
	return kernelTypeName(k)
}

// The kernels' displays. A kernel's String is one line, its name and
// then its settings and hyperparameters by name in parentheses,
// name(setting value, hyperparameter value, …), as kernelText writes it;
// a Sum joins its components' lines with " + " (a Sum within a Sum in
// parentheses), so that every combination of kernels reads alike. Its HTML
// is a table of the hyperparameters by name, in θ order (kernelHTML).

// String returns the hyperparameters as "name value" pairs in θ order,
// e.g. "variance 1.29874, lengthscale[0] 0.712956, noise 0.107299".
func (h Hyperparameters) String() string {
	parts := make([]string, len(h.Names))
	for i, n := range h.Names {
		parts[i] = n + " " + fmtG(h.Values[i])
	}
	return strings.Join(parts, ", ")
}

// HTML returns the hyperparameters as a table, a row each in θ order.
func (h Hyperparameters) HTML() string {
	rows := make([][2]string, len(h.Names))
	for i, n := range h.Names {
		rows[i] = [2]string{n, fmtG(h.Values[i])}
	}
	return htmlTable("hyperparameters", rows)
}

// kernelText describes k in one line: its String, or for a kernel without
// one (a user's type) its type name and its hyperparameters by name.
func kernelText(k Kernel) string {
	if s, ok := k.(fmt.Stringer); ok {
		return s.String()
	}
	names, theta := k.ParamNames(), k.Params(nil)
	args := make([]string, len(theta))
	for i, v := range theta {
		args[i] = kernelArg(names[i], math.Exp(v))
	}
	return kernelCall(kernelTypeName(k), args...)
}

// kernelTypeName returns the name of k's type without its package, or
// "kernel" for the interpreter's wrapper of a kernel written in a session
// (a type whose name starts with "_").
func kernelTypeName(k Kernel) string {
	name := fmt.Sprintf("%T", k)
	name = name[strings.LastIndexAny(name, ".*")+1:]
	if name == "" || strings.HasPrefix(name, "_") {
		return "kernel"
	}
	return name
}

// kernelCall returns name(arg, arg, …).
func kernelCall(name string, args ...string) string {
	return name + "(" + strings.Join(args, ", ") + ")"
}

// kernelArg returns "name v", v to 4 significant digits.
func kernelArg(name string, v float64) string {
	return name + " " + strconv.FormatFloat(v, 'g', 4, 64)
}

// kernelVec returns "name [v₁ v₂ …]", each to 4 significant digits; of more
// than 8 values, the first 6 and the last, with their number.
func kernelVec(name string, vs []float64) string {
	var b strings.Builder
	b.WriteString(name + " [")
	for i, v := range vs {
		if len(vs) > 8 && i == 6 {
			b.WriteString(" …")
			continue
		}
		if len(vs) > 8 && i > 6 && i < len(vs)-1 {
			continue
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(v, 'g', 4, 64))
	}
	b.WriteByte(']')
	if len(vs) > 8 {
		fmt.Fprintf(&b, " (%d)", len(vs))
	}
	return b.String()
}

// kernelHTML returns k as a table: its kind in the caption, a row for each
// hyperparameter (exp θ by ParamNames, in θ order).
func kernelHTML(k Kernel) string {
	return htmlTable("kernel: "+kernelName(k), hyperRows(k.ParamNames(), k.Params(nil)))
}

// inputsRow describes inputs for a display: the dimension of vectors,
// otherwise their kind.
func inputsRow(x Inputs) [2]string {
	if v, ok := x.(*Vectors); ok {
		return [2]string{"input dimension", strconv.Itoa(v.Dim())}
	}
	return [2]string{"inputs", strings.ToLower(strings.TrimPrefix(fmt.Sprintf("%T", x), "*sgp."))}
}

// rows returns the predictor's summary as label–value rows.
func (p *Predictor) rows() [][2]string {
	rows := [][2]string{
		{"kernel", kernelName(p.Kern)},
		{"inducing points", strconv.Itoa(len(p.a))},
		inputsRow(p.X),
		{"prior mean μ", fmtG(p.PriorMean)},
	}
	th := p.Kern.Params(nil)
	return append(append(rows, hyperRows(p.Kern.ParamNames(), th)...), [2]string{"noise", fmtG(p.NoiseV)})
}

// String describes the predictor as an aligned table: the kernel and its
// hyperparameters, the number of inducing points, the inputs, the prior
// mean and the noise variance σ², never the factor arrays.
func (p *Predictor) String() string {
	if p == nil {
		return "sgp.Predictor(nil)"
	}
	return kvText("sgp.Predictor", p.rows())
}

// HTML returns the predictor as a table, with the rows of String.
func (p *Predictor) HTML() string {
	if p == nil {
		return html.EscapeString(p.String())
	}
	return htmlTable("sgp.Predictor", p.rows())
}

// rows returns the exact predictor's summary as label–value rows.
func (p *ExactPredictor) rows() [][2]string {
	rows := [][2]string{
		{"kernel", kernelName(p.Kern)},
		{"training points", strconv.Itoa(p.N())},
		inputsRow(p.X),
		{"prior mean μ", fmtG(p.PriorMean)},
	}
	rows = append(append(rows, hyperRows(p.Kern.ParamNames(), p.Kern.Params(nil))...), [2]string{"noise", fmtG(p.NoiseV)})
	if p.Jitter != 0 {
		rows = append(rows, [2]string{"jitter ε", fmtG(p.Jitter)})
	}
	return rows
}

// String describes the exact predictor as an aligned table, as Predictor's.
func (p *ExactPredictor) String() string {
	if p == nil {
		return "sgp.ExactPredictor(nil)"
	}
	return kvText("sgp.ExactPredictor", p.rows())
}

// HTML returns the exact predictor as a table, with the rows of String.
func (p *ExactPredictor) HTML() string {
	if p == nil {
		return html.EscapeString(p.String())
	}
	return htmlTable("sgp.ExactPredictor", p.rows())
}
