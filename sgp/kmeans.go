package sgp

import (
	"math"
	"math/rand/v2"

	"github.com/cholqr/sgp/sgp/internal/par"

	"github.com/cholqr/sgp/sgp/kernel"
)

// kmeansIters bounds the Lloyd iterations of kmeansCentres.
const kmeansIters = 10

// kmeansBlock is the least number of rows kmeansCentres sums as one
// block, and kmeansMaxBlocks the most blocks: the blocks are combined in
// order, so the result does not depend on the number of cores, and the
// per-block sums take at most kmeansMaxBlocks·m·d values.
const (
	kmeansBlock     = 1024
	kmeansMaxBlocks = 16
)

// kmeansBlocks returns the block size and count for rows rows.
func kmeansBlocks(rows int) (size, nb int) {
	size = max(kmeansBlock, (rows+kmeansMaxBlocks-1)/kmeansMaxBlocks)
	return size, (rows + size - 1) / size
}

// kmeansRows is the least number of rows kmeansCentres clusters; larger
// inputs are subsampled to max(kmeansRows, 40·m) rows, which keeps its
// cost at n = 10⁶ a small part of one evaluation of the objective.
const kmeansRows = 10000

// kmeansCentres returns two sets of m inducing inputs for a continuous
// fit, from a k-means clustering of the rows of x in the coordinates
// x_t/ℓ_t (the kernel's lengthscales ls): the centres, and the seeds they
// grew from. The seeds are rows of x chosen by D² sampling (k-means++,
// Arthur & Vassilvitskii 2007); the centres are the seeds moved by at most
// kmeansIters Lloyd iterations (a cluster that empties keeps its centre).
// The centres follow the density of the inputs, the seeds are spread over
// its extent: inducing inputs that then move descend faster from the
// first and can end lower from the second (see fitHybrid). It draws from
// rng only and gives the same bits on any number of cores; x is not
// modified. Space O((n+m)·d).
func kmeansCentres(x *kernel.Vectors, ls []float64, m int, rng *rand.Rand) (centres, seeds *kernel.Vectors) {
	n, d := x.Len(), x.Dim()
	xd := x.RawData()
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
			xs[r*d+t] = xd[i*d+t] / ls[t]
		}
	}
	m = min(m, rows)
	cent := make([]float64, m*d)
	chosen := kmeansSeed(xs, d, cent, rng)
	if pick != nil {
		for c, r := range chosen {
			chosen[c] = pick[r]
		}
	}
	seeds = x.Rows(chosen)
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
	centres, err := kernel.NewVectors(m, d, cent)
	if err != nil {
		panic("sgp: internal error: k-means centres: " + err.Error()) // means of finite inputs are finite
	}
	return centres, seeds
}

// kmeansSeed fills cent (m×d) with rows of xs chosen by D² sampling: the
// first uniformly, each next one with probability proportional to its
// squared distance from the nearest row chosen so far. When every row
// coincides with a chosen one (fewer distinct rows than m), it draws
// uniformly. It returns the indices of the rows chosen, in order.
func kmeansSeed(xs []float64, d int, cent []float64, rng *rand.Rand) []int {
	rows, m := len(xs)/d, len(cent)/d
	dist := make([]float64, rows)
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	size, nb := kmeansBlocks(rows)
	part := make([]float64, nb)
	j := rng.IntN(rows)
	chosen := make([]int, m)
	for c := range m {
		copy(cent[c*d:(c+1)*d], xs[j*d:(j+1)*d])
		chosen[c] = j
		if c == m-1 {
			break
		}
		z := cent[c*d : (c+1)*d]
		par.For(nb, 1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				s := 0.0
				for i := b * size; i < min(rows, (b+1)*size); i++ {
					if v := sqDist(xs[i*d:(i+1)*d], z); v < dist[i] {
						dist[i] = v
					}
					s += dist[i]
				}
				part[b] = s
			}
		})
		total := 0.0
		for _, v := range part {
			total += v
		}
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
	return chosen
}

// lloydStep moves each row of xs to its nearest centre and each centre to
// the mean of its rows, and reports whether any row changed centre. Rows
// are summed by blocks (kmeansBlocks), in block order, so the centres are
// the same bits on any number of cores.
func lloydStep(xs []float64, d int, cent []float64, assign []int32) bool {
	rows, m := len(xs)/d, len(cent)/d
	size, nb := kmeansBlocks(rows)
	sums := make([]float64, nb*m*d)
	counts := make([]int, nb*m)
	moved := make([]bool, nb)
	par.For(nb, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			s, cnt := sums[b*m*d:(b+1)*m*d], counts[b*m:(b+1)*m]
			for i := b * size; i < min(rows, (b+1)*size); i++ {
				xi := xs[i*d : (i+1)*d]
				best, bestD := 0, math.Inf(1)
				for c := range m {
					if v := sqDist(xi, cent[c*d:(c+1)*d]); v < bestD {
						best, bestD = c, v
					}
				}
				if assign[i] != int32(best) {
					assign[i] = int32(best)
					moved[b] = true
				}
				cnt[best]++
				for t, v := range xi {
					s[best*d+t] += v
				}
			}
		}
	})
	changed := false
	for b := 1; b < nb; b++ {
		for k, v := range sums[b*m*d : (b+1)*m*d] {
			sums[k] += v
		}
		for c, k := range counts[b*m : (b+1)*m] {
			counts[c] += k
		}
	}
	for _, mv := range moved {
		changed = changed || mv
	}
	for c, k := range counts[:m] {
		if k == 0 {
			continue
		}
		for t := range d {
			cent[c*d+t] = sums[c*d+t] / float64(k)
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
