package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cholqr/sgp/sgp"

	"github.com/cholqr/sgp/sgp/kernel"
)

// evalOptions are eval's flags.
type evalOptions struct {
	fs                   *flag.FlagSet
	trainPath            *string
	inducing             intList
	kernelSpec           *string
	variance, ls, period floatList
	alpha                *float64
	params               paramList
	noise                *float64
	objective            *string
	meanC                *float64
	jsonOut              *bool
	dropMissing          *bool
	dropped              int // rows --drop-missing left out
}

func evalFlags(fs *flag.FlagSet) func(context.Context, *env) error {
	o := &evalOptions{fs: fs}
	o.trainPath = fs.String("train", "", "training CSV `file` (required)")
	fs.Var(&o.inducing, "inducing", "comma-separated 0-based data rows of the inducing set, in factorisation `order` (required)")
	o.kernelSpec = fs.String("kernel", "rbf", "`kernel` of the numeric columns: rbf|matern12|matern32|matern52|rq|linear|periodic|const, or sums and products of these (rbf+linear, periodic*rbf); every hyperparameter must be given")
	fs.Var(&o.variance, "variance", "signal variance `V` (rbf, matern*, rq, periodic, const), or the linear kernel's variances V1[,V2,…]: one for all dimensions, or exactly d")
	fs.Var(&o.ls, "lengthscales", "lengthscales `L1[,L2,…]` (rbf, matern*, rq, periodic): one for all dimensions, or exactly d")
	fs.Var(&o.period, "periods", "periods `P1[,P2,…]` of the periodic kernel: one for all dimensions, or exactly d")
	o.alpha = fs.Float64("alpha", 0, "shape `α` of the rq kernel")
	fs.Var(&o.params, "param", "hyperparameter `NAME=VALUE` by its name, as fit --json reports them (k0.variance=1.2, k1.period[0]=12; noise=S2 is --noise S2): repeatable, comma-separated, each name once; for sums and products, every one")
	o.noise = fs.Float64("noise", 0, "noise variance `S2` (required, or --param noise=S2)")
	o.objective = fs.String("objective", "var", "objective to report: var (Titsias' VFE) or mle (DTC)")
	o.meanC = fs.Float64("mean", 0, "constant prior mean `C`: the objective of the zero-mean GP for y − C (default 0, the model of the paper)")
	o.jsonOut = fs.Bool("json", false, "print one JSON object with the objective and its terms")
	o.dropMissing = fs.Bool("drop-missing", false, "drop the rows with a missing value (an empty cell, NaN or NA) before the --inducing rows are counted; the output says how many")
	return o.run
}

// run checks the flags, reads the training data, sets the kernel's
// hyperparameters from the flags, factorises the given inducing set and
// prints the objective with its terms.
func (o *evalOptions) run(_ context.Context, e *env) error {
	obj, specName, err := o.check()
	if err != nil {
		return err
	}
	train, _, err := readDataProgress(*o.trainPath, "", nil, *o.dropMissing)
	if err != nil {
		return dataHint(err, true)
	}
	o.dropped = train.Dropped
	if err := o.checkInducing(train.Len()); err != nil {
		return err
	}
	// The kernel's structure from the specification; every
	// hyperparameter from the flags.
	kern, err := kernel.Parse(*o.kernelSpec, train.X, train.Y)
	if err != nil {
		return err
	}
	if err := o.setHyperparameters(kern, specName, train.X.Dim()); err != nil {
		return err
	}
	mean := sgp.MeanZero
	if *o.meanC != 0 {
		mean = sgp.MeanFixed(*o.meanC)
	}
	md := sgp.NewModel(train.X, train.Y, kern).WithInducing(o.inducing).WithNoise(*o.noise).WithMean(mean)
	p, err := o.parts(md)
	if err != nil {
		return err
	}
	if *o.jsonOut {
		return o.writeJSON(e, obj, p, train.Len(), kern)
	}
	o.writeText(e, obj, p, train.Len(), kern)
	return nil
}

// check validates the flags that need no data: the required ones, the
// objective, a numeric kernel, positive hyperparameters and noise, a
// finite mean and a non-empty inducing set. It returns the objective and
// the kernel's name.
func (o *evalOptions) check() (sgp.Objective, string, error) {
	if math.IsNaN(*o.meanC) || math.IsInf(*o.meanC, 0) {
		return 0, "", usageErrorf("eval: --mean %v must be finite", *o.meanC)
	}
	required := []string{"train", "inducing"}
	noise, err := o.params.noise()
	if err != nil {
		return 0, "", err
	}
	if noise > 0 {
		if isSet(o.fs, "noise") {
			return 0, "", usageErrorf("eval: the noise variance is given twice, by --noise %v and --param noise=%v; give one", *o.noise, noise)
		}
		o.fs.Set("noise", strconv.FormatFloat(noise, 'g', -1, 64))
	}
	if strings.EqualFold(strings.TrimSpace(*o.kernelSpec), "rbf") && len(o.params) == 0 {
		required = append(required, "variance", "lengthscales")
	}
	for _, name := range append(required, "noise") {
		if !isSet(o.fs, name) {
			return 0, "", usageErrorf("eval: --%s is required (run 'sgprepl help eval')", name)
		}
	}
	obj, err := sgp.ParseObjective(*o.objective)
	if err != nil {
		return 0, "", &exitError{code: exitUsage, err: err}
	}
	specName, _, err := kernel.SplitSpec(*o.kernelSpec)
	if err != nil {
		return 0, "", &exitError{code: exitUsage, err: err}
	}
	if !kernel.NumericSpec(specName) {
		return 0, "", usageErrorf("eval: --kernel %s: eval reads numeric columns; use one of %s, or their sums and products", echo(*o.kernelSpec), strings.Join(kernel.NamesWith(func(kernel.Caps) bool { return true }), ", "))
	}
	for _, f := range []struct {
		name string
		vs   []float64
	}{{"variance", o.variance}, {"lengthscales", o.ls}, {"periods", o.period}} {
		if isSet(o.fs, f.name) && len(f.vs) == 0 {
			return 0, "", usageErrorf("--%s is empty; give one value, or one per input dimension", f.name)
		}
		for _, v := range f.vs {
			if !positive(v) {
				return 0, "", usageErrorf("--%s: %v must be positive and finite", f.name, v)
			}
		}
	}
	if isSet(o.fs, "alpha") && !positive(*o.alpha) {
		return 0, "", usageErrorf("--alpha %v must be positive and finite", *o.alpha)
	}
	if !positive(*o.noise) {
		return 0, "", usageErrorf("--noise %v must be positive and finite", *o.noise)
	}
	if len(o.inducing) == 0 {
		return 0, "", usageErrorf("--inducing is empty; give at least one 0-based data row")
	}
	return obj, specName, nil
}

// checkInducing checks that the inducing rows are distinct rows of the n
// training points.
func (o *evalOptions) checkInducing(n int) error {
	seen := make(map[int]bool, len(o.inducing))
	for _, j := range o.inducing {
		if j < 0 || j >= n {
			return fmt.Errorf("--inducing: row %d is out of range; %s has %d data rows, numbered 0 to %d", j, *o.trainPath, n, n-1)
		}
		if seen[j] {
			return fmt.Errorf("--inducing: row %d is repeated", j)
		}
		seen[j] = true
	}
	return nil
}

// setHyperparameters sets every hyperparameter of kern from the flags:
// --variance, --lengthscales, --periods and --alpha for a single kernel,
// --param NAME=VALUE for any. d is the inputs' dimension.
func (o *evalOptions) setHyperparameters(kern kernel.Kernel, specName string, d int) error {
	names := kern.ParamNames()
	values := make(map[string]float64)
	single := !strings.ContainsAny(specName, "+*()")
	for _, f := range []struct {
		flag, name string
		vs         []float64
	}{{"variance", "variance", o.variance}, {"lengthscales", "lengthscale", o.ls}, {"periods", "period", o.period}, {"alpha", "alpha", []float64{*o.alpha}}} {
		if !isSet(o.fs, f.flag) {
			continue
		}
		if !single {
			return usageErrorf("eval: --%s is for a single kernel; give the hyperparameters of a sum or product with --param NAME=VALUE (%s)", f.flag, nameList(names))
		}
		if err := setByName(values, names, f.flag, f.name, f.vs, d, specName); err != nil {
			return err
		}
	}
	for _, p := range o.params {
		if _, err := p.index(names, specName); err != nil {
			return err
		}
		values[p.name] = p.value
	}
	theta := make([]float64, len(names))
	var missing []string
	for i, name := range names {
		v, ok := values[name]
		if !ok {
			missing = append(missing, name)
			continue
		}
		theta[i] = math.Log(v)
	}
	if len(missing) > 0 {
		return usageErrorf("eval: kernel %s: no value for %s; give every hyperparameter (--variance, --lengthscales, --periods, --alpha for a single kernel, or --param NAME=VALUE)", echo(specName), nameList(missing))
	}
	kern.SetParams(theta)
	return nil
}

// parts factorises the model's inducing set and returns the objective's
// terms. The model replaces a degenerate point of its start; eval
// evaluates the set it is given, or says which point it cannot.
func (o *evalOptions) parts(md *sgp.Model) (sgp.Parts, error) {
	f, err := md.Factor()
	if err != nil {
		return sgp.Parts{}, err
	}
	if got := f.Active(nil); !slices.Equal(got, o.inducing) {
		for i, j := range o.inducing {
			if i >= len(got) || got[i] != j {
				return sgp.Parts{}, fmt.Errorf("--inducing: row %d has a negligible residual variance given the rows before it (a duplicate input?), so it cannot be inducing", j)
			}
		}
	}
	p := f.Parts()
	for _, v := range []float64{p.MLE, p.VAR, p.DataFit, p.Complexity, p.Trace} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return sgp.Parts{}, fmt.Errorf("the objective is not finite at these hyperparameters (MLE %v, VAR %v): the noise variance %v is too small for the floating-point range", p.MLE, p.VAR, *o.noise)
		}
	}
	return p, nil
}

// writeJSON prints the --json report of the objective's terms.
func (o *evalOptions) writeJSON(e *env, obj sgp.Objective, p sgp.Parts, n int, kern kernel.Kernel) error {
	out, err := json.Marshal(evalReport{
		Objective: p.Value(obj), ObjectiveKind: obj.String(),
		DataFit: p.DataFit, Complexity: p.Complexity, Trace: p.Trace,
		MLE: p.MLE, VAR: p.VAR, N: n, M: len(o.inducing), Mean: *o.meanC, Kernel: kernel.Text(kern),
		DroppedRows: o.droppedRows(),
	})
	if err != nil {
		return fmt.Errorf("cannot encode the result as JSON: %w", err)
	}
	_, err = e.stdout.Write(append(out, '\n'))
	return err
}

// writeText prints the objective and its terms, one per line.
func (o *evalOptions) writeText(e *env, obj sgp.Objective, p sgp.Parts, n int, kern kernel.Kernel) {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	w := e.stdout
	fmt.Fprintf(w, "%v %s\n", obj, g(p.Value(obj)))
	fmt.Fprintf(w, "  kernel     %s\n", kernel.Text(kern))
	fmt.Fprintf(w, "  n=%d m=%d; MLE = ½(data_fit + complexity) + n/2·log 2π, VAR = MLE + ½trace\n", n, len(o.inducing))
	fmt.Fprintf(w, "  MLE        %s\n  VAR        %s\n", g(p.MLE), g(p.VAR))
	fmt.Fprintf(w, "  data_fit   %s\n  complexity %s\n  trace      %s\n", g(p.DataFit), g(p.Complexity), g(p.Trace))
	if o.dropped > 0 {
		fmt.Fprintf(w, "  dropped    %s with a missing value (--drop-missing); --inducing counts the rows kept\n", count(o.dropped, "row"))
	}
}

// droppedRows is the JSON's dropped_rows: null without --drop-missing.
func (o *evalOptions) droppedRows() *int {
	if !*o.dropMissing {
		return nil
	}
	return ptr(o.dropped)
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
	Kernel        string  `json:"kernel"`       // the kernel evaluated, as kernel.Text writes it
	DroppedRows   *int    `json:"dropped_rows"` // rows --drop-missing left out; null without it
}

func positive(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// setByName sets values[name] (one value, for a kernel's "variance" or
// "alpha") or values[name[t]] for t < d (one value for all dimensions or
// exactly d) from the flag's values vs, where names (the kernel's
// ParamNames) has them; it returns a usage error when the kernel spec has
// no such hyperparameter or the count is wrong.
func setByName(values map[string]float64, names []string, flag, name string, vs []float64, d int, spec string) error {
	if slices.Contains(names, name) {
		if len(vs) != 1 {
			return usageErrorf("--%s: %d values given but kernel %s has one %s; give 1", flag, len(vs), echo(spec), name)
		}
		values[name] = vs[0]
		return nil
	}
	if !slices.Contains(names, name+"[0]") {
		return usageErrorf("--%s: kernel %s has no %s; its hyperparameters are %s", flag, echo(spec), name, nameList(names))
	}
	switch {
	case len(vs) == 1 && d > 1:
		vs = slices.Repeat(vs, d)
	case len(vs) != d && d == 1:
		return fmt.Errorf("--%s: %d given but the inputs have 1 dimension; give 1", flag, len(vs))
	case len(vs) != d:
		return fmt.Errorf("--%s: %d given but the inputs have %d dimensions; give 1 or %d", flag, len(vs), d, d)
	}
	for t, v := range vs {
		values[name+"["+strconv.Itoa(t)+"]"] = v
	}
	return nil
}

// paramList is a flag of NAME=VALUE pairs, repeatable and comma-separated.
type paramList []namedValue

// namedValue is one NAME=VALUE of a paramList.
type namedValue struct {
	name  string
	value float64
}

// index returns the position of the hyperparameter p names among a
// kernel's names (kernel spec specName), or a usage error if it has none
// of that name or the value is not positive and finite.
func (p namedValue) index(names []string, specName string) (int, error) {
	i := slices.Index(names, p.name)
	if i < 0 {
		return 0, usageErrorf("--param %s: kernel %s has no hyperparameter %q; its hyperparameters are %s", echo(p.name), echo(specName), echo(p.name), nameList(names))
	}
	if !positive(p.value) {
		return 0, usageErrorf("--param %s=%v must be positive and finite", p.name, p.value)
	}
	return i, nil
}

func (l *paramList) String() string {
	parts := make([]string, len(*l))
	for i, p := range *l {
		parts[i] = p.name + "=" + strconv.FormatFloat(p.value, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// Set adds the pairs of s, NAME=VALUE[,NAME=VALUE…].
func (l *paramList) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || name == "" {
			return fmt.Errorf("%q is not NAME=VALUE (e.g. k0.variance=1.2)", part)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return fmt.Errorf("%q: %q is not a number", part, val)
		}
		name = strings.TrimSpace(name)
		if i := slices.IndexFunc(*l, func(p namedValue) bool { return p.name == name }); i >= 0 {
			return fmt.Errorf("%s is given twice (%s=%s and %s=%s); give each hyperparameter once",
				name, name, strconv.FormatFloat((*l)[i].value, 'g', -1, 64), name, strings.TrimSpace(val))
		}
		*l = append(*l, namedValue{name, v})
	}
	return nil
}

// noiseName is the name of the noise variance σ² among a fit's
// hyperparameters (sgp.FitSummary.Names, the JSON's "hyperparameters"),
// after the kernel's own.
const noiseName = "noise"

// noise removes the noise variance from the list, if it is there, and
// returns its value (0 if it is not), or a usage error if it is not
// positive and finite.
func (l *paramList) noise() (float64, error) {
	i := slices.IndexFunc(*l, func(p namedValue) bool { return p.name == noiseName })
	if i < 0 {
		return 0, nil
	}
	v := (*l)[i].value
	*l = slices.Delete(*l, i, i+1)
	if !positive(v) {
		return 0, usageErrorf("--param %s=%v must be positive and finite", noiseName, v)
	}
	return v, nil
}

// --- flag helpers ---
