package data

import (
	"testing"

	"github.com/cholqr/sgp/sgp/internal/layers"
)

// fileLayers lists the package's files from its foundations up, with
// what each holds: a file refers only to the files before it.
var fileLayers = []string{
	"doc.go",       // the package documentation
	"dataset.go",   // Dataset
	"csv.go",       // the parallel CSV reader
	"read.go",      // ReadCSV and its variants
	"ranges.go",    // a share of the rows of a CSV file, for the ranks of a distributed fit
	"columns.go",   // the input columns to predict at
	"shared.go",    // the shared data sets
	"synthetic.go", // synthetic data sets
	"records.go",   // the read loop of table readers
}

// TestFileLayers checks that no file refers to a file after it in
// fileLayers, and that every file is listed.
func TestFileLayers(t *testing.T) {
	t.Parallel()
	layers.Check(t, ".", fileLayers)
}
