package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"
)

func evalFlags(fs *flag.FlagSet) func(context.Context, *env) error {
	trainPath := fs.String("train", "", "training CSV `file` (required)")
	var inducing intList
	fs.Var(&inducing, "inducing", "comma-separated 0-based data rows of the inducing set, in factorisation `order` (required)")
	variance := fs.Float64("variance", 0, "signal variance `V` of the RBF kernel (required)")
	var ls floatList
	fs.Var(&ls, "lengthscales", "lengthscales `L1[,L2,…]`: one for all dimensions, or exactly d (required)")
	noise := fs.Float64("noise", 0, "noise variance `S2` (required)")
	objective := fs.String("objective", "var", "objective to report: var (Titsias' VFE) or mle (DTC)")
	meanC := fs.Float64("mean", 0, "constant prior mean `C`: the objective of the zero-mean GP for y − C (default 0, the model of the paper)")
	jsonOut := fs.Bool("json", false, "print one JSON object with the objective and its terms")
	return func(_ context.Context, e *env) error {
		if math.IsNaN(*meanC) || math.IsInf(*meanC, 0) {
			return usageErrorf("eval: --mean %v must be finite", *meanC)
		}
		for _, name := range []string{"train", "inducing", "variance", "lengthscales", "noise"} {
			if !isSet(fs, name) {
				return usageErrorf("eval: --%s is required (run 'sgprepl help eval')", name)
			}
		}
		obj, err := sgp.ParseObjective(*objective)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if !positive(*variance) {
			return usageErrorf("--variance %v must be positive and finite", *variance)
		}
		if !positive(*noise) {
			return usageErrorf("--noise %v must be positive and finite", *noise)
		}
		for _, l := range ls {
			if !positive(l) {
				return usageErrorf("--lengthscales: %v must be positive and finite", l)
			}
		}
		if len(ls) == 0 {
			return usageErrorf("--lengthscales is empty; give one lengthscale, or one per input dimension")
		}
		if len(inducing) == 0 {
			return usageErrorf("--inducing is empty; give at least one 0-based data row")
		}
		train, _, err := readData(*trainPath, "")
		if err != nil {
			return err
		}
		n, d := train.Len(), train.X.Dim()
		seen := make(map[int]bool, len(inducing))
		for _, j := range inducing {
			if j < 0 || j >= n {
				return fmt.Errorf("--inducing: row %d is out of range; %s has %d data rows, numbered 0 to %d", j, *trainPath, n, n-1)
			}
			if seen[j] {
				return fmt.Errorf("--inducing: row %d is repeated", j)
			}
			seen[j] = true
		}
		switch {
		case len(ls) == 1 && d > 1:
			ls = slices.Repeat(ls, d)
		case len(ls) != d && d == 1:
			return fmt.Errorf("--lengthscales: %d given but the inputs have 1 dimension; give 1", len(ls))
		case len(ls) != d:
			return fmt.Errorf("--lengthscales: %d given but the inputs have %d dimensions; give 1 or %d", len(ls), d, d)
		}
		m := len(inducing)
		mean := sgp.MeanZero
		if *meanC != 0 {
			mean = sgp.MeanFixed(*meanC)
		}
		md := sgp.NewModel(train.X, train.Y, kernel.NewRBF(*variance, ls)).WithInducing(inducing).WithNoise(*noise).WithMean(mean)
		f, err := md.Factor()
		if err != nil {
			return err
		}
		// The model replaces a degenerate point of its start; eval
		// evaluates the set it is given, or says which point it cannot.
		if got := f.Active(nil); !slices.Equal(got, inducing) {
			for i, j := range inducing {
				if i >= len(got) || got[i] != j {
					return fmt.Errorf("--inducing: row %d has a negligible residual variance given the rows before it (a duplicate input?), so it cannot be inducing", j)
				}
			}
		}
		p := f.Parts()
		value := p.Value(obj)
		for _, v := range []float64{p.MLE, p.VAR, p.DataFit, p.Complexity, p.Trace} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("the objective is not finite at these hyperparameters (MLE %v, VAR %v): the noise variance %v is too small for the floating-point range", p.MLE, p.VAR, *noise)
			}
		}
		if *jsonOut {
			out, err := json.Marshal(evalReport{
				Objective: value, ObjectiveKind: obj.String(),
				DataFit: p.DataFit, Complexity: p.Complexity, Trace: p.Trace,
				MLE: p.MLE, VAR: p.VAR, N: n, M: m, Mean: *meanC,
			})
			if err != nil {
				return fmt.Errorf("cannot encode the result as JSON: %w", err)
			}
			_, err = e.stdout.Write(append(out, '\n'))
			return err
		}
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
		w := e.stdout
		fmt.Fprintf(w, "%v %s\n", obj, g(value))
		fmt.Fprintf(w, "  n=%d m=%d; MLE = ½(data_fit + complexity) + n/2·log 2π, VAR = MLE + ½trace\n", n, m)
		fmt.Fprintf(w, "  MLE        %s\n  VAR        %s\n", g(p.MLE), g(p.VAR))
		fmt.Fprintf(w, "  data_fit   %s\n  complexity %s\n  trace      %s\n", g(p.DataFit), g(p.Complexity), g(p.Trace))
		return nil
	}
}

// evalReport is the --json output of eval. DataFit, Complexity and Trace
// are E_D = yᵀ(K̂+σ²I)⁻¹y, E_C = log|K̂+σ²I| and E_V = σ⁻²tr(K − K̂).
type evalReport struct {
	Objective     float64 `json:"objective"`
	ObjectiveKind string  `json:"objective_kind"`
	DataFit       float64 `json:"data_fit"`
	Complexity    float64 `json:"complexity"`
	Trace         float64 `json:"trace"`
	MLE           float64 `json:"mle"`
	VAR           float64 `json:"var"`
	N             int     `json:"n"`
	M             int     `json:"m"`
	Mean          float64 `json:"mean"`
}

func positive(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// --- flag helpers ---
