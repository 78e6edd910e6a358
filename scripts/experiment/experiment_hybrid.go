package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"

	"gonum.org/v1/gonum/stat"
)

// hybridSet is one data set of the hybrid experiment.
type hybridSet struct {
	name        string
	train, test *data.Dataset
	m           int
	note        string // how the rows are scored, when not on test targets
}

// hybridSets loads the hybrid experiment's data: KIN40K (at each --m, 64
// by default), kin8nm split 0 (m = 64), Snelson 1-D (m = 10, scored on
// the training set, which is all that has targets), SyntheticARD (5000
// training and 2000 test points, 8 inputs, m = 32) and SyntheticDiscrete
// (5000 and 2000 points, m = 64), where continuous inducing inputs are
// behind CholQR.
func (x *expEnv) hybridSets() ([]hybridSet, error) {
	var sets []hybridSet
	kTrain, kTest, err := data.LoadKIN40K(x.dataDir)
	if err != nil {
		return nil, err
	}
	ms := x.ms
	if ms == nil {
		ms = []int{64}
	}
	for _, m := range ms {
		sets = append(sets, hybridSet{name: "kin40k", train: kTrain, test: kTest, m: m})
	}
	k8Train, k8Test, err := data.LoadKin8nm(x.dataDir, 0)
	if err != nil {
		return nil, err
	}
	sets = append(sets, hybridSet{name: "kin8nm", train: k8Train, test: k8Test, m: 64})
	sn, _, err := data.LoadSnelson(x.dataDir)
	if err != nil {
		return nil, err
	}
	sets = append(sets, hybridSet{name: "snelson200", train: sn, test: sn, m: 10, note: snelsonNote})
	arTrain, arTest := data.SyntheticARD(5000, 2000, 8, 3)
	sets = append(sets, hybridSet{name: "synthetic-ard", train: arTrain, test: arTest, m: 32})
	dTrain, dTest := data.SyntheticDiscrete(5000, 2000, 5)
	return append(sets, hybridSet{name: "synthetic-discrete", train: dTrain, test: dTest, m: 64}), nil
}

// runHybrid compares the hybrid selector with its two parents in the same
// time budget: CholQR (VAR) and continuous SGPR from a random subset
// (sgp.NewContinuous, jitter 1e-6), for x.seeds seeds on each set (--seeds,
// from --seed on), and adds each method's medians over the seeds:
// continuous fits depend on where they start, and one seed says little
// about which method is ahead.
func runHybrid(ctx context.Context, x *expEnv) error {
	sets, err := x.hybridSets()
	if err != nil {
		return err
	}
	methods := []string{"CholQR-VAR", "SGPR-continuous", "Hybrid-VAR"}
	for _, set := range sets {
		byMethod := map[string][]expRow{}
		for s := range uint64(x.seeds) {
			seed := x.seed + s
			for _, name := range methods {
				r, err := x.hybridFit(ctx, set, name, seed)
				if err != nil {
					return err
				}
				x.add(r)
				byMethod[name] = append(byMethod[name], r)
			}
		}
		seeds := fmt.Sprintf("seeds %d–%d", x.seed, x.seed+uint64(x.seeds)-1)
		for _, name := range methods {
			x.add(medianRow(byMethod[name], "median of "+seeds))
		}
		// The worst seed as well: a method whose median is close can still
		// end far from the others on one start.
		for _, name := range methods {
			x.add(worstRow(byMethod[name], "worst of "+seeds))
		}
	}
	return nil
}

// hybridFit runs one method of the hybrid experiment on set with seed.
func (x *expEnv) hybridFit(ctx context.Context, set hybridSet, method string, seed uint64) (expRow, error) {
	row := expRow{Dataset: set.name, Method: method, M: set.m, Kind: "VAR"}
	prefix := fmt.Sprintf("seed %d; ", seed)
	if set.note != "" {
		prefix += set.note + "; "
	}
	if method == "SGPR-continuous" {
		z0 := set.train.X.Rows(newRand(seed).Perm(set.train.Len())[:set.m])
		_, vy := stat.PopMeanVariance(set.train.Y, nil)
		return x.continuousFit(ctx, set.name, method, set.m, set.train, set.test, prefix+"epochs = evaluations; ",
			func(c context.Context) (*sgp.ContinuousResult, error) {
				return sgp.NewContinuous(set.train.X, set.train.Y, kernel.NewRBFFromData(set.train.X, set.train.Y)).WithInducingInputs(z0).WithNoise(vy / 4).WithObjective(sgp.VAR).WithMaxEvals(100000).WithJitter(1e-6).FitContext(c)
			})
	}
	sel := sgp.SelectCholQR
	if method == "Hybrid-VAR" {
		sel = sgp.SelectHybrid
	}
	md := sgp.NewModel(set.train.X, set.train.Y, kernel.NewRBFFromData(set.train.X, set.train.Y)).WithM(set.m).WithInfoPivots(16).
		WithSelector(sel).WithSeed(seed).WithTimeBudget(x.budget).WithMaxEpochs(200)
	res, err := md.FitContext(ctx)
	if err != nil {
		return row, err
	}
	ev, err := md.Evaluate(set.test)
	if err != nil {
		return row, err
	}
	row.Z, row.Objective, row.SMSE, row.SNLP = 16, res.Objective, ev.SMSE, ev.SNLP
	row.Seconds, row.Epochs, row.Note = res.Elapsed.Seconds(), res.Epochs, prefix+stopText(res.Status, res.Reason)
	if sel == sgp.SelectHybrid {
		row.Note = prefix + hybridNote(res)
	}
	return row, nil
}

// worstRow returns the row with the highest objective (the worst fit; the
// first such row on ties), its note prefixed with note.
func worstRow(rows []expRow, note string) expRow {
	w := rows[0]
	for _, r := range rows[1:] {
		if r.Objective > w.Objective {
			w = r
		}
	}
	w.Note = note + ": " + w.Note
	return w
}

// medianRow returns a row with the medians of rows' objective, SMSE, SNLP,
// seconds and epochs (each taken separately; the epochs' median rounded
// down to an integer), and the note given.
func medianRow(rows []expRow, note string) expRow {
	med := func(get func(expRow) float64) float64 {
		v := make([]float64, len(rows))
		for i, r := range rows {
			v[i] = get(r)
		}
		sort.Float64s(v)
		if n := len(v); n%2 == 0 {
			return (v[n/2-1] + v[n/2]) / 2
		}
		return v[len(v)/2]
	}
	r := rows[0]
	r.Objective = med(func(r expRow) float64 { return r.Objective })
	r.SMSE = med(func(r expRow) float64 { return r.SMSE })
	r.SNLP = med(func(r expRow) float64 { return r.SNLP })
	r.Seconds = med(func(r expRow) float64 { return r.Seconds })
	r.Epochs = int(med(func(r expRow) float64 { return float64(r.Epochs) }))
	r.Note = note
	return r
}
