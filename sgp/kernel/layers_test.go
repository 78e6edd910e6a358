package kernel

import (
	"testing"

	"github.com/cholqr/sgp/sgp/internal/layers"
)

// fileLayers lists the package's files from its foundations up, with
// what each holds: a file refers only to the files before it.
var fileLayers = []string{
	"doc.go",             // the package documentation
	"inputs.go",          // Inputs and Vectors
	"kernel.go",          // Kernel and the optional interfaces of the fast paths
	"sparse.go",          // sparse feature vectors and their inverted index
	"inputs_discrete.go", // strings, graphs, histograms and sparse counts
	"discrete.go",        // what the discrete kernels share
	"display.go",         // the kernels' displays
	"spread.go",          // what the starting hyperparameters take from the data
	"stationary.go",      // the blocks and gradients of kernels of a scaled distance
	"rbf.go",             // RBF with one lengthscale per dimension
	"matern.go",          // the Matérn and rational quadratic kernels
	"linear.go",          // the linear and constant kernels
	"periodic.go",        // the periodic kernel
	"spectrum.go",        // the k-mer spectrum kernel
	"tanimoto.go",        // the Tanimoto (MinMax) kernel
	"wl.go",              // the WL subtree kernel and fingerprints
	"histogram.go",       // the histogram intersection kernel
	"basis.go",           // the blocks of the scaled-sum kernels
	"func.go",            // a kernel from a user's function
	"composite.go",       // what a sum and a product of kernels share
	"sum.go",             // a sum of kernels
	"product.go",         // a product of kernels
	"clone.go",           // copies of kernels
	"parse.go",           // kernels from their specifications
	"json.go",            // the kernels' JSON form
	"inputs_json.go",     // the inputs' JSON form
	"caps.go",            // which fitters can use a kernel
}

// TestFileLayers checks that no file refers to a file after it in
// fileLayers, and that every file is listed.
func TestFileLayers(t *testing.T) {
	t.Parallel()
	layers.Check(t, ".", fileLayers)
}
