package sgp

import (
	"fmt"
	"math"
	"time"
)

// DefaultM is the number of inducing points a Model and a Continuous take
// without WithM, for n training points: min(100, max(1, ⌊n/2⌋)). With
// nearly every point inducing, the swaps have few candidates to work with.
func DefaultM(n int) int { return min(100, max(1, n/2)) }

// DefaultChoice is what a fit that names neither the number of inducing
// points nor a selector gets (ChooseDefault): the exact GP (NewExact) where
// it costs no more time and memory than the sparse default, otherwise the
// sparse model with m = DefaultM(n) and the sparse default selector.
type DefaultChoice struct {
	Exact bool // fit the exact GP
	// M is the sparse default's number of inducing points, DefaultM(n).
	M int
	// ExactSeconds and SparseSeconds are the estimated times of the two
	// fits on the machine the constants were measured on (see
	// ChooseDefault); only their ratio matters to the choice.
	ExactSeconds, SparseSeconds float64
	// ExactBytes and SparseBytes are the estimated working memory of the
	// two fits.
	ExactBytes, SparseBytes float64
	// Reason says why, in one sentence, with the estimates.
	Reason string
}

// The constants of ChooseDefault's cost model, measured with OpenBLAS on a
// 2-core AMD EPYC (docs/defaults.md gives the fits they come from).
const (
	// exactEvalSecPerN3 and exactEvalSecPerN2 give the time of one exact
	// objective and gradient evaluation, a·n³ + b·n²: the Cholesky factor
	// and its inverse, and the passes over the n² kernel values.
	exactEvalSecPerN3 = 1.5e-11
	exactEvalSecPerN2 = 5e-8
	// exactEvalsBase and exactEvalsPerParam give the typical number of
	// evaluations an exact fit takes to converge, 5 + 4 per
	// hyperparameter (noise included): 8–9 measured for the molecule
	// kernels' two, 17–30 for three to six, 45–59 for twelve.
	exactEvalsBase     = 5
	exactEvalsPerParam = 4
	// cholqrSecPerNM2 is the time of CholQR's whole fit per n·m²
	// (1.5–3·10⁻⁷ s over five sets, numeric and molecule inputs).
	cholqrSecPerNM2 = 2.3e-7
	// hybridRefineMin is the least time the hybrid's continuous refinement
	// is given without a time budget (the hybrid selector's rule).
	hybridRefineMin = 5.0
	// exactAnywaySec is the estimated time under which the exact GP is
	// chosen even where the sparse default's estimate is lower: a few
	// dozen points, where both take milliseconds and the sparse model
	// would keep only half of them.
	exactAnywaySec = 0.1
	// sparseValuesPerRowM is the sparse default's working memory in
	// float64 values per training row and inducing point (G, Q, the
	// gradient phase's and the refinement's n×m matrices): about 12,
	// measured as peak resident memory above the process's own.
	sparseValuesPerRowM = 12
)

// ChooseDefault returns the default fit for n training points and a kernel
// of params hyperparameters (the kernel's NumParams, noise not counted)
// when neither m nor a selector is given: hybrid tells whether the sparse
// default is the hybrid selector (numeric inputs and a kernel it can
// refine) rather than CholQR, and budget is the fit's time budget (0:
// none).
//
// The exact GP is chosen when its estimated time (or 0.1 s, if more) and
// memory are at most the sparse default's, and within the budget if one
// is given:
//
//	exact:  (9 + 4·params) evaluations × (1.5·10⁻¹¹ n³ + 5·10⁻⁸ n²) s,   memory 8n² bytes
//	CholQR: 2.3·10⁻⁷ s · n·m²,                                         memory 8·12·n·m bytes
//	hybrid: CholQR's time + max(5 s, CholQR's time) (its refinement), at most the budget
//
// with m = DefaultM(n). The constants are measured on this project's
// reference machine; both times scale alike with the machine, so the
// choice depends on n, the kernel's size, the selector and the budget
// only, and a fit is reproducible across machines. With m = 100 the
// memory bound holds the exact GP to n ≤ 1200.
func ChooseDefault(n, params int, hybrid bool, budget time.Duration) DefaultChoice {
	return chooseExact(n, params, DefaultM(n), hybrid, budget)
}

// chooseExact is ChooseDefault for a sparse model of m inducing points.
func chooseExact(n, params, m int, hybrid bool, budget time.Duration) DefaultChoice {
	nf, mf := float64(n), float64(m)
	evals := float64(exactEvalsBase + exactEvalsPerParam*(params+1))
	c := DefaultChoice{M: m,
		ExactSeconds: evals * (exactEvalSecPerN3*nf*nf*nf + exactEvalSecPerN2*nf*nf),
		ExactBytes:   8 * nf * nf,
		SparseBytes:  8 * sparseValuesPerRowM * nf * mf,
	}
	tc := cholqrSecPerNM2 * nf * mf * mf
	c.SparseSeconds = tc
	name := "CholQR"
	if hybrid {
		name = "the hybrid"
		c.SparseSeconds = tc + math.Max(hybridRefineMin, tc)
		if b := budget.Seconds(); b > 0 {
			c.SparseSeconds = math.Min(c.SparseSeconds, b)
		}
	}
	inBudget := budget <= 0 || c.ExactSeconds <= budget.Seconds()
	c.Exact = n <= MaxExactN && c.ExactSeconds <= max(c.SparseSeconds, exactAnywaySec) && c.ExactBytes <= c.SparseBytes && inBudget
	est := fmt.Sprintf("estimated %s and %s for the exact GP, %s and %s for %s with m = %d",
		seconds(c.ExactSeconds), mib(c.ExactBytes), seconds(c.SparseSeconds), mib(c.SparseBytes), name, m)
	switch {
	case c.Exact:
		c.Reason = "the exact GP costs no more than the sparse default: " + est
	case !inBudget && c.ExactSeconds <= max(c.SparseSeconds, exactAnywaySec) && c.ExactBytes <= c.SparseBytes:
		c.Reason = fmt.Sprintf("the exact GP would not fit in the time budget of %v: %s", budget, est)
	default:
		c.Reason = "the sparse default costs less than the exact GP: " + est
	}
	return c
}

func seconds(s float64) string { return fmt.Sprintf("%.2g s", s) }

func mib(b float64) string { return fmt.Sprintf("%.2g MiB", b/(1<<20)) }
