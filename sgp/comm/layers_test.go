package comm

import (
	"testing"

	"github.com/cholqr/sgp/sgp/internal/layers"
)

// fileLayers lists the package's files from its foundations up, with
// what each holds: a file refers only to the files before it.
var fileLayers = []string{
	"comm.go",       // Comm, its operations and counters, the transport they use
	"single.go",     // the transport of one rank
	"local.go",      // ranks of one process joined by channels
	"world_stub.go", // World without the tag mpi: one rank
	"world_mpi.go",  // World with the tag mpi: MPI_COMM_WORLD through gompi
}

// TestFileLayers checks that no file refers to a file after it in
// fileLayers, and that every file is listed.
func TestFileLayers(t *testing.T) {
	t.Parallel()
	layers.Check(t, ".", fileLayers)
}
