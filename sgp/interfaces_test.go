package sgp_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/cholqr/sgp/sgp"
	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// userRBF is a kernel type of another package with RBF's exported
// methods (and not its unexported ones, so kernel.Clone cannot copy it and
// the model keeps it as it is): the engine must reach its fast paths and
// its lengthscales through kernel's optional interfaces (BlockEvaluator,
// InputGradient, Lengthscaled), never by asserting *kernel.RBF.
type userRBF struct{ r *kernel.RBF }

func (u userRBF) NumParams() int                                  { return u.r.NumParams() }
func (u userRBF) ParamNames() []string                            { return u.r.ParamNames() }
func (u userRBF) Params(dst []float64) []float64                  { return u.r.Params(dst) }
func (u userRBF) SetParams(theta []float64)                       { u.r.SetParams(theta) }
func (u userRBF) Accepts(x kernel.Inputs) error                   { return u.r.Accepts(x) }
func (u userRBF) Variance() float64                               { return u.r.Variance() }
func (u userRBF) Lengthscales() []float64                         { return u.r.Lengthscales() }
func (u userRBF) Diag(dst []float64, x kernel.Inputs, lo, hi int) { u.r.Diag(dst, x, lo, hi) }
func (u userRBF) Column(dst []float64, x kernel.Inputs, lo, hi int, y kernel.Inputs, j int) {
	u.r.Column(dst, x, lo, hi, y, j)
}
func (u userRBF) AddGrad(grad, w []float64, x kernel.Inputs, lo, hi int, y kernel.Inputs, cols []int) {
	u.r.AddGrad(grad, w, x, lo, hi, y, cols)
}
func (u userRBF) AddDiagGrad(grad, w []float64, x kernel.Inputs, lo, hi int) {
	u.r.AddDiagGrad(grad, w, x, lo, hi)
}
func (u userRBF) CrossT(dst []float64, x, y kernel.Inputs, cols []int) { u.r.CrossT(dst, x, y, cols) }
func (u userRBF) AddGradBlockT(grad, w, kv []float64, x, y kernel.Inputs, cols []int) {
	u.r.AddGradBlockT(grad, w, kv, x, y, cols)
}
func (u userRBF) InputGradT(gz, wx, kx, wz, kz []float64, x, z *kernel.Vectors) {
	u.r.InputGradT(gz, wx, kx, wz, kz, x, z)
}

// TestEngineAssertsInterfaces fits SyntheticDiscrete (n = 500, m = 32),
// where CholQR's fit switches input 10 off and the switch-back search
// brings it back, with RBF and with userRBF: the same arithmetic, so the
// same objective bit for bit and the same inputs switched back on; and
// Continuous takes any kernel.InputGradient, with the same result for
// both.
func TestEngineAssertsInterfaces(t *testing.T) {
	t.Parallel()
	train, _ := data.SyntheticDiscrete(500, 10, 1)
	fit := func(k kernel.Kernel) *sgp.Result {
		res, err := sgp.NewModel(train.X, train.Y, k).WithM(32).WithSeed(1).WithMaxEpochs(30).Fit()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	plain := fit(kernel.NewRBFFromData(train.X, train.Y))
	user := fit(userRBF{kernel.NewRBFFromData(train.X, train.Y)})
	if !slices.Contains(plain.SwitchedOn, 10) {
		t.Fatalf("the RBF fit did not switch input 10 back on (%v): the test has lost its case", plain.SwitchedOn)
	}
	if math.Float64bits(user.Objective) != math.Float64bits(plain.Objective) || !slices.Equal(user.SwitchedOn, plain.SwitchedOn) {
		t.Errorf("userRBF: F %v, switched on %v; RBF: F %v, switched on %v", user.Objective, user.SwitchedOn, plain.Objective, plain.SwitchedOn)
	}

	z0 := train.X.Rows([]int{0, 50, 100, 150, 200, 250, 300, 350})
	cont := func(k kernel.InputGradient) *sgp.ContinuousResult {
		cr, err := sgp.NewContinuous(train.X, train.Y, k).WithInducingInputs(z0).WithNoise(0.1).WithObjective(sgp.VAR).WithMaxEvals(40).WithJitter(1e-6).FitContext(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return cr
	}
	cp, cu := cont(kernel.NewRBFFromData(train.X, train.Y)), cont(userRBF{kernel.NewRBFFromData(train.X, train.Y)})
	if !(cp.Objective < cp.Start) || math.Float64bits(cu.Objective) != math.Float64bits(cp.Objective) {
		t.Errorf("NewContinuous: RBF %v → %v, userRBF → %v", cp.Start, cp.Objective, cu.Objective)
	}
}
