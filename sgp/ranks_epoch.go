package sgp

import (
	"context"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/internal/cholqr"
)

// ranksEpoch runs one epoch of FitRanks' swaps on d, the pass of
// cholqr.Dist.Epoch (each inducing point in turn from the last position
// to the first, s candidates drawn by rnd among the rows not active,
// then Dist.SwapBest), with a stop check before each swap: one comm.Any
// of ctx's state, so that every rank stops before the same swap. An
// interrupt is then honoured within one swap, not one epoch: mpirun
// (Open MPI 4.1) sends the ranks SIGTERM, then SIGKILL a second later
// by default (odls_base_sigkill_timeout; docs/scaling.md), and rank 0
// must write the partial model in between. It returns the swaps made and
// accepted, whether ctx cut the epoch short, and the messages and bytes
// this rank sent in the swaps alone (not the checks).
func ranksEpoch(ctx context.Context, c *comm.Comm, d *cholqr.Dist, o Objective, s int, rnd func(n int) int) (swaps, accepted int, cut bool, sent comm.Count) {
	cands := make([]int, 0, s)
	for p := d.NumActive() - 1; p >= 0; p-- {
		if c.Any(ctx.Err() != nil) {
			return swaps, accepted, true, sent
		}
		cands = cands[:0]
		for try := 0; len(cands) < s && try < 4*s; try++ {
			if j := rnd(d.N()); !d.IsActive(j) {
				cands = append(cands, j)
			}
		}
		before := c.Stats().Total()
		if d.SwapBest(p, cands, o).Accepted {
			accepted++
		}
		after := c.Stats().Total()
		sent.Messages += after.Messages - before.Messages
		sent.Bytes += after.Bytes - before.Bytes
		swaps++
	}
	return swaps, accepted, false, sent
}
