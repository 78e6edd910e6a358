package sgp

import (
	"errors"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"

	"github.com/cholqr/sgp/sgp/internal/cholqr"
	"gonum.org/v1/gonum/mat"
)

// TestCGLendsFactorStorage: during the gradient phase the factor's G and Q
// hold the Evaluator's matrices and the factor is invalid; an interrupt
// in the middle of the phase still leaves a factor equal to a rebuild
// from scratch at the parameters reached.
func TestCGLendsFactorStorage(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(400, 12)
	stop := errors.New("interrupted")
	var md *Model
	calls, invalid := 0, 0
	md = NewModel(train.X, train.Y, kernel.NewRBFFromData(train.X, train.Y)).WithM(15).WithMaxEpochs(1).
		WithInterrupt(func() error {
			calls++
			if !md.f.Ready() {
				invalid++
			}
			if calls > 8 {
				return stop
			}
			return nil
		})
	res, err := md.Fit()
	if !errors.Is(err, stop) || res.Status != Cancelled {
		t.Fatalf("err %v, stopped %q", err, stopText(res.Status, res.Reason))
	}
	if invalid == 0 {
		t.Error("the factor stayed valid during the gradient phase")
	}
	v, err := md.Value()
	if err != nil {
		t.Fatal(err)
	}
	active := md.f.Active(nil)
	g := md.f.GMatrix()
	fresh, err := cholqr.New(train.X, train.Y, md.kern, md.f.Noise(), 15, md.z)
	if err != nil {
		t.Fatal(err)
	}
	fresh.SetPrior(md.mean.prior(md.y))
	fresh.SetMean(md.f.Mean())
	if err := fresh.Factorize(active); err != nil {
		t.Fatal(err)
	}
	if w := fresh.Value(md.obj); math.Abs(v-w) > 1e-10*math.Abs(w) {
		t.Errorf("objective %v after the interrupted phase, %v rebuilt", v, w)
	}
	if !mat.EqualApprox(fresh.GMatrix(), g, 1e-10) {
		t.Fatalf("G after the interrupted phase differs from G rebuilt by more than 1e-10")
	}
}

// TestCGPanicRestoresStart: a panic that ends the gradient phase (here a
// user's kernel failing when the factor is rebuilt after it) leaves the
// model at the hyperparameters and objective it had before the phase,
// rebuilt on its next use.
func TestCGPanicRestoresStart(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(400, 13)
	var fail atomic.Bool
	f := func(x kernel.Inputs, i int, y kernel.Inputs, j int) float64 {
		if fail.Load() {
			panic("kernel failed")
		}
		a, b := x.(*kernel.Vectors).Row(i)[0], y.(*kernel.Vectors).Row(j)[0]
		return math.Exp(-0.5 * (a - b) * (a - b))
	}
	calls := 0
	md := NewModel(train.X, train.Y, kernel.NewFunc(f, 1)).WithM(15).WithMaxEpochs(1).
		WithInterrupt(func() error {
			if calls++; calls == 14 {
				fail.Store(true)
			}
			return nil
		})
	v0, err := md.Value()
	if err != nil {
		t.Fatal(err)
	}
	theta0 := md.Params()
	var pe *PanicError
	if _, err := md.Fit(); !errors.As(err, &pe) || !strings.Contains(err.Error(), "kernel failed") {
		t.Fatalf("err %v, want the kernel's PanicError", err)
	}
	if !md.stale {
		t.Error("the model is not stale after a panic in the gradient phase")
	}
	fail.Store(false)
	if th := md.Params(); !slices.Equal(th, theta0) {
		t.Errorf("θ %v after the panic, %v before", th, theta0)
	}
	v, err := md.Value()
	if err != nil || math.Abs(v-v0) > 1e-12*math.Abs(v0) {
		t.Fatalf("objective %v (err %v) after the panic, %v before", v, err, v0)
	}
	if _, err := md.Step(); err != nil {
		t.Fatal(err)
	}
}
