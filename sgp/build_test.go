package sgp

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// columnClock is a kernel that counts the columns evaluated through it
// and records when it evaluated the first and the last. It has only the
// methods of kernel.Kernel, so the model uses it as given.
type columnClock struct {
	kernel.Kernel
	columns     atomic.Int64
	first, last atomic.Int64 // UnixNano
}

func (k *columnClock) Column(dst []float64, x kernel.Inputs, lo, hi int, y kernel.Inputs, j int) {
	now := time.Now().UnixNano()
	k.first.CompareAndSwap(0, now)
	k.last.Store(now)
	k.columns.Add(1)
	k.Kernel.Column(dst, x, lo, hi, y, j)
}

// TestErrOnlyValidates: Err checks the configuration without building the
// model (no kernel column is evaluated), so the forward-selection start is
// chosen inside Fit, within its time budget: Result.Elapsed covers every
// kernel evaluation of the fit, the start's included.
func TestErrOnlyValidates(t *testing.T) {
	train, _ := data.SnelsonLike(2000, 1)
	k := &columnClock{Kernel: kernel.NewRBFFromData(train.X, train.Y)}
	md := NewModel(train.X, train.Y, k).WithM(32).WithMaxEpochs(1).WithFixedHyperparameters(true)
	if err := md.Err(); err != nil {
		t.Fatal(err)
	}
	if c := k.columns.Load(); c != 0 {
		t.Fatalf("Err evaluated %d kernel columns: it built the model", c)
	}
	res, err := md.Fit()
	if err != nil {
		t.Fatal(err)
	}
	span := time.Duration(k.last.Load() - k.first.Load())
	if res.Elapsed < span {
		t.Errorf("Result.Elapsed %v is shorter than the span of the fit's kernel evaluations, %v: the start was chosen outside Fit", res.Elapsed, span)
	}
}

// TestBuild: Build chooses and factorises the starting set, which the
// accessors then read without building again; with a cancelled context
// the forward start completes its set at random and Build returns the
// context's error.
func TestBuild(t *testing.T) {
	train, _ := data.SnelsonLike(300, 2)
	k := &columnClock{Kernel: kernel.NewRBFFromData(train.X, train.Y)}
	md := NewModel(train.X, train.Y, k).WithM(12)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := md.Build(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Build with a cancelled context: %v", err)
	}
	if md.f == nil || md.f.NumActive() == 0 {
		t.Fatal("a cancelled Build did not complete the starting set")
	}
	k = &columnClock{Kernel: kernel.NewRBFFromData(train.X, train.Y)}
	md = NewModel(train.X, train.Y, k).WithM(12)
	if err := md.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	idx, err := md.Inducing()
	if err != nil || len(idx) == 0 || len(idx) > 12 {
		t.Fatalf("after Build: %d inducing points, err %v", len(idx), err)
	}
	built := k.columns.Load()
	if _, err := md.Value(); err != nil || k.columns.Load() != built {
		t.Errorf("Value after Build evaluated %d more columns (err %v)", k.columns.Load()-built, err)
	}
}

// TestMRule: the number of inducing points follows one rule, 1 ≤ m < n,
// whichever way it is set (WithM, WithInducing, the default), checked by
// Err and by the methods that build; the error for m ≥ n points to the
// exact GP, and a later valid WithM replaces an invalid one.
func TestMRule(t *testing.T) {
	train, _ := data.SnelsonLike(20, 1)
	k := kernel.NewRBFFromData(train.X, train.Y)
	all := make([]int, 20)
	for i := range all {
		all[i] = i
	}
	one, _ := data.SnelsonLike(1, 1)
	for name, md := range map[string]*Model{
		"m=0":              NewModel(train.X, train.Y, k).WithM(0),
		"m=n":              NewModel(train.X, train.Y, k).WithM(20),
		"m>n":              NewModel(train.X, train.Y, k).WithM(21),
		"no inducing":      NewModel(train.X, train.Y, k).WithInducing([]int{}),
		"every point":      NewModel(train.X, train.Y, k).WithInducing(all),
		"default with n=1": NewModel(one.X, one.Y, k),
	} {
		err := md.Err()
		if err == nil || !strings.Contains(err.Error(), "1 ≤ m < n=") {
			t.Errorf("%s: Err %v, want the rule 1 ≤ m < n", name, err)
			continue
		}
		if _, ferr := md.Fit(); ferr == nil || ferr.Error() != err.Error() {
			t.Errorf("%s: Fit %v, Err %v", name, ferr, err)
		}
		if md.m >= md.x.Len() && !strings.Contains(err.Error(), "exact GP") {
			t.Errorf("%s: %v does not point to the exact GP", name, err)
		}
	}
	if err := NewModel(train.X, train.Y, k).WithM(20).WithM(5).Err(); err != nil {
		t.Errorf("WithM(20) then WithM(5): %v", err)
	}
}
