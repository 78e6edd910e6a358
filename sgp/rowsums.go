package sgp

import (
	"runtime"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/par"
)

// rowSums adds sums over the rows of a rank, in blocks of comm.BlockRows
// rows, across the ranks of a comm.Comm: each block's partial sums are
// formed from a zero of their own and the partials are added to the total
// in global block order (comm.Comm.OrderedSum), so that the total is the
// same bit for bit for every number of ranks, one rank included. The rows
// of a rank start at a multiple of comm.BlockRows of the global rows
// (comm.Span's layout), so that its blocks are the global ones.
//
// With one rank the blocks are formed a wave of GOMAXPROCS at a time and
// each wave is added before the next, the additions OrderedSum makes,
// so that only that many partials exist at once; with more ranks every
// block's partials are kept until the reduction, len·width numbers for a
// rank's ⌈n/BlockRows⌉ blocks.
type rowSums struct {
	c     *comm.Comm
	n     int       // the rank's rows
	parts []float64 // the partials, one block after the other
}

// blocks returns the number of blocks of the rank's rows.
func (s *rowSums) blocks() int { return (s.n + comm.BlockRows - 1) / comm.BlockRows }

// sum sets out (of length width) to the sums over every rank's rows of
// fn's partials, fn(lo, hi, acc) adding those of rows [lo, hi) of this
// rank to acc (zero on entry). With parallel, fn is called for several
// blocks at once on separate goroutines and must not share scratch
// between calls; otherwise the blocks are formed one after the other.
// Every rank calls sum with the same width (a collective operation).
func (s *rowSums) sum(width int, parallel bool, out []float64, fn func(lo, hi int, acc []float64)) {
	clear(out)
	nb := s.blocks()
	wave := nb
	if s.c.Size() == 1 && parallel {
		wave = min(nb, runtime.GOMAXPROCS(0))
	} else if s.c.Size() == 1 {
		wave = min(nb, 1)
	}
	if need := wave * width; cap(s.parts) < need {
		s.parts = make([]float64, need)
	}
	for b0 := 0; b0 < nb; b0 += max(1, wave) {
		w := min(wave, nb-b0)
		parts := s.parts[:w*width]
		clear(parts)
		block := func(b int) {
			lo := (b0 + b) * comm.BlockRows
			fn(lo, min(s.n, lo+comm.BlockRows), parts[b*width:(b+1)*width])
		}
		if parallel {
			par.For(w, 1, func(c0, c1 int) {
				for b := c0; b < c1; b++ {
					block(b)
				}
			})
		} else {
			for b := range w {
				block(b)
			}
		}
		if s.c.Size() == 1 {
			for b := range w {
				for j, v := range parts[b*width : (b+1)*width] {
					out[j] += v
				}
			}
		}
	}
	if s.c.Size() > 1 {
		s.c.OrderedSum(s.parts[:nb*width], width, out)
	}
}
