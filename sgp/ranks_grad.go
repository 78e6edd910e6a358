package sgp

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/cholqr"
	"github.com/cholqr/sgp/sgp/kernel"
)

// ranksGrad is the gradient phase of FitRanks: the hyperparameters
// learned, the same on every rank.
type ranksGrad struct {
	c      *comm.Comm
	x      *kernel.Vectors // this rank's rows (nil: none)
	y      []float64
	lo     int
	kern   kernel.Kernel
	noise  float64 // σ², exactly as the factor holds it
	obj    Objective
	mean   Mean
	rs     *resolved // the hyperparameters held by name (nil: none)
	floor  float64
	budget int
	evals  int
	status CGStop
}

// newRanksGrad returns FitRanks' gradient phase, or nil when every
// hyperparameter is held, with σ² kept above floor (startRanks').
func newRanksGrad(c *comm.Comm, x *kernel.Vectors, y []float64, lo int, kern kernel.Kernel, noise, floor float64, o *RanksOptions) (*ranksGrad, error) {
	if !o.Learn {
		if len(o.Fixed) > 0 {
			return nil, errors.New("sgp: FitRanks: Fixed names hyperparameters held while the others are learned; set Learn")
		}
		return nil, nil
	}
	g := &ranksGrad{c: c, x: x, y: y, lo: lo, kern: kern, noise: noise, obj: o.Objective, mean: o.Mean, floor: floor, budget: o.CGEvals}
	if len(o.Fixed) > 0 {
		var cons constraints
		for _, name := range o.Fixed {
			if err := cons.fix(name); err != nil {
				return nil, err
			}
		}
		rs, err := cons.resolve(append(kern.ParamNames(), "noise"))
		if err != nil {
			return nil, err
		}
		if rs.allFixed() {
			return nil, nil
		}
		g.rs = rs
	}
	if g.budget == 0 {
		g.budget = min(20, max(15, 2*(kern.NumParams()+1)))
	}
	return g, nil
}

// noiseHeld reports whether r (nil: nothing held) holds the noise.
func (r *resolved) noiseHeld() bool { return r != nil && r.noiseFixed() }

// theta returns θ: the kernel's log parameters and log σ².
func (g *ranksGrad) theta() []float64 { return append(g.kern.Params(nil), math.Log(g.noise)) }

// phase runs one gradient phase on d's inducing set, as Model.continuous
// in one process: CG over the free hyperparameters from the current θ,
// every evaluation collective (newActiveEvaluatorOn on the factor's
// lent storage, Dist.Lend), then rebuilds d at the best point seen where
// that lowers the objective, at the start otherwise. Every rank sees the
// same values, so gonum takes the same steps on each; a context done on
// some rank ends the phase on all (one comm.Any per stop check).
func (g *ranksGrad) phase(ctx context.Context, d *cholqr.Dist) error {
	active := d.Active(nil)
	m, np := len(active), g.kern.NumParams()
	theta0, noise0 := g.theta(), g.noise
	start := d.Value(g.obj)
	data := d.InducingInputs()
	xI, err := kernel.NewVectors(m, len(data)/m, data)
	if err != nil {
		return err
	}
	x := g.x
	if x == nil {
		x = xI.Rows(nil)
	}
	gt, kval := d.Lend()
	ev := newActiveEvaluatorOn(g.c, x, g.y, g.lo, d.N(), g.kern, g.obj, active, xI, gt[:m*x.Len()], kval[:m*x.Len()])
	if g.mean.Estimated() {
		ev.SetMean(g.mean)
	} else {
		ev.SetMean(MeanFixed(g.mean.fixedValue()))
	}
	if g.rs.noiseHeld() {
		ev.exactNoise = g.noise
	}
	var stopped bool
	stop := func() error {
		if !stopped {
			stopped = g.c.Any(ctx.Err() != nil)
		}
		if stopped {
			return context.Canceled
		}
		return nil
	}
	nm := newParamMap(g.rs, theta0, g.floor)
	nx := nm.dim()
	x0 := nm.toX(make([]float64, nx), theta0)
	p := &cgProblem{
		stop: stop, ev: ev, nm: nm,
		x: make([]float64, nx), g: make([]float64, nx), th: make([]float64, np+1), gθ: make([]float64, np+1),
		best: slices.Clone(x0), bestG: make([]float64, nx),
		bestF: math.Inf(1), budget: g.budget, cap: &stepCap{}, logScale: d.LogScale(), n: d.N(),
	}
	res, optErr := p.minimize(x0)
	g.evals += p.evals
	g.status = p.status(res, optErr, stopped)
	if p.startValid() && p.bestF <= p.firstF && !slices.Equal(p.best, x0) {
		best := nm.toTheta(make([]float64, np+1), p.best)
		s2 := g.noise
		if !g.rs.noiseHeld() {
			s2 = math.Exp(best[np])
		}
		if g.settle(d, best, s2) == nil && !(d.Value(g.obj) > start+1e-9*d.ValueScale(start)) {
			return nil
		}
		g.status = CGUndone
	}
	return g.settle(d, theta0, noise0)
}

// settle sets the kernel's log parameters from theta and σ² to noise,
// rebuilds d's inducing set there and sets an estimated mean to its
// minimiser, as Model.refactor does: the evaluator's values are those
// at the minimising μ.
func (g *ranksGrad) settle(d *cholqr.Dist, theta []float64, noise float64) error {
	g.noise = noise
	if err := d.SetParams(theta[:g.kern.NumParams()], noise); err != nil {
		return err
	}
	profileRanks(d, g.mean)
	return nil
}

// profileRanks sets an estimated mean to its minimiser for the current
// inducing set.
func profileRanks(d *cholqr.Dist, mn Mean) {
	if mn.Estimated() {
		d.SetMean(d.MAPMean())
	}
}
