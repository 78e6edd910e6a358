package sgp

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// equalSlices reports whether a and b, of the same length, are equal
// element by element.
func equalSlices(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// finiteSlice reports whether every element of v is finite.
func finiteSlice(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// errBudget stops an optimisation whose evaluation budget is used up.
var errBudget = errors.New("sgp: evaluation budget reached")

// maxAbs returns max |v_i|.
func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// funcRecorder adapts a stop check to optimize.Recorder.
type funcRecorder func() error

func (r funcRecorder) Init() error { return nil }

func (r funcRecorder) Record(*optimize.Location, optimize.Operation, *optimize.Stats) error {
	return r()
}
