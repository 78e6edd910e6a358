package par

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// countTask counts the rows it has run.
type countTask struct{ done atomic.Int64 }

func (c *countTask) RunRange(_, lo, hi int) { c.done.Add(int64(hi - lo)) }

// waitRunning polls until the pool runs want goroutines, for at most 30 s
// (a budget: the pool's timers fire late on a loaded machine, never
// early).
func waitRunning(t *testing.T, w *Pool, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for w.running() != want {
		if time.Now().After(deadline) {
			t.Fatalf("the pool still runs %d goroutines, want %d", w.running(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWorkersIdleExit: a pool starts its goroutines for a task, they exit
// once idle, and the next task starts them again and runs every row.
func TestWorkersIdleExit(t *testing.T) {
	t.Parallel()
	w := NewPoolN(4)
	defer w.Close()
	w.idle = 20 * time.Millisecond
	n := 8 * MinRows
	for round := range 3 {
		var task countTask
		w.Run(&task, n)
		if got := task.done.Load(); got != int64(n) {
			t.Fatalf("round %d: %d of %d rows ran", round, got, n)
		}
		if got := w.running(); got != 3 {
			t.Fatalf("round %d: %d goroutines after a task of 4 parts, want 3", round, got)
		}
		waitRunning(t, w, 0)
	}
}

// TestWorkersIdleRace runs tasks at intervals around the idle period, so
// that goroutines decide to exit while tasks are handed out: every task
// must finish with every row (a job left in the channel without a
// goroutine would hang run).
func TestWorkersIdleRace(t *testing.T) {
	t.Parallel()
	w := NewPoolN(3)
	defer w.Close()
	w.idle = 200 * time.Microsecond
	rng := rand.New(rand.NewPCG(1, 1))
	n := 6 * MinRows
	for i := range 1500 {
		var task countTask
		done := make(chan struct{})
		go func() {
			defer close(done)
			w.Run(&task, n)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("task %d still running after 30 s: a job was left without a goroutine", i)
		}
		if got := task.done.Load(); got != int64(n) {
			t.Fatalf("task %d: %d of %d rows ran", i, got, n)
		}
		time.Sleep(time.Duration(rng.IntN(400)) * time.Microsecond)
	}
	waitRunning(t, w, 0)
}
