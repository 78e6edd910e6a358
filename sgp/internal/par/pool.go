package par

import (
	"runtime"
	"sync"
	"time"
)

// Task is row-parallel work: RunRange handles rows [lo, hi) as part
// number part.
type Task interface {
	RunRange(part, lo, hi int)
}

// workerIdle is how long a pool's goroutine waits for work before it
// exits (it exits between one and two such periods after its last job).
const workerIdle = time.Second

// Pool is a small pool of goroutines, owned by one factorisation, that
// splits row ranges without allocating: tasks are sent as pointers to
// jobs kept in the pool. Its goroutines start when a task needs them and
// exit once idle (workerIdle), so an owner holds goroutines only while it
// works: a session that keeps many models (a notebook refitting dozens of
// times) holds no parked goroutines for them. The pool's goroutines hold
// no reference to their owner, so the owner can be collected; a cleanup
// that calls Close then ends any goroutines left.
type Pool struct {
	ch   chan *rangeJob // nil for a pool of one (the caller)
	jobs []rangeJob
	wg   sync.WaitGroup
	slot slot // the first panic of the running task's ranges

	// mu orders the sends of runParts against a goroutine's decision to
	// exit, so that a job is never left in ch with no goroutine to run it.
	mu   sync.Mutex
	live int // goroutines running loop

	idle time.Duration // workerIdle; shorter in tests
}

type rangeJob struct {
	task         Task
	part, lo, hi int
	wg           *sync.WaitGroup
	slot         *slot
}

// NewPool returns a pool of GOMAXPROCS goroutines, the caller's
// included; none is started yet.
func NewPool() *Pool { return NewPoolN(runtime.GOMAXPROCS(0)) }

// NewPoolN returns a pool of p goroutines, the caller's included.
func NewPoolN(p int) *Pool {
	p = max(1, p)
	w := &Pool{jobs: make([]rangeJob, p), idle: workerIdle}
	if p > 1 {
		w.ch = make(chan *rangeJob, p)
	}
	return w
}

// loop runs jobs until the channel is closed or no job came for a whole
// idle period.
func (w *Pool) loop() {
	idle := time.NewTimer(w.idle)
	defer idle.Stop()
	busy := false // a job ran since the timer was last set
	for {
		select {
		case j, ok := <-w.ch:
			if !ok {
				return
			}
			j.run()
			j.task = nil
			j.wg.Done()
			busy = true
		case <-idle.C:
			if busy {
				busy = false
				idle.Reset(w.idle)
				continue
			}
			w.mu.Lock()
			if len(w.ch) > 0 {
				w.mu.Unlock()
				idle.Reset(w.idle)
				continue
			}
			w.live--
			w.mu.Unlock()
			return
		}
	}
}

// run runs the job's range, recording a panic in the job's slot so that
// the goroutine lives on and the caller of Pool.Run raises it.
func (j *rangeJob) run() {
	defer func() {
		if r := recover(); r != nil {
			j.slot.keep(Capture(r, j.lo, j.hi))
		}
	}()
	j.task.RunRange(j.part, j.lo, j.hi)
}

// Close stops the goroutines.
func (w *Pool) Close() {
	if w.ch != nil {
		close(w.ch)
	}
}

// running returns the number of the pool's goroutines, the caller's not
// included.
func (w *Pool) running() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.live
}

// Parts returns how many parts Run splits n rows into.
func (w *Pool) Parts(n int) int {
	p := len(w.jobs)
	if w.ch == nil {
		p = 1
	}
	return max(1, min(p, n/MinRows))
}

// Run calls t.RunRange on disjoint ranges covering [0, n), one of them on
// the calling goroutine, and returns when all are done. A panic in any
// range is raised on the calling goroutine, as a *Panic, once every range
// has ended; the pool stays usable.
func (w *Pool) Run(t Task, n int) { w.RunParts(t, n, w.Parts(n)) }

// Size returns the number of goroutines of the pool, the caller's included.
func (w *Pool) Size() int {
	if w.ch == nil {
		return 1
	}
	return len(w.jobs)
}

// RunParts is Run with p ≤ Size() parts of at least one row each.
func (w *Pool) RunParts(t Task, n, p int) {
	p = max(1, min(p, w.Size(), n))
	if p == 1 {
		t.RunRange(0, 0, n)
		return
	}
	chunk := (n + p - 1) / p
	// ch holds Size() jobs and every earlier job has been taken, so the
	// sends do not block; a goroutine that sees them queued stays.
	w.mu.Lock()
	for ; w.live < p-1; w.live++ {
		go w.loop()
	}
	for part := 1; part < p; part++ {
		j := &w.jobs[part]
		j.task, j.part, j.lo, j.hi, j.wg, j.slot = t, part, part*chunk, min(n, (part+1)*chunk), &w.wg, &w.slot
		w.wg.Add(1)
		w.ch <- j
	}
	w.mu.Unlock()
	j := &w.jobs[0]
	j.task, j.part, j.lo, j.hi, j.slot = t, 0, 0, min(n, chunk), &w.slot
	j.run()
	j.task = nil
	w.wg.Wait()
	w.slot.rethrow()
}
