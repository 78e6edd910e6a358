package figure

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// niceTicks places labelled ticks at multiples of 1, 2 or 5 × 10ᵏ, about
// four to seven per axis, with four or one minor ticks between them. With integer set
// the step is at least 1 (epochs).
type niceTicks struct{ integer bool }

// Ticks implements plot.Ticker.
func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || !isFinite(lo) || !isFinite(hi) {
		return (plot.DefaultTicks{}).Ticks(lo, hi)
	}
	const want = 5
	raw := (hi - lo) / want
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	var step float64
	minor := 5
	switch r := raw / mag; {
	case r < 1.5:
		step = mag
	case r < 3.5:
		step, minor = 2*mag, 2
	case r < 7.5:
		step = 5 * mag
	default:
		step = 10 * mag
	}
	if t.integer && step < 1 {
		step, minor = 1, 1
	}
	prec := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	format := func(v float64) string {
		if a := math.Abs(v); a != 0 && (a >= 1e6 || a < 1e-4) {
			return strconv.FormatFloat(v, 'g', 4, 64)
		}
		s := strconv.FormatFloat(v, 'f', prec, 64)
		if strings.Trim(s, "-0.") == "" {
			s = strings.TrimPrefix(s, "-") // no "-0"
		}
		return s
	}
	var ticks []plot.Tick
	first := math.Ceil(lo/step - 1e-9)
	for k := first - 1; ; k++ {
		v := k * step
		if v > hi+1e-9*step {
			break
		}
		if v >= lo-1e-9*step {
			ticks = append(ticks, plot.Tick{Value: v, Label: format(v)})
		}
		for j := 1; j < minor; j++ {
			if w := v + float64(j)*step/float64(minor); w >= lo && w <= hi {
				ticks = append(ticks, plot.Tick{Value: w})
			}
		}
	}
	return ticks
}

// logTicks labels 1, 2 and 5 × 10ᵏ on a log axis spanning at most two
// decades, and powers of ten only on a longer one; the other integer
// multiples of 10ᵏ get minor ticks.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return (plot.LogTicks{Prec: -1}).Ticks(lo, hi)
	}
	dense := math.Log10(hi/lo) <= 2
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		p := math.Pow(10, e)
		for d := 1; d <= 9; d++ {
			v := float64(d) * p
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if d == 1 || (dense && (d == 2 || d == 5)) {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	if len(ticks) < 2 {
		return (plot.LogTicks{Prec: -1}).Ticks(lo, hi)
	}
	return ticks
}
