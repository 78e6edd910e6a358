// Package figure draws gonum/plot figures of sparse GP models: the one job
// of turning a model, a cost ranking, an optimisation trace or a table of
// results into a picture. It is a package of its own so that a program
// that only fits and predicts with package sgp does not link the plotting
// stack.
//
// Every plot kind returns a *Figure, a value rendered on demand to PNG,
// SVG or PDF bytes (Encode, PNG, SVG, HTML) and written to a file only by
// Save; a REPL or a Jupyter kernel shows it through its PNG and HTML
// methods. The plot kinds:
//
//	Fit1D        a 1-D fit: data, predictive mean, ±2σ band, inducing inputs
//	Samples      joint posterior draws of a 1-D fit over its mean and band
//	CostRanking  approximate against exact ΔF of every swap candidate
//	             (Cao et al. 2013, §4, the cost-ranking figure)
//	Trace        the objective and its terms per epoch
//	Curves       named curves, e.g. SMSE against m or time
//	Parity       predicted against measured test values
package figure
