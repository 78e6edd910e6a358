package sgp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/cholqr/sgp/sgp/comm"
	"github.com/cholqr/sgp/sgp/kernel"
)

// TestCanonicalOrderRanks checks that the canonical order computed across
// P = 1…4 ranks is, on every rank, the order of canonicalRows in one
// process, on rows with ties (duplicated rows and a column of few values)
// spread over uneven ranks, and that it is a permutation.
func TestCanonicalOrderRanks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, d = 2900, 3
	data := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		data[i*d] = rng.Float64()
		data[i*d+1] = float64(rng.IntN(4)) // ties within the column
		data[i*d+2] = 10 * rng.NormFloat64()
		y[i] = rng.Float64()
		if i%7 == 3 { // a duplicate of an earlier row, target included
			j := rng.IntN(i)
			copy(data[i*d:(i+1)*d], data[j*d:(j+1)*d])
			y[i] = y[j]
		}
	}
	x, err := kernel.NewVectors(n, d, data)
	if err != nil {
		t.Fatal(err)
	}
	want := canonicalRows(x, y)
	if ref := sortedRowsReference(data, y, d); !slices.Equal(want, ref) {
		t.Fatalf("canonicalRows differs from a plain sort of the standardised rows")
	}
	for P := 1; P <= 4; P++ {
		got := make([][]int, P)
		var wg sync.WaitGroup
		for r, c := range comm.Local(P) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lo, hi := comm.Span(n, comm.BlockRows, r, P)
				var xr *kernel.Vectors
				if hi > lo {
					xr, _ = kernel.NewVectors(hi-lo, d, data[lo*d:hi*d])
				}
				got[r] = canonicalOrder(c, xr, y[lo:hi], lo, n, d)
			}()
		}
		wg.Wait()
		for r, g := range got {
			if P > 1 && r > 0 && !slices.Equal(g, got[0]) {
				t.Errorf("P=%d: ranks 0 and %d differ", P, r)
			}
			if !slices.Equal(g, want) {
				t.Errorf("%s: the order differs from canonicalRows'", fmt.Sprintf("P=%d rank %d", P, r))
			}
		}
	}
}

// sortedRowsReference is canonicalRows computed plainly: every row's key
// (its values standardised by column, sorted, then the standardised
// target), a stable sort of the rows by key, then the fixed shuffle.
func sortedRowsReference(data, y []float64, d int) []int {
	n := len(y)
	col := func(t int) []float64 {
		v := make([]float64, n)
		for i := range v {
			if t == d {
				v[i] = y[i]
			} else {
				v[i] = data[i*d+t]
			}
		}
		return v
	}
	keys := make([][]float64, n)
	for i := range keys {
		keys[i] = make([]float64, d+1)
	}
	for t := 0; t <= d; t++ {
		v := col(t)
		m, vr := meanVar(v)
		for i := range keys {
			if vr > 0 {
				keys[i][t] = (v[i] - m) / math.Sqrt(vr)
			}
		}
	}
	for i := range keys {
		slices.Sort(keys[i][:d])
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return slices.Compare(keys[a], keys[b]) })
	out := make([]int, n)
	for p, q := range rand.New(rand.NewPCG(uint64(n), canonicalStream)).Perm(n) {
		out[p] = order[q]
	}
	return out
}
