package sgp

import (
	"math"
	"math/rand/v2"
	"sync"
)

// kmeansIters bounds the Lloyd iterations of kmeansCentres.
const kmeansIters = 10

// kmeansRows is the least number of rows kmeansCentres clusters; larger
// inputs are subsampled to max(kmeansRows, 40·m) rows, which keeps its
// cost at n = 10⁶ a small part of one evaluation of the objective.
const kmeansRows = 10000

// kmeansCentres returns m inducing inputs for a continuous fit: the
// centres of a k-means clustering of the rows of x in the coordinates
// x_t/ℓ_t (the kernel's lengthscales ls), seeded by D² sampling (k-means++,
// Arthur & Vassilvitskii 2007) and refined by at most kmeansIters Lloyd
// iterations. A cluster that empties keeps its centre. The centres follow
// the density of the inputs and are spread over it, a better place for
// inducing inputs that then move than a random subset or a greedy one (see
// fitHybrid). It draws from rng only; x is not modified. Space O((n+m)·d).
func kmeansCentres(x *Vectors, ls []float64, m int, rng *rand.Rand) *Vectors {
	n, d := x.n, x.d
	rows := n
	if limit := max(kmeansRows, 40*m); n > limit {
		rows = limit
	}
	var pick []int
	if rows < n {
		pick = rng.Perm(n)[:rows]
	}
	// xs holds the (sampled) rows in lengthscale units, row-major.
	xs := make([]float64, rows*d)
	for r := range rows {
		i := r
		if pick != nil {
			i = pick[r]
		}
		for t := range d {
			xs[r*d+t] = x.data[i*d+t] / ls[t]
		}
	}
	m = min(m, rows)
	cent := make([]float64, m*d)
	kmeansSeed(xs, d, cent, rng)
	assign := make([]int32, rows)
	for i := range assign {
		assign[i] = -1
	}
	for range kmeansIters {
		if !lloydStep(xs, d, cent, assign) {
			break
		}
	}
	for c := range m {
		for t := range d {
			cent[c*d+t] *= ls[t]
		}
	}
	return &Vectors{n: m, d: d, data: cent}
}

// kmeansSeed fills cent (m×d) with rows of xs chosen by D² sampling: the
// first uniformly, each next one with probability proportional to its
// squared distance from the nearest row chosen so far. When every row
// coincides with a chosen one (fewer distinct rows than m), it draws
// uniformly.
func kmeansSeed(xs []float64, d int, cent []float64, rng *rand.Rand) {
	rows, m := len(xs)/d, len(cent)/d
	dist := make([]float64, rows)
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	j := rng.IntN(rows)
	for c := range m {
		copy(cent[c*d:(c+1)*d], xs[j*d:(j+1)*d])
		if c == m-1 {
			break
		}
		z := cent[c*d : (c+1)*d]
		var mu sync.Mutex
		total := 0.0
		parallelRows(rows, func(lo, hi int) {
			s := 0.0
			for i := lo; i < hi; i++ {
				if v := sqDist(xs[i*d:(i+1)*d], z); v < dist[i] {
					dist[i] = v
				}
				s += dist[i]
			}
			mu.Lock()
			total += s
			mu.Unlock()
		})
		if !(total > 0) {
			j = rng.IntN(rows)
			continue
		}
		u := rng.Float64() * total
		j = rows - 1
		for i, v := range dist {
			if u -= v; u < 0 {
				j = i
				break
			}
		}
	}
}

// lloydStep moves each row of xs to its nearest centre and each centre to
// the mean of its rows, and reports whether any row changed centre.
func lloydStep(xs []float64, d int, cent []float64, assign []int32) bool {
	rows, m := len(xs)/d, len(cent)/d
	var (
		mu      sync.Mutex
		sum     = make([]float64, m*d)
		count   = make([]int, m)
		changed bool
	)
	parallelRows(rows, func(lo, hi int) {
		s := make([]float64, m*d)
		cnt := make([]int, m)
		moved := false
		for i := lo; i < hi; i++ {
			xi := xs[i*d : (i+1)*d]
			best, bestD := 0, math.Inf(1)
			for c := range m {
				if v := sqDist(xi, cent[c*d:(c+1)*d]); v < bestD {
					best, bestD = c, v
				}
			}
			if assign[i] != int32(best) {
				assign[i] = int32(best)
				moved = true
			}
			cnt[best]++
			for t, v := range xi {
				s[best*d+t] += v
			}
		}
		mu.Lock()
		for k, v := range s {
			sum[k] += v
		}
		for c, k := range cnt {
			count[c] += k
		}
		changed = changed || moved
		mu.Unlock()
	})
	for c, k := range count {
		if k == 0 {
			continue
		}
		for t := range d {
			cent[c*d+t] = sum[c*d+t] / float64(k)
		}
	}
	return changed
}

// sqDist returns the squared Euclidean distance between a and b.
func sqDist(a, b []float64) float64 {
	s := 0.0
	for t, v := range a {
		e := v - b[t]
		s += e * e
	}
	return s
}
