package comm

import (
	"fmt"
	"testing"
)

// The benchmarks time the operations on World: with one rank without the
// tag mpi, and under mpirun with it, where every rank must run the same
// number of iterations (-test.benchtime=Nx, never a duration):
//
//	go test -c -tags mpi -o /tmp/comm.test ./sgp/comm
//	mpirun -np 2 --mca btl self,tcp /tmp/comm.test -test.run XXX \
//	    -test.bench World -test.benchtime 200x
//
// Rank 0's lines are the figures; the other ranks print theirs too.

func worldForBench(b *testing.B) *Comm {
	c, err := World()
	if err != nil {
		b.Fatal(err)
	}
	worldUsed = true
	return c
}

// BenchmarkWorldOrderedSum times OrderedSum of two blocks per rank, at
// the widths of a swap's reductions (k + z = 300) and of the gradient
// phase's K_mn products (m² at m = 256).
func BenchmarkWorldOrderedSum(b *testing.B) {
	c := worldForBench(b)
	for _, w := range []int{300, 256 * 256} {
		b.Run(fmt.Sprintf("width=%d", w), func(b *testing.B) {
			parts, out := make([]float64, 2*w), make([]float64, w)
			c.Barrier()
			b.ResetTimer()
			for range b.N {
				clear(out)
				c.OrderedSum(parts, w, out)
			}
		})
	}
}

// BenchmarkWorldSum times SumFloat64s at the same widths.
func BenchmarkWorldSum(b *testing.B) {
	c := worldForBench(b)
	for _, w := range []int{300, 256 * 256} {
		b.Run(fmt.Sprintf("width=%d", w), func(b *testing.B) {
			x := make([]float64, w)
			c.Barrier()
			b.ResetTimer()
			for range b.N {
				c.SumFloat64s(x)
			}
		})
	}
}

// BenchmarkWorldArgMax times the scoring's pick.
func BenchmarkWorldArgMax(b *testing.B) {
	c := worldForBench(b)
	c.Barrier()
	b.ResetTimer()
	for i := range b.N {
		c.ArgMax(float64(i%7), c.Rank())
	}
}

// BenchmarkWorldBcast times the broadcast of an added point's row of G
// and its input (300 + 8 numbers) from rank 0.
func BenchmarkWorldBcast(b *testing.B) {
	c := worldForBench(b)
	x := make([]float64, 308)
	c.Barrier()
	b.ResetTimer()
	for range b.N {
		c.BcastFloat64s(x, 0)
	}
}
