package sgp

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/kernel"
)

// A fit over ranks takes from the data what a fit in one process takes
// from all its rows (kernel.Parse, Model's build): the kernel's starting
// hyperparameters (kernel.Spread), the starting noise variance (a
// quarter of var(y), startNoise), the noise floor (noiseFloor: 10⁻⁶ of
// the variance of y around a quadratic trend, at least 10⁻⁹ of var(y)),
// the prior mean's start and prior (ȳ and var(y), Mean.startValue and
// prior) and the checks of the start (checkStart). Each rank forms its
// part from its rows and the ranks combine them:
//
//   - the sums (Σy, Σ(y − ȳ)², Σ(y − μ)², each column's Σx²) by rowSums,
//     block partials added in global block order, so that they are the
//     same bit for bit for every number of ranks and equal to the sums
//     of one process to rounding;
//   - each column's least and greatest value, exactly, and the evenly
//     strided rows that the statistics which are not sums read, gathered
//     whole (gatherRanks, one broadcast from each rank that holds rows):
//     at most 2¹⁵ rows for the lengthscales' percentiles, 4000 (inputs of
//     one column) for the periodogram of a periodic kernel, and below
//     2·10⁴ rows for the quadratic trend of the noise floor, which is
//     then detrendedVariance's on the same rows in the same order, the
//     same bits as in one process;
//   - the prior variance's check by one all-gather of each rank's first
//     row at fault.
//
// Every branch taken on every rank depends on these combined values
// alone, so the ranks take the same ones.

// SpreadRanks returns the kernel.Spread of the rows spread over the ranks
// of c, the same on every rank: each rank passes its rows [lo, lo+len(y))
// of n, comm.Span's layout (x nil on a rank without rows). It equals
// kernel.SpreadOf of all the rows to the rounding of the sums (Lo, Hi and
// the samples exactly), so that kernel.ParseSpread builds the kernel
// kernel.Parse would. The ranks send each column's range, the two
// samples (at most 2¹⁵ and 4000 rows) and two reductions of d+1 and 1
// numbers.
func SpreadRanks(c *comm.Comm, x *kernel.Vectors, y []float64, lo, n int) (*kernel.Spread, error) {
	d, err := ranksDim(c, x, y, lo, n)
	if err != nil {
		return nil, err
	}
	s := &kernel.Spread{N: n, Lo: make([]float64, d), Hi: make([]float64, d), MeanSquare: make([]float64, d), TargetScale: 1}
	nl := len(y)
	mine := make([]float64, 2*d)
	for t := range d {
		mine[t], mine[d+t] = math.Inf(1), math.Inf(-1)
		for i := range nl {
			mine[t], mine[d+t] = math.Min(mine[t], x.At(i, t)), math.Max(mine[d+t], x.At(i, t))
		}
	}
	qs, ps := kernel.SampleStride(n), kernel.PeriodStride(n)
	mine = appendStrided(mine, x, nil, lo, nl, qs)
	if d == 1 {
		mine = appendStrided(mine, x, y, lo, nl, ps)
	}
	all := gatherRanks(c, n, mine, func(a, b int) int {
		k := 2*d + d*stridedIn(a, b, qs)
		if d == 1 {
			k += 2 * stridedIn(a, b, ps)
		}
		return k
	})
	for t := range d {
		s.Lo[t], s.Hi[t] = math.Inf(1), math.Inf(-1)
	}
	for q := range c.Size() {
		a, b := comm.Span(n, comm.BlockRows, q, c.Size())
		if a == b {
			continue
		}
		for t := range d {
			s.Lo[t], s.Hi[t] = math.Min(s.Lo[t], all[t]), math.Max(s.Hi[t], all[d+t])
		}
		k := d * stridedIn(a, b, qs)
		s.Sample = append(s.Sample, all[2*d:2*d+k]...)
		all = all[2*d+k:]
		if d == 1 {
			k := stridedIn(a, b, ps)
			for i := range k {
				s.PeriodX, s.PeriodY = append(s.PeriodX, all[2*i]), append(s.PeriodY, all[2*i+1])
			}
			all = all[2*k:]
		}
	}
	rs := rowSums{c: c, n: nl}
	sums := make([]float64, d+1)
	rs.sum(d+1, false, sums, func(r0, r1 int, acc []float64) {
		for i := r0; i < r1; i++ {
			for t := range d {
				acc[t] += x.At(i, t) * x.At(i, t)
			}
			acc[d] += y[i]
		}
	})
	for t := range d {
		s.MeanSquare[t] = sums[t] / float64(n)
	}
	if v := ranksVariance(&rs, y, sums[d]/float64(n), n); v > 0 && !math.IsInf(v, 0) {
		s.TargetScale = v
	}
	return s, nil
}

// ranksDim returns the inputs' dimension on every rank, or every rank's
// error if some rank's rows are not its span of comm.Span's layout (one
// all-gather).
func ranksDim(c *comm.Comm, x *kernel.Vectors, y []float64, lo, n int) (int, error) {
	wlo, whi := comm.Span(n, comm.BlockRows, c.Rank(), c.Size())
	dim, bad := 0, 0
	if x != nil {
		dim = x.Dim()
	}
	if lo != wlo || lo+len(y) != whi || (x == nil) != (len(y) == 0) || (x != nil && x.Len() != len(y)) {
		bad = 1
	}
	all := c.AllGatherInts([]int{dim, bad})
	d := 0
	for q := 0; q < len(all); q += 2 {
		if all[q+1] != 0 {
			return 0, fmt.Errorf("sgp: rank %d of %d does not hold its span of the %d rows (comm.Span) with one input row a target", q/2, c.Size(), n)
		}
		if all[q] != 0 && d != 0 && all[q] != d {
			return 0, fmt.Errorf("sgp: the ranks hold inputs of %d and %d columns", d, all[q])
		}
		d = max(d, all[q])
	}
	if d == 0 {
		return 0, errors.New("sgp: no rank holds rows")
	}
	return d, nil
}

// stridedIn returns how many of the rows 0, s, 2s, … lie in [a, b).
func stridedIn(a, b, s int) int { return (b+s-1)/s - (a+s-1)/s }

// appendStrided appends to dst the inputs (with y, each row's target
// after its inputs) of this rank's nl rows whose global index lo+i is a
// multiple of s.
func appendStrided(dst []float64, x *kernel.Vectors, y []float64, lo, nl, s int) []float64 {
	for i := (s - lo%s) % s; i < nl; i += s {
		dst = append(dst, x.Row(i)...)
		if y != nil {
			dst = append(dst, y[i])
		}
	}
	return dst
}

// gatherRanks returns on every rank the ranks' mine one after the other
// in rank order, rank q's of length size(a, b) for its span [a, b) of the
// n rows in comm.Span's layout, which every rank knows: one broadcast
// from each rank that holds rows (a < b).
func gatherRanks(c *comm.Comm, n int, mine []float64, size func(a, b int) int) []float64 {
	var all []float64
	for q := range c.Size() {
		a, b := comm.Span(n, comm.BlockRows, q, c.Size())
		if a == b {
			continue
		}
		buf := make([]float64, size(a, b))
		if q == c.Rank() {
			if len(mine) != len(buf) {
				panic(fmt.Sprintf("sgp: rank %d gathers %d numbers, not %d", q, len(mine), len(buf)))
			}
			copy(buf, mine)
		}
		c.BcastFloat64s(buf, q)
		all = append(all, buf...)
	}
	return all
}

// ranksVariance returns Σ(y − mean)²/n over every rank's rows (one
// reduction), as Dist's TargetMoments forms var(y).
func ranksVariance(rs *rowSums, y []float64, mean float64, n int) float64 {
	out := make([]float64, 1)
	rs.sum(1, false, out, func(r0, r1 int, acc []float64) {
		for _, v := range y[r0:r1] {
			acc[0] += (v - mean) * (v - mean)
		}
	})
	return out[0] / float64(n)
}

// ranksStart is what FitRanks takes from the data before it builds its
// state, the same on every rank.
type ranksStart struct {
	noise float64 // σ² at the start
	floor float64 // the least σ² the gradient phase may reach
	mean  float64 // ȳ
	start float64 // μ's start: ȳ, or the fixed mean (Mean.startFrom)
	theta []float64
	dim   int // the inputs' dimension, the same on every rank
}

// startRanks returns FitRanks' start as Model's build forms it: σ² =
// noise if it is positive, otherwise a quarter of var(y) (startNoise),
// raised to twice the floor where the noise is learned and that start
// (or one set, with a floor set) is at or below it; the noise floor
// o.NoiseFloor if set, otherwise noiseFloor's default; and the checks of
// checkStart, over every rank's rows.
func startRanks(c *comm.Comm, x *kernel.Vectors, y []float64, lo, n int, kern kernel.Kernel, noise float64, o *RanksOptions) (*ranksStart, error) {
	if err := checkNoiseFloor(o.NoiseFloor); err != nil {
		return nil, err
	}
	if noise != 0 {
		if err := checkNoise(noise); err != nil {
			return nil, err
		}
	}
	d, err := ranksDim(c, x, y, lo, n)
	if err != nil {
		return nil, err
	}
	rs := rowSums{c: c, n: len(y)}
	sum := make([]float64, 2)
	rs.sum(1, false, sum[:1], func(r0, r1 int, acc []float64) {
		for _, v := range y[r0:r1] {
			acc[0] += v
		}
	})
	st := &ranksStart{mean: sum[0] / float64(n), dim: d}
	mu := st.mean
	if !o.Mean.Estimated() {
		mu = o.Mean.fixedValue()
	}
	rs.sum(2, false, sum, func(r0, r1 int, acc []float64) {
		for _, v := range y[r0:r1] {
			acc[0] += (v - st.mean) * (v - st.mean)
			acc[1] += (v - mu) * (v - mu)
		}
	})
	vy := sum[0] / float64(n)
	if err := targetsRangeError(vy, sum[1]/float64(n), o.Mean, func() (float64, float64) { return ranksExtremes(c, y) }); err != nil {
		return nil, err
	}
	st.floor = o.NoiseFloor
	if st.floor == 0 {
		st.floor = noiseFloorRanks(c, x, y, lo, n, d, vy)
	}
	st.start, st.noise = o.Mean.startFrom(st.mean), noise
	if noise == 0 {
		st.noise = 0.25
		if vy > 0 && !math.IsInf(vy, 0) {
			st.noise = vy / 4 // startNoise: stats.TargetScale(y)/4
		}
	}
	held := !o.Learn || slices.Contains(o.Fixed, "noise")
	if !held && (noise == 0 || o.NoiseFloor > 0) && st.noise <= st.floor {
		st.noise = 2 * st.floor
	}
	if err := checkKernelStart(kern, st.noise); err != nil {
		return nil, err
	}
	st.theta = append(kern.Params(nil), math.Log(st.noise))
	return st, priorVarianceRanks(c, x, kern, lo, len(y))
}

// ranksExtremes returns the least and greatest of every rank's y (two
// reductions), for a message.
func ranksExtremes(c *comm.Comm, y []float64) (lo, hi float64) {
	i := -1
	mn, mx := math.Inf(1), math.Inf(-1)
	for _, v := range y {
		i, mn, mx = 0, math.Min(mn, v), math.Max(mx, v)
	}
	hi, _ = c.ArgMax(mx, i)
	lo, _ = c.ArgMax(-mn, i)
	return -lo, hi
}

// noiseFloorRanks returns noiseFloor's default for the n rows over the
// ranks, of d input columns and targets of variance vy: the rows
// detrendedVariance fits the trend on are gathered from the ranks (below
// 2·10⁴ rows of d+1 numbers) and fitted in the same order.
func noiseFloorRanks(c *comm.Comm, x *kernel.Vectors, y []float64, lo, n, d int, vy float64) float64 {
	dv := vy
	if d <= trendMaxDim && n >= 2 {
		stride := max(1, n/trendRows)
		all := gatherRanks(c, n, appendStrided(nil, x, y, lo, len(y), stride), func(a, b int) int { return (d + 1) * stridedIn(a, b, stride) })
		rows := len(all) / (d + 1)
		xs, ys := make([]float64, 0, rows*d), make([]float64, rows)
		for i := range rows {
			xs, ys[i] = append(xs, all[i*(d+1):i*(d+1)+d]...), all[i*(d+1)+d]
		}
		if xv, err := kernel.NewVectors(rows, d, xs); err == nil {
			dv = detrendedStrided(xv, ys, 1, vy)
		}
	}
	return floorFrom(dv, vy)
}

// priorVarianceRanks is checkPriorVariance over the ranks' rows: the
// first row in global order at which κ(x, x) is not finite, or κ = 0 at
// every row (one all-gather, and a broadcast of the value at fault).
func priorVarianceRanks(c *comm.Comm, x *kernel.Vectors, kern kernel.Kernel, lo, nl int) error {
	row, v, zero := -1, 0.0, true
	if nl > 0 {
		if row, v, zero = priorVarianceAt(x, kern); row >= 0 {
			row += lo
		}
	}
	nonzero := 0
	if !zero {
		nonzero = 1
	}
	all := c.AllGatherInts([]int{row, nonzero})
	some := false
	for q := 0; q < len(all); q += 2 {
		if all[q] >= 0 {
			at := []float64{v}
			c.BcastFloat64s(at, q/2)
			return priorVarianceError(all[q], at[0], false)
		}
		some = some || all[q+1] != 0
	}
	return priorVarianceError(-1, 0, !some)
}

// finish records the start and the noise floor in res, with whether the
// learned σ² ended at the floor.
func (st *ranksStart) finish(res *RanksResult, kern kernel.Kernel, grad *ranksGrad) {
	res.StartHyperparameters = newHyperparameters(append(kern.ParamNames(), "noise"), st.theta)
	res.StartHyperparameters.Values[len(st.theta)-1] = st.noise
	res.StartMean, res.NoiseFloor = st.start, st.floor
	res.AtNoiseFloor = grad != nil && !grad.rs.noiseHeld() && atNoiseFloor(grad.noise, st.floor)
}
