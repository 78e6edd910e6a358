//go:build mpi

package comm

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"

	gompi "github.com/sbromberger/gompi"
)

// MPI reports whether the program was built with MPI (the tag mpi).
const MPI = true

// The process's MPI: MPI_Init may be called once in a process, and
// MPI_COMM_WORLD is the process's, so World's communicator is made once.
var world struct {
	once sync.Once
	c    *Comm
}

// World returns MPI_COMM_WORLD, initialising MPI on the first call; a
// program that never calls World never initialises MPI. Started without
// mpirun or srun, the process is a job of one rank (MPI's singleton).
// After Finalize it returns an error.
func World() (*Comm, error) {
	world.once.Do(func() {
		t := &mpiWorld{calls: make(chan func())}
		ready := make(chan struct{})
		go t.serve(ready)
		<-ready
		world.c = &Comm{t: t}
	})
	if world.c.t.(*mpiWorld).ended() {
		return nil, errors.New("comm: MPI has been finalized in this process")
	}
	return world.c, nil
}

// mpiWorld is the transport of MPI_COMM_WORLD. MPI is initialised, used
// and finalised from one goroutine locked to its OS thread (serve), so
// that every MPI call comes from the thread that initialised MPI, as
// MPI_THREAD_FUNNELED asks, whichever goroutine calls the Comm: the
// calls are handed to it through calls and waited for.
type mpiWorld struct {
	calls chan func()
	comm  *gompi.Communicator
	r, p  int

	mu   sync.Mutex
	done bool // finalized
}

// serve initialises MPI, runs the calls handed to it until Finalize, and
// finalises MPI, all on one OS thread.
func (t *mpiWorld) serve(ready chan<- struct{}) {
	runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
	gompi.Start(false)
	t.comm = gompi.NewCommunicator(nil)
	t.r, t.p = t.comm.Rank(), t.comm.Size()
	close(ready)
	for fn := range t.calls {
		fn()
	}
}

// do runs fn on the MPI thread and waits for it.
func (t *mpiWorld) do(fn func()) {
	if t.ended() {
		panic("comm: MPI call after Finalize")
	}
	done := make(chan struct{})
	t.calls <- func() { fn(); close(done) }
	<-done
}

func (t *mpiWorld) ended() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.done
}

func (t *mpiWorld) rank() int { return t.r }
func (t *mpiWorld) size() int { return t.p }

// checkLen panics for a buffer longer than MPI's int count.
func checkLen(n int) {
	if n > math.MaxInt32 {
		panic(fmt.Sprintf("comm: %d numbers in one MPI call; at most %d", n, math.MaxInt32))
	}
}

func (t *mpiWorld) sumF(x []float64) {
	checkLen(len(x))
	orig := slices.Clone(x)
	t.do(func() { t.comm.AllreduceFloat64s(x, orig, gompi.OpSum, 0) })
}

func (t *mpiWorld) sumI(x []int64) {
	checkLen(len(x))
	orig := slices.Clone(x)
	t.do(func() { t.comm.AllreduceInt64s(x, orig, gompi.OpSum, 0) })
}

func (t *mpiWorld) maxF(v float64) float64 {
	out, in := []float64{0}, []float64{v}
	t.do(func() { t.comm.AllreduceFloat64s(out, in, gompi.OpMax, 0) })
	return out[0]
}

func (t *mpiWorld) minI(v int64) int64 {
	out, in := []int64{0}, []int64{v}
	t.do(func() { t.comm.AllreduceInt64s(out, in, gompi.OpMin, 0) })
	return out[0]
}

func (t *mpiWorld) bcastF(x []float64, root int) {
	checkLen(len(x))
	t.do(func() { t.comm.BcastFloat64s(x, root) })
}

// bcastI broadcasts int64s; bytes travel as int64 words too, since
// gompi's BcastBytes declares its buffer as MPI_INT, four times its size.
func (t *mpiWorld) bcastI(x []int64, root int) {
	checkLen(len(x))
	t.do(func() { t.comm.BcastInt64s(x, root) })
}

// sendTag marks the messages of OrderedSum's chain, the only
// point-to-point messages; MPI keeps messages between two ranks with
// one tag in order.
const sendTag = 1

func (t *mpiWorld) send(x []float64, to int) {
	checkLen(len(x))
	t.do(func() { t.comm.SendFloat64s(x, to, sendTag) })
}

func (t *mpiWorld) recv(x []float64, from int) {
	checkLen(len(x))
	t.do(func() { t.comm.RecvPreallocFloat64s(x, from, sendTag) })
}

func (t *mpiWorld) barrier() { t.do(t.comm.Barrier) }

// abort calls MPI_Abort, which ends every process of the job; the exit
// covers an MPI that returns from it.
func (t *mpiWorld) abort(code int) {
	if !t.ended() {
		t.do(func() { t.comm.Abort(code) })
	}
	os.Exit(code)
}

func (t *mpiWorld) finalize() error {
	t.mu.Lock()
	if t.done {
		t.mu.Unlock()
		return errors.New("comm: MPI finalized twice")
	}
	t.mu.Unlock()
	t.do(gompi.Stop)
	t.mu.Lock()
	t.done = true
	t.mu.Unlock()
	close(t.calls)
	return nil
}
