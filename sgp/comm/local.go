package comm

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// Local returns p ranks of one process, joined by channels, for tests of
// distributed code without MPI: rank r is Local(p)[r], and each must be
// used from its own goroutine, as the processes of an MPI job are. Their
// collective operations add in rank order, so that SumFloat64s too gives
// the same bits on every rank. Abort on one of them makes every
// operation of every rank panic with an *AbortError.
func Local(p int) []*Comm {
	if p < 1 {
		panic(fmt.Sprintf("comm: Local(%d)", p))
	}
	h := &hub{p: p, pipes: make([]chan []float64, p*p), aborted: make(chan struct{})}
	for k := range h.pipes {
		h.pipes[k] = make(chan []float64, 1)
	}
	cs := make([]*Comm, p)
	for r := range cs {
		cs[r] = &Comm{t: &local{h: h, r: r}}
	}
	return cs
}

// AbortError is the panic of the operations of Local's ranks once one of
// them has called Abort.
type AbortError struct {
	Rank, Code int // the rank that aborted and its exit status
}

func (e *AbortError) Error() string {
	return fmt.Sprintf("comm: rank %d aborted the job with exit status %d", e.Rank, e.Code)
}

// hub joins the ranks of Local: pipes[from*p+to] carries copies of the
// numbers from one rank to another.
type hub struct {
	p       int
	pipes   []chan []float64
	once    sync.Once
	aborted chan struct{}
	abort   *AbortError
}

// local is the transport of one rank of Local. Its collectives go
// through rank 0, which combines the ranks' numbers in rank order and
// sends the result back.
type local struct {
	h *hub
	r int
}

func (t *local) rank() int { return t.r }
func (t *local) size() int { return t.h.p }

func (t *local) send(x []float64, to int) {
	select {
	case t.h.pipes[t.r*t.h.p+to] <- slices.Clone(x):
	case <-t.h.aborted:
		panic(t.h.abort)
	}
}

func (t *local) recv(x []float64, from int) {
	select {
	case v := <-t.h.pipes[from*t.h.p+t.r]:
		if len(v) != len(x) {
			panic(fmt.Sprintf("comm: rank %d received %d numbers from rank %d, expected %d", t.r, len(v), from, len(x)))
		}
		copy(x, v)
	case <-t.h.aborted:
		panic(t.h.abort)
	}
}

// combine replaces x on every rank by op applied to the ranks' x in rank
// order.
func (t *local) combine(x []float64, op func(acc, v []float64)) {
	if t.r != 0 {
		t.send(x, 0)
		t.recv(x, 0)
		return
	}
	v := make([]float64, len(x))
	for from := 1; from < t.h.p; from++ {
		t.recv(v, from)
		op(x, v)
	}
	for to := 1; to < t.h.p; to++ {
		t.send(x, to)
	}
}

func (t *local) sumF(x []float64) {
	t.combine(x, func(acc, v []float64) {
		for k := range acc {
			acc[k] += v[k]
		}
	})
}

// sumI sums integers, carried as the bits of float64s.
func (t *local) sumI(x []int64) {
	f := intBits(x)
	t.combine(f, func(acc, v []float64) {
		for k := range acc {
			acc[k] = math.Float64frombits(math.Float64bits(acc[k]) + math.Float64bits(v[k]))
		}
	})
	fromBits(x, f)
}

func (t *local) maxF(v float64) float64 {
	x := []float64{v}
	t.combine(x, func(acc, v []float64) { acc[0] = math.Max(acc[0], v[0]) })
	return x[0]
}

func (t *local) minI(v int64) int64 {
	x := intBits([]int64{v})
	t.combine(x, func(acc, v []float64) {
		acc[0] = math.Float64frombits(uint64(min(int64(math.Float64bits(acc[0])), int64(math.Float64bits(v[0])))))
	})
	return int64(math.Float64bits(x[0]))
}

// intBits returns x's integers as the bits of float64s, for the pipes.
func intBits(x []int64) []float64 {
	f := make([]float64, len(x))
	for k, v := range x {
		f[k] = math.Float64frombits(uint64(v))
	}
	return f
}

// fromBits stores the integers whose bits f carries into x.
func fromBits(x []int64, f []float64) {
	for k, v := range f {
		x[k] = int64(math.Float64bits(v))
	}
}

func (t *local) bcastF(x []float64, root int) {
	if t.r == root {
		for to := range t.h.p {
			if to != root {
				t.send(x, to)
			}
		}
		return
	}
	t.recv(x, root)
}

func (t *local) bcastI(x []int64, root int) {
	f := intBits(x)
	t.bcastF(f, root)
	fromBits(x, f)
}

func (t *local) barrier() { t.sumF([]float64{0}) }

func (t *local) abort(code int) {
	t.h.once.Do(func() {
		t.h.abort = &AbortError{Rank: t.r, Code: code}
		close(t.h.aborted)
	})
	panic(t.h.abort)
}

func (t *local) finalize() error { return nil }
