package comm

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/par"
)

// The checks below are collective: every rank runs the same sequence of
// operations, reporting what it finds wrong through t.Errorf (never
// t.Fatal, which would leave the other ranks waiting). They run on the
// ranks of Local for P = 1 to 5, and on World: one rank without the tag
// mpi, and P ranks under mpirun -np P with it (.ci/run).

// worldUsed records whether a test initialised World, for TestMain to
// finalise it.
var worldUsed bool

func TestMain(m *testing.M) {
	code := m.Run()
	if worldUsed {
		c, err := World()
		if err == nil {
			err = c.Finalize()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// onRanks runs check on every rank of Local(p), each on its own
// goroutine, and waits for them.
func onRanks(t *testing.T, p int, check func(t *testing.T, c *Comm)) {
	t.Helper()
	var wg sync.WaitGroup
	for _, c := range Local(p) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			check(t, c)
		}()
	}
	wg.Wait()
}

// collective lists the checks run on every communicator.
var collective = []struct {
	name  string
	check func(t *testing.T, c *Comm)
}{
	{"OrderedSum", checkOrderedSum},
	{"ArgMax", checkArgMax},
	{"Broadcasts", checkBroadcasts},
	{"AllGatherInts", checkAllGather},
	{"SumFloat64s", checkSum},
	{"SumInts and Any", checkIntsAny},
	{"Counts", checkCounts},
}

// TestLocal runs the collective checks on the ranks of one process.
func TestLocal(t *testing.T) {
	for p := 1; p <= 5; p++ {
		for _, cc := range collective {
			t.Run(fmt.Sprintf("P=%d/%s", p, cc.name), func(t *testing.T) { onRanks(t, p, cc.check) })
		}
	}
}

// TestWorld runs the collective checks on World, with as many ranks as
// the job has.
func TestWorld(t *testing.T) {
	c, err := World()
	if err != nil {
		t.Fatal(err)
	}
	worldUsed = true
	if !MPI && c.Size() != 1 {
		t.Fatalf("World without MPI has %d ranks, want 1", c.Size())
	}
	t.Logf("rank %d of %d", c.Rank(), c.Size())
	for _, cc := range collective {
		t.Run(cc.name, func(t *testing.T) { cc.check(t, c) })
	}
	c.Barrier()
}

// blockRows returns the rows of n (in whole blocks of size b) that rank r
// of p holds: the blocks are dealt unevenly, rank r getting a share that
// grows with r, and some ranks none when there are few blocks.
func blockRows(n, b, r, p int) (lo, hi int) {
	blocks := (n + b - 1) / b
	w := func(r int) int { return blocks * r * (r + 1) / (p * (p + 1)) }
	return min(n, w(r)*b), min(n, w(r+1)*b)
}

// orderData returns n rows of width values whose sum depends on the order
// of the additions: magnitudes over 30 decades with both signs.
func orderData(n, width int) []float64 {
	rng := rand.New(rand.NewPCG(7, 11))
	x := make([]float64, n*width)
	for k := range x {
		x[k] = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(30)-15))
	}
	return x
}

// checkOrderedSum checks that OrderedSum of the per-block partials of the
// rows of each rank equals, bit for bit, par.Reduce over all rows in one
// process (blocks of par.ReduceChunk rows), for a number of rows that
// does not divide into blocks or ranks; and that adding each rank's own
// total instead would not (so that the test can fail).
func checkOrderedSum(t *testing.T, c *Comm) {
	const width = 3
	n := 9*par.ReduceChunk + 37
	x := orderData(n, width)
	sumRows := func(lo, hi int, acc []float64) {
		for i := lo; i < hi; i++ {
			for j := range width {
				acc[j] += x[i*width+j]
			}
		}
	}
	want := make([]float64, width)
	par.Reduce(n, width, want, sumRows)

	lo, hi := blockRows(n, par.ReduceChunk, c.Rank(), c.Size())
	var parts []float64
	for b := lo; b < hi; b += par.ReduceChunk {
		acc := make([]float64, width)
		sumRows(b, min(hi, b+par.ReduceChunk), acc)
		parts = append(parts, acc...)
	}
	got := make([]float64, width)
	c.OrderedSum(parts, width, got)
	for j := range width {
		if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
			t.Errorf("rank %d of %d: OrderedSum[%d] = %x, want %x", c.Rank(), c.Size(), j, got[j], want[j])
		}
	}

	// The data are such that a sum of the ranks' totals differs: rank
	// totals summed from zero in rank order, as one all-reduce would.
	own := make([]float64, width)
	for b := 0; b < len(parts); b += width {
		for j := range width {
			own[j] += parts[b+j]
		}
	}
	c.SumFloat64s(own)
	if c.Size() == 4 && own[0] == want[0] && own[1] == want[1] && own[2] == want[2] {
		t.Errorf("rank %d of 4: the sum of the rank totals equals the ordered sum; the data do not test the order", c.Rank())
	}
}

// checkArgMax checks the ties, NaN and ranks offering nothing.
func checkArgMax(t *testing.T, c *Comm) {
	r, p := c.Rank(), c.Size()
	check := func(what string, v float64, i int, wantV float64, wantI int) {
		gotV, gotI := c.ArgMax(v, i)
		if gotI != wantI || gotV != wantV {
			t.Errorf("rank %d of %d: ArgMax %s = (%g, %d), want (%g, %d)", r, p, what, gotV, gotI, wantV, wantI)
		}
	}
	// Every rank ties: the smallest global index wins, whatever the rank
	// order of the indices (here, decreasing with the rank).
	check("all tied", 2.5, 100-r, 2.5, 100-(p-1))
	// The maximum on the last rank only.
	check("on the last rank", float64(r), 10*r, float64(p-1), 10*(p-1))
	// A tie between rank 0 and the last rank, the last offering the
	// smaller index.
	v, i := 1.0, 50+r
	if r == 0 || r == p-1 {
		v = 7
	}
	if r == p-1 {
		i = 3
	}
	check("tie of first and last", v, i, 7, 3)
	// NaN loses to every number; a rank with no candidate is ignored.
	v, i = math.NaN(), r
	if r == p/2 {
		v = -1e300
	}
	check("NaN", v, i, -1e300, p/2)
	i = -1
	if r == p-1 {
		i = 8
	}
	check("only the last rank offers", 0.5, i, 0.5, 8)
	check("none offers", 1, -1, math.Inf(-1), -1)
}

// checkBroadcasts checks the broadcasts from every root: floats with
// their bits (NaN payloads, −0), ints of both signs, bytes of lengths
// around the 8-byte words they travel in.
func checkBroadcasts(t *testing.T, c *Comm) {
	r, p := c.Rank(), c.Size()
	for root := range p {
		f := []float64{0, 0, 0, 0}
		want := []float64{math.Copysign(0, -1), math.Float64frombits(0x7ff8_0000_dead_beef), float64(root) + 0.25, math.Inf(1)}
		if r == root {
			copy(f, want)
		}
		c.BcastFloat64s(f, root)
		for k := range f {
			if math.Float64bits(f[k]) != math.Float64bits(want[k]) {
				t.Errorf("rank %d of %d: BcastFloat64s from %d: [%d] = %x, want %x", r, p, root, k, math.Float64bits(f[k]), math.Float64bits(want[k]))
			}
		}
		ints := make([]int, 3)
		wantInts := []int{-root - 1, math.MaxInt64, math.MinInt64 + root}
		if r == root {
			copy(ints, wantInts)
		}
		c.BcastInts(ints, root)
		for k := range ints {
			if ints[k] != wantInts[k] {
				t.Errorf("rank %d of %d: BcastInts from %d: [%d] = %d, want %d", r, p, root, k, ints[k], wantInts[k])
			}
		}
		for _, n := range []int{0, 1, 7, 8, 9, 1000} {
			msg := bytes.Repeat([]byte{byte(root), 0xff, 0, 'a', 0x80}, n)[:n]
			var send []byte
			if r == root {
				send = msg
			} else {
				send = []byte("not the root's")
			}
			if got := c.BcastBytes(send, root); !bytes.Equal(got, msg) {
				t.Errorf("rank %d of %d: BcastBytes of %d bytes from %d = %q", r, p, n, root, got)
			}
		}
	}
}

// checkAllGather checks that every rank gets the ranks' values in rank
// order.
func checkAllGather(t *testing.T, c *Comm) {
	r, p := c.Rank(), c.Size()
	got := c.AllGatherInts([]int{r * 1000, -r, math.MaxInt64 - r})
	if len(got) != 3*p {
		t.Errorf("rank %d of %d: AllGatherInts returned %d values, want %d", r, p, len(got), 3*p)
		return
	}
	for q := range p {
		want := []int{q * 1000, -q, math.MaxInt64 - q}
		for k := range want {
			if got[3*q+k] != want[k] {
				t.Errorf("rank %d of %d: AllGatherInts[%d] = %d, want %d", r, p, 3*q+k, got[3*q+k], want[k])
			}
		}
	}
}

// checkSum checks SumFloat64s on integers, exact in any order.
func checkSum(t *testing.T, c *Comm) {
	r, p := c.Rank(), c.Size()
	x := []float64{1, float64(r), float64(r * r)}
	c.SumFloat64s(x)
	want := []float64{float64(p), float64(p * (p - 1) / 2), float64((p - 1) * p * (2*p - 1) / 6)}
	for k := range x {
		if x[k] != want[k] {
			t.Errorf("rank %d of %d: SumFloat64s[%d] = %g, want %g", r, p, k, x[k], want[k])
		}
	}
	c.SumFloat64s(nil)
}

// checkCounts checks the counters against what each operation sends
// from each rank.
func checkCounts(t *testing.T, c *Comm) {
	r, p := c.Rank(), c.Size()
	c.Barrier()
	c.ResetStats()
	const width = 5
	parts := make([]float64, 2*width) // two blocks
	c.OrderedSum(parts, width, make([]float64, width))
	c.SumFloat64s(make([]float64, 4))
	c.ArgMax(1, r)
	c.BcastFloat64s(make([]float64, 6), 1%p)
	c.BcastBytes(make([]byte, 9), 0)
	c.AllGatherInts([]int{r})
	c.Any(r == 0)
	c.Barrier()
	got := c.Stats()

	var want Stats
	for k := range want {
		want[k].Calls = 1
	}
	want[KindBcast].Calls = 2
	want[KindBarrier].Calls = 1
	if p > 1 {
		// Each rank sends the running sum on, and the last broadcasts
		// the total: one message of the width on every rank.
		want[KindOrderedSum] = Count{1, 1, 8 * width}
		want[KindSum] = Count{1, 1, 32}
		want[KindArgMax] = Count{1, 2, 16}
		if r == 1 {
			want[KindBcast].Messages, want[KindBcast].Bytes = 1, 48
		}
		if r == 0 {
			want[KindBcast].Messages, want[KindBcast].Bytes = 2, 8+16 // length, then two words
		}
		want[KindGather] = Count{1, 1, int64(8 * p)}
		want[KindBarrier] = Count{1, 1, 0}
		want[KindAny] = Count{1, 1, 8}
	}
	for k := range got {
		if got[k] != want[k] {
			t.Errorf("rank %d of %d: %v counted %+v, want %+v", r, p, Kind(k), got[k], want[k])
		}
	}
	if tot := got.Total(); tot.Calls != 8 {
		t.Errorf("rank %d of %d: %d calls in all, want 8", r, p, tot.Calls)
	}
}

// TestLocalAbort checks that Abort on one rank of Local ends the
// operations the others wait in.
func TestLocalAbort(t *testing.T) {
	cs := Local(3)
	errs := make([]any, 3)
	var wg sync.WaitGroup
	for r, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { errs[r] = recover() }()
			if r == 2 {
				c.Abort(3)
			}
			c.SumFloat64s([]float64{1})
		}()
	}
	wg.Wait()
	for r, e := range errs {
		a, ok := e.(*AbortError)
		if !ok || a.Rank != 2 || a.Code != 3 {
			t.Errorf("rank %d: recovered %v, want the abort of rank 2 with status 3", r, e)
		}
	}
}

// TestSpan checks that the ranks' spans cover the rows in order, in
// whole blocks but for the last, with block counts differing by at most
// one, and that Owner names the rank of each row.
func TestSpan(t *testing.T) {
	for _, n := range []int{0, 1, 5, 1023, 1024, 1025, 10*1024 + 7} {
		for p := 1; p <= 7; p++ {
			next, least, most := 0, math.MaxInt, 0
			for r := range p {
				lo, hi := Span(n, BlockRows, r, p)
				if lo != next || hi < lo || (lo%BlockRows != 0 && lo != n) || (hi%BlockRows != 0 && hi != n) {
					t.Errorf("n=%d P=%d rank %d: rows [%d, %d) after %d", n, p, r, lo, hi, next)
				}
				for i := lo; i < hi; i += max(1, (hi-lo)/5) {
					if o := Owner(n, BlockRows, p, i); o != r {
						t.Errorf("n=%d P=%d: Owner of row %d = %d, want %d", n, p, i, o, r)
					}
				}
				if hi > lo {
					if o := Owner(n, BlockRows, p, hi-1); o != r {
						t.Errorf("n=%d P=%d: Owner of row %d = %d, want %d", n, p, hi-1, o, r)
					}
				}
				b := (hi - lo + BlockRows - 1) / BlockRows
				least, most, next = min(least, b), max(most, b), hi
			}
			if next != n || most-least > 1 {
				t.Errorf("n=%d P=%d: the spans end at %d, blocks from %d to %d a rank", n, p, next, least, most)
			}
		}
	}
}

// TestOwnerSmall checks Owner on every row of small layouts, where ranks
// without rows are many.
func TestOwnerSmall(t *testing.T) {
	for n := 1; n <= 20; n++ {
		for block := 1; block <= 3; block++ {
			for p := 1; p <= 7; p++ {
				for r := range p {
					lo, hi := Span(n, block, r, p)
					for i := lo; i < hi; i++ {
						if o := Owner(n, block, p, i); o != r {
							t.Errorf("n=%d block=%d P=%d: Owner of row %d = %d, want %d", n, block, p, i, o, r)
						}
					}
				}
			}
		}
	}
}

// checkIntsAny checks SumInts beyond float64's exact integers, and Any.
func checkIntsAny(t *testing.T, c *Comm) {
	r, p := c.Rank(), c.Size()
	x := []int{1 << 60, r, -r}
	c.SumInts(x)
	if want := []int{p << 60, p * (p - 1) / 2, -p * (p - 1) / 2}; x[0] != want[0] || x[1] != want[1] || x[2] != want[2] {
		t.Errorf("rank %d of %d: SumInts = %v, want %v", r, p, x, want)
	}
	if c.Any(false) {
		t.Errorf("rank %d of %d: Any(false) on every rank = true", r, p)
	}
	if !c.Any(r == p-1) {
		t.Errorf("rank %d of %d: Any(true on the last rank) = false", r, p)
	}
	if !c.Any(true) {
		t.Errorf("rank %d of %d: Any(true) on every rank = false", r, p)
	}
}
