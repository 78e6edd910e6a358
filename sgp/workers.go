package sgp

import (
	"runtime"
	"sync"
)

// rangeTask is row-parallel work: runRange handles rows [lo, hi) as part
// number part.
type rangeTask interface {
	runRange(part, lo, hi int)
}

// workers is a small pool of goroutines owned by one Factor that splits
// row ranges without allocating: tasks are sent as pointers to jobs kept in
// the pool. The pool's goroutines hold no reference to the Factor, so the
// Factor can be collected; a cleanup then closes the channel and the
// goroutines exit.
type workers struct {
	ch   chan *rangeJob
	jobs []rangeJob
	wg   sync.WaitGroup
	slot panicSlot // the first panic of the running task's ranges
}

type rangeJob struct {
	task         rangeTask
	part, lo, hi int
	wg           *sync.WaitGroup
	slot         *panicSlot
}

func newWorkers() *workers {
	p := runtime.GOMAXPROCS(0)
	w := &workers{jobs: make([]rangeJob, p)}
	if p > 1 {
		w.ch = make(chan *rangeJob, p)
		for range p - 1 {
			go workerLoop(w.ch)
		}
	}
	return w
}

func workerLoop(ch chan *rangeJob) {
	for j := range ch {
		j.run()
		j.task = nil
		j.wg.Done()
	}
}

// run runs the job's range, recording a panic in the job's slot so that
// the goroutine lives on and the caller of workers.run raises it.
func (j *rangeJob) run() {
	defer func() {
		if r := recover(); r != nil {
			pe := newPanicError(r, j.lo, j.hi)
			j.slot.mu.Lock()
			if j.slot.err == nil {
				j.slot.err = pe
			}
			j.slot.mu.Unlock()
		}
	}()
	j.task.runRange(j.part, j.lo, j.hi)
}

// close stops the goroutines.
func (w *workers) close() {
	if w.ch != nil {
		close(w.ch)
	}
}

// parts returns how many parts n rows are split into.
func (w *workers) parts(n int) int {
	p := len(w.jobs)
	if w.ch == nil {
		p = 1
	}
	return max(1, min(p, n/minRowsPerTask))
}

// run calls t.runRange on disjoint ranges covering [0, n), one of them on
// the calling goroutine, and returns when all are done. A panic in any
// range is raised on the calling goroutine once every range has ended
// (see PanicError); the pool stays usable.
func (w *workers) run(t rangeTask, n int) { w.runParts(t, n, w.parts(n)) }

// size returns the number of goroutines of the pool, the caller's included.
func (w *workers) size() int {
	if w.ch == nil {
		return 1
	}
	return len(w.jobs)
}

// runParts is run with p ≤ size() parts of at least one row each.
func (w *workers) runParts(t rangeTask, n, p int) {
	p = max(1, min(p, w.size(), n))
	if p == 1 {
		t.runRange(0, 0, n)
		return
	}
	chunk := (n + p - 1) / p
	for part := 1; part < p; part++ {
		j := &w.jobs[part]
		j.task, j.part, j.lo, j.hi, j.wg, j.slot = t, part, part*chunk, min(n, (part+1)*chunk), &w.wg, &w.slot
		w.wg.Add(1)
		w.ch <- j
	}
	j := &w.jobs[0]
	j.task, j.part, j.lo, j.hi, j.slot = t, 0, 0, min(n, chunk), &w.slot
	j.run()
	j.task = nil
	w.wg.Wait()
	w.slot.rethrow()
}
