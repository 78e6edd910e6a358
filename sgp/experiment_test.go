package sgp

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// BenchmarkKIN40K fits CholQR on KIN40K (10,000 training and 30,000 test
// points, d = 8, z = 16) for each m and objective from a random start with
// the data-driven initial hyperparameters, and reports the final
// objective (with n/2·log 2π), test SMSE and SNLP, epochs and fitting
// seconds. Each fit stops on the default rule (relative decrease below
// 1e-4) or after SGP_BENCH_BUDGET (default 120s). Run with
//
//	SGP_DATA=$PWD/../shared/data go test ./sgp/ -run XXX -bench KIN40K -benchtime 1x -timeout 3h
func BenchmarkKIN40K(b *testing.B) {
	train, test, err := data.LoadKIN40K(data.Dir("../../shared/data"))
	if err != nil {
		b.Skipf("KIN40K not available (set SGP_DATA): %v", err)
	}
	budget := 120 * time.Second
	if s := os.Getenv("SGP_BENCH_BUDGET"); s != "" {
		if budget, err = time.ParseDuration(s); err != nil {
			b.Fatal(err)
		}
	}
	for _, o := range []Objective{VAR, MLE} {
		for _, m := range []int{32, 64, 128, 256, 512} {
			b.Run(fmt.Sprintf("%v/m=%d", o, m), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).
						WithM(m).WithInfoPivots(16).WithObjective(o).WithSeed(1).WithTimeBudget(budget)
					res, err := md.Fit()
					if err != nil {
						b.Fatal(err)
					}
					ev, err := md.Evaluate(test)
					if err != nil {
						b.Fatal(err)
					}
					smse, snlp := ev.SMSE, ev.SNLP
					b.ReportMetric(res.Objective, "objective")
					b.ReportMetric(smse, "smse")
					b.ReportMetric(snlp, "snlp")
					b.ReportMetric(float64(res.Epochs), "epochs")
					b.ReportMetric(res.Elapsed.Seconds(), "fit-s")
					b.ReportMetric(float64(len(res.Inducing)), "k")
				}
			})
		}
	}
}

// BenchmarkEpoch measures one epoch (the CG phase with its evaluation
// budget, then the swaps) at n = 10000, d = 8, z = 16, after the model is
// built (the forward start is not timed): with 60 swaps, the epoch of Cao
// et al. (2013), and with the
// default m swaps (WithSwapsPerEpoch).
func BenchmarkEpoch(b *testing.B) {
	for _, m := range []int{256, 512} {
		for _, swaps := range []int{60, 0} {
			name := fmt.Sprintf("n=10000,m=%d,swaps=%d", m, swaps)
			if swaps == 0 {
				name = fmt.Sprintf("n=10000,m=%d,swaps=m", m)
			}
			b.Run(name, func(b *testing.B) {
				x, y := benchProblem(10000, 8, 1)
				md := NewModel(x, y, kernel.NewRBFFromData(x, y)).WithM(m).WithInfoPivots(16).WithSwapsPerEpoch(swaps)
				if err := md.build(); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				var n, evals int
				for i := 0; i < b.N; i++ {
					rec, err := md.Step()
					if err != nil {
						b.Fatal(err)
					}
					n += rec.Swaps
					evals += rec.CGEvals
				}
				b.ReportMetric(float64(n)/float64(b.N), "swaps/op")
				b.ReportMetric(float64(evals)/float64(b.N), "cg-evals/op")
			})
		}
	}
}
