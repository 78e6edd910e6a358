package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// spRandomSet returns n random sparse rows with indices drawn from a small
// range in the top bits (as WL depths) and the low bits, some rows empty.
func spRandomSet(rnd *rand.Rand, n int) *sparseFeatures {
	var b sparseBuilder
	b.init(n)
	for range n {
		m := make(map[uint64]float64)
		for range rnd.IntN(15) {
			k := uint64(rnd.IntN(4))<<wlDepthShift | uint64(rnd.IntN(30))
			m[k] = float64(1+rnd.IntN(5)) / float64(1+rnd.IntN(2))
		}
		keys := make([]uint64, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			b.push(k, m[k])
		}
		b.endRow()
	}
	return newSparseFeatures(b.done())
}

// spNaive returns Σ_k f(a_k, b_k) over the common indices, added in
// increasing index order, through maps.
func spNaive(ai []uint64, av []float64, bi []uint64, bv []float64, f func(a, b float64) float64) float64 {
	m := make(map[uint64]float64)
	for t, k := range bi {
		m[k] = bv[t]
	}
	var s float64
	for t, k := range ai {
		if v, ok := m[k]; ok {
			s += f(av[t], v)
		}
	}
	return s
}

func TestSparsePrimitives(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 1))
	const n = 64
	x, y := spRandomSet(rnd, n), spRandomSet(rnd, 9)
	mul := func(a, b float64) float64 { return a * b }
	for j := 0; j < y.n(); j++ {
		bi, bv := y.row(j)
		for i := 0; i < n; i++ {
			ai, av := x.row(i)
			// Bit equality: the same products added in the same order.
			if got, want := sparseDot(ai, av, bi, bv), spNaive(ai, av, bi, bv, mul); got != want {
				t.Fatalf("sparseDot(x%d, y%d) = %v, naive %v", i, j, got, want)
			}
			if got, want := sparseMinSum(ai, av, bi, bv), spNaive(ai, av, bi, bv, math.Min); got != want {
				t.Fatalf("sparseMinSum(x%d, y%d) = %v, naive %v", i, j, got, want)
			}
			acc := make([]float64, 4)
			sparseDotSplit(acc, wlDepthShift, ai, av, bi, bv)
			for d := range acc {
				lo, hi := uint64(d)<<wlDepthShift, uint64(d+1)<<wlDepthShift
				var want float64
				for t2, k := range ai {
					if k >= lo && k < hi {
						if q, ok := slices.BinarySearch(bi, k); ok {
							want += av[t2] * bv[q]
						}
					}
				}
				if acc[d] != want {
					t.Fatalf("sparseDotSplit(x%d, y%d)[%d] = %v, want %v", i, j, d, acc[d], want)
				}
			}
		}
		// The inverted index over every row range gives the merges' values
		// bit for bit.
		for _, r := range [][2]int{{0, n}, {0, 1}, {5, 6}, {7, 40}, {n - 1, n}, {30, 30}} {
			lo, hi := r[0], r[1]
			dot, mins := make([]float64, hi-lo), make([]float64, hi-lo)
			split := make([]float64, 4*(hi-lo))
			x.index().scatterDot(dot, lo, hi, bi, bv)
			x.index().scatterMinSum(mins, lo, hi, bi, bv)
			x.index().scatterDotSplit(split, wlDepthShift, lo, hi, bi, bv)
			for i := lo; i < hi; i++ {
				ai, av := x.row(i)
				if want := sparseDot(ai, av, bi, bv); dot[i-lo] != want {
					t.Errorf("scatterDot [%d,%d) row %d, y%d = %v, merge %v", lo, hi, i, j, dot[i-lo], want)
				}
				if want := sparseMinSum(ai, av, bi, bv); mins[i-lo] != want {
					t.Errorf("scatterMinSum [%d,%d) row %d, y%d = %v, merge %v", lo, hi, i, j, mins[i-lo], want)
				}
				acc := make([]float64, 4)
				sparseDotSplit(acc, wlDepthShift, ai, av, bi, bv)
				for d := range acc {
					if got := split[d*(hi-lo)+i-lo]; got != acc[d] {
						t.Errorf("scatterDotSplit [%d,%d) row %d, y%d, group %d = %v, merge %v", lo, hi, i, j, d, got, acc[d])
					}
				}
			}
		}
	}
	sub := x.subset([]int{3, 0, 3})
	for r, i := range []int{3, 0, 3} {
		a, av := sub.row(r)
		b, bv := x.row(i)
		if !slices.Equal(a, b) || !slices.Equal(av, bv) || sub.sq[r] != x.sq[i] || sub.sum[r] != x.sum[i] {
			t.Errorf("subset row %d differs from row %d", r, i)
		}
	}
}

func TestCountRows(t *testing.T) {
	t.Parallel()
	sp := countRows(3, func(i int, buf []uint64) []uint64 {
		return append(buf, [][]uint64{{5, 1, 5, 5}, {}, {2, 9, 2}}[i]...)
	})
	want := []string{"[1 5] [1 3]", "[] []", "[2 9] [2 1]"}
	for i, w := range want {
		ix, vx := sp.row(i)
		if got := fmt.Sprint(ix, vx); got != w {
			t.Errorf("row %d = %s, want %s", i, got, w)
		}
	}
	if sp.sq[0] != 10 || sp.sum[2] != 3 {
		t.Errorf("sq[0] = %v, sum[2] = %v, want 10 and 3", sp.sq[0], sp.sum[2])
	}
}

// TestFeatureCacheConcurrentBuild calls Column of a cold WL kernel and
// inputs from many goroutines at once: the features are built once and every
// goroutine sees the same values as a serial evaluation. Run with -race.
func TestFeatureCacheConcurrentBuild(t *testing.T) {
	t.Parallel()
	var gs []*Graph
	for _, s := range []string{"CCO", "ccccccO", "CC=ON", "CCC", "NCC", "OCCOCO", "cccncc", "CCCCCl"} {
		// A path graph labelled by the characters of s.
		var labels []string
		var edges []Edge
		for i, r := range s {
			labels = append(labels, string(r))
			if i > 0 {
				edges = append(edges, Edge{U: i - 1, V: i, Label: 1})
			}
		}
		g, err := NewGraph(labels, edges)
		if err != nil {
			t.Fatal(err)
		}
		for range 8 {
			gs = append(gs, g)
		}
	}
	serialX, _ := NewGraphs(gs)
	k := NewWLPerDepth([]float64{0.5, 1, 2})
	n := len(gs)
	want := make([]float64, n*n)
	for j := range n {
		k.Column(want[j*n:(j+1)*n], serialX, 0, n, serialX, j)
	}
	x, _ := NewGraphs(gs) // cold cache
	got := make([]float64, n*n)
	var wg sync.WaitGroup
	for j := range n {
		for lo := 0; lo < n; lo += 20 {
			wg.Go(func() { k.Column(got[j*n+lo:j*n+min(n, lo+20)], x, lo, min(n, lo+20), x, j) })
		}
	}
	wg.Wait()
	for e := range got {
		if got[e] != want[e] {
			t.Fatalf("entry %d: concurrent %v, serial %v", e, got[e], want[e])
		}
	}

	var c featureCache
	var builds atomic.Int32
	for range 16 {
		wg.Go(func() {
			v := c.get(featKey{featWL, 7}, func() any { builds.Add(1); return 42 })
			if v.(int) != 42 {
				t.Errorf("get = %v", v)
			}
		})
	}
	wg.Wait()
	if builds.Load() != 1 {
		t.Errorf("%d builds for one key, want 1", builds.Load())
	}
}
