package sgp

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/kernel"
)

// worldUsed records whether a test initialised comm.World, for TestMain
// to finalise it.
var worldUsed bool

func TestMain(m *testing.M) {
	code := m.Run()
	if worldUsed {
		c, err := comm.World()
		if err == nil {
			err = c.Finalize()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// envInt returns the positive integer in the environment variable name,
// or def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// TestEvaluatorWorld runs the distributed gradient phase on comm.World:
// one rank without the tag mpi, P ranks under mpirun -np P with it
// (.ci/run). Each rank makes the whole synthetic problem, evaluates the
// single-process Evaluator on all of it and the distributed one on its
// rows, and checks that F and its gradient are the same bits. The
// checks report through t.Errorf, never t.Fatal, which would leave the
// other ranks waiting.
//
// SGP_EVAL_N and SGP_EVAL_M set n and m (default 2565 and 24); with
// SGP_EVAL_TIME=k rank 0 also logs the mean time of k evaluations and
// what it sends per evaluation, e.g. (docs/scaling.md)
//
//	go test -c -tags mpi -o sgp.test ./sgp
//	SGP_EVAL_N=20000 SGP_EVAL_M=128 SGP_EVAL_TIME=10 mpirun -np 2 ./sgp.test -test.run '^TestEvaluatorWorld$' -test.v
func TestEvaluatorWorld(t *testing.T) {
	c, err := comm.World()
	if err != nil {
		t.Fatal(err)
	}
	worldUsed = true
	n, m, d := envInt("SGP_EVAL_N", 2*comm.BlockRows+517), envInt("SGP_EVAL_M", 24), 8
	x, y, active, kern := distProblem(n, d, m, 5)
	theta := append(kern.Params(nil), math.Log(0.05))
	for _, obj := range []Objective{VAR, MLE} {
		for _, mean := range []Mean{MeanConstant, MeanFixed(0.7)} {
			ref := newActiveEvaluator(x, y, kernel.Clone(kern), obj, active, make([]float64, m*n), make([]float64, m*n))
			ref.SetMean(mean)
			want := make([]float64, len(theta))
			fw, errW := ref.FuncGrad(want, theta)
			got := evalOn(c, x, y, active, kern, obj, mean, theta, true)
			if errW != nil || got.err != nil {
				t.Errorf("rank %d %v %v: %v, %v", c.Rank(), obj, mean, errW, got.err)
				continue
			}
			if math.Float64bits(got.f) != math.Float64bits(fw) {
				t.Errorf("rank %d of %d %v %v: F %v, single process %v", c.Rank(), c.Size(), obj, mean, got.f, fw)
			}
			for k := range want {
				if math.Float64bits(got.g[k]) != math.Float64bits(want[k]) {
					t.Errorf("rank %d of %d %v %v: ∂F/∂θ_%d %v, single process %v", c.Rank(), c.Size(), obj, mean, k, got.g[k], want[k])
				}
			}
		}
	}
	if k := envInt("SGP_EVAL_TIME", 0); k > 0 {
		timeWorld(t, c, x, y, active, kern, theta, k)
	}
	c.Barrier()
}

// timeWorld logs, on rank 0, the mean time of k evaluations of the
// distributed gradient phase (VAR, estimated mean, kept kernel values)
// and the bytes and messages rank 0 sends per evaluation.
func timeWorld(t *testing.T, c *comm.Comm, x *kernel.Vectors, y []float64, active []int, kern kernel.Kernel, theta []float64, k int) {
	xl, yl, lo := rankRows(x, y, c.Rank(), c.Size())
	m, nl := len(active), xl.Len()
	e := newActiveEvaluatorOn(c, xl, yl, lo, x.Len(), kernel.Clone(kern), VAR, active, inducingInputsOn(c, xl, lo, active),
		make([]float64, m*nl), make([]float64, m*nl))
	e.SetMean(MeanConstant)
	g := make([]float64, len(theta))
	if _, err := e.FuncGrad(g, theta); err != nil {
		t.Errorf("rank %d: %v", c.Rank(), err)
	}
	c.Barrier()
	c.ResetStats()
	start := time.Now()
	for range k {
		e.FuncGrad(g, theta)
	}
	el := time.Since(start)
	st := c.Stats().Total()
	c.Barrier()
	if c.Rank() == 0 {
		t.Logf("n = %d, m = %d, P = %d: %.1f ms per evaluation; rank 0 sends %d bytes in %d messages per evaluation",
			x.Len(), m, c.Size(), el.Seconds()*1e3/float64(k), st.Bytes/int64(k), st.Messages/int64(k))
	}
}
