package par

import (
	"sync/atomic"
	"testing"
)

// TestPoolPanic checks the pool: a panic on a worker
// goroutine reaches the caller once every range has ended, with its rows,
// and the pool runs the next task normally.
func TestPoolPanic(t *testing.T) {
	w := NewPool()
	defer w.Close()
	n := 8 * MinRows
	task := &panicTask{bad: n - 1}
	func() {
		defer func() {
			r := recover()
			pe, ok := r.(*Panic)
			if !ok || pe.Lo > n-1 || pe.Hi < n {
				t.Errorf("recovered %v, want a *Panic covering row %d", r, n-1)
			}
		}()
		w.Run(task, n)
	}()
	task.bad = -1
	task.done.Store(0)
	w.Run(task, n)
	if got := task.done.Load(); got != int64(n) {
		t.Errorf("after the panic the pool ran %d of %d rows", got, n)
	}
}

type panicTask struct {
	bad  int
	done atomic.Int64
}

func (p *panicTask) RunRange(_, lo, hi int) {
	for i := lo; i < hi; i++ {
		if i == p.bad {
			panic("row failed")
		}
	}
	p.done.Add(int64(hi - lo))
}
