package base

import (
	"testing"

	"github.com/cholqr/sgp/sgp/internal/layers"
)

// fileLayers lists the package's files from its foundations up, with
// what each holds: a file refers only to the files before it.
var fileLayers = []string{
	"doc.go",       // the package documentation
	"objective.go", // the objectives, their terms, the engine's counters
	"errors.go",    // the errors the models and the engine share
	"mean.go",      // the prior on an estimated mean
	"kernel.go",    // a kernel read over all rows in parallel
	"display.go",   // a swap's result; text and HTML displays of Parts and SwapResult
}

// TestFileLayers checks that no file refers to a file after it in
// fileLayers, and that every file is listed.
func TestFileLayers(t *testing.T) {
	t.Parallel()
	layers.Check(t, ".", fileLayers)
}
