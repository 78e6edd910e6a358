package kernel

import (
	"math"

	"github.com/cholqr/sgp/sgp/internal/stats"
)

// Spread is what the numeric kernels' starting hyperparameters take from
// n rows of inputs and their targets (Parse and the FromData
// constructors): the inputs' ranges and mean squares, the targets' scale,
// and two evenly strided samples of rows for the statistics that are not
// sums (percentiles, a periodogram). SpreadOf forms it from the rows;
// a fit whose rows are spread over processes forms the same values from
// each process's rows (sums and extremes combined, the samples gathered:
// sgp.SpreadRanks) and builds its kernel by ParseSpread.
type Spread struct {
	N           int       // the rows
	Lo, Hi      []float64 // each input column's least and greatest value
	MeanSquare  []float64 // each input column's mean of x², Σx²/n
	TargetScale float64   // the targets' variance, 1 if it is 0 or not finite or there are none (stats.TargetScale)
	// Sample holds the inputs of rows 0, s, 2s, … (s = SampleStride(N)),
	// row-major: NewRBFFromData's 5th and 95th percentiles.
	Sample []float64
	// PeriodX and PeriodY hold, for inputs of one column, the inputs and
	// targets of rows 0, t, 2t, … (t = PeriodStride(N)): PeriodFromData's
	// periodogram. Both are nil for more columns.
	PeriodX, PeriodY []float64
}

// quantileSample bounds the rows NewRBFFromData sorts per dimension for
// its percentiles (every ⌈n/quantileSample⌉-th row).
const quantileSample = 1 << 15

// periodSample bounds PeriodFromData's inputs (every ⌊n/periodSample⌋-th
// row, all of them below 2·periodSample rows).
const periodSample = 2000

// SampleStride returns the stride of Spread.Sample's rows for n rows:
// ⌈n/2¹⁵⌉, at least 1.
func SampleStride(n int) int { return max(1, (n+quantileSample-1)/quantileSample) }

// PeriodStride returns the stride of Spread.PeriodX's rows for n rows:
// ⌊n/2000⌋, at least 1.
func PeriodStride(n int) int { return max(1, n/periodSample) }

// SpreadOf returns the Spread of inputs x and targets y (y may be nil for
// a Spread of the inputs alone, TargetScale then 1).
func SpreadOf(x *Vectors, y []float64) *Spread {
	s := inputSpread(x)
	s.TargetScale = stats.TargetScale(y)
	s.MeanSquare = meanSquares(x)
	if x.d == 1 && len(y) == x.n {
		s.PeriodX, s.PeriodY = periodRows(x, y)
	}
	return s
}

// periodRows returns the inputs and targets of rows 0, t, 2t, … of x, of
// one column, t = PeriodStride(n): the rows of the periodogram.
func periodRows(x *Vectors, y []float64) (xs, ys []float64) {
	for i := 0; i < x.n; i += PeriodStride(x.n) {
		xs, ys = append(xs, x.At(i, 0)), append(ys, y[i])
	}
	return xs, ys
}

// meanSquares returns each column's mean of x², Σx²/n.
func meanSquares(x *Vectors) []float64 {
	ms := make([]float64, x.d)
	for t := range ms {
		var s float64
		for i := 0; i < x.n; i++ {
			s += x.At(i, t) * x.At(i, t)
		}
		ms[t] = s / float64(x.n)
	}
	return ms
}

// inputSpread returns the ranges and Sample of x, the part of its Spread
// the lengthscales take, with MeanSquare zero and TargetScale 1.
func inputSpread(x *Vectors) *Spread {
	d := x.d
	s := &Spread{N: x.n, Lo: make([]float64, d), Hi: make([]float64, d), MeanSquare: make([]float64, d), TargetScale: 1}
	for t := range d {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := 0; i < x.n; i++ {
			v := x.At(i, t)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		s.Lo[t], s.Hi[t] = lo, hi
	}
	stride := SampleStride(x.n)
	s.Sample = make([]float64, 0, d*((x.n+stride-1)/stride))
	for i := 0; i < x.n; i += stride {
		s.Sample = append(s.Sample, x.Row(i)...)
	}
	return s
}
