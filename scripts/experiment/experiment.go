package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/figure"
	"github.com/cholqr/sgp/sgp/mol"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"

	"gonum.org/v1/gonum/stat"
)

// expRow is one line of an experiment's results table.
type expRow struct {
	Dataset   string
	Method    string
	M, Z      int
	Objective float64 // the method's own objective, including n/2·log 2π
	Kind      string  // VAR or MLE
	SMSE      float64
	SNLP      float64
	Seconds   float64
	Epochs    int
	Note      string
}

// experiment runs one named experiment.
type experiment struct {
	name, doc string
	run       func(ctx context.Context, x *expEnv) error
}

// expEnv carries an experiment's settings and output.
type expEnv struct {
	e       *env
	dataDir string
	out     string
	budget  time.Duration
	ms      []int
	seed    uint64
	seeds   int // seeds per set in the hybrid experiment
	rows    []expRow
	outputs []output // plots rendered so far, written with the tables at the end
}

func experiments() []experiment {
	return []experiment{
		{"snelson", "Snelson 1-D: CholQR-VAR and -MLE from the clumped start against continuous SGPR, the hybrid and the exact GP, 200 points and the 20-point subset, m = 10 (scored on the training set: the data has no test targets)", runSnelson},
		{"kin40k", "KIN40K: SMSE, SNLP and objective against m for CholQR-VAR, CholQR-MLE, Random, greedy variance, the hybrid, continuous SGPR and CholQR→continuous (no exact GP: n = 10⁴)", runKIN40K},
		{"thrombin", "thrombin (ChEMBL204, fixed split) with the WL kernel, one variance per depth: CholQR against Random, greedy variance, Titsias-16, Titsias-512 and the exact GP", runThrombin},
		{"hybrid", "the hybrid against its parents, CholQR-VAR and continuous SGPR from a random subset, in the same time budget on KIN40K, kin8nm, Snelson 1-D and SyntheticARD, --seeds seeds from --seed, with medians and each method's worst seed", runHybrid},
		{"z", "the speed/quality trade-off of the number of information pivots z on thrombin (WL) and KIN40K (RBF)", runZ},
	}
}

func experimentFlags(fs *flag.FlagSet) func(ctx context.Context, e *env) error {
	out := fs.String("out", "results", "directory for the tables (CSV, markdown) and plots (PNG)")
	dataFlag := fs.String("data", "", "data directory (default $SGP_DATA or ../shared/data)")
	budget := fs.Duration("budget", 120*time.Second, "time budget of each fit")
	msFlag := fs.String("m", "", "comma-separated inducing-set sizes (default per experiment)")
	seed := fs.Uint64("seed", 1, "random seed")
	seeds := fs.Int("seeds", 5, "hybrid experiment: seeds per data set, from --seed on")
	return func(ctx context.Context, e *env) error {
		var names []string
		for _, x := range experiments() {
			names = append(names, x.name)
		}
		if fs.NArg() != 1 {
			return usageErrorf("experiment needs one name: %s", strings.Join(names, ", "))
		}
		var ex *experiment
		for _, x := range experiments() {
			if x.name == fs.Arg(0) {
				ex = &x
			}
		}
		if ex == nil {
			return usageErrorf("unknown experiment %q; the experiments are %s", fs.Arg(0), strings.Join(names, ", "))
		}
		if *seeds < 1 {
			return usageErrorf("--seeds: %d is not a positive integer", *seeds)
		}
		x := &expEnv{e: e, dataDir: *dataFlag, out: *out, budget: *budget, seed: *seed, seeds: *seeds}
		if x.dataDir == "" {
			x.dataDir = data.Dir("../shared/data")
		}
		if *msFlag != "" {
			for _, f := range strings.Split(*msFlag, ",") {
				v, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil || v < 1 {
					return usageErrorf("--m: %q is not a positive integer", f)
				}
				x.ms = append(x.ms, v)
			}
		}
		if err := os.MkdirAll(x.out, 0o755); err != nil {
			return err
		}
		// The plots go to the same directory as the tables: checking the
		// tables checks that the directory takes files before the long run.
		csvPath, mdPath := filepath.Join(x.out, ex.name+".csv"), filepath.Join(x.out, ex.name+".md")
		if err := checkOutputs(csvPath, mdPath); err != nil {
			return err
		}
		if err := ex.run(ctx, x); err != nil {
			return err
		}
		return x.writeAll(csvPath, mdPath)
	}
}

// add records a row and prints it.
func (x *expEnv) add(r expRow) {
	x.rows = append(x.rows, r)
	fmt.Fprintf(x.e.stdout, "%-12s %-22s m=%-4d %s %-10.6g SMSE %-8.4g SNLP %-8.4g %7.3gs %3d epochs %s\n",
		r.Dataset, r.Method, r.M, r.Kind, r.Objective, r.SMSE, r.SNLP, r.Seconds, r.Epochs, r.Note)
}

// writeAll writes the results table as CSV to csvPath and as markdown to
// mdPath, together with the plots savePlot rendered, all or nothing
// (writeOutputs in main.go): a failed experiment leaves no file behind,
// and neither does a failed write.
func (x *expEnv) writeAll(csvPath, mdPath string) error {
	outs := append([]output{{csvPath, x.writeCSV}, {mdPath, x.writeMarkdown}}, x.outputs...)
	if err := writeOutputs(outs...); err != nil {
		return err
	}
	for _, o := range outs {
		fmt.Fprintf(x.e.stdout, "wrote %s\n", o.path)
	}
	return nil
}

// writeCSV writes the rows as CSV with a header row.
func (x *expEnv) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"dataset", "method", "m", "z", "objective_kind", "objective", "smse", "snlp", "seconds", "epochs", "note"})
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	for _, r := range x.rows {
		cw.Write([]string{r.Dataset, r.Method, strconv.Itoa(r.M), strconv.Itoa(r.Z), r.Kind, g(r.Objective), g(r.SMSE), g(r.SNLP), g(r.Seconds), strconv.Itoa(r.Epochs), r.Note})
	}
	cw.Flush()
	return cw.Error()
}

// writeMarkdown writes the rows as a markdown table. A "|" in a cell (the
// notes quote |∂F|) is escaped, so that it does not split the cell.
func (x *expEnv) writeMarkdown(w io.Writer) error {
	cell := strings.NewReplacer("|", `\|`).Replace
	var b strings.Builder
	b.WriteString("| dataset | method | m | z | objective | SMSE | SNLP | seconds | epochs | note |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range x.rows {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s %.6g | %.4g | %.4g | %.3g | %d | %s |\n", cell(r.Dataset), cell(r.Method), r.M, r.Z, r.Kind, r.Objective, r.SMSE, r.SNLP, r.Seconds, r.Epochs, cell(r.Note))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// savePlot renders a figure in the format of name's extension (png, svg or
// pdf) and keeps it to be written to the output directory with the tables
// (writeAll); a rendering error is reported at once.
func (x *expEnv) savePlot(fig *figure.Figure, name string) error {
	b, err := fig.Encode(strings.ToLower(strings.TrimPrefix(filepath.Ext(name), ".")))
	if err != nil {
		return fmt.Errorf("plot %s: %w", name, err)
	}
	x.outputs = append(x.outputs, output{filepath.Join(x.out, name), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}})
	return nil
}

// clumped returns the m points nearest to c (1-D inputs): the adversarial
// "clumped" start of the authors' demo.
func clumped(x *kernel.Vectors, c float64, m int) []int {
	idx := make([]int, x.Len())
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return math.Abs(x.At(idx[a], 0)-c) < math.Abs(x.At(idx[b], 0)-c) })
	return idx[:m]
}

func runSnelson(ctx context.Context, x *expEnv) error {
	full, _, err := data.LoadSnelson(x.dataDir)
	if err != nil {
		return err
	}
	var idx []int
	for i := 0; i < full.Len(); i += 10 {
		idx = append(idx, i)
	}
	for _, set := range []struct {
		name string
		d    *data.Dataset
	}{{"snelson200", full}, {"snelson20", full.Subset(idx)}} {
		d := set.d
		start := clumped(d.X, 1.5, 10)
		for _, o := range []sgp.Objective{sgp.VAR, sgp.MLE} {
			md := sgp.NewModel(d.X, d.Y, kernel.NewRBFFromData(d.X, d.Y)).WithInducing(start).WithObjective(o).
				WithSeed(x.seed).WithTimeBudget(x.budget).WithMaxEpochs(100)
			if err := x.snelsonRow(ctx, set.name, "CholQR-"+o.String(), md, d, func(res *sgp.Result) string {
				for _, w := range res.Warnings {
					if strings.Contains(w, "initial inducing set") {
						return w
					}
				}
				return "the clumped start kept whole"
			}); err != nil {
				return err
			}
			fig, err := figure.Fit1D(md, fmt.Sprintf("%s, CholQR-%v from the clumped start, m = 10", set.name, o))
			if err == nil {
				if err := x.savePlot(fig, fmt.Sprintf("%s_cholqr_%s.png", set.name, strings.ToLower(o.String()))); err != nil {
					return err
				}
			}
		}
		// Continuous SGPR (GPflow's method, with its default jitter 1e-6)
		// from the same clumped inducing inputs.
		for _, o := range []sgp.Objective{sgp.VAR, sgp.MLE} {
			kern := kernel.NewRBFFromData(d.X, d.Y)
			_, vy := stat.PopMeanVariance(d.Y, nil)
			t0 := time.Now()
			res, err := sgp.NewContinuous(d.X, d.Y, kern).WithInducingInputs(d.X.Rows(start)).WithNoise(vy / 4).WithObjective(o).WithMaxEvals(2000).WithJitter(1e-6).FitContext(ctx)
			if err != nil {
				return err
			}
			smse, snlp, err := experimentMetrics(res.Predictor, d, d)
			if err != nil {
				return err
			}
			x.add(expRow{Dataset: set.name, Method: "SGPR-continuous-" + o.String(), M: 10, Objective: res.Objective, Kind: o.String(),
				SMSE: smse, SNLP: snlp, Seconds: time.Since(t0).Seconds(), Epochs: res.Evals, Note: snelsonNote + "; epochs = evaluations; " + stopText(res.Status, res.Reason)})
		}
		// The hybrid (CholQR, then continuous refinement) from the same
		// clumped start, and the exact GP: what m = 10 costs.
		md := sgp.NewModel(d.X, d.Y, kernel.NewRBFFromData(d.X, d.Y)).WithInducing(start).WithSelector(sgp.SelectHybrid).
			WithSeed(x.seed).WithTimeBudget(x.budget).WithMaxEpochs(100)
		if err := x.snelsonRow(ctx, set.name, "Hybrid-VAR", md, d, hybridNote); err != nil {
			return err
		}
		if err := x.exactRow(ctx, set.name, d.X, d.Y, d.X, d.Y, snelsonNote); err != nil {
			return err
		}
	}
	return nil
}

// snelsonRow fits md, scores it on its training data d and records a row
// whose note is snelsonNote and note(result).
func (x *expEnv) snelsonRow(ctx context.Context, dataset, method string, md *sgp.Model, d *data.Dataset, note func(*sgp.Result) string) error {
	res, err := md.FitContext(ctx)
	if err != nil {
		return err
	}
	ev, err := md.Evaluate(d)
	if err != nil {
		return err
	}
	x.add(expRow{Dataset: dataset, Method: method, M: 10, Z: 16, Objective: res.Objective, Kind: md.ObjectiveKind().String(),
		SMSE: ev.SMSE, SNLP: ev.SNLP, Seconds: res.Elapsed.Seconds(), Epochs: res.Epochs, Note: snelsonNote + "; " + note(res)})
	return nil
}

// snelsonNote says how the Snelson rows are scored: the data set has
// test inputs but no test targets.
const snelsonNote = "SMSE, SNLP on the training set (no test targets)"

// hybridNote describes a hybrid fit's outcome for a table.
func hybridNote(res *sgp.Result) string {
	if res.Refined == nil {
		return stopText(res.Status, res.Reason) + "; refinement not kept (no lower objective)"
	}
	return fmt.Sprintf("%s; refined from %s in %d evaluations (%s)", stopText(res.Status, res.Reason), res.RefinedFrom, res.Refined.Evals, stopText(res.Refined.Status, res.Refined.Reason))
}

// exactRow fits the exact GP with the kernel of the experiment's sparse
// rows (RBF for vector inputs, the thrombin WL kernel otherwise) and
// records a row scored on (testX, testY).
func (x *expEnv) exactRow(ctx context.Context, dataset string, trainX kernel.Inputs, trainY []float64, testX kernel.Inputs, testY []float64, note string) error {
	var kern kernel.Kernel
	if v, ok := trainX.(*kernel.Vectors); ok {
		kern = kernel.NewRBFFromData(v, trainY)
	} else {
		kern = wlKernel(trainY)
	}
	cctx, cancel := context.WithTimeout(ctx, max(x.budget, 10*time.Minute))
	defer cancel()
	res, err := sgp.NewExact(trainX, trainY, kern).FitContext(cctx)
	if err != nil && res == nil {
		return err
	}
	ev, err := res.Predictor.EvaluateInputs(testX, testY)
	if err != nil {
		return err
	}
	if note != "" {
		note += "; "
	}
	x.add(expRow{Dataset: dataset, Method: "Exact GP", M: res.N, Objective: res.Objective, Kind: "exact",
		SMSE: ev.SMSE, SNLP: ev.SNLP, Seconds: res.Elapsed.Seconds(), Epochs: res.Evals, Note: note + "m = n; epochs = evaluations; " + stopText(res.Status, res.Reason)})
	return nil
}

// experimentMetrics predicts with p at test.X (noisy variances) and scores.
func experimentMetrics(p *sgp.Predictor, test, train *data.Dataset) (float64, float64, error) {
	mean, vr, err := p.PredictTo(nil, nil, test.X)
	if err != nil {
		return math.NaN(), math.NaN(), err
	}
	for i := range vr {
		vr[i] += p.Noise()
	}
	smse, err := sgp.SMSE(mean, test.Y)
	if err != nil {
		return math.NaN(), math.NaN(), err
	}
	tm, tv := stat.PopMeanVariance(train.Y, nil)
	snlp, err := sgp.SNLP(mean, vr, test.Y, tm, tv)
	return smse, snlp, err
}

func runKIN40K(ctx context.Context, x *expEnv) error {
	train, test, err := data.LoadKIN40K(x.dataDir)
	if err != nil {
		return err
	}
	ms := x.ms
	if ms == nil {
		ms = []int{32, 64, 128, 256, 512}
	}
	type method struct {
		name string
		sel  sgp.Selector
		obj  sgp.Objective
	}
	methods := []method{
		{"CholQR-VAR", sgp.SelectCholQR, sgp.VAR},
		{"CholQR-MLE", sgp.SelectCholQR, sgp.MLE},
		{"Random", sgp.SelectRandom, sgp.VAR},
		{"GreedyVariance", sgp.SelectGreedyVariance, sgp.VAR},
		{"Hybrid-VAR", sgp.SelectHybrid, sgp.VAR},
	}
	curves := map[string]*figure.Series{}
	point := func(name string, m int, smse float64) {
		s := curves[name]
		if s == nil {
			s = &figure.Series{Name: name}
			curves[name] = s
		}
		s.X = append(s.X, float64(m))
		s.Y = append(s.Y, smse)
	}
	for _, m := range ms {
		var cholqr *sgp.Model
		for _, me := range methods {
			md := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(m).WithInfoPivots(16).
				WithObjective(me.obj).WithSelector(me.sel).WithSeed(x.seed).WithTimeBudget(x.budget).WithMaxEpochs(200)
			res, err := md.FitContext(ctx)
			if err != nil {
				return err
			}
			ev, err := md.Evaluate(test)
			if err != nil {
				return err
			}
			smse, snlp := ev.SMSE, ev.SNLP
			note := stopText(res.Status, res.Reason)
			if me.sel == sgp.SelectHybrid {
				note = hybridNote(res)
			}
			x.add(expRow{Dataset: "kin40k", Method: me.name, M: m, Z: 16, Objective: res.Objective, Kind: me.obj.String(),
				SMSE: smse, SNLP: snlp, Seconds: res.Elapsed.Seconds(), Epochs: res.Epochs, Note: note})
			point(me.name, m, smse)
			if me.name == "CholQR-VAR" {
				cholqr = md
			}
		}
		// Continuous SGPR from a random subset, and from CholQR's selection.
		rng := newRand(x.seed)
		z0 := train.X.Rows(rng.Perm(train.Len())[:m])
		kern := kernel.NewRBFFromData(train.X, train.Y)
		_, vy := stat.PopMeanVariance(train.Y, nil)
		if err := x.continuousRow(ctx, "SGPR-continuous", m, train, test, point, "epochs = evaluations; ", func(c context.Context) (*sgp.ContinuousResult, error) {
			return sgp.NewContinuous(train.X, train.Y, kern).WithInducingInputs(z0).WithNoise(vy / 4).WithObjective(sgp.VAR).WithMaxEvals(100000).WithJitter(1e-6).FitContext(c)
		}); err != nil {
			return err
		}
		if cholqr != nil {
			if err := x.continuousRow(ctx, "CholQR→continuous", m, train, test, point, "seconds after the CholQR fit; ", func(c context.Context) (*sgp.ContinuousResult, error) {
				return refineFromModel(c, cholqr)
			}); err != nil {
				return err
			}
		}
	}
	var series []figure.Series
	for _, name := range []string{"CholQR-VAR", "CholQR-MLE", "Random", "GreedyVariance", "SGPR-continuous", "CholQR→continuous", "Hybrid-VAR"} {
		if s := curves[name]; s != nil {
			series = append(series, *s)
		}
	}
	return x.savePlot(figure.Curves("KIN40K: test SMSE against m", "m (log scale)", "SMSE", true, series), "kin40k_smse.png")
}

// wlKernel is the thrombin kernel: WL subtree features at depths 0..3,
// one variance per depth (a sum of four graph kernels, as the paper's
// BindingDB kernel was a sum of fourteen), each starting at var(y)/4.
func wlKernel(y []float64) *kernel.WL {
	_, vy := stat.PopMeanVariance(y, nil)
	return kernel.NewWLPerDepth([]float64{vy / 4, vy / 4, vy / 4, vy / 4})
}

// fitRow fits md, scores it on the vector test set and records a row.
func (x *expEnv) fitRow(ctx context.Context, dataset, method string, md *sgp.Model, m, z int, test *data.Dataset) (expRow, error) {
	return x.fitRowInputs(ctx, dataset, method, md, m, z, test.X, test)
}

func runThrombin(ctx context.Context, x *expEnv) error {
	trainM, testM, err := mol.LoadThrombin(x.dataDir)
	if err != nil {
		return err
	}
	test := &data.Dataset{Name: "thrombin-test", Y: testM.Y}
	ms := x.ms
	if ms == nil {
		ms = []int{16, 32, 64, 128}
	}
	methods := []struct {
		name string
		sel  sgp.Selector
	}{
		{"CholQR-z16", sgp.SelectCholQR},
		{"Random", sgp.SelectRandom},
		{"GreedyVariance", sgp.SelectGreedyVariance},
		{"Titsias-16", sgp.SelectTitsias(16)},
		{"Titsias-512", sgp.SelectTitsias(512)},
	}
	bySMSE := map[string]*figure.Series{}
	byTime := map[string]*figure.Series{}
	for _, m := range ms {
		for _, me := range methods {
			md := sgp.NewModel(trainM.X, trainM.Y, wlKernel(trainM.Y)).WithM(m).WithInfoPivots(16).
				WithSelector(me.sel).WithSeed(x.seed).WithTimeBudget(x.budget).WithMaxEpochs(200)
			r, err := x.fitRowInputs(ctx, "thrombin", me.name, md, m, 16, testM.X, test)
			if err != nil {
				return err
			}
			for _, pair := range []struct {
				c map[string]*figure.Series
				v float64
			}{{bySMSE, float64(m)}, {byTime, r.Seconds}} {
				s := pair.c[me.name]
				if s == nil {
					s = &figure.Series{Name: me.name}
					pair.c[me.name] = s
				}
				s.X = append(s.X, pair.v)
				s.Y = append(s.Y, r.SMSE)
			}
		}
	}
	var a, b []figure.Series
	for _, me := range methods {
		if s := bySMSE[me.name]; s != nil {
			a = append(a, *s)
			b = append(b, *byTime[me.name])
		}
	}
	if err := x.exactRow(ctx, "thrombin", trainM.X, trainM.Y, testM.X, testM.Y, ""); err != nil {
		return err
	}
	if err := x.savePlot(figure.Curves("thrombin (WL kernel): test SMSE against m", "m (log scale)", "SMSE", true, a), "thrombin_smse_m.png"); err != nil {
		return err
	}
	return x.savePlot(figure.Curves("thrombin (WL kernel): test SMSE against training time", "seconds (log scale)", "SMSE", true, b), "thrombin_smse_time.png")
}

// fitRowInputs is fitRow for test inputs that are not vectors.
func (x *expEnv) fitRowInputs(ctx context.Context, dataset, method string, md *sgp.Model, m, z int, testX kernel.Inputs, test *data.Dataset) (expRow, error) {
	res, err := md.FitContext(ctx)
	if err != nil {
		return expRow{}, err
	}
	p, err := md.Predictor()
	if err != nil {
		return expRow{}, err
	}
	mean, vr, err := p.PredictTo(nil, nil, testX)
	if err != nil {
		return expRow{}, err
	}
	for i := range vr {
		vr[i] += p.Noise()
	}
	smse, err := sgp.SMSE(mean, test.Y)
	if err != nil {
		return expRow{}, err
	}
	tm, tv := stat.PopMeanVariance(md.Targets(), nil)
	snlp, err := sgp.SNLP(mean, vr, test.Y, tm, tv)
	if err != nil {
		return expRow{}, err
	}
	r := expRow{Dataset: dataset, Method: method, M: m, Z: z, Objective: res.Objective, Kind: md.ObjectiveKind().String(),
		SMSE: smse, SNLP: snlp, Seconds: res.Elapsed.Seconds(), Epochs: res.Epochs, Note: stopText(res.Status, res.Reason)}
	x.add(r)
	return r, nil
}

func runZ(ctx context.Context, x *expEnv) error {
	zs := []int{8, 16, 64, 128}
	trainM, testM, err := mol.LoadThrombin(x.dataDir)
	if err != nil {
		return err
	}
	test := &data.Dataset{Name: "thrombin-test", Y: testM.Y}
	for _, z := range zs {
		md := sgp.NewModel(trainM.X, trainM.Y, wlKernel(trainM.Y)).WithM(64).WithInfoPivots(z).
			WithSeed(x.seed).WithTimeBudget(x.budget).WithMaxEpochs(200)
		if _, err := x.fitRowInputs(ctx, "thrombin", fmt.Sprintf("CholQR-z%d", z), md, 64, z, testM.X, test); err != nil {
			return err
		}
	}
	train, ktest, err := data.LoadKIN40K(x.dataDir)
	if err != nil {
		return err
	}
	for _, z := range zs {
		md := sgp.NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(128).WithInfoPivots(z).
			WithSeed(x.seed).WithTimeBudget(x.budget).WithMaxEpochs(200)
		if _, err := x.fitRow(ctx, "kin40k", fmt.Sprintf("CholQR-z%d", z), md, 128, z, ktest); err != nil {
			return err
		}
	}
	return nil
}

// continuousRow runs a continuous fit under the time budget, scores it and
// records a row and a curve point.
func (x *expEnv) continuousRow(ctx context.Context, method string, m int, train, test *data.Dataset, point func(string, int, float64), note string,
	fit func(context.Context) (*sgp.ContinuousResult, error)) error {
	r, err := x.continuousFit(ctx, "kin40k", method, m, train, test, note, fit)
	if err != nil {
		return err
	}
	x.add(r)
	point(method, m, r.SMSE)
	return nil
}

// continuousFit runs a continuous fit with the experiment's time budget
// and returns its row, scored on test, with note before the stop reason.
func (x *expEnv) continuousFit(ctx context.Context, dataset, method string, m int, train, test *data.Dataset, note string,
	fit func(context.Context) (*sgp.ContinuousResult, error)) (expRow, error) {
	cctx, cancel := context.WithTimeout(ctx, x.budget)
	res, err := fit(cctx)
	cancel()
	if err != nil && res == nil {
		return expRow{}, err
	}
	smse, snlp, err := experimentMetrics(res.Predictor, test, train)
	if err != nil {
		return expRow{}, err
	}
	return expRow{Dataset: dataset, Method: method, M: m, Objective: res.Objective, Kind: "VAR",
		SMSE: smse, SNLP: snlp, Seconds: res.Elapsed.Seconds(), Epochs: res.Evals, Note: note + stopText(res.Status, res.Reason)}, nil
}

// newRand returns a seeded generator.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// refineFromModel runs continuous SGPR from md's inducing points and
// hyperparameters: CholQR's selection as the start of the continuous
// optimisation. md is not changed.
func refineFromModel(ctx context.Context, md *sgp.Model) (*sgp.ContinuousResult, error) {
	ind, err := md.Inducing()
	if err != nil {
		return nil, err
	}
	noise, err := md.Noise()
	if err != nil {
		return nil, err
	}
	x := md.Inputs().(*kernel.Vectors)
	return sgp.NewContinuous(x, md.Targets(), md.Kernel()).WithInducingInputs(x.Rows(ind)).WithNoise(noise).
		WithObjective(md.ObjectiveKind()).WithMaxEvals(100000).WithJitter(1e-6).FitContext(ctx)
}
