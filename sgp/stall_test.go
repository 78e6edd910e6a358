package sgp

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"

	"github.com/cholqr/sgp/sgp/data"
)

// faultyKernel is an RBF kernel (held, not embedded, so that only the
// Kernel methods below are seen) that goes wrong in one way, to force the
// gradient phase to fail.
type faultyKernel struct {
	inner  *kernel.RBF
	theta0 []float64
	off    bool // θ differs from theta0
	fault  string
}

func newFaultyKernel(fault string) *faultyKernel {
	k := kernel.NewRBF(1, []float64{0.5})
	return &faultyKernel{inner: k, theta0: k.Params(nil), fault: fault}
}

func (k *faultyKernel) NumParams() int                 { return k.inner.NumParams() }
func (k *faultyKernel) ParamNames() []string           { return k.inner.ParamNames() }
func (k *faultyKernel) Params(dst []float64) []float64 { return k.inner.Params(dst) }
func (k *faultyKernel) Accepts(x kernel.Inputs) error  { return k.inner.Accepts(x) }
func (k *faultyKernel) SetParams(theta []float64) {
	k.inner.SetParams(theta)
	k.off = !slices.Equal(theta, k.theta0)
}
func (k *faultyKernel) nanValues() bool { return k.fault == "NaN values off the start" && k.off }
func (k *faultyKernel) fill(dst []float64, v float64) {
	for i := range dst {
		dst[i] = v
	}
}
func (k *faultyKernel) Diag(dst []float64, x kernel.Inputs, lo, hi int) {
	k.inner.Diag(dst, x, lo, hi)
	if k.nanValues() {
		k.fill(dst[:hi-lo], math.NaN())
	}
}

func (k *faultyKernel) Column(dst []float64, x kernel.Inputs, lo, hi int, y kernel.Inputs, j int) {
	k.inner.Column(dst, x, lo, hi, y, j)
	if k.nanValues() {
		k.fill(dst[:hi-lo], math.NaN())
	}
}

// addGrad applies the fault to the gradient add computes.
func (k *faultyKernel) addGrad(grad []float64, add func(g []float64)) {
	switch k.fault {
	case "NaN gradient":
		add(grad)
		k.fill(grad, math.NaN())
	case "wrong-sign gradient":
		tmp := make([]float64, len(grad))
		add(tmp)
		for i := range grad {
			grad[i] -= tmp[i]
		}
	default:
		add(grad)
	}
}

func (k *faultyKernel) AddGrad(grad, w []float64, x kernel.Inputs, lo, hi int, y kernel.Inputs, cols []int) {
	k.addGrad(grad, func(g []float64) { k.inner.AddGrad(g, w, x, lo, hi, y, cols) })
}

func (k *faultyKernel) AddDiagGrad(grad, w []float64, x kernel.Inputs, lo, hi int) {
	k.addGrad(grad, func(g []float64) { k.inner.AddDiagGrad(g, w, x, lo, hi) })
}

// TestFitStalls forces the gradient phase to fail in every epoch — kernel
// values that turn NaN as soon as the hyperparameters move, a NaN
// gradient, a gradient of the wrong sign — from hyperparameters far from
// the optimum. The objective then stops decreasing while the gradient is
// not small: Fit must end with Status Stalled and Converged false
// (epochs.go's runEpochs and cgHealthy), never "converged", with the
// model still usable.
func TestFitStalls(t *testing.T) {
	t.Parallel()
	train, test := data.SnelsonLike(300, 2)
	for _, fault := range []string{"NaN values off the start", "NaN gradient", "wrong-sign gradient"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			k := newFaultyKernel(fault)
			var statuses []CGStop
			md := NewModel(train.X, train.Y, k).WithM(8).WithSeed(2).WithMaxEpochs(40).
				WithEpochFunc(func(r EpochRecord) { statuses = append(statuses, r.CGStatus) })
			res, err := md.Fit()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d epochs, stopped %q, CG statuses %v", fault, res.Epochs, stopText(res.Status, res.Reason), statuses)
			if res.Status != Stalled || res.Converged {
				t.Errorf("stopped %q, converged %v; want stalled and not converged", stopText(res.Status, res.Reason), res.Converged)
			}
			if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "did not converge") }) {
				t.Errorf("no warning that the fit did not converge: %q", res.Warnings)
			}
			// The model keeps a finite state and predicts.
			if !slices.Equal(md.Params()[:k.NumParams()], k.theta0) && fault == "NaN values off the start" {
				t.Errorf("θ moved to %v where the kernel is NaN", md.Params())
			}
			mean, vr, err := md.Predict(test.X)
			if err != nil || math.IsNaN(mean[0]) || math.IsNaN(vr[0]) || math.IsNaN(res.Objective) {
				t.Errorf("after the stall: objective %v, prediction %v %v, %v", res.Objective, mean[0], vr[0], err)
			}
		})
	}
}
