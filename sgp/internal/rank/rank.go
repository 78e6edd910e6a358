// Package rank ranks values, for the Spearman correlation of a cost
// ranking in package sgp and its figure in sgp/figure.
package rank

import "sort"

// Of returns the 1-based rank of each value, largest first; ties get
// the mean of their ranks.
func Of(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] > v[idx[b]] })
	r := make([]float64, len(v))
	for a := 0; a < len(idx); {
		b := a + 1
		for b < len(idx) && v[idx[b]] == v[idx[a]] {
			b++
		}
		mid := float64(a+b+1) / 2 // mean of ranks a+1 … b
		for c := a; c < b; c++ {
			r[idx[c]] = mid
		}
		a = b
	}
	return r
}
