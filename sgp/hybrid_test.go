package sgp

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// TestHybridNoWorseThanParents checks the hybrid selector against its two
// parents on small problems: CholQR alone and continuous SGPR from a
// random subset (Continuous), both with the same m and objective. The
// hybrid's objective is never above CholQR's (it keeps the refinement only
// if lower), within 1% of continuous SGPR's and its test SMSE within 5%
// of the better parent's.
func TestHybridNoWorseThanParents(t *testing.T) {
	t.Parallel()
	snTrain, snTest := data.SnelsonLike(200, 1)
	arTrain, arTest := data.SyntheticARD(1000, 500, 6, 2)
	for _, c := range []struct {
		name        string
		train, test *data.Dataset
		m           int
	}{{"snelson-like", snTrain, snTest, 10}, {"ard6", arTrain, arTest, 24}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fit := func(sel Selector) (*Model, *Result, *Evaluation) {
				md := NewModel(c.train.X, c.train.Y, kernel.NewRBFFromData(c.train.X, c.train.Y)).WithM(c.m).WithSeed(1).
					WithMaxEpochs(30).WithSelector(sel)
				res, err := md.Fit()
				if err != nil {
					t.Fatal(err)
				}
				ev, err := md.Evaluate(c.test)
				if err != nil {
					t.Fatal(err)
				}
				return md, res, ev
			}
			_, chol, cholEv := fit(SelectCholQR)
			md, hyb, hybEv := fit(SelectHybrid)
			rng := rand.New(rand.NewPCG(1, 2))
			_, vy := meanVar(c.train.Y)
			cont, err := NewContinuous(c.train.X, c.train.Y, kernel.NewRBFFromData(c.train.X, c.train.Y)).WithInducingInputs(c.train.X.Rows(rng.Perm(c.train.Len())[:c.m])).WithNoise(vy / 4).WithObjective(VAR).WithMaxEvals(1000).WithJitter(1e-6).FitContext(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			mean, _, err := cont.Predictor.PredictNoisy(c.test.X)
			if err != nil {
				t.Fatal(err)
			}
			contSMSE, _ := SMSE(mean, c.test.Y)
			t.Logf("objective: CholQR %.4f, continuous %.4f (%s, %d evals), hybrid %.4f; test SMSE %.4f, %.4f, %.4f", chol.Objective, cont.Objective, stopText(cont.Status, cont.Reason), cont.Evals, hyb.Objective, cholEv.SMSE, contSMSE, hybEv.SMSE)
			if hyb.Refined != nil {
				t.Logf("refinement: %d evaluations, %d restarts, %s", hyb.Refined.Evals, hyb.Refined.Restarts, stopText(hyb.Refined.Status, hyb.Refined.Reason))
			}
			if hyb.Objective > chol.Objective {
				t.Errorf("hybrid objective %.6f above CholQR's %.6f", hyb.Objective, chol.Objective)
			}
			if hyb.Objective > cont.Objective+0.01*math.Abs(cont.Objective) {
				t.Errorf("hybrid objective %.6f more than 1%% above continuous SGPR's %.6f", hyb.Objective, cont.Objective)
			}
			if b := min(cholEv.SMSE, contSMSE); hybEv.SMSE > 1.05*b {
				t.Errorf("hybrid test SMSE %.4f more than 5%% above the better parent's %.4f", hybEv.SMSE, b)
			}
			if hyb.Refined == nil || md.Refined() != hyb.Refined || hyb.Refined.Z.Len() != len(hyb.Inducing) {
				t.Fatalf("the refinement was not kept: %+v", hyb.Refined)
			}
			// The jitter its objective includes is reported with it, relative
			// to the targets' variance (jitterScale).
			if want := hybridJitter * jitterScale(c.train.X, c.train.Y); math.Abs(hyb.Refined.Jitter-want) > 1e-9*want {
				t.Errorf("refinement jitter %g, want %g", hyb.Refined.Jitter, want)
			}
			if s := hyb.String(); !strings.Contains(s, fmt.Sprintf("jitter %.3g on K[Z,Z]", hyb.Refined.Jitter)) {
				t.Errorf("the fit summary does not give the refinement's jitter:\n%s", s)
			}
			// The model predicts with the refinement, also after a save.
			m1, _, err := md.PredictNoisy(c.test.X)
			if err != nil {
				t.Fatal(err)
			}
			m2, _, _ := hyb.Refined.Predictor.PredictNoisy(c.test.X)
			var buf bytes.Buffer
			if err := md.Save(&buf); err != nil {
				t.Fatal(err)
			}
			p, err := LoadPredictor(&buf)
			if err != nil {
				t.Fatal(err)
			}
			m3, _, _ := p.PredictNoisy(c.test.X)
			for i := range m1 {
				if m1[i] != m2[i] || m1[i] != m3[i] {
					t.Fatalf("prediction %d: model %v, refinement %v, saved %v", i, m1[i], m2[i], m3[i])
				}
			}
			// Any change to the model drops the refinement.
			if _, err := md.Swap(); err != nil {
				t.Fatal(err)
			}
			if md.Refined() != nil {
				t.Error("the refinement survived a swap")
			}
		})
	}
}

// TestHybridNeedsVectors checks that the hybrid selector refuses kernels
// whose inputs cannot move continuously.
func TestHybridNeedsVectors(t *testing.T) {
	t.Parallel()
	x, err := kernel.NewStrings([]string{"abcab", "bcabc", "cabca", "aabbc", "abcca", "bbcaa"})
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{1, 2, 3, 2, 1, 0}
	md := NewModel(x, y, kernel.NewSpectrum(2, 1)).WithM(2).WithSelector(SelectHybrid)
	if _, err := md.Fit(); err == nil || !strings.Contains(err.Error(), "hybrid") {
		t.Errorf("hybrid on strings: error %v", err)
	}
	if s, err := ParseSelector("hybrid"); err != nil || s != SelectHybrid || s.String() != "hybrid" {
		t.Errorf("ParseSelector(hybrid) = %v, %v", s, err)
	}
}

// TestHybridFewDistinctInputs checks a hybrid fit on inputs with fewer
// distinct points than m: CholQR keeps the 6 it can tell apart and says
// so, and since inducing points at every distinct input make the model
// exact, the hybrid ends at CholQR's objective.
func TestHybridFewDistinctInputs(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	const n = 200
	xs := make([]float64, n)
	y := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i % 6)
		y[i] = math.Sin(xs[i]) + 0.1*rng.NormFloat64()
	}
	x, err := kernel.NewVectors(n, 1, xs)
	if err != nil {
		t.Fatal(err)
	}
	fit := func(sel Selector) *Result {
		md := NewModel(x, y, kernel.NewRBFFromData(x, y)).WithM(10).WithSeed(1).WithMaxEpochs(10).WithSelector(sel)
		res, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	chol, hyb := fit(SelectCholQR), fit(SelectHybrid)
	if len(hyb.Inducing) != 6 || !strings.Contains(strings.Join(hyb.Warnings, "\n"), "only 6 of the m=10") {
		t.Errorf("%d inducing points from 6 distinct inputs, warnings %q", len(hyb.Inducing), hyb.Warnings)
	}
	if math.Abs(hyb.Objective-chol.Objective) > 1e-6*math.Abs(chol.Objective) {
		t.Errorf("hybrid objective %v, CholQR's %v", hyb.Objective, chol.Objective)
	}
}

// TestHardEndStopsMidEpoch: with hardEnd (the hybrid's CholQR phase) a time
// budget that has already run out stops the fit before its first epoch
// completes, as "time budget" and not as an error, leaving a usable model;
// without it the budget is checked between epochs, so one epoch runs.
func TestHardEndStopsMidEpoch(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(200, 1)
	for _, hard := range []bool{false, true} {
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(10).WithSeed(1).WithTimeBudget(time.Nanosecond)
		if _, err := md.Inducing(); err != nil {
			t.Fatal(err)
		}
		r := md.newRun(context.Background())
		r.start, r.hardEnd = time.Now().Add(-time.Second), hard
		res, err := md.fitSubset(r)
		if err != nil {
			t.Fatalf("hardEnd %v: %v", hard, err)
		}
		want := 1
		if hard {
			want = 0
		}
		if res.Status != TimeBudget || res.Epochs != want {
			t.Errorf("hardEnd %v: stopped %q after %d epochs, want \"time budget\" after %d", hard, stopText(res.Status, res.Reason), res.Epochs, want)
		}
		if v, err := md.Value(); err != nil || math.IsNaN(v) {
			t.Errorf("hardEnd %v: the model is not usable: F = %v, %v", hard, v, err)
		}
	}
}

// TestHybridStarts: without a time budget the hybrid runs its two
// parents, then refines from CholQR's fit; the k-means starts, which need
// time left in a budget, are not tried. With a budget far beyond what the
// fit needs, the parents take turns but each follows the path it follows
// alone, and the k-means starts follow: the hybrid ends no higher than
// without the budget.
func TestHybridStarts(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(200, 5)
	const m = 10
	fit := func(budget time.Duration) (*Result, string) {
		var progress bytes.Buffer
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(m).WithSeed(3).
			WithMaxEpochs(30).WithSelector(SelectHybrid).WithProgress(&progress).WithTimeBudget(budget)
		res, err := md.Fit()
		if err != nil {
			t.Fatal(err)
		}
		return res, progress.String()
	}
	res, progress := fit(0)
	order := refinementStarts(progress)
	want := []string{"a random subset", "CholQR's fit"}
	if strings.Join(order, "|") != strings.Join(want, "|") {
		t.Fatalf("without a budget, continuous fits from %q, want %q\n%s", order, want, progress)
	}
	budgeted, progress := fit(10 * time.Minute)
	order = refinementStarts(progress)
	want = []string{"a random subset", "CholQR's fit", "the k-means centres", "the k-means++ seeds", "CholQR's set"}
	if strings.Join(order, "|") != strings.Join(want, "|") {
		t.Fatalf("with a budget, continuous fits from %q, want %q\n%s", order, want, progress)
	}
	t.Logf("without a budget F %.10g (from %s), with one %.10g (from %s)", res.Objective, res.RefinedFrom, budgeted.Objective, budgeted.RefinedFrom)
	if budgeted.Objective > res.Objective+1e-9*math.Abs(res.Objective) {
		t.Errorf("with a budget F %.10g, above the fit without one (%.10g)", budgeted.Objective, res.Objective)
	}
}

// TestHybridWarningNamesTheModel checks that a hybrid fit whose CholQR
// phase did not converge, and whose refinement is kept, does not say "the
// model is the best state reached" of the CholQR phase, but which model the
// predictions use, among its CholQR parent's warnings; the Result's own
// summary is the refinement's.
func TestHybridWarningNamesTheModel(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(200, 1)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(10).WithSeed(1).
		WithMaxEpochs(2).WithSelector(SelectHybrid)
	res, err := md.Fit()
	if err != nil {
		t.Fatal(err)
	}
	chol := res.CholQR
	if res.Refined == nil || chol == nil || chol.Converged {
		t.Fatalf("want a CholQR phase cut at 2 epochs and a kept refinement: CholQR %+v, refined %v", chol, res.Refined != nil)
	}
	all := strings.Join(chol.Warnings, "\n")
	want := fmt.Sprintf("CholQR did not converge (%s); the predictions use the continuous fit from %s (%s)", chol.Stopped(), res.RefinedFrom, res.Refined.Stopped())
	if !strings.Contains(all, want) || strings.Contains(all, "best state reached") {
		t.Errorf("CholQR parent's warnings %q, want %q and no \"best state reached\"", chol.Warnings, want)
	}
	if res.Stopped() != res.Refined.Stopped() || res.Converged != res.Refined.Converged || res.Objective != res.Refined.Objective {
		t.Errorf("the Result stopped %q (converged %v, F %v), its refinement %q (%v, F %v)", res.Stopped(), res.Converged, res.Objective,
			res.Refined.Stopped(), res.Refined.Converged, res.Refined.Objective)
	}
	if s := res.String(); !strings.Contains(s, "CholQR parent: "+want) || !strings.Contains(s, "hybrid fit "+res.Stopped()) {
		t.Errorf("the display does not give the CholQR parent's warning apart:\n%s", s)
	}
}

// refinementStarts returns, in order, where the refinements a hybrid fit's
// progress output reports started.
func refinementStarts(progress string) []string {
	var order []string
	for _, line := range strings.Split(progress, "\n") {
		if rest, ok := strings.CutPrefix(line, "hybrid: continuous refinement from "); ok {
			order = append(order, rest[:strings.Index(rest, ":")])
		}
	}
	return order
}

// TestHybridTinyBudgetIsALimit: any positive time budget limits a hybrid
// fit. With 1ns, CholQR's share (a tenth) must not round to zero, which
// means no limit: the fit stops before its first epoch, as "time budget",
// not converged and without a refinement.
func TestHybridTinyBudgetIsALimit(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(200, 1)
	md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(10).WithSeed(1).
		WithSelector(SelectHybrid).WithTimeBudget(time.Nanosecond)
	res, err := md.Fit()
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != TimeBudget || res.Converged || res.Epochs != 0 || res.Refined != nil {
		t.Errorf("stopped %q, converged %v, %d epochs, refined %v; want \"time budget\", not converged, 0 epochs, no refinement",
			stopText(res.Status, res.Reason), res.Converged, res.Epochs, res.Refined != nil)
	}
}

// TestRefinementWarning: a kept refinement that stalled (a local optimum
// at the precision of F, the end of a fit with test SMSE 3·10⁻⁸) gives no
// warning; an optimiser failure gives one that says what the model uses
// and what to try.
func TestRefinementWarning(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status Status
		reason string
		timeUp bool
		warn   bool
	}{
		{Converged, "", false, false},
		{MaxEvaluations, "", false, false},
		{Stalled, "no decrease along the search direction, also after a restart from the best point, at max |∂F| = 0.0438", false, false},
		{TimeBudget, "", true, false},
		{Failed, "Linesearch failed", false, true},
	} {
		w := refinementWarning(&ContinuousResult{FitSummary: FitSummary{Status: c.status, Reason: c.reason, Objective: 1}}, "converged", c.timeUp)
		if (w != "") != c.warn || (c.warn && (!strings.Contains(w, "selector cholqr") || !strings.Contains(w, "failed: Linesearch failed"))) {
			t.Errorf("%v %q: warning %q, want one: %v", c.status, c.reason, w, c.warn)
		}
	}
}

// hybridPromiseSets are small sets built to favour each of the hybrid's
// parents: smooth, a smooth function of two clustered inputs, which
// continuous inducing inputs follow better than a subset of the data;
// discrete, SyntheticDiscrete's few-valued inputs with a step, where
// continuous fits from θ₀ end far above CholQR; raw, targets around 10⁴
// with an sd of about 12, untransformed.
func hybridPromiseSets() []struct {
	name string
	d    *data.Dataset
	m    int
} {
	rng := rand.New(rand.NewPCG(32, 2))
	smooth := func(n int) *data.Dataset {
		centres := [][2]float64{{-1.5, 1}, {0.5, -1.2}, {1.4, 1.3}, {-0.3, 0.2}}
		xs, y := make([]float64, 2*n), make([]float64, n)
		for i := range y {
			c := centres[rng.IntN(len(centres))]
			x0, x1 := c[0]+0.5*rng.NormFloat64(), c[1]+0.5*rng.NormFloat64()
			xs[2*i], xs[2*i+1] = x0, x1
			y[i] = math.Sin(3*x0)*math.Cos(2*x1) + 0.3*x0*x1 + 0.1*rng.NormFloat64()
		}
		x, _ := kernel.NewVectors(n, 2, xs)
		return &data.Dataset{X: x, Y: y}
	}
	raw := func(n int) *data.Dataset {
		xs, y := make([]float64, 3*n), make([]float64, n)
		for i := range y {
			a, b, c := 5*rng.Float64(), 5*rng.Float64(), 5*rng.Float64()
			xs[3*i], xs[3*i+1], xs[3*i+2] = a, b, c
			y[i] = 1e4 + 20*math.Sin(a)*math.Cos(b) + 5*c + rng.NormFloat64()
		}
		x, _ := kernel.NewVectors(n, 3, xs)
		return &data.Dataset{X: x, Y: y}
	}
	return []struct {
		name string
		d    *data.Dataset
		m    int
	}{{"smooth", smooth(1500), 20}, {"discrete", discreteInputs(1000, 5), 32}, {"raw", raw(800), 16}}
}

// TestHybridRunsBothParents: without a time budget, the hybrid ends no
// higher than CholQR alone (the same seed and epochs) and than continuous
// SGPR alone as NewContinuous runs it with the same seed (m random
// training inputs, the kernel's starting θ, 20 evaluations per epoch,
// jitter hybridJitter, as sgprepl's sgpr-continuous sets it): by
// construction, to rounding. The sets favour
// one parent or the other (hybridPromiseSets).
func TestHybridRunsBothParents(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("about 20 s")
	}
	const epochs = 20
	for _, c := range hybridPromiseSets() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			x, y := c.d.X, c.d.Y
			fit := func(sel Selector) *Result {
				res, err := NewModel(x, y, kernel.NewRBFFromData(x, y)).WithM(c.m).WithSeed(7).WithMaxEpochs(epochs).WithSelector(sel).Fit()
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			chol, hyb := fit(SelectCholQR), fit(SelectHybrid)
			k := kernel.NewRBFFromData(x, y)
			cont, err := NewContinuous(x, y, k).WithM(c.m).WithSeed(7).WithMaxEvals(hybridEvalsPerEpoch * epochs).WithJitter(hybridJitter).Fit()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("F: CholQR %.8g (%s), continuous %.8g (%s), hybrid %.8g (from %q)", chol.Objective, stopText(chol.Status, chol.Reason),
				cont.Objective, stopText(cont.Status, cont.Reason), hyb.Objective, hyb.RefinedFrom)
			for _, p := range []struct {
				name string
				f    float64
			}{{"CholQR", chol.Objective}, {"continuous SGPR", cont.Objective}} {
				if hyb.Objective > p.f+1e-9*math.Abs(p.f) {
					t.Errorf("hybrid F %.10g above %s alone (%.10g)", hyb.Objective, p.name, p.f)
				}
			}
		})
	}
}

// TestTurns: with turns of zero length the two workers alternate at every
// pause; once one finishes, the other's
// pauses return at once, so it has the rest of the time. Neither is
// stopped: each makes all of its steps.
func TestTurns(t *testing.T) {
	t.Parallel()
	tn := newTurns(0, time.Now().Add(time.Hour))
	var log []int // appended to only by the worker whose turn it is
	const steps0, steps1 = 5, 12
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer tn.finish(continuousTurn)
		for i := 0; i < steps1; i++ {
			tn.pause(continuousTurn)
			log = append(log, continuousTurn)
		}
	}()
	func() {
		defer tn.finish(cholqrTurn)
		for i := 0; i < steps0; i++ {
			tn.pause(cholqrTurn)
			log = append(log, cholqrTurn)
		}
	}()
	<-done
	// Either may take the first step; then they alternate until the
	// first has made its 5 steps, and the second makes the rest alone.
	ok := len(log) == steps0+steps1
	for i := 1; ok && i < len(log); i++ {
		if i < 2*steps0 {
			ok = log[i] != log[i-1]
		} else {
			ok = log[i] == continuousTurn
		}
	}
	if !ok {
		t.Errorf("steps in the order %v: want %d alternating, then worker 1's alone", log, 2*steps0)
	}
}

// TestCannotCatchUp checks the parking rule on made-up progress: a lagging
// worker is parked only when its lowest objective, falling at its average
// rate over the last half of its compute time, cannot reach the leader's
// in the time left, and only once that rate is measured.
func TestCannotCatchUp(t *testing.T) {
	t.Parallel()
	s := time.Second
	lead := []progressPoint{{0, 100}, {4 * s, 10}}
	for _, c := range []struct {
		name string
		lag  []progressPoint
		used time.Duration // the lagging worker's compute time
		left time.Duration
		want bool
	}{
		// Over its last 5 of 10 s the lagger fell from 60 to 50: 2 a
		// second, 30 in the 15 s left, to 20 at best: above the leader.
		{"falls too slowly", []progressPoint{{1 * s, 80}, {4 * s, 60}, {8 * s, 50}}, 10 * s, 15 * s, true},
		// With 30 s left it could reach −10.
		{"could catch up", []progressPoint{{1 * s, 80}, {4 * s, 60}, {8 * s, 50}}, 10 * s, 30 * s, false},
		{"flat", []progressPoint{{1 * s, 50}}, 10 * s, time.Hour, true},
		// Its first objective came at 9 s of 10: one second, less than
		// two turns, so no rate is known.
		{"rate not known yet", []progressPoint{{9 * s, 50}}, 10 * s, 0, false},
		// At 6 s of 10 the last half of its time starts before its
		// first objective: the rate is measured over the 4 s since,
		// flat, so it is parked.
		{"rate since the first objective", []progressPoint{{6 * s, 50}}, 10 * s, time.Hour, true},
		// Falling from 80 to 50 in those 4 s, 7.5 a second, it could
		// reach −25 in the 10 s left.
		{"falls fast since the first objective", []progressPoint{{6 * s, 80}, {9 * s, 50}}, 10 * s, 10 * s, false},
		{"ahead", []progressPoint{{1 * s, 5}}, 10 * s, 0, false},
		{"no objective yet", nil, 10 * s, 0, false},
	} {
		tn := newTurns(time.Second, time.Now())
		tn.path = [2][]progressPoint{c.lag, lead}
		tn.used[0] = c.used
		got, why := tn.cannotCatchUp(0, 1, c.left)
		if got != c.want || got != (why != "") {
			t.Errorf("%s: parked %v (%q), want %v", c.name, got, why, c.want)
		}
	}
}

// TestTurnsParkLagger: two workers take turns; worker 1 reports an
// objective far above worker 0's and never lowers it, so at the end of
// one of worker 0's turns it is parked: it makes no step until worker 0
// finishes, and then it is stopped (its stop function runs) before it
// gets the turn back.
func TestTurnsParkLagger(t *testing.T) {
	t.Parallel()
	tn := newTurns(time.Millisecond, time.Now().Add(time.Hour))
	stopped := make(chan struct{})
	tn.stop[1] = func() { close(stopped) }
	var mu sync.Mutex
	var log []int
	step := func(w int) {
		mu.Lock()
		log = append(log, w)
		mu.Unlock()
		time.Sleep(200 * time.Microsecond)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer tn.finish(1)
		for i := 0; i < 1000; i++ {
			tn.pause(1)
			select {
			case <-stopped:
				return
			default:
			}
			tn.report(1, 1000)
			step(1)
		}
	}()
	func() {
		defer tn.finish(0)
		for i := 0; i < 200; i++ {
			tn.pause(0)
			tn.report(0, 100-float64(i))
			step(0)
		}
	}()
	<-done
	select {
	case <-stopped:
	default:
		t.Fatal("the parked worker was not stopped")
	}
	if !tn.parked[1] || tn.parked[0] || !strings.Contains(tn.why[1], "continuous SGPR's turns went to CholQR") {
		t.Fatalf("parked %v, why %q", tn.parked, tn.why[1])
	}
	// After worker 1's last step, only worker 0 steps, to its end.
	last := slices.Index(log, 1)
	for i := len(log) - 1; i >= 0; i-- {
		if log[i] == 1 {
			last = i
			break
		}
	}
	n0 := 0
	for _, w := range log[last+1:] {
		if w != 0 {
			t.Fatalf("worker 1 stepped after being parked: %v", log)
		}
		n0++
	}
	if n0 == 0 || len(log)-200 >= 1000 {
		t.Errorf("%d steps of worker 0 after worker 1's last, %d of worker 1 in all", n0, len(log)-200)
	}
}

// TestHybridParkedParent runs a hybrid fit's parents in turns of one step
// each, with a parking rule that parks one parent after it has reached
// three objectives. A parked continuous parent: CholQR runs to its own
// end, then the parked parent is stopped (not resumed) and kept as a
// usable fit whose stop reason says why it was parked. A parked CholQR
// that has no convergence test (WithTolerance(0)): it resumes when
// continuous SGPR converges and ends on the time budget, with the reason,
// and the warning names the model the predictions use (the continuous
// fit, lower than CholQR's optimum here) rather than "the best state
// reached".
func TestHybridParkedParent(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(300, 2)
	const why = "parked by the test"
	for _, c := range []struct {
		parked int
		epochs int
		budget time.Duration
	}{{continuousTurn, 5, 10 * time.Minute}, {cholqrTurn, 1000, time.Second}} {
		var progress bytes.Buffer
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(10).WithSeed(1).
			WithMaxEpochs(c.epochs).WithSelector(SelectHybrid).WithTimeBudget(c.budget).WithProgress(&progress)
		if c.parked == cholqrTurn {
			md.WithTolerance(0)
		}
		ctx := context.Background()
		if err := md.buildContext(ctx); err != nil {
			t.Fatal(err)
		}
		h, err := md.newHybrid(md.newRun(ctx))
		if err != nil {
			t.Fatal(err)
		}
		defer h.cancel()
		h.setup = func(tn *turns) {
			tn.slice = 0 // a turn at every step
			tn.parks = func(lag, lead int, left time.Duration) (bool, string) {
				return lag == c.parked && len(tn.path[lag]) >= 3, why
			}
		}
		if err := h.parents(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(progress.String(), "hybrid: "+why) {
			t.Errorf("progress does not say the parent was parked:\n%s", progress.String())
		}
		cr := h.cr
		if c.parked == continuousTurn {
			if h.res.Status == TimeBudget || h.res.Reason == why {
				t.Errorf("CholQR ended %s, want its own end", h.res.Stopped())
			}
			if cr == nil || cr.Status != TimeBudget || cr.Reason != why || cr.Evals < 3 || cr.Evals > 50 {
				t.Fatalf("continuous parent %+v, want parked after 3 evaluations and stopped at CholQR's end\n%s", cr, progress.String())
			}
			if _, err := h.result(); err != nil {
				t.Error(err)
			}
			continue
		}
		if h.res.Status != TimeBudget || h.res.Reason != why || cr == nil || cr.Objective >= h.res.Objective {
			t.Fatalf("CholQR ended %s at %v, continuous parent %+v: want CholQR parked, the continuous fit lower", h.res.Stopped(), h.res.Objective, cr)
		}
		res, err := h.result()
		if err != nil {
			t.Fatal(err)
		}
		if res.CholQR == nil {
			t.Fatal("the kept refinement's Result has no CholQR parent")
		}
		all := strings.Join(res.CholQR.Warnings, "\n")
		if !strings.Contains(all, "CholQR did not converge (time budget: "+why+"); the predictions use the continuous fit") || strings.Contains(all, "best state reached") {
			t.Errorf("CholQR parent's warnings %q", res.CholQR.Warnings)
		}
		if top := strings.Join(res.Warnings, "\n"); strings.Contains(top, "CholQR did not converge") {
			t.Errorf("the model's warnings name its CholQR parent's: %q", res.Warnings)
		}
	}
}
