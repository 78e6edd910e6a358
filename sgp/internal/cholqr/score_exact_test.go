package cholqr

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/par"

	"github.com/cholqr/sgp/sgp/kernel"
)

// TestExactDeltasMatchExactDelta checks the batched exact scores of the
// forward start against ExactDelta (itself checked against the dense
// oracle in TestExactDeltaMatchesOracle) for every point: active points
// (NaN), information pivots, ordinary candidates, and with an empty
// active set; with the chunks of the pass over the points in one group,
// several per group and one per group, and both kernel-column paths; and
// that scoring leaves the state unchanged.
func TestExactDeltasMatchExactDelta(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{7, 40, 150} {
		for _, noise := range []float64{0.1, 1e-4} {
			for _, k := range []int{0, 1, n / 5} {
				p := newProblem(rng, n, 3, 1.5, 0.9, noise)
				p.y[0] += 3 // a mean away from zero
				f := p.factor(t, k+1, 4)
				if k%2 == 1 {
					f.kern = plainKernel{f.kern} // kernel columns one at a time
				}
				if err := f.Factorize(rng.Perm(n)[:k]); err != nil {
					t.Fatal(err)
				}
				cands := make([]int, n)
				for i := range cands {
					cands[i] = i
				}
				w := newExactBatch(n, f.mcap, n, f.pool.Size())
				// One chunk, several chunks per group, one chunk per group.
				w.setChunk(n, []int{exactChunk, 1, 7}[k%3], f.pool.Size())
				for _, o := range []base.Objective{base.VAR, base.MLE} {
					before := f.Value(o)
					got := make([]float64, n)
					f.exactDeltas(cands, o, got, w)
					if v := f.Value(o); v != before {
						t.Fatalf("scoring changed F: %g → %g", before, v)
					}
					for j := 0; j < n; j++ {
						want := f.ExactDelta(j, o)
						switch {
						case math.IsNaN(want):
							if !math.IsNaN(got[j]) {
								t.Errorf("n=%d k=%d active %d: got %g, want NaN", n, k, j, got[j])
							}
						case !scalar.EqualWithinAbsOrRel(got[j], want, 1e-7, 1e-7):
							t.Errorf("n=%d σ²=%g k=%d %v j=%d: batch %.10g, ExactDelta %.10g", n, noise, k, o, j, got[j], want)
						}
					}
				}
			}
		}
	}
}

// TestExactDeltasCoreCountInvariant: the chunks' sums are grouped by n
// alone, so the scores have the same bits on one core as on three.
func TestExactDeltasCoreCountInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	const n, k = 300, 12
	p := newProblem(rng, n, 2, 1.2, 0.8, 0.05)
	f := p.factor(t, k+1, 4)
	if err := f.Factorize(rng.Perm(n)[:k]); err != nil {
		t.Fatal(err)
	}
	cands := rng.Perm(n)[:9]
	scores := func(procs int) []float64 {
		prev := runtime.GOMAXPROCS(procs)
		f.pool = par.NewPool()
		runtime.GOMAXPROCS(prev)
		w := newExactBatch(n, f.mcap, len(cands), f.pool.Size())
		w.setChunk(n, 5, f.pool.Size()) // 60 chunks in 60 groups
		dst := make([]float64, len(cands))
		f.exactDeltas(cands, base.VAR, dst, w)
		return dst
	}
	one, three := scores(1), scores(3)
	for q := range one {
		if math.Float64bits(one[q]) != math.Float64bits(three[q]) {
			t.Fatalf("candidate %d: %v on one core, %v on three", cands[q], one[q], three[q])
		}
	}
}

// plainKernel hides the optional methods of the kernel it wraps.
type plainKernel struct{ kernel.Kernel }
