package sgp

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/data"
	"github.com/cholqr/sgp/sgp/kernel"
)

// TestStartNoiseOnEveryPath checks that the model's θ read before
// building it, the built model, the exact GP and continuous SGPR all
// start the noise at var(y)/4, and at 1/4 (finite and positive) for
// targets that are all equal, whose variance is 0.
func TestStartNoiseOnEveryPath(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(40, 1)
	constant := make([]float64, train.X.Len())
	for i := range constant {
		constant[i] = 2.5
	}
	var s, ss float64
	for _, v := range train.Y {
		s += v
	}
	mean := s / float64(len(train.Y))
	for _, v := range train.Y {
		ss += (v - mean) * (v - mean)
	}
	for _, c := range []struct {
		name string
		y    []float64
		want float64
	}{
		{"spread", train.Y, ss / float64(len(train.Y)) / 4},
		{"constant", constant, 0.25},
	} {
		k := kernel.NewRBF(1, []float64{1})
		paths := map[string]func() ([]float64, error){
			"Model.Params unbuilt": func() ([]float64, error) {
				return NewModel(train.X, c.y, k).WithM(8).Params(), nil
			},
			"Model built": func() ([]float64, error) {
				md := NewModel(train.X, c.y, k).WithM(8).WithFixedHyperparameters(true)
				if err := md.Build(context.Background()); err != nil {
					return nil, err
				}
				return md.Params(), nil
			},
			"Exact": func() ([]float64, error) {
				res, err := NewExact(train.X, c.y, k).WithFixedHyperparameters(true).Fit()
				if err != nil {
					return nil, err
				}
				return res.Params, nil
			},
			"Continuous": func() ([]float64, error) {
				res, err := NewContinuous(train.X, c.y, k).WithM(8).WithFixedHyperparameters(true).WithMaxEvals(1).Fit()
				if err != nil {
					return nil, err
				}
				return res.Params, nil
			},
		}
		for name, path := range paths {
			p, err := path()
			if err != nil {
				t.Errorf("%s, %s targets: %v", name, c.name, err)
				continue
			}
			got := math.Exp(p[len(p)-1])
			if !(got > 0) || math.IsInf(got, 0) || math.Abs(got-c.want) > 1e-12*c.want {
				t.Errorf("%s, %s targets: starting σ² = %v, want %v", name, c.name, got, c.want)
			}
		}
	}
}

// TestBuildersRefuseBadOptions checks that Model, Exact and Continuous
// refuse the same bad values of the options they share, each with the
// same message from Err, and accept the good ones.
func TestBuildersRefuseBadOptions(t *testing.T) {
	t.Parallel()
	train, _ := data.SnelsonLike(40, 1)
	k := kernel.NewRBF(1, []float64{1})
	model := func() *Model { return NewModel(train.X, train.Y, k) }
	exact := func() *Exact { return NewExact(train.X, train.Y, k) }
	cont := func() *Continuous { return NewContinuous(train.X, train.Y, k) }
	type builders map[string]func() error
	for _, c := range []struct {
		option string
		bad    builders // each sets the bad value and returns Err
		good   builders // each sets a good value and returns Err
	}{
		{"time budget -1s", builders{
			"Model":      func() error { return model().WithTimeBudget(-time.Second).Err() },
			"Exact":      func() error { return exact().WithTimeBudget(-time.Second).Err() },
			"Continuous": func() error { return cont().WithTimeBudget(-time.Second).Err() },
		}, builders{
			"Model":      func() error { return model().WithTimeBudget(0).Err() },
			"Exact":      func() error { return exact().WithTimeBudget(time.Second).Err() },
			"Continuous": func() error { return cont().WithTimeBudget(time.Second).Err() },
		}},
		{"noise 0", builders{
			"Model":      func() error { return model().WithNoise(0).Err() },
			"Exact":      func() error { return exact().WithNoise(0).Err() },
			"Continuous": func() error { return cont().WithNoise(0).Err() },
		}, builders{
			"Model":      func() error { return model().WithNoise(0.1).Err() },
			"Exact":      func() error { return exact().WithNoise(0.1).Err() },
			"Continuous": func() error { return cont().WithNoise(0.1).Err() },
		}},
		{"noise NaN", builders{
			"Model":      func() error { return model().WithNoise(math.NaN()).Err() },
			"Exact":      func() error { return exact().WithNoise(math.NaN()).Err() },
			"Continuous": func() error { return cont().WithNoise(math.NaN()).Err() },
		}, nil},
		{"noise +Inf", builders{
			"Model":      func() error { return model().WithNoise(math.Inf(1)).Err() },
			"Exact":      func() error { return exact().WithNoise(math.Inf(1)).Err() },
			"Continuous": func() error { return cont().WithNoise(math.Inf(1)).Err() },
		}, nil},
		{"noise floor -1", builders{
			"Model":      func() error { return model().WithNoiseFloor(-1).Err() },
			"Exact":      func() error { return exact().WithNoiseFloor(-1).Err() },
			"Continuous": func() error { return cont().WithNoiseFloor(-1).Err() },
		}, builders{
			"Model":      func() error { return model().WithNoiseFloor(0).Err() },
			"Exact":      func() error { return exact().WithNoiseFloor(1e-3).Err() },
			"Continuous": func() error { return cont().WithNoiseFloor(1e-3).Err() },
		}},
		{"noise floor +Inf", builders{
			"Model":      func() error { return model().WithNoiseFloor(math.Inf(1)).Err() },
			"Exact":      func() error { return exact().WithNoiseFloor(math.Inf(1)).Err() },
			"Continuous": func() error { return cont().WithNoiseFloor(math.Inf(1)).Err() },
		}, nil},
		{"m 0", builders{
			"Model":      func() error { return model().WithM(0).Err() },
			"Continuous": func() error { return cont().WithM(0).Err() },
		}, builders{
			"Model":      func() error { return model().WithM(5).Err() },
			"Continuous": func() error { return cont().WithM(5).Err() },
		}},
		{"m n", builders{
			"Model":      func() error { return model().WithM(40).Err() },
			"Continuous": func() error { return cont().WithM(40).Err() },
		}, nil},
		{"objective 99", builders{
			"Model":      func() error { return model().WithObjective(Objective(99)).Err() },
			"Continuous": func() error { return cont().WithObjective(Objective(99)).Err() },
		}, builders{
			"Model":      func() error { return model().WithObjective(MLE).Err() },
			"Continuous": func() error { return cont().WithObjective(MLE).Err() },
		}},
		{"max evaluations 0", builders{
			"Exact":      func() error { return exact().WithMaxEvals(0).Err() },
			"Continuous": func() error { return cont().WithMaxEvals(0).Err() },
		}, builders{
			"Exact":      func() error { return exact().WithMaxEvals(1).Err() },
			"Continuous": func() error { return cont().WithMaxEvals(1).Err() },
		}},
		{"max epochs 0", builders{
			"Model": func() error { return model().WithMaxEpochs(0).Err() },
		}, builders{
			"Model": func() error { return model().WithMaxEpochs(1).Err() },
		}},
		{"jitter -1", builders{
			"Continuous": func() error { return cont().WithJitter(-1).Err() },
		}, builders{
			"Continuous": func() error { return cont().WithJitter(1e-6).Err() },
		}},
	} {
		msg, first := "", ""
		for name, b := range c.bad {
			err := b()
			if err == nil {
				t.Errorf("%s: %s accepted it", c.option, name)
				continue
			}
			if first == "" {
				msg, first = err.Error(), name
			} else if err.Error() != msg {
				t.Errorf("%s: %s says %q, %s says %q", c.option, first, msg, name, err)
			}
		}
		for name, b := range c.good {
			if err := b(); err != nil {
				t.Errorf("%s: %s refused a good value: %v", c.option, name, err)
			}
		}
	}
}

// TestDefaultMIsEveryBuilders checks that a Model and a Continuous
// without WithM take DefaultM(n) inducing points.
func TestDefaultMIsEveryBuilders(t *testing.T) {
	t.Parallel()
	for _, n := range []int{3, 40, 199, 201} {
		train, _ := data.SnelsonLike(n, 1)
		k := kernel.NewRBF(1, []float64{1})
		res, err := NewModel(train.X, train.Y, k).WithFixedHyperparameters(true).WithMaxEpochs(1).Fit()
		if err != nil {
			t.Fatalf("n=%d: Model: %v", n, err)
		}
		if res.M != DefaultM(n) {
			t.Errorf("n=%d: Model took m = %d, DefaultM says %d", n, res.M, DefaultM(n))
		}
		cr, err := NewContinuous(train.X, train.Y, k).WithJitter(1e-6).WithFixedHyperparameters(true).WithMaxEvals(1).Fit()
		if err != nil {
			t.Fatalf("n=%d: Continuous: %v", n, err)
		}
		if cr.Z.Len() != DefaultM(n) {
			t.Errorf("n=%d: Continuous took m = %d, DefaultM says %d", n, cr.Z.Len(), DefaultM(n))
		}
	}
}
