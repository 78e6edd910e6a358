package sgp

import (
	"fmt"
	"math"
	"strings"
)

// Hyperparameters are a model's hyperparameters by name, as positive
// values (exp θ), in θ order: the kernel's (Kernel.ParamNames), then the
// noise variance σ², named "noise". String and HTML show them in that
// order, one per row.
type Hyperparameters struct {
	Names  []string
	Values []float64
}

// newHyperparameters returns the hyperparameters exp θ named by names.
func newHyperparameters(names []string, theta []float64) Hyperparameters {
	h := Hyperparameters{Names: append([]string(nil), names...), Values: make([]float64, len(theta))}
	for i, v := range theta {
		h.Values[i] = math.Exp(v)
	}
	return h
}

// Value returns the hyperparameter called name. It panics, listing the
// names, if there is none.
func (h Hyperparameters) Value(name string) float64 {
	for i, n := range h.Names {
		if n == name {
			return h.Values[i]
		}
	}
	panic(fmt.Sprintf("sgp: no hyperparameter %q; the names are %s", name, strings.Join(h.Names, ", ")))
}

// Map returns the hyperparameters as a map from name to value.
func (h Hyperparameters) Map() map[string]float64 {
	m := make(map[string]float64, len(h.Names))
	for i, n := range h.Names {
		m[n] = h.Values[i]
	}
	return m
}

// Hyperparameters returns the fitted hyperparameters by name, as positive
// values (exp θ), in θ order: the kernel's, then the noise variance
// ("noise"). A fixed value (Fixed) is the value given, which exp θ
// gives only to rounding.
func (s *FitSummary) Hyperparameters() Hyperparameters {
	h := newHyperparameters(s.Names, s.Params)
	for i, n := range h.Names {
		if v, ok := s.Fixed[n]; ok {
			h.Values[i] = v
		}
	}
	return h
}
