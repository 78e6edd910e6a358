package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cholqr/sgp/sgp"
)

// parentsReport is the JSON's "parents" of a hybrid fit (null for the
// other selectors): the two fits it compared, whichever of them the
// model predicts with (kept); the top level of the report describes that
// one.
type parentsReport struct {
	CholQR     *cholqrParentReport     `json:"cholqr"`
	Continuous *continuousParentReport `json:"continuous"` // the lowest continuous fit; null if none could be evaluated
}

// cholqrParentReport describes a hybrid fit's CholQR parent.
type cholqrParentReport struct {
	Kept            bool               `json:"kept"` // the model is this fit
	Objective       float64            `json:"objective"`
	Stopped         string             `json:"stopped"`
	Converged       bool               `json:"converged"`
	Epochs          int                `json:"epochs"`
	M               int                `json:"m"` // inducing points kept, at most m_requested
	Z               int                `json:"z"`
	Inducing        []int              `json:"inducing"`
	NoiseOnly       bool               `json:"noise_only"`
	Restarted       bool               `json:"restarted"`
	SwitchedOn      []int              `json:"switched_on"`
	Hyperparameters map[string]float64 `json:"hyperparameters"`
	Mean            float64            `json:"mean"`
	Warnings        []string           `json:"warnings"`
}

// continuousParentReport describes a hybrid fit's lowest continuous fit.
type continuousParentReport struct {
	Kept            bool               `json:"kept"`
	From            string             `json:"from"`
	Objective       float64            `json:"objective"`
	Start           float64            `json:"start"`
	Stopped         string             `json:"stopped"`
	Converged       bool               `json:"converged"`
	Evaluations     int                `json:"evaluations"`
	Restarts        int                `json:"restarts"`
	Seconds         float64            `json:"seconds"`
	Jitter          float64            `json:"jitter"`
	M               int                `json:"m"`
	Hyperparameters map[string]float64 `json:"hyperparameters"`
	Mean            float64            `json:"mean"`
	Warnings        []string           `json:"warnings"`
}

// describeHybrid sets the report of a hybrid fit res: its parents and,
// when the model predicts with the continuous fit, a top level that
// describes that fit (its m, inducing inputs, evaluations, jitter; the
// keys only CholQR's epochs fill are null) instead of CholQR's.
func (r *fitReport) describeHybrid(res *sgp.Result, z int) {
	chol := &res.FitSummary
	if res.CholQR != nil {
		chol = res.CholQR
	}
	r.Parents = &parentsReport{CholQR: &cholqrParentReport{Kept: res.Refined == nil, Objective: chol.Objective, Stopped: chol.Stopped(),
		Converged: chol.Converged, Epochs: res.Epochs, M: len(res.Inducing), Z: z, Inducing: slices.Sorted(slices.Values(res.Inducing)),
		NoiseOnly: res.NoiseOnly, Restarted: res.Restarted, SwitchedOn: append([]int{}, res.SwitchedOn...),
		Hyperparameters: chol.Hyperparameters().Map(), Mean: chol.Mean, Warnings: flagWordsAll(chol.Warnings)}}
	if cr := res.Continuous; cr != nil {
		theta := sgp.FitSummary{Names: res.Names, Params: cr.Params, Fixed: cr.Fixed} // a fixed value as given
		r.Parents.Continuous = &continuousParentReport{Kept: cr == res.Refined, From: res.ContinuousFrom, Objective: cr.Objective, Start: cr.Start,
			Stopped: cr.Stopped(), Converged: cr.Converged, Evaluations: cr.Evals, Restarts: cr.Restarts, Seconds: cr.Elapsed.Seconds(),
			Jitter: cr.Jitter, M: cr.Z.Len(), Hyperparameters: theta.Hyperparameters().Map(),
			Mean: cr.Mean, Warnings: flagWordsAll(cr.Warnings)}
	}
	cr := res.Refined
	if cr == nil {
		return
	}
	r.M, r.Inducing, r.InducingInputs = cr.Z.Len(), nil, rowsOf(cr.Z)
	r.Epochs, r.Evaluations, r.Restarts, r.Jitter = nil, ptr(cr.Evals), ptr(cr.Restarts), ptr(cr.Jitter)
	r.Z, r.NoiseOnly, r.Restarted, r.SwitchedOn = nil, nil, nil, nil
}

// printCholQRParent writes a hybrid fit's CholQR parent to the text
// summary, when the model predicts with the continuous fit: its
// objective, inducing rows and warnings, apart from the model's.
func (r *fitReport) printCholQRParent(w io.Writer, m int) {
	p := r.Parents
	if p == nil || p.CholQR.Kept {
		return
	}
	c := p.CholQR
	fmt.Fprintf(w, "%-16s%s %.6g, %d of m=%d inducing rows, %d epochs (%s); the model is the continuous fit\n", "cholqr parent", r.ObjectiveKind, c.Objective, c.M, m, c.Epochs, c.Stopped)
	fmt.Fprintf(w, "%-16s%s\n", "cholqr rows", formatInts(c.Inducing))
	for _, msg := range c.Warnings {
		fmt.Fprintf(w, "%-16s%s\n", "cholqr warning", msg)
	}
}

// flagWords rewrites a warning of package sgp, which names the library's
// options, in the words of the command line: its flags.
var flagWords = strings.NewReplacer(
	"(see WithM)", "(see --m)",
	" (WithInducing)", "",
	"(WithSelector(SelectCholQR), sgprepl fit --selector cholqr)", "(--selector cholqr)",
	"(WithNoiseFloor; sgprepl fit --noise-floor)", "(--noise-floor)",
	"(WithNoiseFloor)", "(--noise-floor)",
	"try WithObjective(MLE)", "try --objective mle",
	"(WithFixedAt)", "(--fix NAME=VALUE)",
)

// flagWordsAll returns the warnings in the command line's words
// (flagWords), never nil.
func flagWordsAll(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = flagWords.Replace(w)
	}
	return out
}

// flagWordsWriter passes a fit's progress lines to w in the command
// line's words (flagWords); package sgp writes each line in one Write.
type flagWordsWriter struct{ w io.Writer }

func (f flagWordsWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(f.w, flagWords.Replace(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
