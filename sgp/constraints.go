package sgp

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cholqr/sgp/sgp/kernel"
)

// constraints are the hyperparameters a fit fixes (WithFixed,
// WithFixedAt) or bounds (WithBounds), by name, as the builders keep
// them; the package documentation ("Fixed and bounded hyperparameters")
// describes what they do, TestConstraintsUnits their units.
type constraints struct {
	fixed  []fixSpec
	bounds []boundSpec
}

// fixSpec is one fixed hyperparameter: its name and the value given
// (WithFixedAt), 0 for its starting value (WithFixed).
type fixSpec struct {
	name  string
	value float64
}

// boundSpec is one bounded hyperparameter and its bounds.
type boundSpec struct {
	name   string
	lo, hi float64
}

// empty reports whether nothing is fixed or bounded.
func (c *constraints) empty() bool { return len(c.fixed) == 0 && len(c.bounds) == 0 }

// clone returns a copy of c sharing nothing with it.
func (c constraints) clone() constraints {
	return constraints{fixed: slices.Clone(c.fixed), bounds: slices.Clone(c.bounds)}
}

// named reports whether c fixes or bounds name already.
func (c *constraints) named(name string) string {
	if slices.ContainsFunc(c.fixed, func(f fixSpec) bool { return f.name == name }) {
		return "fixed"
	}
	if slices.ContainsFunc(c.bounds, func(b boundSpec) bool { return b.name == name }) {
		return "bounded"
	}
	return ""
}

// fix adds the fixed hyperparameter name at its start.
func (c *constraints) fix(name string) error { return c.add(name, 0) }

// fixAt adds the fixed hyperparameter name at value.
func (c *constraints) fixAt(name string, value float64) error {
	if !(value > 0) || math.IsInf(value, 0) {
		return fmt.Errorf("sgp: the fixed value of %s, %v, must be positive and finite", name, value)
	}
	return c.add(name, value)
}

// add adds the fixed hyperparameter name at value (0: its start).
func (c *constraints) add(name string, value float64) error {
	if value != 0 && (!(value > 0) || math.IsInf(value, 0)) {
		return fmt.Errorf("sgp: the fixed value of %s, %v, must be positive and finite", name, value)
	}
	if w := c.named(name); w != "" {
		return fmt.Errorf("sgp: %s is %s already; fix or bound each hyperparameter once", name, w)
	}
	c.fixed = append(c.fixed, fixSpec{name, value})
	return nil
}

// bound adds the bounded hyperparameter name, lo ≤ value ≤ hi.
func (c *constraints) bound(name string, lo, hi float64) error {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return fmt.Errorf("sgp: the bounds of %s, %v to %v, must be positive and finite with lo < hi (hyperparameters are positive)", name, lo, hi)
	}
	if math.Log(hi)-math.Log(lo) < 1e-9 {
		return fmt.Errorf("sgp: the bounds of %s, %v to %v, are too close to optimise between; fix it instead (WithFixedAt)", name, lo, hi)
	}
	if w := c.named(name); w != "" {
		return fmt.Errorf("sgp: %s is %s already; fix or bound each hyperparameter once", name, w)
	}
	c.bounds = append(c.bounds, boundSpec{name, lo, hi})
	return nil
}

// resolved is a constraints resolved against a fit's hyperparameter
// names, by θ index.
type resolved struct {
	names   []string
	fixed   []bool
	value   []float64 // the fixed value given, 0 for the start's
	bounded []bool
	lo, hi  []float64 // the bounds of the bounded ones, as values
}

// resolve checks c's names against names (θ order: the kernel's, then
// "noise") and returns c by index; an unknown name is an error that
// suggests the closest names.
func (c *constraints) resolve(names []string) (*resolved, error) {
	n := len(names)
	r := &resolved{names: names, fixed: make([]bool, n), value: make([]float64, n), bounded: make([]bool, n), lo: make([]float64, n), hi: make([]float64, n)}
	index := func(name, what string) (int, error) {
		if i := slices.Index(names, name); i >= 0 {
			return i, nil
		}
		return 0, fmt.Errorf("sgp: %s: no hyperparameter %q%s; the hyperparameters are %s%s", what, name, nameHint(name, names), strings.Join(names, ", "), meanHint(name))
	}
	for _, f := range c.fixed {
		i, err := index(f.name, "WithFixed")
		if err != nil {
			return nil, err
		}
		r.fixed[i], r.value[i] = true, f.value
	}
	for _, b := range c.bounds {
		i, err := index(b.name, "WithBounds")
		if err != nil {
			return nil, err
		}
		r.bounded[i], r.lo[i], r.hi[i] = true, b.lo, b.hi
	}
	return r, nil
}

// allFixed reports whether r fixes every hyperparameter.
func (r *resolved) allFixed() bool { return !slices.Contains(r.fixed, false) }

// noiseFixed reports whether r fixes the noise variance (θ's last).
func (r *resolved) noiseFixed() bool { return r.fixed[len(r.fixed)-1] }

// meanHint returns, for a name that means the prior mean μ, how to fix
// it: μ is not a hyperparameter of θ but set by WithMean.
func meanHint(name string) string {
	switch strings.ToLower(name) {
	case "mean", "mu", "μ", "prior mean":
		return "; the prior mean μ is fixed by WithMean(MeanFixed(c))"
	}
	return ""
}

// nameHint returns " (did you mean X?)" for the names closest to name,
// or "" when none is close.
func nameHint(name string, names []string) string {
	var best []string
	bestD := max(1, min(3, len(name)/3))
	for _, c := range names {
		switch d := editDistance(name, c); {
		case d > bestD:
		case d < bestD || best == nil:
			best, bestD = []string{c}, d
		default:
			best = append(best, c)
		}
	}
	if best == nil {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", strings.Join(best, " or "))
}

// editDistance is the optimal string alignment distance of a and b.
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// boundInset is how far inside its bounds, as a fraction of their log
// width, a start outside them or on one starts: the logistic coordinate
// of a point on a bound is infinite.
const boundInset = 0.01

// atBoundSlack is how close to a bound a fitted value counts as at it:
// within a factor 1 + atBoundSlack, or atBoundWidth of the log width of
// bounds narrower than that.
const (
	atBoundSlack = 0.05
	atBoundWidth = 0.01
)

// logBounds returns the log bounds [a, b] of a bounded θ index i for a
// fit with noise floor floor (the noise's lower bound is at least the
// floor), widened by no more than rounding so that exp a ≥ lo and
// exp b ≤ hi hold exactly.
func (r *resolved) logBounds(i int, floor float64) (a, b float64) {
	lo, hi := r.lo[i], r.hi[i]
	if i == len(r.names)-1 {
		lo = max(lo, floor)
	}
	a, b = math.Log(lo), math.Log(hi)
	for math.Exp(a) < lo {
		a = math.Nextafter(a, math.Inf(1))
	}
	for math.Exp(b) > hi {
		b = math.Nextafter(b, math.Inf(-1))
	}
	return a, b
}

// checkFloor returns an error if the noise's bounds lie at or below the
// noise floor floor.
func (r *resolved) checkFloor(floor float64) error {
	k := len(r.names) - 1
	if r.bounded[k] && floor > 0 && r.hi[k] <= floor {
		return fmt.Errorf("sgp: the noise's upper bound %.4g is at or below the noise floor %.4g, the least σ² a fit may reach: raise the bound or lower the floor (WithNoiseFloor; sgprepl fit --noise-floor)", r.hi[k], floor)
	}
	return nil
}

// start returns theta (θ, log values) with r's fixed values given set
// and its bounded entries moved inside their bounds (boundInset) where
// they are outside or on one, for a fit with noise floor floor.
func (r *resolved) start(theta []float64, floor float64) []float64 {
	th := slices.Clone(theta)
	for i := range th {
		switch {
		case r.fixed[i] && r.value[i] > 0:
			th[i] = math.Log(r.value[i])
		case r.bounded[i]:
			a, b := r.logBounds(i, floor)
			w := boundInset * (b - a)
			th[i] = min(max(th[i], a+w), b-w)
		}
	}
	return th
}

// paramMap is the change of variables between the optimiser's point x,
// one coordinate per free hyperparameter, and θ: a fixed entry of θ is
// base's, a free one is x's coordinate (log value), floor + exp u for an
// unbounded noise above a floor (noisefloor.go), or the scaled logistic
// of a bounded one (the package documentation, "Fixed and bounded
// hyperparameters"). Without constraints it is the noise floor's map alone.
type paramMap struct {
	base  []float64 // θ at the start: the fixed entries' values
	free  []int     // the θ index of each coordinate of x
	kind  []coordKind
	a, b  []float64 // the log bounds of each bounded coordinate
	floor float64
}

// coordKind is how one coordinate of the optimiser's point gives θ.
type coordKind uint8

const (
	coordLog     coordKind = iota // θ = u
	coordFloor                    // θ = log(floor + exp u)
	coordBounded                  // θ = a + (b − a)·s(u)
)

// newParamMap returns the map of a fit from theta0 with noise floor
// floor (0: none) under r (nil: nothing fixed or bounded).
func newParamMap(r *resolved, theta0 []float64, floor float64) paramMap {
	pm := paramMap{base: slices.Clone(theta0), floor: floor}
	k := len(theta0) - 1
	for i := range theta0 {
		kind := coordLog
		var a, b float64
		switch {
		case r != nil && r.fixed[i]:
			continue
		case r != nil && r.bounded[i]:
			kind = coordBounded
			a, b = r.logBounds(i, floor)
		case i == k && floor > 0:
			kind = coordFloor
		}
		pm.free = append(pm.free, i)
		pm.kind = append(pm.kind, kind)
		pm.a, pm.b = append(pm.a, a), append(pm.b, b)
	}
	return pm
}

// dim returns the number of free coordinates.
func (pm *paramMap) dim() int { return len(pm.free) }

// logistic returns 1/(1 + e⁻ᵘ).
func logistic(u float64) float64 {
	if u >= 0 {
		return 1 / (1 + math.Exp(-u))
	}
	e := math.Exp(u)
	return e / (1 + e)
}

// toTheta stores in theta the θ of the optimiser's point x and returns
// theta.
func (pm *paramMap) toTheta(theta, x []float64) []float64 {
	copy(theta, pm.base)
	for j, i := range pm.free {
		switch pm.kind[j] {
		case coordLog:
			theta[i] = x[j]
		case coordFloor:
			theta[i] = math.Log(pm.floor + math.Exp(x[j]))
		case coordBounded:
			a, b := pm.a[j], pm.b[j]
			theta[i] = min(max(a+(b-a)*logistic(x[j]), a), b)
		}
	}
	return theta
}

// toX stores in x the optimiser's point for θ = theta and returns x;
// toTheta maps it back to theta, to rounding. A noise at or below the
// floor starts at twice the floor; a bounded entry on or
// outside a bound starts just inside it.
func (pm *paramMap) toX(x, theta []float64) []float64 {
	for j, i := range pm.free {
		switch t := theta[i]; pm.kind[j] {
		case coordLog:
			x[j] = t
		case coordFloor:
			if s2 := math.Exp(t); s2 > pm.floor {
				x[j] = t + math.Log1p(-pm.floor/s2)
			} else {
				x[j] = math.Log(pm.floor)
			}
		case coordBounded:
			q := (t - pm.a[j]) / (pm.b[j] - pm.a[j])
			q = min(max(q, 1e-12), 1-1e-12)
			x[j] = math.Log(q) - math.Log1p(-q)
		}
	}
	return x
}

// grad stores in gx the gradient in the optimiser's coordinates at x of
// the gradient gθ in θ.
func (pm *paramMap) grad(gx, gθ, x []float64) {
	for j, i := range pm.free {
		g := gθ[i]
		switch pm.kind[j] {
		case coordFloor:
			e := math.Exp(x[j])
			g *= e / (pm.floor + e)
		case coordBounded:
			s := logistic(x[j])
			g *= (pm.b[j] - pm.a[j]) * s * (1 - s)
		}
		gx[j] = g
	}
}

// report returns what a fit under r that ended at theta (θ) with noise
// floor floor reports of r: the fixed values (the given ones exactly),
// the bounds in force and where it ended, and the warnings about them.
func (r *resolved) report(theta []float64, floor float64) (fixed map[string]float64, bounds []Bound, warnings []string) {
	for i, name := range r.names {
		switch {
		case r.fixed[i]:
			if fixed == nil {
				fixed = map[string]float64{}
			}
			fixed[name] = math.Exp(theta[i])
			if r.value[i] > 0 {
				fixed[name] = r.value[i]
			}
		case r.bounded[i]:
			a, b := r.logBounds(i, floor)
			bd := Bound{Name: name, Lo: r.lo[i], Hi: r.hi[i], At: boundAt(theta[i], a, b)}
			if i == len(r.names)-1 && r.lo[i] < floor {
				warnings = append(warnings, fmt.Sprintf("the noise's lower bound %.4g is below the noise floor %.4g, which applies; lower the floor for σ² to go below it (WithNoiseFloor; sgprepl fit --noise-floor)", r.lo[i], floor))
				bd.Lo = floor
			}
			if bd.At != "" {
				v, at := bd.Lo, "lower"
				if bd.At == "upper" {
					v, at = bd.Hi, "upper"
				}
				warnings = append(warnings, fmt.Sprintf("%s ended at its %s bound: %.4g, bound %.4g; the bound, not the data, decided it", name, at, math.Exp(theta[i]), v))
			}
			bounds = append(bounds, bd)
		}
	}
	return fixed, bounds, warnings
}

// boundAt returns where θ = t lies in the log bounds [a, b]: "lower" or
// "upper" within atBoundSlack (atBoundWidth of narrower bounds) of that
// bound, "" inside.
func boundAt(t, a, b float64) string {
	slack := min(math.Log1p(atBoundSlack), atBoundWidth*(b-a))
	switch {
	case t <= a+slack:
		return "lower"
	case t >= b-slack:
		return "upper"
	}
	return ""
}

// exactValues sets in h the fixed values given (WithFixedAt) of r, which
// exp θ gives only to rounding.
func (r *resolved) exactValues(h Hyperparameters) Hyperparameters {
	if r == nil {
		return h
	}
	for i, name := range r.names {
		if r.fixed[i] && r.value[i] > 0 {
			if j := slices.Index(h.Names, name); j >= 0 {
				h.Values[j] = r.value[i]
			}
		}
	}
	return h
}

// drawInBounds maps a restart's draw th of θ index i, drawn around the
// start th0, into r's bounds: a bounded entry moves by the same amount in
// the logistic coordinate, so that every draw is inside the bounds; a
// fixed one keeps th0.
func (r *resolved) drawInBounds(i int, th, th0, floor float64) float64 {
	switch {
	case r == nil:
		return th
	case r.fixed[i]:
		return th0
	case r.bounded[i]:
		a, b := r.logBounds(i, floor)
		pm := paramMap{free: []int{0}, kind: []coordKind{coordBounded}, a: []float64{a}, b: []float64{b}, base: []float64{0}}
		u := pm.toX([]float64{0}, []float64{th0})[0]
		return pm.toTheta([]float64{0}, []float64{u + th - th0})[0]
	}
	return th
}

// setup returns, for a fit of the hyperparameters names from theta0 (θ)
// with noise floor floor, under c and with every hyperparameter fixed
// when all is set (WithFixedHyperparameters): c by index (nil when
// nothing is fixed or bounded), the start under it (resolved.start), and
// the optimiser's map from there. A fixed noise leaves the floor out.
func (c *constraints) setup(names []string, theta0 []float64, floor float64, all bool) (*resolved, []float64, paramMap, error) {
	var r *resolved
	if !c.empty() || all {
		var err error
		if r, err = c.resolve(names); err != nil {
			return nil, nil, paramMap{}, err
		}
		if all {
			for i := range r.fixed {
				r.fixed[i] = true
			}
		}
		if err := r.checkFloor(floor); err != nil {
			return nil, nil, paramMap{}, err
		}
		theta0 = r.start(theta0, floor)
	}
	return r, theta0, newParamMap(r, theta0, floor), nil
}

// summarise records in s what a fit under r (nil: nothing fixed or
// bounded) reports of it (resolved.report), its warnings included. With
// every hyperparameter fixed by WithFixedHyperparameters (all) nothing
// is recorded.
func (r *resolved) summarise(s *FitSummary, floor float64, all bool) {
	if r == nil || all {
		return
	}
	var ws []string
	s.Fixed, s.Bounds, ws = r.report(s.Params, floor)
	s.Warnings = append(s.Warnings, ws...)
}

// fixesAll reports whether c fixes every one of names.
func (c *constraints) fixesAll(names []string) bool {
	if len(c.fixed) < len(names) {
		return false
	}
	r, err := c.resolve(names)
	return err == nil && r.allFixed()
}

// kernelNames returns the names of a fit's θ for kernel k: its own, then
// "noise"; nil for no kernel.
func kernelNames(k kernel.Kernel) []string {
	if k == nil {
		return nil
	}
	return append(k.ParamNames(), "noise")
}

// fixedNoise returns the noise variance σ² of θ's entry t: exact, a fixed
// noise as given, where t is its log, exp t otherwise (exact 0: none).
func fixedNoise(t, exact float64) float64 {
	if exact > 0 && t == math.Log(exact) {
		return exact
	}
	return math.Exp(t)
}

// withStartNoise records noise, the starting noise variance of a fit,
// as the value of a noise r fixes at its start (WithFixed("noise")), so
// that the fit uses and reports it exactly; it returns r.
func (r *resolved) withStartNoise(noise float64) *resolved {
	if r != nil && r.noiseFixed() && r.value[len(r.value)-1] == 0 {
		r.value[len(r.value)-1] = noise
	}
	return r
}

// exactNoise returns the value of the noise variance r fixes
// (WithFixedAt, or its start once withStartNoise recorded it), 0 for
// none.
func (r *resolved) exactNoise() float64 {
	if r == nil || !r.noiseFixed() {
		return 0
	}
	return r.value[len(r.value)-1]
}
