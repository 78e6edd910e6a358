package sgp

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/kernel"
)

// canonicalRows returns an order of the rows of vector inputs x with
// targets y that does not depend on the order of the rows, nor on the
// order of the columns, nor on a positive scaling or shift of any column
// or of y: the rows sorted by a key, the row's values standardised by
// their column's mean and sd and sorted, then the standardised target,
// compared lexicographically (rows with equal keys keep their order),
// then shuffled by a fixed permutation of n positions. Position p of the
// order is row order[p]. The random draws of rows of the fits (the
// starting sets, the candidates, the information pivots' refreshes) pick
// positions and read the rows there, so that a fit of the same data in
// another row order draws the same rows. It returns nil for inputs that
// are not vectors, whose draws are of rows in their own order. Space
// O(n·d).
func canonicalRows(x kernel.Inputs, y []float64) []int {
	xv, ok := x.(*kernel.Vectors)
	if !ok || xv.Len() != len(y) {
		return nil
	}
	return canonicalOrder(comm.Single(), xv, y, 0, len(y), xv.Dim())
}

// canonicalOrder is canonicalRows of n rows of dimension d spread over
// the ranks of c, each holding rows [lo, lo+len(y)) in comm.Span's
// layout (x nil on a rank without rows); every rank returns the same
// order, which for one rank is canonicalRows'. The columns' means and
// sds are ordered sums over blocks of comm.BlockRows rows, the same for
// every number of ranks. Each row's place in the sorted order is counted
// against every rank's sorted keys in turn (one broadcast of n/P·(d+1)
// numbers per rank, so that no rank holds more than two ranks' keys),
// and the order is assembled by one exact integer sum of n numbers.
// Space O(n/P·d) for the keys and O(n) for the order.
func canonicalOrder(c *comm.Comm, x *kernel.Vectors, y []float64, lo, n, d int) []int {
	nl, w := len(y), d+1
	at := func(i, t int) float64 {
		if t == d {
			return y[i]
		}
		return x.At(i, t)
	}
	sum := func(term func(i, t int) float64) []float64 {
		nb := (nl + comm.BlockRows - 1) / comm.BlockRows
		parts := make([]float64, nb*w)
		for b := range nb {
			acc := parts[b*w : (b+1)*w]
			for i := b * comm.BlockRows; i < min(nl, (b+1)*comm.BlockRows); i++ {
				for t := range w {
					acc[t] += term(i, t)
				}
			}
		}
		out := make([]float64, w)
		c.OrderedSum(parts, w, out)
		return out
	}
	mean := sum(at)
	for t := range mean {
		mean[t] /= float64(n)
	}
	sd := sum(func(i, t int) float64 { e := at(i, t) - mean[t]; return e * e })
	for t := range sd {
		sd[t] = math.Sqrt(sd[t] / float64(n))
	}
	keys := make([]float64, nl*w)
	for i := range nl {
		row := keys[i*w : (i+1)*w]
		for t := range w {
			if sd[t] > 0 {
				row[t] = (at(i, t) - mean[t]) / sd[t]
			}
		}
		slices.Sort(row[:d])
	}
	key := func(k []float64, i int) []float64 { return k[i*w : (i+1)*w] }
	mine := make([]int, nl) // this rank's rows, local indices, in key order
	for i := range mine {
		mine[i] = i
	}
	slices.SortStableFunc(mine, func(a, b int) int {
		return slices.CompareFunc(key(keys, a), key(keys, b), cmp.Compare[float64])
	})
	sorted := make([]float64, nl*w)
	for q, i := range mine {
		copy(sorted[q*w:(q+1)*w], key(keys, i))
	}
	// pos[q] counts the rows of every rank that come before mine[q]: a
	// smaller key, or an equal one on a row of smaller global index, which
	// is a rank before this one or an earlier row of this one.
	pos := make([]int, nl)
	me := c.Rank()
	for r := range c.Size() {
		rlo, rhi := comm.Span(n, comm.BlockRows, r, c.Size())
		theirs := sorted
		if r != me {
			theirs = make([]float64, (rhi-rlo)*w)
		}
		c.BcastFloat64s(theirs, r)
		if r == me {
			for q := range pos {
				pos[q] += q
			}
			continue
		}
		p := 0
		for q := range pos {
			for p < rhi-rlo {
				s := slices.CompareFunc(key(theirs, p), key(sorted, q), cmp.Compare[float64])
				if s > 0 || s == 0 && r > me {
					break
				}
				p++
			}
			pos[q] += p
		}
	}
	order := make([]int, n)
	for q, i := range mine {
		order[pos[q]] = lo + i
	}
	c.SumInts(order)
	// The sorted order follows the inputs' values (in one dimension it is
	// the order along the axis), so a tie broken by it, or a scan in it,
	// would favour one end of the data; a fixed shuffle of the positions,
	// which depends on n alone, keeps the order canonical and spreads it.
	shuffled := make([]int, n)
	for p, q := range rand.New(rand.NewPCG(uint64(n), canonicalStream)).Perm(n) {
		shuffled[p] = order[q]
	}
	return shuffled
}

// canonicalStream is the seed of canonicalRows' shuffle.
const canonicalStream = 0x63616e6f6e
