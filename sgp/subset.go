package sgp

import (
	"fmt"
	"math"
	"time"

	"github.com/cholqr/sgp/sgp/kernel"
)

// Result summarises a Fit of a Model. Its FitSummary holds the objective
// (VAR's or MLE's), the time, how the fit ended and the hyperparameters:
// Status is Converged, MaxEpochs, TimeBudget, Cancelled, Failed (with an
// error), or Stalled when the objective stopped decreasing because the
// gradient phase failed (a line search that found no decrease,
// non-finite objective values) while the gradient was not small; Reason
// then says how. Converged is true only when the relative decrease of the
// objective over the last epoch fell below the tolerance and the gradient
// phase ended normally or at a small gradient. For a hybrid fit that kept
// its refinement, Objective, Params and Mean are the refinement's
// (Refined), the model the predictions use.
type Result struct {
	FitSummary
	Parts    Parts
	Epochs   int
	Inducing []int
	// M is the number of inducing points asked for; len(Inducing) can be
	// smaller (see Model.WithM).
	M int
	// NoiseOnly is true when the model explains less than 1% of the
	// training targets' variance around the prior mean: the trivial
	// optimum where everything is noise.
	NoiseOnly bool
	// Restarted is true when a VAR fit reached the noise-only optimum and
	// a restart from an MLE warm start (WithMLERestart) found a lower
	// VAR objective, which the model keeps.
	Restarted bool
	// SwitchedOn lists the inputs, in order, whose lengthscales the fit
	// set back after its gradient phases had switched them off (grown
	// far beyond the inputs' spread, where no gradient step brings them
	// back) because the objective was lower there; the epochs that
	// followed are part of the fit (kernels with lengthscales only,
	// kernel.Lengthscaled). nil when none was.
	SwitchedOn []int
	// Refined is, for the hybrid selector, the continuous fit that the
	// model predicts with (its inducing inputs Z and θ; the FitSummary is
	// then its own, and CholQR's is in CholQR): the lowest of its
	// continuous fits, where it is below CholQR's objective; nil
	// otherwise, and for other selectors.
	Refined *ContinuousResult
	// RefinedFrom says where the kept continuous fit started: "a random
	// subset" (continuous SGPR's own start, at the starting
	// hyperparameters), "CholQR's fit" (its set and θ), or with time left
	// in a budget "the k-means centres", "the k-means++ seeds" or
	// "CholQR's set" (at the starting hyperparameters), followed by ",
	// then lengthscale[j] switched back on" (or "lengthscales[j, k]") when
	// the fit went on from bringing back inputs it had switched off; ""
	// without one.
	RefinedFrom string
	// CholQR is, when Refined is set, the summary of the hybrid fit's
	// CholQR parent: its objective, θ, μ, how it stopped and its warnings
	// (fewer inducing points than asked for, …). The Result's own
	// FitSummary then describes the model that predicts and is saved,
	// the refinement: its objective, θ, μ, stop, noise floor and
	// warnings. Parts, Epochs, Inducing, M, NoiseOnly, Restarted,
	// SwitchedOn and Stats always describe the CholQR fit. nil otherwise.
	CholQR *FitSummary
	// Continuous is, for the hybrid selector, the lowest of its
	// continuous fits, kept (it is then Refined) or not (its objective
	// not below CholQR's), and ContinuousFrom where it started (as
	// RefinedFrom); nil when none ran, and for other selectors.
	Continuous     *ContinuousResult
	ContinuousFrom string
	Stats
	md *Model // the model fitted, which Comparison.Add scores
}

// fitSubset is Fit for inducing points chosen among the training data,
// under r: epochs until a stop rule, the restart from MLE of a VAR fit at
// the noise-only optimum, and the search for inputs switched off.
func (md *Model) fitSubset(r *run) (res *Result, err error) {
	md.refined = nil
	theta0 := md.Params()
	first, leftOut := len(md.trace), md.f.Stats().LeftOut
	ended, runErr := md.runEpochs(r)
	restarted := false
	if runErr == nil && md.restartWanted(r) {
		ended, restarted, runErr = md.restartFromMLE(r, theta0, ended)
	}
	var on []int
	if lk, ok := md.kern.(kernel.Lengthscaled); ok && runErr == nil && !r.fixHyper {
		ls0 := make([]float64, len(lk.Lengthscales()))
		for j := range ls0 {
			ls0[j] = math.Exp(theta0[1+j])
		}
		ended, on, runErr = md.switchBackSubset(r, math.Exp(theta0[0]), ls0, ended)
	}
	res = &Result{
		FitSummary: FitSummary{
			Objective: md.f.Value(r.obj),
			Elapsed:   time.Since(r.start),
			Status:    ended.status,
			Reason:    ended.reason,
			Converged: ended.converged,
			Params:    md.Params(),
			Names:     md.ParamNames(),
			Mean:      md.f.Mean(),
		},
		Parts:      md.f.Parts(),
		Epochs:     len(md.trace),
		Inducing:   md.f.Active(nil),
		M:          md.m,
		md:         md,
		Restarted:  restarted,
		SwitchedOn: on,
		Stats:      md.f.Stats(),
	}
	res.Warnings = md.warnings(res, md.rose(r.obj, first, leftOut))
	md.announce(res.Warnings)
	return res, runErr
}

// rose returns a warning when the objective ends above the lowest value an
// epoch of this fit (md.trace[first:]) reached, or "". Swaps and gradient
// phases never raise it, but a rebuild of the factor at new
// hyperparameters can leave out inducing points that are numerically in
// the span of the others (cholqr.Factor.FactorizeSkipping, Stats.LeftOut), as
// when the signal variance grows to many times the targets' variance.
func (md *Model) rose(obj Objective, first, leftOut int) string {
	best, at := math.Inf(1), 0
	for _, r := range md.trace[first:] {
		if r.Kind == obj && r.Objective < best {
			best, at = r.Objective, r.Epoch
		}
	}
	end := md.f.Value(obj)
	if !(end > best+md.riseTol()*md.f.ValueScale(best)) {
		return ""
	}
	if k := md.f.Stats().LeftOut - leftOut; k > 0 {
		return fmt.Sprintf("the objective rose from %.6g (epoch %d) to %.6g: rebuilding the factor at new hyperparameters left out %d inducing points that were numerically in the span of the others; the model is the last state",
			best, at, end, k)
	}
	return fmt.Sprintf("the objective rose from %.6g (epoch %d) to %.6g; the model is the last state", best, at, end)
}

// announce passes warnings to the progress writer and the warning hook.
func (md *Model) announce(ws []string) {
	for _, w := range ws {
		if md.progress != nil {
			fmt.Fprintf(md.progress, "warning: %s\n", w)
		}
		if md.onWarning != nil {
			md.onWarning(w)
		}
	}
}

// warnings returns the notes a user must see about a fit.
func (md *Model) warnings(res *Result, rose string) []string {
	var w []string
	if k := len(res.Inducing); k < md.m {
		w = append(w, fmt.Sprintf("only %d of the m=%d inducing points asked for: the kernel cannot tell more training points apart at these hyperparameters (see WithM)", k, md.m))
	}
	if frac := md.explained(); frac < noiseOnlyFraction {
		try := "try WithObjective(MLE), more inducing points or another kernel"
		if md.obj == MLE {
			try = "try more inducing points or another kernel"
		}
		w = append(w, fmt.Sprintf("the model explains %.2g%% of the training targets' variance: everything is fitted as noise (the noise-only optimum); %s, or check that the inputs can predict the target", 100*frac, try))
		res.NoiseOnly = true
	}
	switch {
	case res.Status == Cancelled:
		w = append(w, fmt.Sprintf("interrupted at epoch %d, F = %.6g; the model keeps this state", res.Epochs, res.Objective))
	case !res.Converged && rose != "":
		w = append(w, fmt.Sprintf("the fit did not converge (%s)", stopText(res.Status, res.Reason)))
	case !res.Converged:
		w = append(w, notConverged(stopText(res.Status, res.Reason)))
	}
	if rose != "" {
		w = append(w, rose)
	}
	if md.replaced > 0 && md.inducing != nil && len(md.trace) == res.Epochs {
		// The model's first fit: its start was changed when it was built.
		w = append(w, fmt.Sprintf("%d of the %d points of the initial inducing set (WithInducing) had a negligible residual variance given the points before them (duplicate inputs, or a kernel that cannot tell them apart) and were replaced by random points", md.replaced, len(md.inducing)))
	}
	return w
}
