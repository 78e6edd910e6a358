package figure

import (
	"testing"

	"github.com/cholqr/sgp/sgp/internal/layers"
)

// fileLayers lists the package's files from its foundations up, with
// what each holds: a file refers only to the files before it.
var fileLayers = []string{
	"doc.go",     // the package documentation
	"figure.go",  // Figure: panels drawn to PNG and SVG
	"ticks.go",   // axis ticks
	"panel.go",   // a panel's style, lines and marks
	"parity.go",  // parity plots
	"ranking.go", // the cost ranking figure
	"trace.go",   // the objective by epoch
	"fit1d.go",   // a 1-D fit with its inducing points
	"samples.go", // posterior draws of a 1-D fit
	"curves.go",  // curves of series
}

// TestFileLayers checks that no file refers to a file after it in
// fileLayers, and that every file is listed.
func TestFileLayers(t *testing.T) {
	t.Parallel()
	layers.Check(t, ".", fileLayers)
}
