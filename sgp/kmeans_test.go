package sgp

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"
)

// TestKMeansBlobs checks that kmeansCentres finds the means of well
// separated clusters, in the units the lengthscales set: three tight blobs
// whose separation is large only along the input with the short
// lengthscale.
func TestKMeansBlobs(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	means := [][2]float64{{0, 0}, {5, 0.3}, {10, -0.3}}
	const per = 200
	data := make([]float64, 0, 2*per*len(means))
	for _, mu := range means {
		for range per {
			data = append(data, mu[0]+0.1*rng.NormFloat64(), mu[1]+0.1*rng.NormFloat64())
		}
	}
	x, err := kernel.NewVectors(per*len(means), 2, data)
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(5) {
		z, _ := kmeansCentres(x, []float64{1, 100}, 3, rand.New(rand.NewPCG(seed, 1)))
		if z.Len() != 3 || z.Dim() != 2 {
			t.Fatalf("seed %d: %d×%d centres", seed, z.Len(), z.Dim())
		}
		for _, mu := range means {
			best := math.Inf(1)
			for c := range 3 {
				best = math.Min(best, math.Hypot(z.At(c, 0)-mu[0], z.At(c, 1)-mu[1]))
			}
			if best > 0.05 {
				t.Errorf("seed %d: no centre within 0.05 of the blob at %v (nearest %.3g); centres %v", seed, mu, best, z.RawData())
			}
		}
	}
}

// TestLloydStepOracle checks one Lloyd iteration against a direct
// computation on random data, on enough rows to run in parallel.
func TestLloydStepOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	const rows, d, m = 3000, 3, 7
	xs, cent := normals(rng, rows*d), normals(rng, m*d)
	// The oracle: nearest centre by explicit distances, then the means.
	want := append([]float64(nil), cent...)
	sum := make([]float64, m*d)
	count := make([]int, m)
	for i := range rows {
		best, bestD := -1, math.Inf(1)
		for c := range m {
			dist := 0.0
			for t := range d {
				dist += math.Pow(xs[i*d+t]-cent[c*d+t], 2)
			}
			if dist < bestD {
				best, bestD = c, dist
			}
		}
		count[best]++
		for t := range d {
			sum[best*d+t] += xs[i*d+t]
		}
	}
	for c := range m {
		if count[c] > 0 {
			for t := range d {
				want[c*d+t] = sum[c*d+t] / float64(count[c])
			}
		}
	}
	assign := make([]int32, rows)
	for i := range assign {
		assign[i] = -1
	}
	if !lloydStep(xs, d, cent, assign) {
		t.Fatal("the first step reported no change")
	}
	for k := range want {
		if math.Abs(cent[k]-want[k]) > 1e-12 {
			t.Fatalf("centre coordinate %d: %v, want %v", k, cent[k], want[k])
		}
	}
	// Iterating reaches a fixed point, which a further step leaves alone.
	for range 100 {
		if !lloydStep(xs, d, cent, assign) {
			break
		}
	}
	fixed := append([]float64(nil), cent...)
	if lloydStep(xs, d, cent, assign) {
		t.Fatal("no fixed point after 100 steps")
	}
	for k := range fixed {
		if math.Abs(cent[k]-fixed[k]) > 1e-12 {
			t.Fatalf("a step at the fixed point moved coordinate %d from %v to %v", k, fixed[k], cent[k])
		}
	}
}

// TestKMeansProperties checks kmeansCentres's invariants: the same seed
// gives the same centres; rescaling an input together with its lengthscale
// rescales the centres; fewer distinct rows than m still give m finite
// centres, all at rows; a subsampled input gives centres inside its
// bounding box.
func TestKMeansProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	const n, d, m = 600, 3, 12
	data := normals(rng, n*d)
	x, _ := kernel.NewVectors(n, d, data)
	ls := []float64{0.5, 2, 1}
	a, _ := kmeansCentres(x, ls, m, rand.New(rand.NewPCG(1, 2)))
	b, _ := kmeansCentres(x, ls, m, rand.New(rand.NewPCG(1, 2)))
	for k := range a.RawData() {
		if a.RawData()[k] != b.RawData()[k] {
			t.Fatalf("the same seed gave different centres at %d: %v, %v", k, a.RawData()[k], b.RawData()[k])
		}
	}
	scaled := append([]float64(nil), data...)
	for i := range n {
		scaled[i*d+1] *= 3
	}
	xs, _ := kernel.NewVectors(n, d, scaled)
	c, _ := kmeansCentres(xs, []float64{0.5, 6, 1}, m, rand.New(rand.NewPCG(1, 2)))
	for i := range m {
		for k := range d {
			want := a.At(i, k)
			if k == 1 {
				want *= 3
			}
			if math.Abs(c.At(i, k)-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("centre %d input %d: %v after scaling by 3, want %v", i, k, c.At(i, k), want)
			}
		}
	}

	// Five distinct rows, twelve centres.
	dup := make([]float64, 0, 50*d)
	for i := range 50 {
		dup = append(dup, float64(i%5), 0, 1)
	}
	xd, _ := kernel.NewVectors(50, d, dup)
	z, _ := kmeansCentres(xd, []float64{1, 1, 1}, m, rand.New(rand.NewPCG(3, 3)))
	if z.Len() != m {
		t.Fatalf("%d centres for m = %d", z.Len(), m)
	}
	for i := range m {
		v := z.At(i, 0)
		if math.IsNaN(v) || v != math.Round(v) || v < 0 || v > 4 || z.At(i, 1) != 0 || z.At(i, 2) != 1 {
			t.Fatalf("centre %d at %v, not at a row", i, z.RawData()[i*d:(i+1)*d])
		}
	}

	// More rows than kmeansRows: a subsample is clustered.
	big := make([]float64, (kmeansRows+500)*2)
	for i := range big {
		big[i] = rng.Float64()
	}
	xb, _ := kernel.NewVectors(kmeansRows+500, 2, big)
	zb, _ := kmeansCentres(xb, []float64{1, 1}, 4, rand.New(rand.NewPCG(9, 9)))
	for _, v := range zb.RawData() {
		if !(v >= 0 && v <= 1) {
			t.Fatalf("centre coordinate %v outside the inputs' [0, 1] box", v)
		}
	}
}

// TestKMeansSeeds checks the seeds kmeansCentres returns with the centres:
// they are rows of x bit for bit, also when a subsample is clustered
// (kmeansRows), distinct when x has m distinct rows, and drawn by D²
// sampling — a cluster of 5 far rows among 1000 gets a seed on each of 20
// draws, where a uniform draw of 4 rows would miss it 98% of the time.
func TestKMeansSeeds(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	isRow := func(x *kernel.Vectors, z *kernel.Vectors, i int) int {
		for r := range x.Len() {
			if slices.Equal(x.RawData()[r*x.Dim():(r+1)*x.Dim()], z.RawData()[i*z.Dim():(i+1)*z.Dim()]) {
				return r
			}
		}
		return -1
	}
	const n, d = 1000, 2
	data := normals(rng, n*d)
	for i := n - 5; i < n; i++ {
		data[i*d], data[i*d+1] = 100+data[i*d], 100+data[i*d+1]
	}
	x, _ := kernel.NewVectors(n, d, data)
	for seed := range uint64(20) {
		_, z := kmeansCentres(x, []float64{1, 1}, 4, rand.New(rand.NewPCG(seed, 1)))
		far := 0
		seen := map[int]bool{}
		for i := range z.Len() {
			r := isRow(x, z, i)
			if r < 0 || seen[r] {
				t.Fatalf("seed %d: seed point %d %v is not a new row of x", seed, i, z.RawData()[i*d:(i+1)*d])
			}
			seen[r] = true
			if r >= n-5 {
				far++
			}
		}
		if far == 0 {
			t.Errorf("seed %d: no seed in the far cluster", seed)
		}
	}
	// More rows than kmeansRows: the seeds are rows of the whole input.
	big := normals(rng, (kmeansRows+500)*3)
	xb, _ := kernel.NewVectors(kmeansRows+500, 3, big)
	_, zb := kmeansCentres(xb, []float64{1, 2, 3}, 6, rand.New(rand.NewPCG(9, 9)))
	for i := range zb.Len() {
		if isRow(xb, zb, i) < 0 {
			t.Fatalf("seed point %d of a subsampled input is not a row of it", i)
		}
	}
}

// normals returns n standard normal draws from rng.
func normals(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// TestKMeansCoreCountInvariant checks that kmeansCentres gives the same
// bits on one core and on four: its sums are taken by blocks in order. Not
// parallel, since it changes GOMAXPROCS.
func TestKMeansCoreCountInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, d, m = 5000, 3, 20
	x, _ := kernel.NewVectors(n, d, normals(rng, n*d))
	ls := []float64{1, 0.5, 2}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	one, _ := kmeansCentres(x, ls, m, rand.New(rand.NewPCG(1, 1)))
	runtime.GOMAXPROCS(4)
	four, _ := kmeansCentres(x, ls, m, rand.New(rand.NewPCG(1, 1)))
	for k := range one.RawData() {
		if one.RawData()[k] != four.RawData()[k] {
			t.Fatalf("coordinate %d: %v on one core, %v on four", k, one.RawData()[k], four.RawData()[k])
		}
	}
}
