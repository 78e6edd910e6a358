package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// runInfo is the header of the tables.
type runInfo struct {
	Command, Date, Machine, CLI string
	Budget                      time.Duration
	Seeds                       string
	Elapsed                     time.Duration
	Skipped                     []string
	Stopped                     bool
	Baseline                    string
}

// csvHeader names the CSV columns, one per field of row.
var csvHeader = []string{"set", "group", "n", "n_test", "d", "selector", "seed", "m", "m_requested",
	"F", "smse", "snlp", "seconds", "wall_seconds", "stopped", "converged", "mu", "mu_drift_sd",
	"signal_variance", "noise_variance", "at_noise_floor", "refined", "warnings", "warning_text", "error"}

func writeCSV(path string, rows []row) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write(csvHeader)
	num := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'g', 10, 64)
	}
	for _, r := range rows {
		w.Write([]string{r.Set, r.Group, strconv.Itoa(r.N), strconv.Itoa(r.NTest), strconv.Itoa(r.D), r.Selector,
			strconv.FormatUint(r.Seed, 10), strconv.Itoa(r.M), strconv.Itoa(r.MRequested),
			num(r.F), num(r.SMSE), num(r.SNLP), strconv.FormatFloat(r.Seconds, 'f', 2, 64), strconv.FormatFloat(r.Wall, 'f', 2, 64),
			r.Stopped, strconv.FormatBool(r.Converged), num(r.Mu), num(r.Drift), num(r.Signal), num(r.Noise),
			strconv.FormatBool(r.AtFloor), strconv.FormatBool(r.Refined), strconv.Itoa(len(r.Warnings)),
			strings.Join(r.Warnings, " | "), r.Err})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readBaseline reads the CSV of an earlier run, keyed by set, selector
// and seed.
func readBaseline(path string) (map[string]row, error) {
	header, recs, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	col := func(name string) int { return colOf(header, name) }
	for _, need := range []string{"set", "selector", "seed", "F", "smse"} {
		if col(need) < 0 {
			return nil, fmt.Errorf("%s: no column %q; is it a CSV written by this program?", path, need)
		}
	}
	num := func(s string) *float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil
		}
		return &v
	}
	out := make(map[string]row, len(recs))
	for _, rec := range recs {
		if len(rec) != len(header) {
			continue
		}
		seed, _ := strconv.ParseUint(rec[col("seed")], 10, 64)
		r := row{Set: rec[col("set")], Selector: rec[col("selector")], Seed: seed, F: num(rec[col("F")]), SMSE: num(rec[col("smse")])}
		out[key(r)] = r
	}
	return out, nil
}

func key(r row) string { return fmt.Sprintf("%s|%s|%d", r.Set, r.Selector, r.Seed) }

func fmtF(v *float64) string {
	if v == nil {
		return "–"
	}
	return strconv.FormatFloat(*v, 'f', 1, 64)
}

func fmtG(v *float64, digits int) string {
	if v == nil {
		return "–"
	}
	return strconv.FormatFloat(*v, 'g', digits, 64)
}

// markdown renders the run: its header, the sets, the results and the
// comparisons that issue 32 asks about.
func markdown(run runInfo, sets []*prepared, rows []row, base map[string]row) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# Evaluation: selectors × sets\n\n")
	p("- command: `%s`\n", strings.TrimSpace(run.Command))
	p("- date: %s; whole run %.0f min\n", run.Date, run.Elapsed.Minutes())
	p("- machine: %s\n", run.Machine)
	p("- sgprepl: %s\n", run.CLI)
	p("- per fit: --time-budget %s, seeds %s\n", run.Budget, run.Seeds)
	if run.Baseline != "" {
		p("- compared with: %s (ΔF = F − baseline F; SMSE ratio = SMSE / baseline SMSE)\n", run.Baseline)
	}
	for _, s := range run.Skipped {
		p("- not run: %s\n", s)
	}
	if run.Stopped {
		p("- interrupted: the tables hold the fits that finished\n")
	}

	p("\n## Sets\n\n| set | group | n | test | d | mean y | sd y | oracle SMSE | source |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range sets {
		m := s.meta
		p("| %s | %s | %d | %d | %d | %.4g | %.4g | %s | %s |\n", m.Name, m.Group, m.NTrain, m.NTest, m.D, m.YMean, m.YSD, fmtG(m.OracleSMSE, 3), s.set.source)
	}

	p("\n## Fits\n\nF: the objective (VAR bound for sparse fits, exact negative log marginal likelihood for exact), nats, lower is better. ")
	p("drift: |μ − mean y| / sd y (training targets). s²: signal variance; σ²: noise variance. ")
	p("Stopped: why the fit ended. w: warnings (texts below).\n\n")
	p("| set | group | n | d | selector | m | F | SMSE | SNLP | s | stopped | μ | drift | s² | σ² | w |")
	if base != nil {
		p(" ΔF | SMSE ratio |")
	}
	p("\n|---|---|---:|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
	if base != nil {
		p("---:|---:|")
	}
	p("\n")
	for _, r := range rows {
		sel := r.Selector
		if len(run.Seeds) > 0 && strings.Contains(run.Seeds, ",") {
			sel = fmt.Sprintf("%s (seed %d)", sel, r.Seed)
		}
		stopped := r.Stopped
		if r.Err != "" {
			stopped = "**error**: " + r.Err
		}
		if r.AtFloor {
			stopped += ", σ² at floor"
		}
		if r.Refined {
			stopped += ", refined"
		}
		m := strconv.Itoa(r.M)
		if r.M != r.MRequested && r.F != nil {
			m = fmt.Sprintf("%d of %d", r.M, r.MRequested)
		}
		p("| %s | %s | %d | %d | %s | %s | %s | %s | %s | %.1f | %s | %s | %s | %s | %s | %d |",
			r.Set, r.Group, r.N, r.D, sel, m, fmtF(r.F), fmtG(r.SMSE, 4), fmtG(r.SNLP, 3), r.Seconds, stopped,
			fmtG(r.Mu, 5), fmtG(r.Drift, 2), fmtG(r.Signal, 3), fmtG(r.Noise, 3), len(r.Warnings))
		if base != nil {
			dF, ratio := "–", "–"
			if o, ok := base[key(r)]; ok {
				if r.F != nil && o.F != nil {
					dF = fmt.Sprintf("%+.1f", *r.F-*o.F)
				}
				if r.SMSE != nil && o.SMSE != nil && *o.SMSE > 0 {
					ratio = fmt.Sprintf("%.3f", *r.SMSE / *o.SMSE)
				}
			}
			p(" %s | %s |", dF, ratio)
		}
		p("\n")
	}

	p("\n## Comparisons\n\n")
	p("Medians over seeds. hybrid − continuous: F(hybrid) − F(sgpr-continuous) at the same m (positive: the hybrid is behind) and the ratio of their test SMSE; ")
	p("hybrid − cholqr likewise; default/exact: the default row's SMSE over the exact GP's; drift: the default row's.\n\n")
	p("| set | group | best SMSE | hybrid − continuous: ΔF, SMSE ratio | hybrid − cholqr: ΔF, SMSE ratio | default/exact SMSE | default drift |\n|---|---|---|---|---|---|---:|\n")
	for _, s := range sets {
		name := s.set.name
		med := func(sel string, get func(row) *float64) *float64 {
			var v []float64
			for _, r := range rows {
				if r.Set == name && r.Selector == sel {
					if x := get(r); x != nil && !math.IsNaN(*x) {
						v = append(v, *x)
					}
				}
			}
			if len(v) == 0 {
				return nil
			}
			slices.Sort(v)
			m := (v[(len(v)-1)/2] + v[len(v)/2]) / 2
			return &m
		}
		fOf := func(r row) *float64 { return r.F }
		sOf := func(r row) *float64 { return r.SMSE }
		pair := func(a, c string) string {
			fa, fc, sa, sc := med(a, fOf), med(c, fOf), med(a, sOf), med(c, sOf)
			if fa == nil || fc == nil {
				return "–"
			}
			out := fmt.Sprintf("%+.1f", *fa-*fc)
			if sa != nil && sc != nil && *sc > 0 {
				out += fmt.Sprintf(", %.3f", *sa / *sc)
			}
			return out
		}
		best, bestSel := math.Inf(1), "–"
		for _, sel := range allSelectors {
			if v := med(sel, sOf); v != nil && *v < best {
				best, bestSel = *v, sel
			}
		}
		bestStr := "–"
		if bestSel != "–" {
			bestStr = fmt.Sprintf("%s %.4g", bestSel, best)
		}
		ratio := "–"
		if d, e := med("default", sOf), med("exact", sOf); d != nil && e != nil && *e > 0 {
			ratio = fmt.Sprintf("%.3f", *d / *e)
		}
		p("| %s | %s | %s | %s | %s | %s | %s |\n", name, s.set.group, bestStr, pair("hybrid", "sgpr-continuous"), pair("hybrid", "cholqr"),
			ratio, fmtG(med("default", func(r row) *float64 { return r.Drift }), 2))
	}

	var warn []string
	for _, r := range rows {
		for _, w := range r.Warnings {
			if len(w) > 300 {
				w = w[:300] + "…"
			}
			warn = append(warn, fmt.Sprintf("- %s, %s (seed %d): %s", r.Set, r.Selector, r.Seed, w))
		}
	}
	if len(warn) > 0 {
		p("\n## Warnings\n\n%s\n", strings.Join(warn, "\n"))
	}
	return b.String()
}
