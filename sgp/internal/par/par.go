// Package par runs package sgp's row-parallel work: For and Rows split a
// range over goroutines, Reduce sums per-chunk results in a fixed order
// (the same bits whatever the scheduling), and a Pool reuses its
// goroutines for the many small tasks of a factorisation. A panic on any
// of the goroutines is recovered there and raised again on the caller's,
// as a *Panic, once every range has ended: package sgp turns it into an
// error at its public boundary, rather than letting a user's kernel end
// the process.
package par

import (
	"runtime"
	"sync"
)

// MinRows is the smallest row range given to one goroutine: below it the
// goroutine start-up costs more than the kernel evaluations.
const MinRows = 512

// Rows calls fn on disjoint ranges covering [0, n), concurrently when n
// is large enough (ranges of at least MinRows). It returns after every
// call has returned.
func Rows(n int, fn func(lo, hi int)) {
	For(n, MinRows, fn)
}

// For calls fn on disjoint ranges covering [0, n), each of at least
// minPer items, concurrently on up to GOMAXPROCS goroutines. A panic in
// any call is raised again on the caller's goroutine, as a *Panic, once
// every call has returned.
func For(n, minPer int, fn func(lo, hi int)) {
	tasks := runtime.GOMAXPROCS(0)
	if maxTasks := n / max(1, minPer); maxTasks < tasks {
		tasks = maxTasks
	}
	if tasks <= 1 {
		fn(0, n)
		return
	}
	var (
		wg sync.WaitGroup
		s  slot
	)
	chunk := (n + tasks - 1) / tasks
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.guard(lo, hi, fn)
		}()
	}
	wg.Wait()
	// A panic on one goroutine (a user's kernel failing on some rows) is
	// raised again here, on the caller's, where the public methods turn
	// it into an error; unrecovered it would end the process.
	s.rethrow()
}

// ReduceChunk is the number of rows per partial sum in Reduce.
const ReduceChunk = 1024

// Reduce splits [0, n) into fixed chunks of ReduceChunk rows, calls
// fn(lo, hi, acc) on each with its own zeroed acc of length width, on up
// to GOMAXPROCS goroutines, and adds the chunk results to out in chunk
// order. The result is therefore the same bit for bit whatever the
// scheduling and the number of cores.
func Reduce(n, width int, out []float64, fn func(lo, hi int, acc []float64)) {
	chunks := max(1, (n+ReduceChunk-1)/ReduceChunk)
	parts := make([]float64, chunks*width)
	For(chunks, 1, func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			fn(c*ReduceChunk, min(n, (c+1)*ReduceChunk), parts[c*width:(c+1)*width])
		}
	})
	for c := 0; c < chunks; c++ {
		for p, v := range parts[c*width : (c+1)*width] {
			out[p] += v
		}
	}
}
