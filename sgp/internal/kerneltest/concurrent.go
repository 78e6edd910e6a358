package kerneltest

import (
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/cholqr/sgp/sgp/kernel"
)

// testConcurrent calls Column, Diag and AddGrad from many goroutines on
// disjoint row ranges and compares with serial calls. Run the tests with
// -race to also catch data races.
func testConcurrent(t *testing.T, k kernel.Kernel, x kernel.Inputs, rnd *rand.Rand) {
	n, np := x.Len(), k.NumParams()
	K := gram(k, x)
	scale := maxDiag(K)
	diag := make([]float64, n)
	k.Diag(diag, x, 0, n)
	cols := rnd.Perm(n)[:min(n, maxCols)]
	nc := len(cols)
	w := randWeights(rnd, n*nc)
	grad := make([]float64, np)
	k.AddGrad(grad, w, x, 0, n, x, cols)

	par := mat.NewDense(n, n, nil)
	pdiag := make([]float64, n)
	var parts [][]float64
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		for j := range n {
			wg.Go(func() {
				col := make([]float64, hi-lo)
				k.Column(col, x, lo, hi, x, j)
				for i, v := range col {
					par.Set(lo+i, j, v) // disjoint elements: no race
				}
			})
		}
		wg.Go(func() { k.Diag(pdiag[lo:hi], x, lo, hi) })
		part := make([]float64, np)
		parts = append(parts, part)
		wg.Go(func() { k.AddGrad(part, w[lo*nc:hi*nc], x, lo, hi, x, cols) })
	}
	wg.Wait()

	for i := range n {
		for j := range n {
			if got, want := par.At(i, j), K.At(i, j); !near(got, want, scale, sameTol) {
				t.Errorf("concurrent κ(x_%d, x_%d) = %v, serial %v", i, j, got, want)
			}
		}
		if got, want := pdiag[i], diag[i]; !near(got, want, scale, sameTol) {
			t.Errorf("concurrent Diag[%d] = %v, serial %v", i, got, want)
		}
	}
	sum := make([]float64, np)
	for _, part := range parts {
		for p, v := range part {
			sum[p] += v
		}
	}
	checkGrad(t, "AddGrad summed over concurrent ranges", k, sum, grad, scale, splitTol)
}
