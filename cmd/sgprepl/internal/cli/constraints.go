package cli

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cholqr/sgp/sgp"
)

// fixList is fit's --fix: NAME or NAME=VALUE, repeatable and
// comma-separated; a value of 0 means the starting value.
type fixList []namedValue

func (l *fixList) String() string {
	parts := make([]string, len(*l))
	for i, p := range *l {
		parts[i] = p.name
		if p.value != 0 {
			parts[i] += "=" + strconv.FormatFloat(p.value, 'g', -1, 64)
		}
	}
	return strings.Join(parts, ",")
}

// Set adds the names of s, NAME[=VALUE][,NAME[=VALUE]…].
func (l *fixList) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		name, val, hasVal := strings.Cut(strings.TrimSpace(part), "=")
		name = strings.TrimSpace(name)
		if name == "" {
			return fmt.Errorf("%q is not NAME or NAME=VALUE (e.g. noise=0.01)", part)
		}
		var v float64
		if hasVal {
			var err error
			if v, err = strconv.ParseFloat(strings.TrimSpace(val), 64); err != nil {
				return fmt.Errorf("%q: %q is not a number", part, val)
			}
			if !positive(v) {
				return fmt.Errorf("%q: a fixed value must be positive and finite", part)
			}
		}
		if slices.ContainsFunc(*l, func(p namedValue) bool { return p.name == name }) {
			return fmt.Errorf("%s is fixed twice; fix each hyperparameter once", name)
		}
		*l = append(*l, namedValue{name, v})
	}
	return nil
}

// boundList is fit's --bound: NAME=LO:HI, repeatable and comma-separated.
type boundList []namedBound

// namedBound is one NAME=LO:HI of a boundList.
type namedBound struct {
	name   string
	lo, hi float64
}

func (l *boundList) String() string {
	parts := make([]string, len(*l))
	for i, b := range *l {
		parts[i] = b.name + "=" + strconv.FormatFloat(b.lo, 'g', -1, 64) + ":" + strconv.FormatFloat(b.hi, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// Set adds the bounds of s, NAME=LO:HI[,NAME=LO:HI…].
func (l *boundList) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		name, rng, ok := strings.Cut(strings.TrimSpace(part), "=")
		name = strings.TrimSpace(name)
		los, his, ok2 := strings.Cut(rng, ":")
		if !ok || !ok2 || name == "" {
			return fmt.Errorf("%q is not NAME=LO:HI (e.g. lengthscale[0]=0.1:10)", part)
		}
		lo, err1 := strconv.ParseFloat(strings.TrimSpace(los), 64)
		hi, err2 := strconv.ParseFloat(strings.TrimSpace(his), 64)
		switch {
		case err1 != nil || err2 != nil:
			return fmt.Errorf("%q: %q and %q must be numbers", part, los, his)
		case !positive(lo) || !positive(hi) || !(lo < hi):
			return fmt.Errorf("%q: the bounds must be positive and finite with LO < HI (hyperparameters are positive)", part)
		case math.Log(hi)-math.Log(lo) < 1e-9:
			return fmt.Errorf("%q: the bounds are too close to optimise between; fix it instead (--fix %s=VALUE)", part, name)
		}
		if slices.ContainsFunc(*l, func(b namedBound) bool { return b.name == name }) {
			return fmt.Errorf("%s is bounded twice; bound each hyperparameter once", name)
		}
		*l = append(*l, namedBound{name, lo, hi})
	}
	return nil
}

// constraintFlags are fit's --fix and --bound.
type constraintFlags struct {
	fix   fixList
	bound boundList
}

// check returns a usage error for a name of --fix or --bound that is not
// one of names (the kernel spec's, then noise; the closest suggested),
// a name both fixed and bounded, a --fix NAME=VALUE of a name --param
// sets too, and a --param value outside the name's --bound.
func (c *constraintFlags) check(names []string, params paramList, spec string) error {
	known := func(flag, name string) error {
		if slices.Contains(names, name) {
			return nil
		}
		hint := ""
		if n := strings.ToLower(name); n == "mean" || n == "mu" || n == "μ" {
			hint = "; the prior mean μ is fixed by --mean NUMBER"
		}
		return usageErrorf("%s %s: kernel %s has no hyperparameter %q%s; its hyperparameters are %s%s", flag, echo(name), echo(spec), echo(name), nameHint(name, names), nameList(names), hint)
	}
	for _, f := range c.fix {
		if err := known("--fix", f.name); err != nil {
			return err
		}
		if slices.ContainsFunc(c.bound, func(b namedBound) bool { return b.name == f.name }) {
			return usageErrorf("--fix %s and --bound %s: a hyperparameter is fixed or bounded, not both", f.name, f.name)
		}
		if i := slices.IndexFunc(params, func(p namedValue) bool { return p.name == f.name }); i >= 0 && f.value != 0 {
			return usageErrorf("--fix %s=%v and --param %s=%v both set its value: give it once (--fix %s=VALUE, or --param with --fix %s)",
				f.name, f.value, f.name, params[i].value, f.name, f.name)
		}
	}
	for _, b := range c.bound {
		if err := known("--bound", b.name); err != nil {
			return err
		}
		if i := slices.IndexFunc(params, func(p namedValue) bool { return p.name == b.name }); i >= 0 && !(params[i].value >= b.lo && params[i].value <= b.hi) {
			return usageErrorf("--param %s=%v is outside --bound %s=%v:%v; start it within the bounds", b.name, params[i].value, b.name, b.lo, b.hi)
		}
	}
	return nil
}

// nameHint returns " (did you mean X?)" for the names closest to name,
// as flagHint does for flags, or "".
func nameHint(name string, names []string) string { return didYouMean(closest(name, names)) }

// constrainable is what Model, Exact and Continuous share of the options
// --fix and --bound set.
type constrainable[T any] interface {
	WithFixed(name string) T
	WithFixedAt(name string, value float64) T
	WithBounds(name string, lo, hi float64) T
}

// applyConstraints sets c's fixed and bounded hyperparameters on fit.
func applyConstraints[T any](c constraintFlags, fit constrainable[T]) {
	for _, f := range c.fix {
		if f.value != 0 {
			fit.WithFixedAt(f.name, f.value)
		} else {
			fit.WithFixed(f.name)
		}
	}
	for _, b := range c.bound {
		fit.WithBounds(b.name, b.lo, b.hi)
	}
}

// boundReport is one bounded hyperparameter in fit's JSON: its bounds
// in force and where the fit ended ("lower", "upper", or "" inside).
type boundReport struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	At string  `json:"at"`
}

// setConstraints records in the report the fit's fixed and bounded
// hyperparameters: fixed (name → value, the value given exactly), bounds
// (name → lo, hi, at) and at_bound (the names that ended at a bound);
// all three null when nothing is fixed or bounded, at_bound [] when
// none ended at a bound.
func (r *fitReport) setConstraints(s *sgp.FitSummary) {
	if len(s.Fixed) > 0 {
		r.Fixed = s.Fixed
	}
	if len(s.Bounds) == 0 {
		return
	}
	r.Bounds, r.AtBound = map[string]boundReport{}, []string{}
	for _, b := range s.Bounds {
		r.Bounds[b.Name] = boundReport{b.Lo, b.Hi, b.At}
		if b.At != "" {
			r.AtBound = append(r.AtBound, b.Name)
		}
	}
}

// printConstraints writes the summary's lines of the fixed and the
// bounded hyperparameters, if any, in θ order.
func (r *fitReport) printConstraints(w io.Writer) {
	var fixed, bounds []string
	for _, n := range r.names {
		if v, ok := r.Fixed[n]; ok {
			fixed = append(fixed, n+"="+strconv.FormatFloat(v, 'g', -1, 64))
		}
		if b, ok := r.Bounds[n]; ok {
			s := fmt.Sprintf("%s in [%g, %g]", n, b.Lo, b.Hi)
			if b.At != "" {
				s += " (ended at the " + b.At + " bound)"
			}
			bounds = append(bounds, s)
		}
	}
	if len(fixed) > 0 {
		fmt.Fprintf(w, "%-16s%s (--fix)\n", "fixed", strings.Join(fixed, " "))
	}
	if len(bounds) > 0 {
		fmt.Fprintf(w, "%-16s%s\n", "bounds", strings.Join(bounds, "; "))
	}
}
