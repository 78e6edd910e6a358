package kernel

import (
	"slices"
	"sync"

	"github.com/cholqr/sgp/sgp/internal/par"
)

// sparseSet holds n sparse non-negative vectors in compressed-row form, the
// feature vectors of the discrete kernels: vector i has the strictly
// increasing indices idx[off[i]:off[i+1]] and the values val[off[i]:off[i+1]].
// Dot products and min-sums of two vectors are merges of their index lists,
// O(nnz_a + nnz_b).
type sparseSet struct {
	off []int     // n+1 row offsets
	idx []uint64  // feature ids, increasing within a row
	val []float64 // feature values (counts)
	sq  []float64 // sq[i] = Σ_t val_t², the squared norm of row i
	sum []float64 // sum[i] = Σ_t val_t
}

// n returns the number of rows.
func (s *sparseSet) n() int { return len(s.off) - 1 }

// row returns the indices and values of row i.
func (s *sparseSet) row(i int) ([]uint64, []float64) {
	lo, hi := s.off[i], s.off[i+1]
	return s.idx[lo:hi:hi], s.val[lo:hi:hi]
}

// nnzMean returns the mean number of non-zeros per row.
func (s *sparseSet) nnzMean() float64 {
	if s.n() == 0 {
		return 0
	}
	return float64(len(s.idx)) / float64(s.n())
}

// subset returns a copy of rows idx in order.
func (s *sparseSet) subset(idx []int) sparseSet {
	var b sparseBuilder
	b.init(len(idx))
	for _, i := range idx {
		ix, vx := s.row(i)
		for t, k := range ix {
			b.push(k, vx[t])
		}
		b.endRow()
	}
	return b.done()
}

// sparseBuilder appends rows to a sparseSet. The caller pushes each row's
// entries in increasing index order.
type sparseBuilder struct {
	s sparseSet
}

func (b *sparseBuilder) init(n int) {
	b.s = sparseSet{off: make([]int, 1, n+1), sq: make([]float64, 0, n), sum: make([]float64, 0, n)}
}

func (b *sparseBuilder) push(k uint64, v float64) {
	b.s.idx = append(b.s.idx, k)
	b.s.val = append(b.s.val, v)
}

func (b *sparseBuilder) endRow() {
	lo := b.s.off[len(b.s.off)-1]
	var sq, sum float64
	for _, v := range b.s.val[lo:] {
		sq += v * v
		sum += v
	}
	b.s.off = append(b.s.off, len(b.s.idx))
	b.s.sq = append(b.s.sq, sq)
	b.s.sum = append(b.s.sum, sum)
}

func (b *sparseBuilder) done() sparseSet { return b.s }

// countRows builds the sparseSet whose row i counts the ids that ids(i, buf)
// appends to buf[:0]: the value at index k is the number of times k was
// produced. Items are featurised in parallel; ids must be safe for
// concurrent calls with different i. Cost O(Σ_i L_i log L_i) for L_i ids per
// item.
func countRows(n int, ids func(i int, buf []uint64) []uint64) sparseSet {
	rowIdx := make([][]uint64, n)
	rowVal := make([][]float64, n)
	par.For(n, 32, func(lo, hi int) {
		var buf []uint64
		for i := lo; i < hi; i++ {
			buf = ids(i, buf[:0])
			slices.Sort(buf)
			var ix []uint64
			var vx []float64
			for t := 0; t < len(buf); {
				u := t + 1
				for u < len(buf) && buf[u] == buf[t] {
					u++
				}
				ix = append(ix, buf[t])
				vx = append(vx, float64(u-t))
				t = u
			}
			rowIdx[i], rowVal[i] = ix, vx
		}
	})
	total := 0
	for _, ix := range rowIdx {
		total += len(ix)
	}
	var b sparseBuilder
	b.init(n)
	b.s.idx = make([]uint64, 0, total)
	b.s.val = make([]float64, 0, total)
	for i := range rowIdx {
		b.s.idx = append(b.s.idx, rowIdx[i]...)
		b.s.val = append(b.s.val, rowVal[i]...)
		b.endRow()
	}
	return b.done()
}

// b2i returns 1 for true and 0 for false (compiled without a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The merges below advance both positions without a branch on the order
// of the indices, which is unpredictable on WL features of molecules, so
// that an if-else chain would mispredict often.

// sparseDot returns Σ_k a_k·b_k for two sparse vectors given by increasing
// indices and values, by merging the index lists: O(len(ai) + len(bi)). The
// products are added in increasing index order.
func sparseDot(ai []uint64, av []float64, bi []uint64, bv []float64) float64 {
	av = av[:len(ai)]
	bv = bv[:len(bi)]
	var s float64
	p, q := 0, 0
	for p < len(ai) && q < len(bi) {
		a, b := ai[p], bi[q]
		if a == b {
			s += av[p] * bv[q]
		}
		p += b2i(a <= b)
		q += b2i(b <= a)
	}
	return s
}

// sparseDotSplit adds a_k·b_k to acc[k>>shift] for every common index k:
// the dot products restricted to the index groups given by the top bits.
func sparseDotSplit(acc []float64, shift uint, ai []uint64, av []float64, bi []uint64, bv []float64) {
	av = av[:len(ai)]
	bv = bv[:len(bi)]
	p, q := 0, 0
	for p < len(ai) && q < len(bi) {
		a, b := ai[p], bi[q]
		if a == b {
			acc[a>>shift] += av[p] * bv[q]
		}
		p += b2i(a <= b)
		q += b2i(b <= a)
	}
}

// sparseMinSum returns Σ_k min(a_k, b_k) over the indices common to both
// vectors (absent entries are zero, so others contribute nothing), added in
// increasing index order.
func sparseMinSum(ai []uint64, av []float64, bi []uint64, bv []float64) float64 {
	av = av[:len(ai)]
	bv = bv[:len(bi)]
	var s float64
	p, q := 0, 0
	for p < len(ai) && q < len(bi) {
		a, b := ai[p], bi[q]
		if a == b {
			s += min(av[p], bv[q])
		}
		p += b2i(a <= b)
		q += b2i(b <= a)
	}
	return s
}

// invMinRows is the smallest row range for which a column is evaluated
// through the inverted index rather than by one merge per row.
const invMinRows = 16

// sparseFeatures is a sparseSet with its inverted index, built on first
// use. It is safe for concurrent use.
type sparseFeatures struct {
	sparseSet
	once sync.Once
	inv  invIndex
}

// newSparseFeatures wraps s.
func newSparseFeatures(s sparseSet) *sparseFeatures { return &sparseFeatures{sparseSet: s} }

// index returns the inverted index of the rows, building it on first use
// (O(nnz) time and memory).
func (f *sparseFeatures) index() *invIndex {
	f.once.Do(func() { f.inv.build(&f.sparseSet) })
	return &f.inv
}

// invIndex is the transpose of a sparseSet: for each distinct index k, the
// rows i with a non-zero entry x_ik (in increasing order) and the values.
// A column κ(·, y_j) then costs O(Σ_{k ∈ y_j} #rows holding k), the number
// of matching entries, instead of O(n·(nnz_x + nnz_y)) for n merges, most
// of which find no common index on WL features of drug-like molecules
// (the document-at-a-time versus term-at-a-time evaluation of
// information retrieval, Turtle & Flood 1995).
type invIndex struct {
	pos map[uint64]int32 // index k → its posting list p
	off []int            // posting list p is entries off[p]:off[p+1]
	row []int32          // rows, increasing within a posting list
	val []float64        // x_ik
}

func (ix *invIndex) build(s *sparseSet) {
	ix.pos = make(map[uint64]int32)
	var count []int
	for _, k := range s.idx {
		p, ok := ix.pos[k]
		if !ok {
			p = int32(len(count))
			ix.pos[k] = p
			count = append(count, 0)
		}
		count[p]++
	}
	ix.off = make([]int, len(count)+1)
	for p, c := range count {
		ix.off[p+1] = ix.off[p] + c
	}
	fill := slices.Clone(ix.off[:len(count)])
	ix.row = make([]int32, len(s.idx))
	ix.val = make([]float64, len(s.idx))
	for i := 0; i < s.n(); i++ {
		ai, av := s.row(i)
		for t, k := range ai {
			p := ix.pos[k]
			ix.row[fill[p]], ix.val[fill[p]] = int32(i), av[t]
			fill[p]++
		}
	}
}

// postings returns the rows in [lo, hi) holding index k and their values.
func (ix *invIndex) postings(k uint64, lo, hi int) ([]int32, []float64) {
	p, ok := ix.pos[k]
	if !ok {
		return nil, nil
	}
	rows := ix.row[ix.off[p]:ix.off[p+1]]
	vals := ix.val[ix.off[p]:ix.off[p+1]]
	a, b := 0, len(rows)
	if lo > 0 {
		a, _ = slices.BinarySearch(rows, int32(lo))
	}
	if hi <= int(rows[len(rows)-1]) {
		b, _ = slices.BinarySearch(rows, int32(hi))
	}
	return rows[a:b], vals[a:b]
}

// scatterDot adds x_ik·y_k to acc[i−lo] for the rows i in [lo, hi) and
// every index k of y (increasing bi, values bv), in the order of bi: for
// each row, the same additions in the same order as sparseDot.
func (ix *invIndex) scatterDot(acc []float64, lo, hi int, bi []uint64, bv []float64) {
	bv = bv[:len(bi)]
	for t, k := range bi {
		rows, vals := ix.postings(k, lo, hi)
		vals = vals[:len(rows)]
		y := bv[t]
		for r, i := range rows {
			acc[int(i)-lo] += vals[r] * y
		}
	}
}

// scatterDotSplit is scatterDot with one accumulator per index group:
// acc[(k>>shift)·(hi−lo) + i−lo].
func (ix *invIndex) scatterDotSplit(acc []float64, shift uint, lo, hi int, bi []uint64, bv []float64) {
	bv = bv[:len(bi)]
	w := hi - lo
	for t, k := range bi {
		rows, vals := ix.postings(k, lo, hi)
		vals = vals[:len(rows)]
		a := acc[int(k>>shift)*w : int(k>>shift+1)*w]
		y := bv[t]
		for r, i := range rows {
			a[int(i)-lo] += vals[r] * y
		}
	}
}

// scatterMinSum adds min(x_ik, y_k) to acc[i−lo], as scatterDot.
func (ix *invIndex) scatterMinSum(acc []float64, lo, hi int, bi []uint64, bv []float64) {
	bv = bv[:len(bi)]
	for t, k := range bi {
		rows, vals := ix.postings(k, lo, hi)
		vals = vals[:len(rows)]
		y := bv[t]
		for r, i := range rows {
			acc[int(i)-lo] += min(vals[r], y)
		}
	}
}

// crossColumns evaluates a block of kernel values, dst[c·n+i] = κ(x_i,
// y_cols[c]) for the n = x.Len() rows of x, with one Column call per
// column, split over the columns on up to GOMAXPROCS goroutines. It is the
// CrossT of the discrete kernels whose derivatives follow from their values.
func crossColumns(k Kernel, dst []float64, x Inputs, y Inputs, cols []int) {
	n := x.Len()
	par.For(len(cols), max(1, par.MinRows/max(1, n)), func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			k.Column(dst[c*n:(c+1)*n], x, 0, n, y, cols[c])
		}
	})
}

// addGradByColumns adds Σ_{i∈[lo,hi)} Σ_c w[(i−lo)·len(cols)+c]·κ(x_i,
// y_cols[c]) to *g, evaluating whole columns with k.Column: the AddGrad of
// a kernel V·f, whose derivative for log V is κ, over a row range long
// enough for the inverted index.
func addGradByColumns(k Kernel, g *float64, w []float64, x Inputs, lo, hi int, y Inputs, cols []int) {
	nc := len(cols)
	col := make([]float64, hi-lo)
	var s float64
	for c, j := range cols {
		k.Column(col, x, lo, hi, y, j)
		for i, kv := range col {
			s += w[i*nc+c] * kv
		}
	}
	*g += s
}

// addGradScaled adds Σ_c Σ_i w[c·n+i]·kv[c·n+i] to *g: the gradient with
// respect to log V of a kernel V·f given its values kv. The partial sums go
// per column and are added in column order, so the result does not depend
// on the scheduling.
func addGradScaled(g *float64, w, kv []float64, n, m int) {
	parts := make([]float64, m)
	par.For(m, max(1, 4*par.MinRows/max(1, n)), func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			wr, kr := w[c*n:(c+1)*n], kv[c*n:(c+1)*n]
			var s float64
			for i, v := range wr {
				s += v * kr[i]
			}
			parts[c] = s
		}
	})
	for _, v := range parts {
		*g += v
	}
}
