// Package comm is sgp's only door to MPI: the ranks of a distributed
// fit, each holding its own rows, and the few collective operations the
// distributed engine needs (sums, a sum in a fixed global order, an
// arg-max with its index, broadcasts from an owner, an all-gather of
// counts), with counters of the messages and bytes each kind sends.
//
// Built with the tag mpi (go build -tags mpi), World is MPI_COMM_WORLD of
// Open MPI, through cgo and github.com/sbromberger/gompi, and every MPI
// call is made from one goroutine locked to its OS thread (see
// world_mpi.go). Built without it, the default, World has one rank, the
// operations copy or do nothing, and the build needs no cgo. Local makes
// P ranks inside one process, joined by channels, for tests of
// distributed code without MPI.
//
// The operations are collective: every rank of a Comm calls the same
// operations in the same order, each from one goroutine (its own for the
// ranks of Local). A failure of MPI itself ends the job (MPI's default
// error handler), so the operations return no errors.
package comm

import (
	"fmt"
	"math"
	"sync"

	"github.com/cholqr/sgp/sgp/internal/par"
)

// transport moves numbers between the ranks of a Comm; the Comm counts
// what it hands to it. Every method is collective except send and recv.
type transport interface {
	rank() int
	size() int
	sumF(x []float64)             // all-reduce sum in place
	sumI(x []int64)               // all-reduce sum in place
	maxF(v float64) float64       // all-reduce max
	minI(v int64) int64           // all-reduce min
	bcastF(x []float64, root int) // root's x to every rank
	bcastI(x []int64, root int)   // root's x to every rank
	send(x []float64, to int)     // point to point, blocking until x may be reused
	recv(x []float64, from int)   // point to point, len(x) numbers
	barrier()
	abort(code int)
	finalize() error
}

// Comm is a group of ranks. Its zero value is not usable: take one from
// World, Single or Local.
type Comm struct {
	t transport

	mu    sync.Mutex
	stats Stats
}

// Rank returns the rank of the caller, 0 to Size()−1.
func (c *Comm) Rank() int { return c.t.rank() }

// Size returns the number of ranks P.
func (c *Comm) Size() int { return c.t.size() }

// Kind names a kind of operation in Stats.
type Kind int

// The kinds of operation counted.
const (
	KindSum        Kind = iota // SumFloat64s
	KindOrderedSum             // OrderedSum
	KindArgMax                 // ArgMax
	KindBcast                  // BcastFloat64s, BcastInts, BcastBytes
	KindGather                 // AllGatherInts
	KindBarrier                // Barrier
	KindAny                    // Any
	numKinds
)

var kindNames = [numKinds]string{"sum", "ordered sum", "arg max", "broadcast", "all-gather", "barrier", "any"}

func (k Kind) String() string {
	if k < 0 || k >= numKinds {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Count is what one kind of operation has sent from this rank.
type Count struct {
	// Calls is the number of calls of the operation.
	Calls int64
	// Messages is the number of MPI calls that moved data from this rank:
	// one per collective call it made (all-reduce, broadcast as root,
	// barrier) and one per point-to-point send. A broadcast is counted on
	// its root only, and nothing is counted with one rank.
	Messages int64
	// Bytes is the payload of those messages: the buffer this rank hands
	// to an all-reduce or a send, the root's buffer of a broadcast. It is
	// what the rank contributes, not the traffic of MPI's algorithms
	// (a ring all-reduce moves about twice the buffer per rank).
	Bytes int64
}

// Stats holds the counts of a Comm by Kind.
type Stats [numKinds]Count

// Total returns the sum of the counts of every kind.
func (s Stats) Total() Count {
	var t Count
	for _, c := range s {
		t.Calls += c.Calls
		t.Messages += c.Messages
		t.Bytes += c.Bytes
	}
	return t
}

// Stats returns the counts of the operations this rank has made so far.
func (c *Comm) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// ResetStats sets the counts to zero, e.g. between the phases measured.
func (c *Comm) ResetStats() {
	c.mu.Lock()
	c.stats = Stats{}
	c.mu.Unlock()
}

// count adds a call of kind k and, with more than one rank, msgs
// messages of bytes in all.
func (c *Comm) count(k Kind, msgs, bytes int) {
	c.mu.Lock()
	s := &c.stats[k]
	s.Calls++
	if c.t.size() > 1 {
		s.Messages += int64(msgs)
		s.Bytes += int64(bytes)
	}
	c.mu.Unlock()
}

// SumFloat64s replaces x, on every rank, by the sum over the ranks of
// their x (of the same length on every rank). The order of the additions
// is MPI's and may depend on P: for a sum whose bits must not depend on
// P, use OrderedSum.
func (c *Comm) SumFloat64s(x []float64) {
	c.count(KindSum, 1, 8*len(x))
	if len(x) > 0 {
		c.t.sumF(x)
	}
}

// SumInts replaces x, on every rank, by the sum over the ranks of their
// x (of the same length on every rank), exactly; it is counted as a sum.
func (c *Comm) SumInts(x []int) {
	c.count(KindSum, 1, 8*len(x))
	if len(x) == 0 || c.t.size() == 1 {
		return
	}
	w := make([]int64, len(x))
	for k, v := range x {
		w[k] = int64(v)
	}
	c.t.sumI(w)
	for k, v := range w {
		x[k] = int(v)
	}
}

// Any reports, on every rank, whether b is true on some rank: for a
// check that any rank's rows fail (a residual variance below the
// tolerance), in one reduction of 8 bytes.
func (c *Comm) Any(b bool) bool {
	c.count(KindAny, 1, 8)
	v := int64(0)
	if b {
		v = -1
	}
	if c.t.size() > 1 {
		v = c.t.minI(v)
	}
	return v < 0
}

// OrderedSum adds to out, on every rank, partial sums of width numbers
// each in global block order: parts holds this rank's partials,
// len(parts)/width blocks of consecutive rows, and the ranks hold the
// blocks in rank order (rank r's blocks follow rank r−1's). out, of
// length width, must be the same on every rank on entry, e.g. zero.
//
// The additions are those of one process adding every block's partial to
// out in block order, out[j] += part[j], as par.Reduce does: the result
// is the same bit for bit for every P, and equal to the single-process
// sum over the same blocks. The sum runs as a chain: rank 0 adds its
// blocks and sends the running sum to rank 1, which adds its own and
// sends it on; the last rank broadcasts the total. Each rank sends at
// most 2·width numbers, whatever the number of blocks, in P−1 steps one
// after the other.
func (c *Comm) OrderedSum(parts []float64, width int, out []float64) {
	if width <= 0 || len(out) != width || len(parts)%width != 0 {
		panic(fmt.Sprintf("comm: OrderedSum of %d partials of width %d into %d numbers", len(parts), width, len(out)))
	}
	r, p := c.t.rank(), c.t.size()
	msgs := 0
	if r > 0 {
		c.t.recv(out, r-1)
	}
	for b := 0; b < len(parts); b += width {
		for j, v := range parts[b : b+width] {
			out[j] += v
		}
	}
	if r < p-1 {
		c.t.send(out, r+1)
		msgs++
	}
	if p > 1 {
		c.t.bcastF(out, p-1)
		if r == p-1 {
			msgs++
		}
	}
	c.count(KindOrderedSum, msgs, msgs*8*width)
}

// ArgMax returns the largest of the ranks' values v and its index i,
// the smallest index among the ranks whose v equals the largest, so that
// ties are broken the same way on every rank and for every P. A rank with
// nothing to offer passes i < 0 (its v is ignored); a NaN v counts as
// −Inf. When no rank offers an index, ArgMax returns (−Inf, −1).
func (c *Comm) ArgMax(v float64, i int) (float64, int) {
	if i < 0 || math.IsNaN(v) {
		v = math.Inf(-1)
	}
	c.count(KindArgMax, 2, 16)
	best := v
	if c.t.size() > 1 {
		best = c.t.maxF(v)
	}
	idx := int64(math.MaxInt64)
	if i >= 0 && v == best {
		idx = int64(i)
	}
	if c.t.size() > 1 {
		idx = c.t.minI(idx)
	}
	if idx == math.MaxInt64 {
		return math.Inf(-1), -1
	}
	return best, int(idx)
}

// BcastFloat64s copies root's x into x on every rank (x of the same
// length on every rank).
func (c *Comm) BcastFloat64s(x []float64, root int) {
	c.checkRoot(root)
	c.countBcast(root, 8*len(x))
	if len(x) > 0 && c.t.size() > 1 {
		c.t.bcastF(x, root)
	}
}

// BcastInts copies root's x into x on every rank (x of the same length on
// every rank).
func (c *Comm) BcastInts(x []int, root int) {
	c.checkRoot(root)
	c.countBcast(root, 8*len(x))
	if len(x) == 0 || c.t.size() == 1 {
		return
	}
	w := make([]int64, len(x))
	for k, v := range x {
		w[k] = int64(v)
	}
	c.t.bcastI(w, root)
	for k, v := range w {
		x[k] = int(v)
	}
}

// BcastBytes returns root's b on every rank; the other ranks' b is
// ignored, so its length need not be known in advance (a message, a
// row's text). It takes two broadcasts: the length, then the bytes.
func (c *Comm) BcastBytes(b []byte, root int) []byte {
	c.checkRoot(root)
	if c.t.size() == 1 {
		c.countBcastN(root, 0, 0)
		return append([]byte(nil), b...)
	}
	n := []int64{int64(len(b))}
	c.t.bcastI(n, root)
	words := make([]int64, (n[0]+7)/8)
	if c.t.rank() == root {
		for k, v := range b {
			words[k/8] |= int64(v) << (8 * (k % 8))
		}
	}
	msgs := 1
	if len(words) > 0 {
		c.t.bcastI(words, root)
		msgs++
	}
	c.countBcastN(root, msgs, 8+8*len(words))
	out := make([]byte, n[0])
	for k := range out {
		out[k] = byte(words[k/8] >> (8 * (k % 8)))
	}
	return out
}

// AllGatherInts returns, on every rank, the ranks' x one after the other
// in rank order (x of the same length on every rank): for example each
// rank's number of rows, from which every rank knows where the others'
// rows start.
func (c *Comm) AllGatherInts(x []int) []int {
	p, r := c.t.size(), c.t.rank()
	out := make([]int, p*len(x))
	if p == 1 {
		copy(out, x)
		c.count(KindGather, 0, 0)
		return out
	}
	// A sum of buffers that are zero outside each rank's own slot: exact
	// for integers, in one all-reduce.
	w := make([]int64, p*len(x))
	for k, v := range x {
		w[r*len(x)+k] = int64(v)
	}
	if len(w) > 0 {
		c.t.sumI(w)
	}
	for k, v := range w {
		out[k] = int(v)
	}
	c.count(KindGather, 1, 8*len(w))
	return out
}

// Barrier returns once every rank has called it.
func (c *Comm) Barrier() {
	c.count(KindBarrier, 1, 0)
	if c.t.size() > 1 {
		c.t.barrier()
	}
}

// Abort ends every rank of the job with exit status code, at once: for
// a rank that cannot go on while the others wait in a collective
// operation. With one rank it exits the process. It does not return.
func (c *Comm) Abort(code int) {
	c.t.abort(code)
}

// Finalize ends the rank's use of MPI: every rank calls it once, after
// its last operation, before the program exits. It does nothing for the
// communicators of Single and Local.
func (c *Comm) Finalize() error { return c.t.finalize() }

// checkRoot panics for a root outside the ranks.
func (c *Comm) checkRoot(root int) {
	if root < 0 || root >= c.t.size() {
		panic(fmt.Sprintf("comm: broadcast from rank %d of %d", root, c.t.size()))
	}
}

// countBcast counts a broadcast of bytes from root: one message on the
// root.
func (c *Comm) countBcast(root, bytes int) { c.countBcastN(root, 1, bytes) }

// countBcastN counts a broadcast of msgs messages and bytes in all from
// root, on the root only.
func (c *Comm) countBcastN(root, msgs, bytes int) {
	if c.t.rank() == root {
		c.count(KindBcast, msgs, bytes)
		return
	}
	c.count(KindBcast, 0, 0)
}

// BlockRows is the number of rows in a block of OrderedSum's partials
// for the engine's reductions over rows: par.Reduce's chunk, so that a
// distributed sum adds the blocks a single process adds.
const BlockRows = par.ReduceChunk

// Span returns the rows [lo, hi) of n that rank holds of size ranks when
// the rows are dealt in whole blocks of block rows (the last block may
// be shorter), each rank taking consecutive blocks and the ranks' counts
// of blocks differing by at most one: the layout OrderedSum assumes.
func Span(n, block, rank, size int) (lo, hi int) {
	if n < 0 || block < 1 || size < 1 || rank < 0 || rank >= size {
		panic(fmt.Sprintf("comm: Span(%d, %d, %d, %d)", n, block, rank, size))
	}
	blocks := (n + block - 1) / block
	at := func(r int) int { return min(n, blocks*r/size*block) }
	return at(rank), at(rank + 1)
}

// Owner returns the rank that holds row i of n under Span's layout: the
// root of a broadcast of that row.
func Owner(n, block, size, i int) int {
	if i < 0 || i >= n {
		panic(fmt.Sprintf("comm: Owner of row %d of %d", i, n))
	}
	blocks := (n + block - 1) / block
	b := i / block
	// Span gives rank r the blocks [⌊blocks·r/size⌋, ⌊blocks·(r+1)/size⌋):
	// the owner is the last r whose first block is at most b.
	r := ((b+1)*size - 1) / blocks
	for r > 0 && blocks*r/size > b {
		r--
	}
	for r < size-1 && blocks*(r+1)/size <= b {
		r++
	}
	return r
}
