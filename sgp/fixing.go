package sgp

import "math"

// WithFixed holds the hyperparameter called name (as Hyperparameters and
// FitSummary.Names name it: "noise", "lengthscale[0]", "k0.period[0]")
// at its starting value: the optimiser sees only the free ones, and the
// fixed θ is the start's bit for bit at the end of a fit, in its restarts
// and in the saved model. An unknown name is an error of Err and Fit
// that lists the names and suggests the closest. Fixing every
// hyperparameter is WithFixedHyperparameters(true); a fixed noise is used
// as given, below the noise floor too. The package documentation ("Fixed
// and bounded hyperparameters") has the rules.
func (md *Model) WithFixed(name string) *Model { return md.withCons(md.cons.fix(name)) }

// WithFixedAt sets the starting value of the hyperparameter called name
// to value and fixes it there, as WithFixed; FitSummary.Fixed and
// Hyperparameters report value exactly. The value is in the data's
// units: a noise or signal variance in the targets' units squared, a
// lengthscale or period in its input's.
func (md *Model) WithFixedAt(name string, value float64) *Model {
	if err := md.cons.fixAt(name, value); err != nil {
		return md.setErr(err)
	}
	if name == "noise" {
		md.noise = value
	}
	md.reset()
	return md
}

// WithBounds keeps the hyperparameter called name within lo ≤ value ≤ hi
// (0 < lo < hi, in the data's units): the optimiser works in a scaled
// logistic coordinate of log value that cannot leave them, a start
// outside the bounds (or on one) starts 1% of their log width inside,
// restarts draw within them, and the result says which bounded
// hyperparameters ended at a bound (FitSummary.Bounds, a warning). A
// lower bound on the noise below the noise floor is raised to the floor;
// an upper bound at or below it is an error.
func (md *Model) WithBounds(name string, lo, hi float64) *Model {
	return md.withCons(md.cons.bound(name, lo, hi))
}

// withCons keeps err, or discards the built state after a change of the
// constraints.
func (md *Model) withCons(err error) *Model {
	if err != nil {
		return md.setErr(err)
	}
	md.reset()
	return md
}

// resolved returns the model's constraints by θ index, nil if there are
// none or their names are unknown (validate reports that).
func (md *Model) resolved() *resolved {
	if md.cons.empty() || md.kern == nil {
		return nil
	}
	r, err := md.cons.resolve(kernelNames(md.kern))
	if err != nil {
		return nil
	}
	if md.f != nil {
		r.withStartNoise(md.f.Noise()) // a fixed noise keeps its start exactly
	}
	return r
}

// allFixed reports whether no hyperparameter is optimised: with
// WithFixedHyperparameters, or every one fixed by WithFixed.
func (md *Model) allFixed() bool {
	if md.fixHyper {
		return true
	}
	r := md.resolved()
	return r != nil && r.allFixed()
}

// noiseFixed reports whether the noise variance is not optimised.
func (md *Model) noiseFixed() bool {
	if md.fixHyper {
		return true
	}
	r := md.resolved()
	return r != nil && r.noiseFixed()
}

// constrainStart sets the model's starting kernel hyperparameters to the
// fixed values given and moves the bounded ones inside their bounds, and
// returns the starting noise variance noise so constrained.
func (md *Model) constrainStart(noise float64) (float64, error) {
	r := md.resolved()
	if r == nil {
		return noise, nil
	}
	if err := r.checkFloor(md.floor()); err != nil {
		return 0, err
	}
	np := md.kern.NumParams()
	th := r.start(append(md.kern.Params(nil), math.Log(noise)), md.floor())
	md.kern.SetParams(th[:np])
	switch {
	case r.fixed[np] && r.value[np] > 0:
		return r.value[np], nil
	case r.bounded[np]:
		return math.Exp(th[np]), nil
	}
	return noise, nil
}

// setLogNoise sets the factor's noise variance to exp(t), unless t is
// already its log: a fixed noise keeps its value bit for bit, which
// exp(log σ²) need not give back.
func (md *Model) setLogNoise(t float64) {
	if t != math.Log(md.f.Noise()) {
		md.f.SetNoiseOnly(math.Exp(t))
	}
}

// WithFixed holds the hyperparameter called name at its starting value,
// as Model.WithFixed does.
func (e *Exact) WithFixed(name string) *Exact {
	if err := e.cons.fix(name); err != nil {
		return e.setErr(err)
	}
	return e
}

// WithFixedAt sets the starting value of the hyperparameter called name
// to value and fixes it there, as Model.WithFixedAt does.
func (e *Exact) WithFixedAt(name string, value float64) *Exact {
	if err := e.cons.fixAt(name, value); err != nil {
		return e.setErr(err)
	}
	return e
}

// WithBounds keeps the hyperparameter called name within lo ≤ value ≤
// hi, as Model.WithBounds does.
func (e *Exact) WithBounds(name string, lo, hi float64) *Exact {
	if err := e.cons.bound(name, lo, hi); err != nil {
		return e.setErr(err)
	}
	return e
}

// WithFixed holds the hyperparameter called name at its starting value,
// as Model.WithFixed does; the inducing inputs still move.
func (c *Continuous) WithFixed(name string) *Continuous {
	if err := c.cons.fix(name); err != nil {
		return c.setErr(err)
	}
	return c
}

// WithFixedAt sets the starting value of the hyperparameter called name
// to value and fixes it there, as Model.WithFixedAt does.
func (c *Continuous) WithFixedAt(name string, value float64) *Continuous {
	if err := c.cons.fixAt(name, value); err != nil {
		return c.setErr(err)
	}
	return c
}

// WithBounds keeps the hyperparameter called name within lo ≤ value ≤
// hi, as Model.WithBounds does.
func (c *Continuous) WithBounds(name string, lo, hi float64) *Continuous {
	if err := c.cons.bound(name, lo, hi); err != nil {
		return c.setErr(err)
	}
	return c
}
