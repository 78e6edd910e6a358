package sgp

import (
	"fmt"
	"html"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/cholqr/sgp/sgp/internal/table"

	"github.com/cholqr/sgp/sgp/data"
)

// Comparison puts fitted models side by side, as a text table in a
// terminal and an HTML table in a notebook: each model's objective and
// its kind, the inducing points used of those asked for, the selector, the
// epochs, seconds and stop reason of its fit and, with a test set, its
// scores (Evaluation). Build it with NewComparison and Add, which takes
// the result of any of the three fits (or a Model driven by hand):
//
//	c := sgp.NewComparison(test).Add("VAR", resVAR).Add("MLE", resMLE).Add("exact GP", resExact)
//	c // one row per model
type Comparison struct {
	Test *data.Dataset // the test set the models are scored on; nil for none
	Rows []ComparisonRow
}

// ComparisonRow is one model of a Comparison.
type ComparisonRow struct {
	Name       string
	Kind       Objective
	Objective  float64 // F, including n/2·log 2π
	M          int     // inducing points used
	MRequested int     // inducing points asked for (WithM)
	Selector   Selector
	Epochs     int
	Elapsed    time.Duration // the fit's wall time (summed over epochs without a Result)
	Status     Status        // why the fit stopped; NotStopped without a Result
	Reason     string        // the detail of a Stalled or Failed fit
	// Exact marks the full GP (an ExactResult): Objective is its exact
	// negative log marginal likelihood, M = MRequested = n, Epochs its
	// evaluations.
	Exact bool
	// Continuous marks SGPR with free inducing inputs (a
	// ContinuousResult): M = MRequested = m, Epochs its evaluations.
	Continuous bool
	// Eval holds the test scores; nil without a test set or when they
	// could not be computed (Err says why).
	Eval *Evaluation
	Err  error
}

// NewComparison returns an empty comparison whose models will be scored
// on test (nil: no scores).
func NewComparison(test *data.Dataset) *Comparison { return &Comparison{Test: test} }

// Fitted is a fit that a Comparison can show: a *Result of Model.Fit
// (scored as its model now is), a *Model driven by hand (the epochs and
// seconds read from its trace, no stop reason), an *ExactResult or a
// *ContinuousResult. Other packages cannot implement it.
type Fitted interface {
	comparisonRow(test *data.Dataset) ComparisonRow
}

// Add appends fit under name, scores it on the comparison's test set and
// returns c. An error (a model that cannot predict, constant test
// targets) is kept in the row's Err and shown under the table.
//
// The exact GP is the reference for what sparsity costs: its objective
// is the negative log marginal likelihood that the sparse VAR and MLE
// objectives bound from above (they reach it at m = n), and every
// training point is "inducing".
func (c *Comparison) Add(name string, fit Fitted) *Comparison {
	row := ComparisonRow{Objective: math.NaN(), Err: fmt.Errorf("sgp: no fit")}
	if fit != nil && !reflect.ValueOf(fit).IsNil() {
		row = fit.comparisonRow(c.Test)
	}
	row.Name = name
	c.Rows = append(c.Rows, row)
	return c
}

func (md *Model) comparisonRow(test *data.Dataset) ComparisonRow { return modelRow(md, nil, test) }

func (r *Result) comparisonRow(test *data.Dataset) ComparisonRow {
	if r.md == nil {
		return ComparisonRow{Objective: math.NaN(), Err: fmt.Errorf("sgp: a Result not made by Model.Fit has no model to score")}
	}
	return modelRow(r.md, r, test)
}

// modelRow is the comparison row of the sparse model md, with res the
// Result of its Fit or nil.
func modelRow(md *Model, res *Result, test *data.Dataset) ComparisonRow {
	row := ComparisonRow{Objective: math.NaN(), Kind: md.ObjectiveKind(), MRequested: md.m, Selector: md.Selector()}
	if res != nil {
		row.Objective, row.M, row.Epochs, row.Elapsed, row.Status, row.Reason = res.Objective, len(res.Inducing), res.Epochs, res.Elapsed, res.Status, res.Reason
	} else {
		v, err := md.Value()
		if err != nil {
			row.Err = err
			return row
		}
		ind, _ := md.Inducing()
		tr := md.Trace()
		row.Objective, row.M, row.Epochs = v, len(ind), len(tr)
		for _, e := range tr {
			row.Elapsed += e.Elapsed
		}
	}
	if md.refined != nil {
		row.M = md.refined.Z.Len()
	}
	if test != nil {
		row.Eval, row.Err = md.Evaluate(test)
	}
	return row
}

func (r *ExactResult) comparisonRow(test *data.Dataset) ComparisonRow {
	row := ComparisonRow{Objective: r.Objective, M: r.N, MRequested: r.N, Epochs: r.Evals, Elapsed: r.Elapsed,
		Status: r.Status, Reason: r.Reason, Exact: true}
	if r.Predictor == nil {
		row.Err = fmt.Errorf("sgp: an ExactResult without its Predictor")
	} else if test != nil {
		row.Eval, row.Err = r.Predictor.Evaluate(test)
	}
	return row
}

func (r *ContinuousResult) comparisonRow(test *data.Dataset) ComparisonRow {
	row := ComparisonRow{Kind: r.Kind, Objective: r.Objective, Epochs: r.Evals, Elapsed: r.Elapsed,
		Status: r.Status, Reason: r.Reason, Continuous: true}
	if r.Z != nil {
		row.M, row.MRequested = r.Z.Len(), r.Z.Len()
	}
	if r.Predictor == nil {
		row.Err = fmt.Errorf("sgp: a ContinuousResult without its Predictor")
	} else if test != nil {
		row.Eval, row.Err = r.Predictor.Evaluate(test)
	}
	return row
}

// header returns the column names: the scores only with a test set.
func (c *Comparison) header() ([]string, []bool) {
	h := []string{"model", "kind", "objective", "m", "selector", "epochs", "seconds", "stopped"}
	r := []bool{false, false, true, true, false, true, true, false}
	if c.Test != nil {
		h = append(h, "SMSE", "SNLP", "MAE", "95% cov")
		r = append(r, true, true, true, true)
	}
	return h, r
}

// cells returns the table rows and the notes on rows that failed.
func (c *Comparison) cells() (rows [][]string, notes []string) {
	for _, r := range c.Rows {
		cells := []string{r.Name, r.Kind.String(), table.G(r.Objective), fmt.Sprintf("%d/%d", r.M, r.MRequested),
			r.Selector.String(), strconv.Itoa(r.Epochs), fmt.Sprintf("%.3g", r.Elapsed.Seconds()), stopText(r.Status, r.Reason)}
		if r.Exact {
			cells[1], cells[4] = "exact", "all (m = n)"
		}
		if r.Continuous {
			cells[4] = "continuous (Z moves)"
		}
		if r.MRequested == 0 { // no model
			cells = []string{r.Name, "–", "–", "–", "–", "–", "–", "–"}
		}
		if c.Test != nil {
			if e := r.Eval; e != nil {
				cells = append(cells, table.G(e.SMSE), table.G(e.SNLP), table.G(e.MAE), fmt.Sprintf("%.3f", e.Coverage95))
			} else {
				cells = append(cells, "–", "–", "–", "–")
			}
		}
		rows = append(rows, cells)
		if r.Err != nil {
			notes = append(notes, r.Name+": "+r.Err.Error())
		}
	}
	return rows, notes
}

// title returns the first line of the comparison's displays.
func (c *Comparison) title() string {
	s := fmt.Sprintf("sgp.Comparison of %d models", len(c.Rows))
	if c.Test != nil {
		s += fmt.Sprintf(", scored on %d test points", c.Test.Len())
		if c.Test.Name != "" {
			s += fmt.Sprintf(" (%s)", c.Test.Name)
		}
	}
	return s
}

// String returns the comparison as an aligned table, one row per model
// (m is used/asked for; "95% cov" the fraction of test targets in the
// central 95% predictive interval), and a line for each model that failed.
func (c *Comparison) String() string {
	if c == nil {
		return "sgp.Comparison(nil)"
	}
	if len(c.Rows) == 0 {
		return c.title() + "; add models with Add"
	}
	h, right := c.header()
	rows, notes := c.cells()
	s := c.title() + "\n" + table.Text(h, rows, right)
	for _, n := range notes {
		s += "\nerror: " + n
	}
	return s
}

// HTML returns the comparison as a table with the columns of String, and
// the failures as a list.
func (c *Comparison) HTML() string {
	if c == nil || len(c.Rows) == 0 {
		return html.EscapeString(c.String())
	}
	h, _ := c.header()
	rows, notes := c.cells()
	var b strings.Builder
	b.WriteString(table.Grid(c.title(), h, rows))
	if len(notes) > 0 {
		b.WriteString("<ul>")
		for _, n := range notes {
			b.WriteString("<li><b>error:</b> " + html.EscapeString(n) + "</li>")
		}
		b.WriteString("</ul>")
	}
	return b.String()
}
