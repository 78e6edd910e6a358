package sgp

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/internal/naive"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

func TestPredictMatchesOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 21))
	for _, n := range []int{5, 33, 64} {
		p := newProblem(rng, n, 2, 1.2, 0.7, 0.05)
		k := max(1, n/4)
		active := rng.Perm(n)[:k]
		f := p.factor(t, k, 3)
		if err := f.Factorize(active); err != nil {
			t.Fatal(err)
		}
		pred := newPredictor(f)
		test := make([][]float64, 17)
		for i := range test {
			test[i] = []float64{5 * rng.Float64(), 5 * rng.Float64()}
		}
		xs, _ := kernel.VectorsFromRows(test)
		mean, vr, err := pred.PredictTo(nil, nil, xs)
		if err != nil {
			t.Fatal(err)
		}
		Ks := naive.RBFCross(test, p.rows, p.kern.Variance(), p.kern.Lengthscales())
		kss := make([]float64, len(test))
		for i := range kss {
			kss[i] = p.kern.Variance()
		}
		wm, wv, ok := naive.PredictDTC(p.K, Ks, kss, p.y, p.noise, active)
		if !ok {
			t.Fatal("oracle failed")
		}
		for i := range mean {
			if !scalar.EqualWithinAbsOrRel(mean[i], wm[i], 1e-8, 1e-8) || !scalar.EqualWithinAbsOrRel(vr[i], wv[i], 1e-8, 1e-8) {
				t.Errorf("n=%d point %d: (%g, %g), oracle (%g, %g)", n, i, mean[i], vr[i], wm[i], wv[i])
			}
		}
	}
}

// clumpedStart returns the m training points nearest to c (1-D).
func clumpedStart(x *kernel.Vectors, c float64, m int) []int {
	idx := make([]int, x.Len())
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return math.Abs(x.At(idx[a], 0)-c) < math.Abs(x.At(idx[b], 0)-c) })
	return idx[:m]
}

func checkTraceMonotone(t *testing.T, md *Model) {
	t.Helper()
	tr := md.Trace()
	for i := 1; i < len(tr); i++ {
		if tr[i].Kind != tr[i-1].Kind {
			continue // into or out of a VAR fit's MLE restart (WithMLERestart)
		}
		if tr[i].Objective > tr[i-1].Objective+1e-6*math.Abs(tr[i-1].Objective) {
			t.Errorf("objective rose from %.9g (epoch %d) to %.9g", tr[i-1].Objective, i, tr[i].Objective)
		}
		if tr[i].Objective > tr[i].CGObjective+1e-10*math.Abs(tr[i].CGObjective)+1e-9 { // F is a sum of larger parts: rounding
			t.Errorf("discrete pass of epoch %d raised the objective from %.15g to %.15g", i+1, tr[i].CGObjective, tr[i].Objective)
		}
	}
}

func TestModelFitSnelsonLike(t *testing.T) {
	t.Parallel()
	train, test := data.SnelsonLike(200, 3)
	for _, o := range []Objective{VAR, MLE} {
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).
			WithInducing(clumpedStart(train.X, 1.5, 10)).WithObjective(o).WithSeed(4)
		start, err := md.Value()
		if err != nil {
			t.Fatal(err)
		}
		res, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		if !(res.Objective < start) || res.Epochs < 2 {
			t.Errorf("%v: objective %g → %g in %d epochs", o, start, res.Objective, res.Epochs)
		}
		checkTraceMonotone(t, md)
		mean, _, err := md.Predict(test.X)
		if err != nil {
			t.Fatal(err)
		}
		smse, _ := SMSE(mean[38:263], test.Y[38:263]) // the grid inside [0, 6]
		if smse > 0.1 {                               // m = 10 cannot follow the cos(7x) wiggle fully; predicting the mean scores 1
			t.Errorf("%v: SMSE against the noise-free function %g", o, smse)
		}
		// The inducing points spread out from the clump.
		ind, _ := md.Inducing()
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, j := range ind {
			lo, hi = math.Min(lo, train.X.At(j, 0)), math.Max(hi, train.X.At(j, 0))
		}
		if hi-lo < 3 {
			t.Errorf("%v: inducing inputs still clumped in [%g, %g]", o, lo, hi)
		}
	}
}

func TestModelFitSnelsonData(t *testing.T) {
	t.Parallel()
	train, _, err := data.LoadSnelson(data.Dir("../../shared/data"))
	if err != nil {
		t.Skipf("Snelson data not available (set SGP_DATA): %v", err)
	}
	for _, sub := range []bool{false, true} {
		data := train
		if sub {
			idx := make([]int, 0, 20)
			for i := 0; i < train.Len(); i += 10 {
				idx = append(idx, i)
			}
			data = train.Subset(idx)
		}
		for _, o := range []Objective{VAR, MLE} {
			md := NewModel(data.X, data.Y, kernel.NewRBFFromData(data.X, data.Y)).
				WithInducing(clumpedStart(data.X, 1.5, 10)).WithObjective(o)
			if _, err := md.Fit(); err != nil {
				t.Fatal(err)
			}
			checkTraceMonotone(t, md)
			mean, _, err := md.Predict(data.X)
			if err != nil {
				t.Fatal(err)
			}
			// The fit follows the data: the residuals are about the noise.
			smse, _ := SMSE(mean, data.Y)
			noise, _ := md.Noise()
			if !sub && (smse > 0.15 || noise > 0.15) {
				t.Errorf("%v: training SMSE %g, noise %g", o, smse, noise)
			}
			if sub && smse > 0.5 {
				t.Errorf("20 points %v: training SMSE %g", o, smse)
			}
		}
	}
}

func TestModelConfigErrors(t *testing.T) {
	t.Parallel()
	x, _ := kernel.NewVectors(4, 1, []float64{0, 1, 2, 3})
	y := []float64{1, 2, 3, 4}
	k := kernel.NewRBF(1, []float64{1})
	cases := map[string]*Model{
		"m=0":          NewModel(x, y, k).WithM(0),
		"m=n":          NewModel(x, y, k).WithM(4),
		"noise":        NewModel(x, y, k).WithNoise(-1),
		"z":            NewModel(x, y, k).WithInfoPivots(-2),
		"index":        NewModel(x, y, k).WithInducing([]int{0, 9}),
		"repeat":       NewModel(x, y, k).WithInducing([]int{1, 1}),
		"lengths":      NewModel(x, y[:3], k),
		"empty":        NewModel(nil, nil, k),
		"kernel dim":   NewModel(x, y, kernel.NewRBF(1, []float64{1, 1})),
		"nan target":   NewModel(x, []float64{1, math.NaN(), 3, 4}, k).WithM(2),
		"epochs":       NewModel(x, y, k).WithMaxEpochs(0),
		"no kernel":    NewModel(x, y, nil),
		"bad tolerace": NewModel(x, y, k).WithTolerance(math.NaN()),
	}
	for name, md := range cases {
		if _, err := md.Fit(); err == nil {
			t.Errorf("%s: no error", name)
		}
		if _, err := md.Swap(); err == nil {
			t.Errorf("%s: Swap gave no error", name)
		}
	}
	md := NewModel(x, y, k).WithM(2)
	if _, err := md.SwapPoint(99); err == nil {
		t.Error("SwapPoint of a non-inducing point gave no error")
	}
	if err := md.SetParams([]float64{0}); err == nil {
		t.Error("SetParams with the wrong length gave no error")
	}
}

func TestFitCancel(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(300, 5)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(20).WithTolerance(0)
	ctx, cancel := context.WithCancel(context.Background())
	epochs := 0
	md.WithEpochFunc(func(EpochRecord) {
		epochs++
		if epochs == 2 {
			cancel()
		}
	})
	res, err := md.FitContext(ctx)
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != Cancelled {
		t.Fatalf("err %v, result %+v", err, res)
	}
	if epochs != 2 {
		t.Errorf("%d epochs ran after cancellation", epochs)
	}
	// The model stays usable.
	if _, err := md.Step(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := md.Predict(train.X); err != nil {
		t.Fatal(err)
	}
}

func TestModelTimeBudgetAndSwap(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(150, 6)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(8).WithTimeBudget(time.Nanosecond).WithTolerance(0)
	res, err := md.Fit()
	if err != nil || res.Status != TimeBudget || res.Epochs != 1 {
		t.Fatalf("err %v, %+v", err, res)
	}
	before, _ := md.Value()
	for range 20 {
		r, err := md.Swap()
		if err != nil {
			t.Fatal(err)
		}
		if r.After > r.Before {
			t.Fatalf("swap raised the objective: %+v", r)
		}
	}
	after, _ := md.Value()
	if after > before {
		t.Fatalf("swaps raised the objective from %g to %g", before, after)
	}
}

func TestSaveLoadReproducesPredictions(t *testing.T) {
	t.Parallel()
	train, test := data.SnelsonLike(120, 7)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(9).WithMaxEpochs(3)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := md.Save(&buf); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPredictor(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	m1, v1, _ := md.Predict(test.X)
	m2, v2, err := p.PredictTo(nil, nil, test.X)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m1 {
		if m1[i] != m2[i] || v1[i] != v2[i] {
			t.Fatalf("prediction %d differs after loading: (%v, %v) vs (%v, %v)", i, m1[i], v1[i], m2[i], v2[i])
		}
	}
	for name, bad := range map[string]string{
		"empty":   "",
		"garbage": "{",
		"format":  `{"format":"other"}`,
		"kernel":  strings.Replace(buf.String(), `"rbf"`, `"nope"`, 1),
		"k":       strings.Replace(buf.String(), `"k": 9`, `"k": 8`, 1),
	} {
		if _, err := LoadPredictor(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: loaded a bad model file", name)
		}
	}
}

func TestCostRankingExactWithAllPivots(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(60, 8)
	md := NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.3})).WithM(6).WithInfoPivots(60)
	ind, err := md.Inducing()
	if err != nil {
		t.Fatal(err)
	}
	before, _ := md.Value()
	cr, err := md.CostRanking(ind[2], 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(cr.Candidates) < 40 {
		t.Fatalf("only %d candidates", len(cr.Candidates))
	}
	for i := range cr.Exact {
		if !scalar.EqualWithinAbsOrRel(cr.Exact[i], cr.Approx[i], 1e-7, 1e-6) {
			t.Errorf("candidate %d: exact %g, approx %g", cr.Candidates[i], cr.Exact[i], cr.Approx[i])
		}
	}
	after, _ := md.Value()
	if !scalar.EqualWithinAbsOrRel(before, after, 1e-10, 1e-10) {
		t.Errorf("CostRanking changed the objective: %g → %g", before, after)
	}
	// Inspection matrices have the documented shapes and reproduce K̂.
	f, _ := md.Factor()
	g, q, r := f.GMatrix(), f.QMatrix(), f.RMatrix()
	if rr, cc := g.Dims(); rr != 60 || cc != 6 {
		t.Fatalf("G is %d×%d", rr, cc)
	}
	var qr mat.Dense
	qr.Mul(q, r)
	for i := 0; i < 60; i++ {
		for c := 0; c < 6; c++ {
			if math.Abs(qr.At(i, c)-g.At(i, c)) > 1e-10 {
				t.Fatalf("QR ≠ G at (%d,%d)", i, c)
			}
		}
	}
}

func TestFitIsDeterministic(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(3000, 9)
	var first *Result
	for range 2 {
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(30).WithMaxEpochs(3).WithSeed(5)
		res, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			continue
		}
		if res.Objective != first.Objective {
			t.Errorf("same seed, different objective: %v then %v", first.Objective, res.Objective)
		}
		for i := range res.Params {
			if res.Params[i] != first.Params[i] {
				t.Errorf("same seed, different θ[%d]: %v then %v", i, first.Params[i], res.Params[i])
			}
		}
	}
}

func TestInterruptStopsFit(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(300, 10)
	stop := errors.New("interrupted")
	calls := 0
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(15).WithTolerance(0).
		WithInterrupt(func() error {
			calls++
			if calls > 25 {
				return stop
			}
			return nil
		})
	res, err := md.Fit()
	if !errors.Is(err, stop) || res == nil || res.Status != Cancelled {
		t.Fatalf("err %v", err)
	}
	if res.Epochs > 2 {
		t.Errorf("%d epochs ran, the interrupt came during the second", res.Epochs)
	}
	if _, err := md.Value(); err != nil {
		t.Fatal(err)
	}
}

func TestBaselineSelectors(t *testing.T) {
	t.Parallel()
	train, test := data.SnelsonLike(300, 11)
	for _, name := range []string{"random", "greedy-variance", "titsias:8", "cholqr"} {
		sel, err := ParseSelector(name)
		if err != nil || sel.String() != name {
			t.Fatalf("%s: %v, %v", name, sel, err)
		}
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(12).WithSelector(sel).WithMaxEpochs(4)
		res, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		checkTraceMonotone(t, md)
		ev, err := md.Evaluate(test.Subset(interior(test)))
		if err != nil || ev.SMSE > 0.2 {
			t.Errorf("%s: scores %v, err %v", name, ev, err)
		}
		if name != "cholqr" && res.Stats.Swaps != 0 {
			t.Errorf("%s: %d swaps", name, res.Stats.Swaps)
		}
	}
	for _, bad := range []string{"", "titsias", "titsias:0", "nope"} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// interior returns the indices of the SnelsonLike test grid inside the
// training range [0, 6].
func interior(test *data.Dataset) []int {
	var idx []int
	for i := 0; i < test.Len(); i++ {
		if x := test.X.At(i, 0); x >= 0 && x <= 6 {
			idx = append(idx, i)
		}
	}
	return idx
}

func TestModelsDoNotShareKernels(t *testing.T) {
	t.Parallel()
	train, test := data.SnelsonLike(150, 13)
	kern := kernel.NewRBFFromData(train.X, train.Y)
	theta0 := kern.Params(nil)
	a := NewModel(train.X, train.Y, kern).WithM(8).WithMaxEpochs(3)
	if _, err := a.Fit(); err != nil {
		t.Fatal(err)
	}
	pa, _ := a.Predictor()
	before, _, _ := pa.PredictTo(nil, nil, test.X)
	b := NewModel(train.X, train.Y, kern).WithM(5).WithObjective(MLE).WithMaxEpochs(3)
	if _, err := b.Fit(); err != nil {
		t.Fatal(err)
	}
	after, _, _ := a.Predict(test.X)
	snap, _, _ := pa.PredictTo(nil, nil, test.X)
	for i := range before {
		if before[i] != after[i] || before[i] != snap[i] {
			t.Fatalf("fitting model b changed model a's predictions at %d: %v → %v (snapshot %v)", i, before[i], after[i], snap[i])
		}
	}
	for i, v := range kern.Params(nil) {
		if v != theta0[i] {
			t.Fatalf("the caller's kernel was changed: θ[%d] %v → %v", i, theta0[i], v)
		}
	}
}

// TestSetParamsDegenerate: hyperparameters at which the inducing set
// cannot be kept (a lengthscale so long that the points are duplicates to
// working precision) give an error naming a point, and the model stays as
// it was: same θ, same set, same objective, and it can still fit.
func TestSetParamsDegenerate(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(200, 3)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(12).WithMaxEpochs(2)
	if _, err := md.Fit(); err != nil {
		t.Fatal(err)
	}
	theta, set := md.Params(), must(md.Inducing())
	before := must(md.Value())
	bad := append([]float64(nil), theta...)
	bad[1] += 20 // lengthscale × e²⁰
	err := md.SetParams(bad)
	if err == nil || !strings.Contains(err.Error(), "cannot be inducing") {
		t.Fatalf("SetParams at a degenerate θ: %v", err)
	}
	if !slices.Equal(md.Params(), theta) || !slices.Equal(must(md.Inducing()), set) {
		t.Errorf("the model changed: θ %v → %v, set %v → %v", theta, md.Params(), set, must(md.Inducing()))
	}
	if after := must(md.Value()); math.Abs(after-before) > 1e-9*math.Abs(before) {
		t.Errorf("objective %v → %v", before, after)
	}
	if _, err := md.Fit(); err != nil {
		t.Errorf("fit after the failed SetParams: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestZeroToleranceRunsToTheEnd checks that WithTolerance(0) turns the
// convergence test off (Fit runs to its maximum number of epochs, where
// the objective stopped moving long before) and that rises of the
// objective by rounding are not reported.
func TestZeroToleranceRunsToTheEnd(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(400, 1)
	res, err := NewModel(train.X, train.Y, kernel.NewRBF(1, []float64{0.5})).WithM(20).WithTolerance(0).WithMaxEpochs(40).Fit()
	if err != nil {
		t.Fatal(err)
	}
	if res.Epochs != 40 || res.Status != MaxEpochs || res.Converged {
		t.Errorf("%d epochs, stopped %q, converged %v; want 40, max epochs, not converged", res.Epochs, stopText(res.Status, res.Reason), res.Converged)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "rose") {
			t.Errorf("warning %q", w)
		}
	}
}

// TestOutlierLengthscaleFit fits the data of kernel's
// TestNewRBFFromDataOutliers (10 of 500 inputs at 10⁵, the rest in
// [−3, 3]) from the paper's lengthscale, (max − min)/2, and from
// NewRBFFromData's, half the central 90%: from the first the fit explains
// everything as noise (2 inducing points admitted), from the second it
// finds the signal.
func TestOutlierLengthscaleFit(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	const n = 500
	dirty, y := make([]float64, 2*n), make([]float64, n)
	for i := 0; i < n; i++ {
		dirty[2*i], dirty[2*i+1] = 6*r.Float64()-3, r.NormFloat64()
		if i%50 == 0 {
			dirty[2*i] = 1e5
		}
		y[i] = math.Sin(math.Min(dirty[2*i], 3)) + 0.05*r.NormFloat64()
	}
	xd, _ := kernel.NewVectors(n, 2, dirty)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := 0; i < n; i++ {
		lo, hi = math.Min(lo, xd.At(i, 0)), math.Max(hi, xd.At(i, 0))
	}
	kd := kernel.NewRBFFromData(xd, y)
	fit := func(k *kernel.RBF) *Result {
		res, err := NewModel(xd, y, k).Fit()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	paper := fit(kernel.NewRBF(kd.Variance(), []float64{(hi - lo) / 2, kd.Lengthscales()[1]}))
	robust := fit(kd)
	t.Logf("F from the paper's lengthscale %.6g (noise-only %v), from the central spread %.6g", paper.Objective, paper.NoiseOnly, robust.Objective)
	if !paper.NoiseOnly {
		t.Errorf("the paper's lengthscale no longer collapses here (F %.6g): the test has lost its case", paper.Objective)
	}
	if robust.NoiseOnly || !(robust.Objective < paper.Objective-500) {
		t.Errorf("from the central spread: F %.6g, noise-only %v; want the signal, far below %.6g", robust.Objective, robust.NoiseOnly, paper.Objective)
	}
}

// TestReplacedStartWarns: a start (WithInducing) holding a duplicate input
// is built with the duplicate replaced by a random point, and the first
// fit says so in its warnings; a start without one gets no such warning.
func TestReplacedStartWarns(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(60, 2)
	rows := make([][]float64, train.Len())
	for i := range rows {
		rows[i] = train.X.Row(i)
	}
	rows[7] = rows[3] // a duplicate input
	x, err := kernel.VectorsFromRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	warned := func(start []int) bool {
		res, err := NewModel(x, train.Y, kernel.NewRBF(1, []float64{0.5})).WithInducing(start).WithMaxEpochs(2).Fit()
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(res.Warnings, func(w string) bool {
			return strings.Contains(w, "1 of the 4 points of the initial inducing set")
		})
	}
	if !warned([]int{3, 10, 7, 20}) {
		t.Error("a start with a duplicate input: no warning that a point was replaced")
	}
	if warned([]int{3, 10, 8, 20}) {
		t.Error("a start without a duplicate: a warning that a point was replaced")
	}
}
