package cli

import (
	"fmt"
	"os"
	"slices"

	"github.com/cholqr/sgp/sgp/comm"
)

// maxRanksShare is the share of a machine's available memory
// (sgp.MachineMemory) that the ranks on it may take for their rows and
// factors.
const maxRanksShare = 0.9

// rankBytes is the memory a rank's nl rows take in a fit across ranks
// (cholqr.Dist): G with m + 1 + z columns, Q with m, the inputs (d) and
// four n-vectors (the targets, their centred copy, diag K, the
// residuals), 8 bytes each.
func rankBytes(nl, m, z, d int) float64 {
	return 8 * float64(nl) * float64(2*m+z+1+d+4)
}

// checkRanksMemory returns an error on every rank, before any factor is
// allocated, when the ranks that share a machine (by host name) would
// need more than maxRanksShare of the memory it has available, naming
// the first such rank, its host and the figures: a rank that runs out
// of memory mid-fit is killed without a word, and mpirun reports only
// the signal. avail is the memory each machine has (sgp.MachineMemory,
// the same figure on the ranks of one machine). The host names are
// gathered by one broadcast per rank.
func checkRanksMemory(world *comm.Comm, nl, m, z, d int, avail float64) error {
	host, _ := os.Hostname()
	hosts := make([]string, world.Size())
	for r := range hosts {
		hosts[r] = string(world.BcastBytes([]byte(host), r))
	}
	needs := make([]int, world.Size())
	needs[world.Rank()] = int(rankBytes(nl, m, z, d))
	world.SumInts(needs)
	var err error
	shared, ranks := 0.0, 0
	for r, h := range hosts {
		if h == host {
			shared += float64(needs[r])
			ranks++
		}
	}
	if avail *= maxRanksShare; shared > avail {
		err = fmt.Errorf("fit: the %d ranks on host %s need about %.3g GB for their rows and factors (this rank's %d rows: 8·rows·(2m + z + d + 5) bytes = %.3g GB at m = %d, z = %d, d = %d), more than the %.3g GB (%.0f%% of the memory available there) they may take: run more ranks on more machines, or fit fewer inducing points",
			ranks, host, shared/1e9, nl, float64(needs[world.Rank()])/1e9, m, z, d, avail/1e9, 100*maxRanksShare)
	}
	return agree(world, err)
}

// ranksDim returns the inputs' dimension, the same on every rank (a rank
// without rows has none).
func ranksDim(world *comm.Comm, rows *rankRows) int {
	dim := 0
	if rows.data != nil && rows.data.X != nil {
		dim = rows.data.X.Dim()
	}
	return slices.Max(world.AllGatherInts([]int{dim}))
}
