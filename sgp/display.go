package sgp

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Text and HTML renderings of sgp values, for a REPL and for notebooks.
// String gives one line (CostRanking a few); HTML gives a small table, the
// HTMLer method set that notebook front ends render. Neither changes the
// value or builds a model.

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
	return fmt.Sprintf("epoch %d: F %s (after CG %s), swaps %d/%d accepted, CG %d evals, %.3gs",
		e.Epoch, fmtG(e.Objective), fmtG(e.CGObjective), e.Accepted, e.Swaps, e.CGEvals, e.Elapsed.Seconds())
}

// HTML returns the epoch as a table.
func (e EpochRecord) HTML() string {
	return htmlTable(fmt.Sprintf("epoch %d", e.Epoch), [][2]string{
		{"objective", fmtG(e.Objective)}, {"after CG", fmtG(e.CGObjective)},
		{"data fit", fmtG(e.Parts.DataFit)}, {"complexity", fmtG(e.Parts.Complexity)}, {"trace", fmtG(e.Parts.Trace)},
		{"swaps accepted", fmt.Sprintf("%d/%d", e.Accepted, e.Swaps)}, {"CG evaluations", strconv.Itoa(e.CGEvals)},
		{"seconds", fmt.Sprintf("%.3g", e.Elapsed.Seconds())},
	})
}

// String summarises the fit in one line.
func (r Result) String() string {
	s := fmt.Sprintf("fit %s after %d epochs (%.3gs): F %s; μ %s; %d inducing points; %d/%d swaps accepted",
		r.Stopped, r.Epochs, r.Elapsed.Seconds(), fmtG(r.Objective), fmtG(r.Mean), len(r.Inducing), r.Accepted, r.Swaps)
	if r.Restarted {
		s += "; restarted from MLE (the VAR fit had explained everything as noise)"
	}
	for _, w := range r.Warnings {
		s += "\nwarning: " + w
	}
	return s
}

// HTML returns the fit summary as a table.
func (r Result) HTML() string {
	return htmlTable("fit", [][2]string{
		{"stopped", r.Stopped}, {"converged", strconv.FormatBool(r.Converged)}, {"epochs", strconv.Itoa(r.Epochs)},
		{"seconds", fmt.Sprintf("%.3g", r.Elapsed.Seconds())}, {"objective", fmtG(r.Objective)},
		{"data fit", fmtG(r.Parts.DataFit)}, {"complexity", fmtG(r.Parts.Complexity)}, {"trace", fmtG(r.Parts.Trace)},
		{"prior mean μ", fmtG(r.Mean)},
		{"inducing points", fmt.Sprintf("%d of m=%d", len(r.Inducing), r.M)},
		{"noise-only optimum", strconv.FormatBool(r.NoiseOnly)}, {"restarted from MLE", strconv.FormatBool(r.Restarted)},
		{"swaps accepted", fmt.Sprintf("%d/%d", r.Accepted, r.Swaps)},
	}) + htmlWarnings(r.Warnings)
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

// String describes the model in one line without building it: its size,
// objective and, once built, the objective's value and the
// hyperparameters.
func (md *Model) String() string {
	if md == nil {
		return "sgp.Model(nil)"
	}
	if md.err != nil {
		return "sgp.Model with a configuration error: " + md.err.Error()
	}
	s := fmt.Sprintf("sgp.Model: n=%d, m=%d inducing points, z=%d information pivots, %v", md.x.Len(), md.m, md.z, md.obj)
	if md.f == nil {
		return s + "; not built yet"
	}
	s += fmt.Sprintf(" %s after %d epochs;", fmtG(md.f.Value(md.obj)), len(md.trace))
	if k := md.f.k; k < md.m {
		s += fmt.Sprintf(" only %d of the m=%d inducing points (the kernel cannot tell more apart);", k, md.m)
	}
	s += " mean=" + fmtG(md.f.mu)
	if !md.mean.Estimated() {
		s += " (fixed)"
	}
	names, th := md.ParamNames(), md.Params()
	for i, v := range th {
		s += fmt.Sprintf(" %s=%s", names[i], fmtG(math.Exp(v)))
	}
	return s
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
	rows := [][2]string{
		{"n", strconv.Itoa(md.x.Len())},
		{"inducing points", fmt.Sprintf("%d (asked for %d)", md.f.k, md.m)},
		{"information pivots z", strconv.Itoa(md.z)},
		{"objective", fmt.Sprintf("%v %s", md.obj, fmtG(md.f.Value(md.obj)))},
		{"epochs", strconv.Itoa(len(md.trace))},
		{"prior mean", fmtG(md.f.mu) + map[bool]string{true: " (estimated)", false: " (fixed)"}[md.mean.Estimated()]},
	}
	names, th := md.ParamNames(), md.Params()
	for i, v := range th {
		rows = append(rows, [2]string{names[i], fmtG(math.Exp(v))})
	}
	return htmlTable("sgp.Model", rows)
}
