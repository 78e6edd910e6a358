package par

import (
	"testing"

	"github.com/cholqr/sgp/sgp/internal/layers"
)

// fileLayers lists the package's files from its foundations up, with
// what each holds: a file refers only to the files before it.
var fileLayers = []string{
	"panic.go", // a panic captured on a goroutine
	"par.go",   // For, Rows and Reduce
	"pool.go",  // the worker pool
}

// TestFileLayers checks that no file refers to a file after it in
// fileLayers, and that every file is listed.
func TestFileLayers(t *testing.T) {
	t.Parallel()
	layers.Check(t, ".", fileLayers)
}
