package cholqr

import (
	"math"
	"slices"
	"testing"

	"github.com/cholqr/sgp/sgp/internal/base"
	"github.com/cholqr/sgp/sgp/internal/naive"
)

// nearDuplicateProblem is naive.NearDuplicateProblem: point 7 a copy of
// point 3 moved by 1e-5, below keepTol given point 3.
func nearDuplicateProblem() *problem { return fromNaive(naive.NearDuplicateProblem()) }

// TestFactorizeSkipping: a set holding a near-duplicate pair cannot be
// factorised in any order; factorizeSkipping leaves out one of the pair
// and nothing else, counts it in Stats.LeftOut, and the factor is then
// that of the points kept (dense oracle, invariants).
func TestFactorizeSkipping(t *testing.T) {
	t.Parallel()
	p := nearDuplicateProblem()
	f := p.factor(t, 8, 4)
	active := []int{0, 3, 5, 7, 11, 16, 20}
	if err := f.Factorize(active); err == nil {
		t.Fatal("Factorize accepted a near-duplicate pair")
	}
	if err := f.FactorizePivoted(active); err == nil {
		t.Fatal("FactorizePivoted accepted a near-duplicate pair")
	}
	left := f.FactorizeSkipping(active)
	if len(left) != 1 || (left[0] != 3 && left[0] != 7) {
		t.Fatalf("left out %v, want one of 3 and 7", left)
	}
	if got := f.Stats().LeftOut; got != 1 {
		t.Errorf("base.Stats.LeftOut = %d, want 1", got)
	}
	kept := f.Active(nil)
	want := slices.DeleteFunc(slices.Clone(active), func(j int) bool { return j == left[0] })
	slices.Sort(kept)
	if !slices.Equal(kept, want) {
		t.Fatalf("kept %v, want %v", kept, want)
	}
	checkInvariants(t, f, p, 1e-9)
	for _, o := range []base.Objective{base.VAR, base.MLE} {
		got, wantF := f.Value(o), p.oracle(t, want, o)
		if math.Abs(got-wantF) > 1e-9*math.Abs(wantF) {
			t.Errorf("%v: F = %.12g, oracle %.12g", o, got, wantF)
		}
	}
	// A set without degenerate points is factorised whole, as by
	// FactorizePivoted.
	if left := f.FactorizeSkipping(want); len(left) != 0 {
		t.Errorf("left out %v of a regular set", left)
	}
	if got, wantF := f.Value(base.VAR), p.oracle(t, want, base.VAR); math.Abs(got-wantF) > 1e-9*math.Abs(wantF) {
		t.Errorf("regular set: F = %.12g, oracle %.12g", got, wantF)
	}
}
