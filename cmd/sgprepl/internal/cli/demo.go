package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

func demoFlags(fs *flag.FlagSet) func(context.Context, *env) error {
	seed := fs.Uint64("seed", 1, "seed of the generated data and of the random start")
	m := fs.Int("m", 10, "number of inducing points")
	objective := fs.String("objective", "var", "objective to minimise: var (Titsias' VFE) or mle (DTC)")
	maxEpochs := fs.Int("max-epochs", 50, "maximum number of epochs")
	return func(ctx context.Context, e *env) error {
		obj, err := sgp.ParseObjective(*objective)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		const n = 200
		train, test := data.SnelsonLike(n, *seed)
		if err := checkSettings(*m, 0, *maxEpochs, 0); err != nil {
			return err
		}
		if err := checkMBelowN(*m, n, false); err != nil {
			return err
		}
		md := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).
			WithM(*m).WithObjective(obj).WithSeed(*seed).WithMaxEpochs(*maxEpochs).
			WithProgress(e.stdout)
		if err := md.Err(); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "demo: Snelson-like 1-D problem, n=%d training points (seed %d), %d-point noise-free test grid; m=%d, %v\n",
			n, *seed, test.Len(), *m, obj)
		res, fitErr := md.FitContext(ctx)
		if err := fitError(res, fitErr); err != nil {
			return err
		}
		ev, err := md.Evaluate(test)
		if err != nil {
			return err
		}
		smse, snlp := ev.SMSE, ev.SNLP
		xs := make([]float64, len(res.Inducing))
		for i, j := range res.Inducing {
			xs[i] = train.X.At(j, 0)
		}
		slices.Sort(xs)
		w := e.stdout
		printFitSummary(w, md, res)
		fmt.Fprintf(w, "%-16s%s%s\n", "inducing x", formatFloats(xs, "%.4g"), shortfall(len(xs), *m))
		fmt.Fprintf(w, "%-16sSMSE %.4g  SNLP %.4g  (%d points; SNLP with the noisy variance)\n", "test grid", smse, snlp, test.Len())
		return interruptedFit(ctx, res.Status)
	}
}

// --- fit ---
