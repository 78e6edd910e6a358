package kernel

import (
	"cmp"
	"math"
	"slices"

	"github.com/cholqr/sgp/sgp/internal/asm"
	"github.com/cholqr/sgp/sgp/internal/par"

	"github.com/cholqr/sgp/sgp/internal/stats"
)

// Periodic is the periodic kernel of MacKay (1998), as GPflow's Periodic
// over its squared-exponential base kernel, with one period p_t and one
// lengthscale ℓ_t per input dimension:
//
//	κ(x, x′) = V · exp(−½ Σ_t sin²(π (x_t − x′_t)/p_t) / ℓ_t²).
//
// (scikit-learn's ExpSineSquared, exp(−2 sin²(π‖x − x′‖/p)/ℓ²), has one
// period and one lengthscale for the Euclidean distance; in one dimension
// it is this kernel with ℓ halved.) Each input repeats with its period:
// multiply by a stationary kernel (periodic*rbf) for a pattern that
// drifts, add one (periodic+rbf) for a trend beside it.
//
// Since sin²(π(a − b)/p) = ¼‖u(a) − u(b)‖² with u(a) = (cos 2πa/p,
// sin 2πa/p), κ is an RBF kernel of the 2d embedded inputs u with
// lengthscales 2ℓ_t (MacKay's construction); its block is evaluated so,
// with RBF's distances and exponential.
//
// Its hyperparameters, in θ order, are log V, log ℓ₁, …, log ℓ_d,
// log p₁, …, log p_d. It accepts *Vectors of dimension d. It is
// differentiable in its inputs everywhere.
type Periodic struct {
	theta    []float64 // (log V, log ℓ…, log p…)
	variance float64
	ls       []float64
	periods  []float64
	invLS2   []float64 // 1/(2ℓ_t), twice each: the embedding's scales
}

var (
	_ BlockEvaluator = (*Periodic)(nil)
	_ InputGradient  = (*Periodic)(nil)
)

// NewPeriodic returns a periodic kernel with signal variance V,
// lengthscales ℓ and periods p, one of each per input dimension. It
// panics if their lengths differ or a value is not positive and finite.
func NewPeriodic(variance float64, lengthscales, periods []float64) *Periodic {
	d := len(lengthscales)
	if d == 0 || len(periods) != d {
		panic("sgp: the periodic kernel needs one lengthscale and one period per input dimension")
	}
	checkPositive("periodic kernel", []float64{variance}, lengthscales, periods)
	k := &Periodic{theta: make([]float64, 1+2*d), ls: make([]float64, d), periods: make([]float64, d), invLS2: make([]float64, 2*d)}
	theta := make([]float64, 1+2*d)
	theta[0] = math.Log(variance)
	for t := range d {
		theta[1+t] = math.Log(lengthscales[t])
		theta[1+d+t] = math.Log(periods[t])
	}
	k.SetParams(theta)
	return k
}

// DefaultPeriodicLengthscale is the lengthscale ℓ NewPeriodicFromData
// starts from (GPflow's default): a pattern that varies within a period
// about as much as a sine does.
const DefaultPeriodicLengthscale = 1.0

// NewPeriodicFromData returns a periodic kernel with variance var(y),
// lengthscales DefaultPeriodicLengthscale and periods found in the data
// (PeriodFromData): for one input dimension the strongest period of a
// periodogram of y, otherwise, or where the periodogram finds none, the
// dimension's range (max − min; 1 for a constant input), a period the
// data do not repeat within, from which the fit can shorten it. Set the
// period where it is known with NewPeriodic.
func NewPeriodicFromData(x *Vectors, y []float64) *Periodic {
	s := inputSpread(x)
	s.TargetScale = stats.TargetScale(y)
	if x.d == 1 && len(y) == x.n {
		s.PeriodX, s.PeriodY = periodRows(x, y)
	}
	return periodicFromSpread(s)
}

// periodicFromSpread is NewPeriodicFromData from s.
func periodicFromSpread(s *Spread) *Periodic {
	d := len(s.Lo)
	ls, ps := make([]float64, d), make([]float64, d)
	for t := range d {
		ls[t] = DefaultPeriodicLengthscale
		ps[t] = s.Hi[t] - s.Lo[t]
		ps[t] = min(ps[t], maxFromData)
		if !(ps[t] > 0) {
			ps[t] = 1
		}
	}
	if d == 1 {
		if p := periodPeaksOf(s.PeriodX, s.PeriodY, 1); len(p) > 0 {
			ps[0] = p[0]
		}
	}
	return NewPeriodic(s.TargetScale, ls, ps)
}

// PeriodFromData returns the period of the strongest peak of the
// Lomb–Scargle periodogram (Lomb 1976; Scargle 1982) of the targets y,
// less their least-squares straight line (a trend would otherwise take
// the longest periods), against a one-dimensional input x, which need
// not be evenly spaced, over periods from 4 times the median spacing of
// the sorted inputs to half their range, and whether there is such a peak
// that explains at least a tenth of the residuals' variance; it uses at
// most 2000 of the inputs (evenly strided) and 2000 frequencies. It is
// the first of PeriodPeaks.
func PeriodFromData(x *Vectors, y []float64) (float64, bool) {
	peaks := PeriodPeaks(x, y, 1)
	if len(peaks) == 0 {
		return 0, false
	}
	return peaks[0], true
}

// PeriodPeaks returns the periods of up to k peaks of PeriodFromData's
// periodogram, strongest first: the local maxima of its power over its
// frequencies (an end of the range counts when it is above its one
// neighbour) that each explain at least a tenth of the detrended
// targets' variance, as the strongest must for PeriodFromData. The first
// is PeriodFromData's period; the others are the starts a fit restarted
// from other periods tries (sgp's WithRestarts). It returns nil where
// PeriodFromData finds no period.
func PeriodPeaks(x *Vectors, y []float64, k int) []float64 {
	if x.d != 1 || len(y) != x.n {
		return nil
	}
	xs, ys := periodRows(x, y)
	return periodPeaksOf(xs, ys, k)
}

// periodPeaksOf returns PeriodPeaks of the periodogram's rows xs, ys
// (periodRows).
func periodPeaksOf(xs, ys []float64, k int) []float64 {
	periods, power, v := periodogram(xs, ys)
	if len(power) == 0 || k < 1 {
		return nil
	}
	var peaks []int
	for f, p := range power {
		if (f == 0 || p > power[f-1]) && (f == len(power)-1 || p >= power[f+1]) && p >= 0.1*v {
			peaks = append(peaks, f)
		}
	}
	// Strongest first; among equal powers the lower frequency, as a scan
	// that keeps the first maximum finds it.
	slices.SortStableFunc(peaks, func(a, b int) int { return cmp.Compare(power[b], power[a]) })
	out := make([]float64, 0, min(k, len(peaks)))
	for _, f := range peaks[:min(k, len(peaks))] {
		out = append(out, periods[f])
	}
	return out
}

// periodogram returns PeriodFromData's Lomb–Scargle periodogram of the
// targets ys against the inputs xs (the rows periodRows takes): the periods of its frequencies, evenly spaced in 1/p, the
// variance of the detrended targets that the best sinusoid at each
// explains (its power over n), and the detrended targets' variance v.
// It returns no frequencies where the inputs or targets admit none.
func periodogram(xs, ys []float64) (periods, power []float64, v float64) {
	if len(xs) < 8 || len(ys) != len(xs) {
		return nil, nil, 0
	}
	ys = slices.Clone(ys)
	n := len(xs)
	detrend(ys, xs)
	mean := sum(ys) / float64(n)
	v = stats.Variance(ys)
	if !(v > 0) || math.IsInf(v, 0) {
		return nil, nil, 0
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	span := sorted[n-1] - sorted[0]
	gaps := make([]float64, 0, n-1)
	for i := 1; i < n; i++ {
		if g := sorted[i] - sorted[i-1]; g > 0 {
			gaps = append(gaps, g)
		}
	}
	if !(span > 0) || len(gaps) == 0 {
		return nil, nil, 0
	}
	slices.Sort(gaps)
	pMin, pMax := 4*gaps[len(gaps)/2], span/2
	if !(pMin < pMax) {
		return nil, nil, 0
	}
	fLo, fHi := 1/pMax, 1/pMin
	nf := min(periodFrequencies, max(16, int(4*span*(fHi-fLo))))
	periods, power = make([]float64, nf), make([]float64, nf)
	for f := range nf {
		w := 2 * math.Pi * (fLo + (fHi-fLo)*float64(f)/float64(nf-1))
		// τ makes the sine and cosine terms orthogonal (Lomb–Scargle).
		var s2, c2 float64
		for _, xv := range xs {
			s2 += math.Sin(2 * w * xv)
			c2 += math.Cos(2 * w * xv)
		}
		tau := math.Atan2(s2, c2) / (2 * w)
		var yc, ys2, cc, ss float64
		for i, xv := range xs {
			c, s := math.Cos(w*(xv-tau)), math.Sin(w*(xv-tau))
			yc += (ys[i] - mean) * c
			ys2 += (ys[i] - mean) * s
			cc += c * c
			ss += s * s
		}
		var p float64
		if cc > 0 {
			p += yc * yc / cc
		}
		if ss > 0 {
			p += ys2 * ys2 / ss
		}
		periods[f], power[f] = 2*math.Pi/w, p/float64(n)
	}
	return periods, power, v
}

// detrend subtracts from y its least-squares straight line in x.
func detrend(y, x []float64) {
	n := float64(len(x))
	mx, my := sum(x)/n, sum(y)/n
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	b := 0.0
	if sxx > 0 {
		b = sxy / sxx
	}
	for i := range y {
		y[i] -= my + b*(x[i]-mx)
	}
}

// periodFrequencies bounds PeriodFromData's frequencies (with
// periodSample, 4·10⁶ sines and cosines at most).
const periodFrequencies = 2000

// Dim returns the input dimension d.
func (k *Periodic) Dim() int { return len(k.ls) }

// Variance returns the signal variance V.
func (k *Periodic) Variance() float64 { return k.variance }

// Lengthscales returns a copy of ℓ.
func (k *Periodic) Lengthscales() []float64 { return slices.Clone(k.ls) }

// Periods returns a copy of p.
func (k *Periodic) Periods() []float64 { return slices.Clone(k.periods) }

// String describes the kernel in one line,
// periodic(variance V, lengthscales [ℓ…], periods [p…]).
func (k *Periodic) String() string {
	return callText("periodic", argText("variance", k.variance), vecText("lengthscales", k.ls), vecText("periods", k.periods))
}

// HTML returns the hyperparameters as a table, by name in θ order.
func (k *Periodic) HTML() string { return hyperHTML(k) }

// kind describes the kernel for Name.
func (k *Periodic) kind() string { return "periodic, " + plural(len(k.ls), "dimension") }

// NumParams returns 1 + 2d.
func (k *Periodic) NumParams() int { return 1 + 2*len(k.ls) }

// ParamNames returns "variance", "lengthscale[0]", …, "period[0]", ….
func (k *Periodic) ParamNames() []string {
	return append(lengthscaledNames(len(k.ls)), indexedNames("period", len(k.ls))...)
}

// Params returns (log V, log ℓ₁, …, log ℓ_d, log p₁, …, log p_d) in dst.
func (k *Periodic) Params(dst []float64) []float64 { return getParams(dst, k.theta) }

// SetParams sets V = exp θ₀, ℓ_t = exp θ_{1+t} and p_t = exp θ_{1+d+t}.
func (k *Periodic) SetParams(theta []float64) {
	if len(theta) != k.NumParams() {
		panic(errParamLen)
	}
	copy(k.theta, theta)
	d := len(k.ls)
	k.variance = math.Exp(theta[0])
	for t := range d {
		k.ls[t] = math.Exp(theta[1+t])
		k.periods[t] = math.Exp(theta[1+d+t])
		k.invLS2[2*t] = 0.5 / k.ls[t]
		k.invLS2[2*t+1] = k.invLS2[2*t]
	}
}

// Accepts reports whether x is a *Vectors of dimension d.
func (k *Periodic) Accepts(x Inputs) error { return acceptsVectors("periodic", x, len(k.ls)) }

// embedRow sets u[2t], u[2t+1] = cos, sin of 2π·a_t/p_t.
func (k *Periodic) embedRow(u, a []float64) {
	for t, p := range k.periods {
		u[2*t+1], u[2*t] = math.Sincos(2 * math.Pi * a[t] / p)
	}
}

// embed returns the rows of x (all of them for rows = nil) embedded as
// 2d-vectors (embedRow).
func (k *Periodic) embed(x *Vectors, rows []int) *Vectors {
	n := x.n
	if rows != nil {
		n = len(rows)
	}
	d := len(k.ls)
	u := &Vectors{n: n, d: 2 * d, data: make([]float64, n*2*d)}
	par.For(n, par.MinRows/max(1, d), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			i := r
			if rows != nil {
				i = rows[r]
			}
			k.embedRow(u.data[r*2*d:(r+1)*2*d], x.Row(i))
		}
	})
	return u
}

// profile sets dst[i] = V·e^{−r2[i]/2}.
func (k *Periodic) profile(dst, r2 []float64) { asm.ExpRow(dst, r2, k.variance) }

// Column sets dst[i−lo] = κ(x_i, y_j), through the embedding.
func (k *Periodic) Column(dst []float64, x Inputs, lo, hi int, y Inputs, j int) {
	d := len(k.ls)
	uz := make([]float64, 2*d)
	k.embedRow(uz, y.(*Vectors).Row(j))
	u := k.embed(x.(*Vectors), seqRange(lo, hi))
	stationaryColumn(dst, u, 0, hi-lo, uz, k.invLS2, k.profile)
}

// seqRange returns lo, lo+1, …, hi−1.
func seqRange(lo, hi int) []int {
	s := make([]int, hi-lo)
	for i := range s {
		s[i] = lo + i
	}
	return s
}

// Diag sets dst[i−lo] = V.
func (k *Periodic) Diag(dst []float64, x Inputs, lo, hi int) { fill(dst[:hi-lo], k.variance) }

// pairGrad adds to g the derivatives of κ = kv at the pair of embedded
// inputs ua, ub (unscaled, as embedRow sets them) with differences
// delta = a − b, weighted by w:
//
//	∂κ/∂log ℓ_t = κ·sin²(πδ_t/p_t)/ℓ_t²,
//	∂κ/∂log p_t = κ·sin(2πδ_t/p_t)·πδ_t/(2 p_t ℓ_t²),
//
// with sin²(πδ/p) = ((c_a − c_b)² + (s_a − s_b)²)/4 and sin(2πδ/p) =
// s_a c_b − c_a s_b.
func (k *Periodic) pairGrad(g []float64, w, kv float64, ua, ub []float64, a, b []float64) {
	d := len(k.ls)
	wk := w * kv
	g[0] += wk
	for t, l := range k.ls {
		dc, ds := ua[2*t]-ub[2*t], ua[2*t+1]-ub[2*t+1]
		il2 := 1 / (l * l)
		g[1+t] += wk * 0.25 * (dc*dc + ds*ds) * il2
		sin2 := ua[2*t+1]*ub[2*t] - ua[2*t]*ub[2*t+1]
		g[1+d+t] += wk * sin2 * math.Pi * (a[t] - b[t]) / (2 * k.periods[t]) * il2
	}
}

// AddGrad adds the weighted kernel derivatives to grad: ∂κ/∂log V = κ,
// ∂κ/∂log ℓ_t = κ·sin²(πδ_t/p_t)/ℓ_t² and ∂κ/∂log p_t =
// κ·sin(2πδ_t/p_t)·πδ_t/(2 p_t ℓ_t²) at δ = x − x′, read off the embedded
// inputs.
func (k *Periodic) AddGrad(grad, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	xv, yv := x.(*Vectors), y.(*Vectors)
	ux := k.embed(xv, seqRange(lo, hi))
	uy := k.embed(yv, cols)
	for i := lo; i < hi; i++ {
		ua := ux.Row(i - lo)
		wi := w[(i-lo)*len(cols) : (i-lo+1)*len(cols)]
		for c, j := range cols {
			if wi[c] == 0 {
				continue
			}
			ub := uy.Row(c)
			kv := k.variance * math.Exp(-0.5*scaledDist2(ua, ub, k.invLS2))
			k.pairGrad(grad, wi[c], kv, ua, ub, xv.Row(i), yv.Row(j))
		}
	}
}

// AddDiagGrad adds Σ w_i · V to the derivative with respect to log V.
func (k *Periodic) AddDiagGrad(grad, w []float64, x Inputs, lo, hi int) {
	grad[0] += sum(w[:hi-lo]) * k.variance
}

// CrossT evaluates the block as RBF's of the embedded inputs.
func (k *Periodic) CrossT(dst []float64, x, y Inputs, cols []int) {
	ux := k.embed(x.(*Vectors), nil)
	uy := k.embed(y.(*Vectors), cols)
	scaledCrossT(dst, ux, uy, seqCols(len(cols)), k.invLS2, k.profile)
}

// AddGradBlockT adds the weighted derivatives given the values kv, as
// AddGrad, in parallel over the inducing points, each point's sums added
// in order.
func (k *Periodic) AddGradBlockT(grad, w, kv []float64, x Inputs, y Inputs, cols []int) {
	xv, yv := x.(*Vectors), y.(*Vectors)
	n, m, np := xv.n, len(cols), k.NumParams()
	ux := k.embed(xv, nil)
	uy := k.embed(yv, cols)
	parts := make([]float64, m*np)
	par.For(m, max(1, par.MinRows/max(1, n)), func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			g := parts[c*np : (c+1)*np]
			ub, b := uy.Row(c), yv.Row(cols[c])
			for i := 0; i < n; i++ {
				if wi := w[c*n+i]; wi != 0 {
					k.pairGrad(g, wi, kv[c*n+i], ux.Row(i), ub, xv.Row(i), b)
				}
			}
		}
	})
	for c := 0; c < m; c++ {
		for p, v := range parts[c*np : (c+1)*np] {
			grad[p] += v
		}
	}
}

// InputGradT sets gz to the gradient with respect to the inducing inputs
// z of Σ wx∘K_mn + Σ wz∘K_mm (see InputGradient), with
//
//	∂κ(x, z)/∂z_t = κ·sin(2π(x_t − z_t)/p_t)·π/(2 p_t ℓ_t²):
//
// ∂F/∂z_ct = Σ_i wx_ci ∂κ(x_i, z_c)/∂z_ct + Σ_b (W_cb + W_bc) ∂κ(z_b, z_c)/∂z_ct.
func (k *Periodic) InputGradT(gz, wx, kx, wz, kz []float64, x, z *Vectors) {
	n, m, d := x.n, z.n, len(k.ls)
	ux, uz := k.embed(x, nil), k.embed(z, nil)
	scale := make([]float64, d)
	for t, l := range k.ls {
		scale[t] = math.Pi / (2 * k.periods[t] * l * l)
	}
	// add adds w·κ·sin(2π(a − z_c)/p)·scale to g, for the embedded a.
	add := func(g []float64, wk float64, ua, uc []float64) {
		for t := range g {
			g[t] += wk * (ua[2*t+1]*uc[2*t] - ua[2*t]*uc[2*t+1]) * scale[t]
		}
	}
	par.For(m, 1, func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			g := gz[c*d : (c+1)*d]
			clear(g)
			uc := uz.Row(c)
			for i := 0; i < n; i++ {
				if wk := wx[c*n+i] * kx[c*n+i]; wk != 0 {
					add(g, wk, ux.Row(i), uc)
				}
			}
			for b := 0; b < m; b++ {
				if wk := (wz[c*m+b] + wz[b*m+c]) * kz[c*m+b]; wk != 0 {
					add(g, wk, uz.Row(b), uc)
				}
			}
		}
	})
}
