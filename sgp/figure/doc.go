// Package figure draws gonum/plot figures of sparse GP models: the one job
// of turning a model, a cost ranking, an optimisation trace or a table of
// results into a picture. It is a package of its own so that a program
// that only fits and predicts with package sgp does not link the plotting
// stack.
//
// Every plot kind returns a *Figure, a value rendered on demand to PNG,
// SVG or PDF bytes (Encode, PNG, SVG, HTML) and written to a file only by
// Save; a REPL or a Jupyter kernel shows it through its PNG and HTML
// methods. The plot kinds, one file each:
//
//	Fit1D        fit1d.go    a 1-D fit: data, predictive mean, ±2σ band,
//	                         inducing inputs
//	CostRanking  ranking.go  approximate against exact ΔF of every swap
//	                         candidate (Cao et al. 2013, §4, the
//	                         cost-ranking figure)
//	Trace        trace.go    the objective and its terms per epoch
//	Curves       curves.go   named curves, e.g. SMSE against m or time
//	Parity       parity.go   predicted against measured test values
//
// The Figure value and its encodings are in figure.go; the shared panel
// style (palette, markers, legend room) in panel.go and the tick
// placement in ticks.go.
package figure
