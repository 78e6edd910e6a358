package kerneltest

import (
	"testing"

	"github.com/cholqr/sgp/sgp/internal/layers"
)

// fileLayers lists the package's files from its foundations up, with
// what each holds: a file refers only to the files before it.
var fileLayers = []string{
	"check.go",      // the tolerances and the dense helpers the checks share
	"params.go",     // the hyperparameter bookkeeping
	"values.go",     // the kernel values
	"grad.go",       // the gradients against finite differences
	"block.go",      // the block fast paths and the input gradients
	"concurrent.go", // evaluation from several goroutines
	"kerneltest.go", // Test, the suite
}

// TestFileLayers checks that no file refers to a file after it in
// fileLayers, and that every file is listed.
func TestFileLayers(t *testing.T) {
	t.Parallel()
	layers.Check(t, ".", fileLayers)
}
