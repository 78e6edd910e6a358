package sgp

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// DefaultM is the number of inducing points a Model and a Continuous take
// without WithM, for n training points: min(100, max(1, ⌊n/2⌋)). With
// nearly every point inducing, the swaps have few candidates to work with.
func DefaultM(n int) int { return min(100, max(1, n/2)) }

// DefaultChoice is what a fit that names neither the number of inducing
// points nor a selector gets (ChooseDefault): the exact GP (NewExact)
// wherever it is affordable, its memory within a share of the machine's
// and its estimated time within a bound, otherwise the sparse model with
// m = DefaultM(n) and the sparse default selector.
type DefaultChoice struct {
	Exact bool // fit the exact GP
	// M is the sparse default's number of inducing points, DefaultM(n).
	M int
	// ExactSeconds and SparseSeconds are the estimated times of the two
	// fits on the machine the constants were measured on (see
	// ChooseDefault).
	ExactSeconds, SparseSeconds float64
	// ExactBytes and SparseBytes are the estimated working memory of the
	// two fits.
	ExactBytes, SparseBytes float64
	// MachineBytes is the memory the machine has for the fit (see
	// MachineMemory), of which the exact GP may take ExactMemoryShare.
	MachineBytes float64
	// GoLAPACK is true when the exact GP would factorise with the pure-Go
	// backend (SGP_BLAS=go, or no OpenBLAS installed; see BLAS), whose
	// evaluations ExactSeconds counts goLAPACKSlowdown times as long.
	GoLAPACK bool
	// Reason says why, in one sentence, with the estimates.
	Reason string
}

// The constants of ChooseDefault's cost model, measured with OpenBLAS on a
// 2-core AMD EPYC (docs/defaults.md gives the fits they come from and the
// sets that check them).
const (
	// exactEvalSecPerN3 and exactEvalSecPerN2 give the time of one exact
	// objective and gradient evaluation, a·n³ + b·n²: the Cholesky factor
	// and its inverse, and the passes over the n² kernel values.
	exactEvalSecPerN3 = 1.5e-11
	exactEvalSecPerN2 = 5e-8
	// exactEvalsBase and exactEvalsPerParam give the typical number of
	// evaluations an exact fit takes to converge, 10 + 2 per
	// hyperparameter (noise included): 8–59 measured, 15–22 for the
	// ten of an ARD kernel on eight inputs (docs/defaults.md).
	exactEvalsBase     = 10
	exactEvalsPerParam = 2
	// exactWorkspaceBytes is the exact GP's memory beside its one n×n
	// matrix: the blocks of cross-covariances its predictions use (2²¹
	// values) and its O(n) vectors.
	exactWorkspaceBytes = 8<<21 + 1<<20
	// cholqrSecPerNM2 is the time of CholQR's whole fit per n·m²
	// (1.5–3·10⁻⁷ s over five sets, numeric and molecule inputs).
	cholqrSecPerNM2 = 2.3e-7
	// hybridRefineMin is the least time the hybrid's continuous refinement
	// is given without a time budget (the hybrid selector's rule).
	hybridRefineMin = 5.0
	// goLAPACKSlowdown is how many times as long an exact evaluation
	// takes with the pure-Go backend as with OpenBLAS, which the constants
	// above are measured with: 2.1 at n = 1000 and 3.2 at n = 2000 in CPU
	// time on kin8nm.
	goLAPACKSlowdown = 3
	// sparseValuesPerRowM is the sparse default's working memory in
	// float64 values per training row and inducing point (G, Q, the
	// gradient phase's and the refinement's n×m matrices): about 12,
	// measured as peak resident memory above the process's own.
	sparseValuesPerRowM = 12
)

// The bounds within which ChooseDefault fits the exact GP.
const (
	// ExactMemoryShare is the share of the machine's memory
	// (MachineMemory) that the exact GP's estimated memory may take: half,
	// leaving the rest to the data, the process and whatever else runs.
	ExactMemoryShare = 0.5
	// ExactTimeBound is the estimated time within which the exact GP is
	// fitted by default (or within the sparse default's estimate, if
	// longer): a minute, a wait an interactive user accepts for the model
	// the sparse ones approximate; kin8nm's 2000 rows (8 inputs, an ARD
	// kernel) are estimated at 10 s.
	ExactTimeBound = 60 * time.Second

	// ExactBudgetMargin is how many times its estimate the exact GP's
	// time may be and still fit in a time budget: its evaluation count
	// is the estimate's weakest part, and on the sets that fitted it
	// (docs/defaults.md) the fits took up to 2.7 times the estimate. An
	// exact fit that the budget stops before it converges is worse than
	// the sparse default that converges within it.
	ExactBudgetMargin = 3
)

// ChooseDefault returns the default fit for n training points and a kernel
// of params hyperparameters (the kernel's NumParams, noise not counted)
// when neither m nor a selector is given: hybrid tells whether the sparse
// default is the hybrid selector (numeric inputs and a kernel it can
// refine) rather than CholQR, and budget is the fit's time budget (0:
// none).
//
// The exact GP is chosen wherever it is affordable: its estimated memory
// within ExactMemoryShare of the machine's (MachineMemory), and its
// estimated time within ExactTimeBound (or the sparse default's estimate,
// if longer) and, if a time budget is given, ExactBudgetMargin times it
// within the budget:
//
//	exact:  (12 + 2·params) evaluations × (1.5·10⁻¹¹ n³ + 5·10⁻⁸ n²) s,   memory 8n² bytes + 17 MiB
//	        (× 3 with the pure-Go LAPACK, SGP_BLAS=go or no OpenBLAS)
//	CholQR: 2.3·10⁻⁷ s · n·m²,                                         memory 8·12·n·m bytes
//	hybrid: CholQR's time + max(5 s, CholQR's time) (its refinement), at most the budget
//
// with m = DefaultM(n). The constants are measured on this project's
// reference machine (docs/defaults.md). With OpenBLAS the time bound holds
// the exact GP to n ≈ 5300 for a kernel of two hyperparameters and
// n ≈ 4200 for an ARD kernel on eight inputs (3400 and 2700 with the Go
// LAPACK), at most 240 MiB: the machine's memory decides only where less
// than twice that is available, so on any ordinary machine the choice
// depends on n, the kernel's size, the selector, the budget and the
// BLAS only.
func ChooseDefault(n, params int, hybrid bool, budget time.Duration) DefaultChoice {
	return chooseExact(n, params, DefaultM(n), hybrid, budget, MachineMemory(), goLAPACK())
}

// goLAPACK reports whether the dense factorisations use the pure-Go
// backend (BLAS).
func goLAPACK() bool {
	name, err := BLAS()
	return err == nil && strings.HasPrefix(name, "go")
}

// chooseExact is ChooseDefault for a sparse model of m inducing points on
// a machine with machine bytes of memory for the fit, whose exact GP
// factorises with the Go LAPACK if goLAPACK.
func chooseExact(n, params, m int, hybrid bool, budget time.Duration, machine float64, goLAPACK bool) DefaultChoice {
	nf, mf := float64(n), float64(m)
	evals := float64(exactEvalsBase + exactEvalsPerParam*(params+1))
	if goLAPACK {
		evals *= goLAPACKSlowdown
	}
	c := DefaultChoice{M: m, MachineBytes: machine, GoLAPACK: goLAPACK,
		ExactSeconds: evals * (exactEvalSecPerN3*nf*nf*nf + exactEvalSecPerN2*nf*nf),
		ExactBytes:   8*nf*nf + exactWorkspaceBytes,
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
	bound := math.Max(ExactTimeBound.Seconds(), c.SparseSeconds)
	inTime := c.ExactSeconds <= bound
	inMemory := c.ExactBytes <= ExactMemoryShare*machine
	inBudget := budget <= 0 || ExactBudgetMargin*c.ExactSeconds <= budget.Seconds()
	c.Exact = n <= MaxExactN && inTime && inMemory && inBudget
	lapack := ""
	if goLAPACK {
		lapack = " with the Go LAPACK"
	}
	est := fmt.Sprintf("estimated %s%s and %s for the exact GP (%s of %s available), %s and %s for %s with m = %d",
		seconds(c.ExactSeconds), lapack, mib(c.ExactBytes), percent(c.ExactBytes/machine), mib(machine), seconds(c.SparseSeconds), mib(c.SparseBytes), name, m)
	switch {
	case c.Exact:
		c.Reason = fmt.Sprintf("the exact GP is affordable (within %v and %s of the memory): %s", ExactTimeBound, percent(ExactMemoryShare), est)
	case n > MaxExactN:
		c.Reason = fmt.Sprintf("the exact GP is limited to n ≤ %d: %s", MaxExactN, est)
	case !inMemory:
		c.Reason = fmt.Sprintf("the exact GP would take more than %s of the memory: %s", percent(ExactMemoryShare), est)
	case !inTime:
		c.Reason = fmt.Sprintf("the exact GP would take longer than %s: %s", seconds(bound), est)
	default:
		c.Reason = fmt.Sprintf("the exact GP would not fit in the time budget of %v with a margin of %d× its estimate: %s", budget, ExactBudgetMargin, est)
	}
	return c
}

func seconds(s float64) string { return fmt.Sprintf("%.2g s", s) }

func mib(b float64) string { return fmt.Sprintf("%.2g MiB", b/(1<<20)) }

func percent(f float64) string { return fmt.Sprintf("%.2g%%", 100*f) }

// fallbackMachineBytes is the memory MachineMemory assumes where the
// system does not say (no /proc/meminfo): 2 GiB, little for a machine
// that runs Go, so that the exact GP's 1 GiB share bounds n to about
// 11,000, beyond ExactTimeBound's n anyway.
const fallbackMachineBytes = 2 << 30

// MachineMemory returns the memory in bytes a fit can take on this
// machine: the kernel's estimate of the memory available to a new
// process without swapping (MemAvailable of /proc/meminfo), or the total
// memory (MemTotal) where it gives no estimate, or 2 GiB where there is
// no /proc/meminfo (systems other than Linux).
func MachineMemory() float64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return fallbackMachineBytes
	}
	return parseMeminfo(string(b))
}

// parseMeminfo returns MemAvailable (else MemTotal) of the text of
// /proc/meminfo in bytes, or fallbackMachineBytes when it has neither.
func parseMeminfo(text string) float64 {
	found := map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] != "kB" {
			continue
		}
		if v, err := strconv.ParseFloat(f[1], 64); err == nil && v > 0 {
			found[strings.TrimSuffix(f[0], ":")] = 1024 * v
		}
	}
	for _, key := range []string{"MemAvailable", "MemTotal"} {
		if v, ok := found[key]; ok {
			return v
		}
	}
	return fallbackMachineBytes
}
