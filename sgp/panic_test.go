package sgp

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/par"
	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// TestKernelPanicBecomesError: a user's kernel function that indexes out
// of range for one row, at n = 3000 (so that kernel columns are evaluated
// on several goroutines), makes the public calls return a *PanicError
// instead of ending the process; the model refactorises and is usable
// once the kernel behaves.
func TestKernelPanicBecomesError(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Log("one CPU: the panic happens on the calling goroutine only")
	}
	train, test := data.SnelsonLike(3000, 4)
	var bad atomic.Int64
	bad.Store(-1)
	short := []float64{1, 2, 3}
	f := func(x kernel.Inputs, i int, y kernel.Inputs, j int) float64 {
		if int64(i) == bad.Load() || int64(j) == bad.Load() {
			return short[i] // index out of range
		}
		a, b := x.(*kernel.Vectors).Row(i)[0], y.(*kernel.Vectors).Row(j)[0]
		return math.Exp(-0.5 * (a - b) * (a - b))
	}
	md := NewModel(train.X, train.Y, kernel.NewFunc(f, 1)).WithM(8).WithSeed(3).WithMaxEpochs(2).WithFixedHyperparameters(true)
	if _, err := md.Value(); err != nil {
		t.Fatal(err)
	}
	bad.Store(1500)
	var pe *PanicError
	_, err := md.Fit()
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("Fit with a failing kernel: error %v, want a PanicError", err)
	}
	if _, _, err := md.Predict(test.X); err == nil {
		// Predictions evaluate the kernel at the inducing points only:
		// they fail only if row 1500 is inducing. Either way, no crash.
		t.Log("Predict did not touch row 1500")
	}
	// The process lives, and the model works again once the kernel does.
	bad.Store(-1)
	res, err := md.Fit()
	if err != nil {
		t.Fatalf("Fit after the failure: %v", err)
	}
	if v, err := md.Value(); err != nil || math.Abs(v-res.Objective) > 1e-9*math.Abs(v) {
		t.Fatalf("objective %v (err %v), result %v", v, err, res.Objective)
	}
	if _, _, err := md.Predict(test.X); err != nil {
		t.Fatal(err)
	}
}

// TestInterruptPanicBecomesError: an interrupt function that panics in
// the middle of a fit — in the gradient phase, where it runs on
// gonum/optimize's goroutine, and between swaps — makes Fit return a
// *PanicError instead of ending the process, and the model fits again
// once the function behaves.
func TestInterruptPanicBecomesError(t *testing.T) {
	train, _ := data.SnelsonLike(300, 5)
	for _, after := range []int64{3, 40} { // inside the first CG phase; later, between swaps or evaluations
		var calls atomic.Int64
		md := NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(15).WithSeed(1).WithMaxEpochs(5).
			WithInterrupt(func() error {
				if calls.Add(1) == after {
					panic("interrupt handler failed")
				}
				return nil
			})
		_, err := md.Fit()
		var pe *PanicError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "interrupt handler failed") {
			t.Fatalf("after %d calls: got %v, want a *PanicError", after, err)
		}
		if res, err := md.Fit(); err != nil || res.Epochs == 0 {
			t.Fatalf("after %d calls: the model does not fit again: %v", after, err)
		}
	}
}

// TestPanicErrorIsParsPanic: the panic a row-parallel loop captures on
// one of its goroutines (par.Panic) is the PanicError a public call
// returns, one type: errors.As finds it with its rows, and Unwrap reaches
// a panic value that is an error.
func TestPanicErrorIsParsPanic(t *testing.T) {
	t.Parallel()
	sentinel := errors.New("the kernel failed")
	err := func() (err error) {
		defer base.RecoverTo(&err)
		par.For(1000, 10, func(lo, hi int) {
			if lo <= 500 && 500 < hi {
				panic(sentinel)
			}
		})
		return nil
	}()
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v (%T), want a *PanicError", err, err)
	}
	var pp *par.Panic = pe
	if pp.Lo > 500 || pp.Hi <= 500 || !errors.Is(err, sentinel) {
		t.Errorf("got rows [%d, %d) and %v; want the rows of 500 and the kernel's error", pp.Lo, pp.Hi, err)
	}
}
